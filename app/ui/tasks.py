"""Background work for the GUI: a ``TaskRunner`` is one QThread that runs submitted callables in
order and hands results back to the GUI thread; every QThread the UI starts is registered so a
test (and ``shutdown_all``) can prove none outlives its window.
"""

from __future__ import annotations

import itertools
import logging
import threading
import weakref
from typing import Any, Callable

from PySide6.QtCore import QObject, QThread, Signal, Slot

log = logging.getLogger(__name__)

_THREADS: "weakref.WeakSet[QThread]" = weakref.WeakSet()


def new_thread(name: str) -> QThread:
    """A QThread registered for the no-leftover-threads check."""
    thread = QThread()
    thread.setObjectName(name)
    _THREADS.add(thread)
    return thread


def running_threads() -> list[str]:
    """Names of UI-started QThreads that are still running."""
    out = []
    for t in list(_THREADS):
        try:
            if t.isRunning():
                out.append(t.objectName())
        except RuntimeError:  # C++ object already gone: it is not running
            pass
    return out


class _Worker(QObject):
    """Lives in the runner's thread; runs one job per queued call."""

    done = Signal(int, object)
    failed = Signal(int, object)

    def __init__(self, take: Callable[[int], Callable[[], Any] | None]) -> None:
        super().__init__()
        self._take = take

    @Slot(int)
    def run(self, job_id: int) -> None:
        fn = self._take(job_id)
        if fn is None:  # superseded by a newer job with the same key, or runner stopped
            return
        try:
            result = fn()
        except Exception as exc:  # reported to the GUI thread, which decides what the user sees
            log.debug("job %s failed", job_id, exc_info=True)
            self.failed.emit(job_id, exc)
        else:
            self.done.emit(job_id, result)


class TaskRunner(QObject):
    """One worker thread; ``submit(fn, on_done, on_error)`` runs ``fn()`` there, then the callback
    here. ``key`` makes jobs coalesce: only the newest job per key runs (preview renders).

    ``cancel`` is set by ``stop()``; long jobs may poll it.
    """

    busy_changed = Signal(bool)
    _queue = Signal(int)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cancel = threading.Event()
        self._lock = threading.Lock()
        self._jobs: dict[int, Callable[[], Any]] = {}
        self._callbacks: dict[int, tuple[Callable | None, Callable | None]] = {}
        self._latest: dict[str, int] = {}
        self._ids = itertools.count(1)
        self._stopped = False
        self._thread = new_thread(name)
        self._worker = _Worker(self._take)
        self._worker.moveToThread(self._thread)
        self._queue.connect(self._worker.run)
        self._worker.done.connect(self._on_done)
        self._worker.failed.connect(self._on_failed)
        self._thread.start()

    @property
    def pending(self) -> int:
        """Jobs submitted whose callback has not run yet."""
        return len(self._callbacks)

    def submit(
        self,
        fn: Callable[[], Any],
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[Exception], None] | None = None,
        key: str | None = None,
    ) -> int:
        """Queue ``fn``; returns a job id. With ``key``, older queued jobs of that key are dropped."""
        if self._stopped:
            return 0
        job_id = next(self._ids)
        was_idle = not self._callbacks
        with self._lock:
            self._jobs[job_id] = fn
            if key is not None:
                old = self._latest.get(key)
                if old is not None and self._jobs.pop(old, None) is not None:
                    self._callbacks.pop(old, None)
                self._latest[key] = job_id
        self._callbacks[job_id] = (on_done, on_error)
        if was_idle:
            self.busy_changed.emit(True)
        self._queue.emit(job_id)
        return job_id

    def _take(self, job_id: int) -> Callable[[], Any] | None:
        with self._lock:
            if self.cancel.is_set():
                return None
            return self._jobs.pop(job_id, None)

    @Slot(int, object)
    def _on_done(self, job_id: int, result: Any) -> None:
        on_done, _ = self._finish(job_id)
        if on_done is not None and not self._stopped:
            on_done(result)

    @Slot(int, object)
    def _on_failed(self, job_id: int, exc: Exception) -> None:
        _, on_error = self._finish(job_id)
        if self._stopped:
            return
        if on_error is not None:
            on_error(exc)
        else:
            log.error("background job failed: %s", exc)

    def _finish(self, job_id: int) -> tuple[Callable | None, Callable | None]:
        callbacks = self._callbacks.pop(job_id, (None, None))
        if not self._callbacks:
            self.busy_changed.emit(False)
        return callbacks

    def stop(self) -> None:
        """Drop queued jobs, let the running one finish, and join the thread."""
        if self._stopped:
            return
        self._stopped = True
        self.cancel.set()
        with self._lock:
            self._jobs.clear()
        self._callbacks.clear()
        self._thread.quit()
        self._thread.wait()
