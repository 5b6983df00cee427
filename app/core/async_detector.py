"""Run a slow detector (OCR, ~1–5 s per frame on CPU) beside a live loop without blocking it.

``submit(frame, index)`` hands the newest frame to one worker thread and returns at once; if the
worker is busy, the pending frame is replaced (only the newest matters). ``latest()`` returns the
most recent finished result and the index of the frame it came from, so the tracker can carry
those boxes forward. No Qt: a plain ``threading.Thread``. Lives in ``app.core`` because
``LiveMasker`` uses it and core may not import ``app.inference``.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from app.core.detections import Detections
from app.core.pipeline import SLOW_DETECTOR_NAMES, Detector, detect_all, fused_class_names


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AsyncResult:
    """Detections computed on frame ``frame_index``; ``error`` set when that run failed; ``reading``:
    what a reading detector made of the frame's text (``app.text.screen.ScreenReading``), if it reads."""

    detections: Detections | None
    frame_index: int
    error: str | None = None
    reading: object | None = None  # the detector's ``last_reading`` of that run (OCR's line verdicts)


# Nice steps of live mode's worker threads: both detector tiers yield to the frame loop. OCR at the
# fast tier's step shares the cores left over with it; a step further down (15) starved it on a
# loaded machine (one or two reads in 20 s), and a camera picture is filled wherever OCR is behind.
FAST_PRIORITY_STEP = 10
OCR_PRIORITY_STEP = 10


def lower_thread_priority(step: int = FAST_PRIORITY_STEP, detectors: Sequence[object] = ()) -> None:
    """Raise the calling thread's nice value by ``step`` (Linux: nice is per thread), so detector
    threads yield the CPU to the live frame loop on a busy laptop, and give the same nice value to
    the threads that run part of ``detectors``' inference (their ``compute_threads()``: ONNX
    Runtime's pools, started with the priority of whichever thread built the session). A no-op
    where unsupported."""
    try:
        tid = threading.get_native_id()
        nice = min(19, os.getpriority(os.PRIO_PROCESS, tid) + step)
        os.setpriority(os.PRIO_PROCESS, tid, nice)
    except (AttributeError, OSError):
        return
    for helper in compute_threads(detectors):
        try:
            os.setpriority(os.PRIO_PROCESS, helper, nice)
        except OSError:  # the thread has ended
            pass


def compute_threads(detectors: Sequence[object]) -> tuple[int, ...]:
    """Native ids of the helper threads behind ``detectors`` (``compute_threads()`` where a
    detector offers it; a ``DetectorGroup`` offers its members')."""
    return tuple(t for d in detectors if hasattr(d, "compute_threads") for t in d.compute_threads())


class AsyncDetector:
    """Wraps a ``Detector``; one worker thread, a one-slot mailbox, latest-result-wins.
    ``priority_step``: how far the worker's nice value is raised (``lower_thread_priority``)."""

    def __init__(self, detector: Detector, priority_step: int = OCR_PRIORITY_STEP) -> None:
        self.detector = detector
        self.priority_step = priority_step
        self.name = detector.name
        self._cond = threading.Condition()
        self._pending: tuple[np.ndarray, int] | None = None
        self._latest: AsyncResult | None = None
        self._busy = False
        self._stopped = False
        self._thread = threading.Thread(target=self._work, name=f"async-{detector.name}", daemon=True)
        self._thread.start()

    @property
    def class_names(self) -> tuple[str, ...]:
        return self.detector.class_names

    def submit(self, frame: np.ndarray, frame_index: int) -> None:
        """Queue ``frame`` (copied) for detection, replacing any frame not yet started. Non-blocking."""
        with self._cond:
            if self._stopped:
                raise RuntimeError("AsyncDetector is closed")
            self._pending = (frame.copy(), frame_index)
            self._cond.notify()

    def latest(self) -> AsyncResult | None:
        """Newest finished result, or None before the first one completes."""
        with self._cond:
            return self._latest

    @property
    def idle(self) -> bool:
        """True when nothing is running or waiting."""
        with self._cond:
            return not self._busy and self._pending is None

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until idle (tests, shutdown); False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._busy and self._pending is None, timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Stop the worker after its current frame; pending work is dropped."""
        with self._cond:
            self._stopped = True
            self._pending = None
            self._cond.notify_all()
        self._thread.join(timeout)

    def _work(self) -> None:
        lower_thread_priority(self.priority_step, [self.detector])
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending is not None or self._stopped)
                if self._stopped:
                    return
                frame, index = self._pending
                self._pending = None
                self._busy = True
            try:
                found = self.detector.detect(frame)
                result = AsyncResult(found, index, reading=getattr(self.detector, "last_reading", None))
            except Exception as exc:  # boundary: report, keep the worker alive
                log.exception("%s failed on frame %d", self.name, index)
                result = AsyncResult(None, index, f"{type(exc).__name__}: {exc}")
            with self._cond:
                self._latest = result
                self._busy = False
                self._cond.notify_all()


def split_slow_detectors(detectors: Sequence[Detector]) -> tuple[tuple[Detector, ...], tuple[Detector, ...]]:
    """(fast, slow) detectors: slow ones (``name`` in ``SLOW_DETECTOR_NAMES``, i.e. OCR) run at a
    lower rate beside the frame loop; fast ones (VPD detector, faces) on every detection tick."""
    fast = tuple(d for d in detectors if d.name not in SLOW_DETECTOR_NAMES)
    slow = tuple(d for d in detectors if d.name in SLOW_DETECTOR_NAMES)
    return fast, slow


class AlternatingLooks:
    """A detector that offers a cheaper quick look (``detect_quick``: CenterFace at half its input
    side) behind the plain ``Detector`` interface: every ``full_every``-th call takes the full
    look, the others the quick one. Live mode's fast tier uses it as video export does: the quick
    look finds the faces that are large enough at that size, and the tracker holds the small ones a
    full look found until the next full look."""

    def __init__(self, detector: Detector, full_every: int) -> None:
        if full_every < 1:
            raise ValueError(f"full look interval must be ≥ 1 call, got {full_every}")
        self.detector = detector
        self.full_every = full_every
        self.calls = 0

    def __getattr__(self, name: str):
        return getattr(self.detector, name)  # name, class_names, provider, timings

    def detect(self, frame: np.ndarray) -> Detections:
        """The full look on every ``full_every``-th call (the first included), else the quick one."""
        full = self.calls % self.full_every == 0
        self.calls += 1
        return self.detector.detect(frame) if full else self.detector.detect_quick(frame)


class DetectorGroup:
    """Several detectors behind one ``Detector`` (e.g. two slow plug-ins sharing one worker)."""

    def __init__(self, detectors: Sequence[Detector]) -> None:
        self.detectors = tuple(detectors)
        self.name = "+".join(d.name for d in self.detectors)

    @property
    def class_names(self) -> tuple[str, ...]:
        """Union of the members' class tables."""
        return fused_class_names(self.detectors)

    def compute_threads(self) -> tuple[int, ...]:
        """The members' helper threads (``async_detector.compute_threads``)."""
        return compute_threads(self.detectors)

    def detect(self, frame: np.ndarray) -> Detections:
        """Fused boxes of every member for a (H, W, 3) uint8 BGR frame, in frame pixels."""
        return detect_all(self.detectors, frame)

    @property
    def last_reading(self) -> object | None:
        """The first reading member's ``last_reading`` (OCR's line verdicts), if any member reads."""
        return next((d.last_reading for d in self.detectors if getattr(d, "last_reading", None) is not None), None)
