"""Owns the live worker thread: start/stop, settings shared with the worker, preview hand-off,
and a probe for a virtual camera device."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QThread, Signal
from PySide6.QtGui import QImage

from app.core.errors import SourceError
from app.ui.live_worker import LiveConfig, LiveStatus, LiveWorker
from app.ui.settings import Preferences, RedactionChoice, SettingsHolder
from app.ui.tasks import TaskRunner, new_thread

log = logging.getLogger(__name__)


def probe_virtual_camera() -> str:
    """'' when a virtual camera can be opened, else the reason (worker thread)."""
    from app.media.sinks import VirtualCameraSink

    try:
        VirtualCameraSink(640, 480, 30).close()
    except SourceError as exc:
        return str(exc)
    return ""


def default_opener(spec: str):
    from app.media.sources import open_source

    return open_source(spec)


class LiveController(QObject):
    """Start/stop live masking; ``preview`` carries the masked frame and its ``LiveStatus``."""

    preview = Signal(QImage, object)
    running_changed = Signal(bool)
    virtual_camera_checked = Signal(str)  # '' = available, else why not
    info = Signal(str)
    error = Signal(str)

    def __init__(self, factory_getter, prefs: Preferences, source_opener=default_opener, parent=None) -> None:
        super().__init__(parent)
        self._factory_getter = factory_getter
        self.prefs = prefs
        self.opener = source_opener
        self.choice = SettingsHolder(prefs.choice("live"))
        self.preview_side = SettingsHolder(1280)
        self.virtual_camera_problem: str | None = None  # None = not checked yet
        self._aux = TaskRunner("vpd-live-probe", self)
        self._thread: QThread | None = None
        self._worker: LiveWorker | None = None
        self.last_status: LiveStatus | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    def check_virtual_camera(self) -> None:
        """Probe once, in the background."""
        if self.virtual_camera_problem is None:
            self._aux.submit(probe_virtual_camera, self._on_probe, lambda e: self._on_probe(str(e)))

    def _on_probe(self, problem: str) -> None:
        self.virtual_camera_problem = problem
        self.virtual_camera_checked.emit(problem)

    def set_choice(self, choice: RedactionChoice) -> None:
        """Applies from the next frame on (the worker reads it once per frame)."""
        self.choice.set(choice)
        self.prefs.set_choice(choice, "live")

    def start(self, config: LiveConfig) -> bool:
        if self.running:
            return False
        self.prefs.set("live/source", config.source)
        worker = LiveWorker(config, self._factory_getter(), self.choice, self.preview_side, self.opener)
        thread = new_thread("vpd-live")
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.preview.connect(self._on_preview)
        worker.failed.connect(self.error)
        worker.info.connect(self.info)
        worker.ended.connect(self._on_ended)
        self._worker, self._thread = worker, thread
        thread.start()
        self.running_changed.emit(True)
        return True

    def _on_preview(self, image: QImage, status: LiveStatus) -> None:
        if self.sender() is not self._worker:
            return  # queued from a session that has been stopped
        self.last_status = status
        self.preview.emit(image, status)
        if self._worker is not None:
            self._worker.preview_free.set()  # shown: the worker may send the next one

    def _on_ended(self, worker: LiveWorker, reason: str) -> None:
        if worker is not self._worker:
            return  # a stopped session's late signal must not stop the new one
        self._join()
        if reason:
            self.info.emit(f"Live masking {reason}.")

    def stop(self) -> None:
        """Ask the loop to stop and join its thread (the masker joins its detector thread)."""
        if self._worker is not None:
            self._worker.stop.set()
        self._join()

    def _join(self) -> None:
        thread, worker = self._thread, self._worker
        if thread is None:
            return
        worker.stop.set()
        thread.quit()
        thread.wait()
        self._thread = self._worker = None
        self.running_changed.emit(False)

    def shutdown(self) -> None:
        self.stop()
        self._aux.stop()
