"""Live masking that fails closed.

``LiveMasker.process(frame)`` never waits for the detector: detection runs in its own thread on
the newest frame, and every frame is masked with the newest result carried forward by the
privacy tracker. Until the first result, when the newest result is older than
``deadline_s`` (a stall) and after a detector error, the whole frame is masked and stamped
"PROTECTION PAUSED": a raw frame is never returned.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable

import cv2
import numpy as np

from app.core.detections import Detections
from app.core.pipeline import Pipeline
from app.core.redact import full_mask
from app.core.tracking import PrivacyTracker, TrackerSettings, flow_shift, to_flow_gray

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LiveOptions:
    """``hold_s``: how long a lost box stays masked. ``deadline_s``: a result older than this
    means the detector stalled. ``fps``: nominal rate, to convert the hold into frames."""

    hold_s: float = 0.5
    deadline_s: float = 1.0
    fps: float = 30.0
    optical_flow: bool = True
    banner: bool = True
    fail_colour_bgr: tuple[int, int, int] = (0, 0, 0)
    prior_speed: float = 0.01  # fraction of the frame's short side per frame, for unseen motion


@dataclass(frozen=True)
class LiveFrame:
    """One output frame (H, W, 3) uint8 BGR. ``protected`` False means it was fully masked for
    ``reason`` ('starting', 'stalled', 'error: …'). ``latency_s``: capture → masked."""

    frame: np.ndarray
    protected: bool
    reason: str | None
    latency_s: float
    fps: float
    hidden: Detections | None = None


@dataclass(frozen=True)
class LiveTelemetry:
    """Rolling figures for the status line."""

    fps: float
    latency_s: float
    detect_s: float
    detection_age_s: float
    provider: str
    frames: int
    paused_frames: int
    detections: int


def draw_banner(frame: np.ndarray, text: str) -> np.ndarray:
    """Stamp a red 'PROTECTION PAUSED' banner with ``text`` across the top of ``frame`` (in place)."""
    h, w = frame.shape[:2]
    bar = max(12, h // 10)
    cv2.rectangle(frame, (0, 0), (w - 1, bar), (0, 0, 200), -1)
    scale = bar / 45.0
    cv2.putText(frame, f"PROTECTION PAUSED - {text}"[:80], (max(2, w // 60), int(bar * 0.7)), cv2.FONT_HERSHEY_SIMPLEX,
                scale, (255, 255, 255), max(1, int(scale * 2)), cv2.LINE_AA)  # fmt: skip
    return frame


@dataclass
class _Result:
    seq: int
    captured: float
    detections: Detections
    gray: tuple[np.ndarray, float] | None


class LiveMasker:
    """Masks a live stream with ``pipeline``; detection in a background thread. Call ``close()``
    (or use as a context manager) to stop and join the thread. ``clock`` is injectable for tests."""

    def __init__(self, pipeline: Pipeline, options: LiveOptions = LiveOptions(),
                 clock: Callable[[], float] = time.perf_counter) -> None:  # fmt: skip
        self.pipeline = pipeline
        self.options = options
        self.clock = clock
        self.tracker = PrivacyTracker(
            TrackerSettings.for_fps(options.fps, options.hold_s, optical_flow=options.optical_flow), pipeline.class_names
        )
        self._cond = threading.Condition()
        self._stop = False
        self._pending: tuple[int, np.ndarray, float] | None = None
        self._result: _Result | None = None
        self._error: str | None = None
        self._ready = threading.Event()
        self._applied_seq = -1
        self._seq = 0
        self._fps = 0.0
        self._last_t: float | None = None
        self._latency = 0.0
        self._detect_s = 0.0
        self._frames = self._paused = self._n_results = 0
        self._thread = threading.Thread(target=self._work, name="live-detector", daemon=True)
        self._thread.start()

    # -- detector thread -------------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            with self._cond:
                while self._pending is None and not self._stop:
                    self._cond.wait()
                if self._stop:
                    return
                seq, frame, captured = self._pending
                self._pending = None
            t0 = time.perf_counter()
            try:
                dets = self.pipeline.select(self.pipeline.detect(frame))
                gray = to_flow_gray(frame) if self.options.optical_flow else None
            except Exception as exc:  # noqa: BLE001 - any detector failure must pause protection
                log.warning("live detector failed: %s", exc)
                with self._cond:
                    self._error = f"{type(exc).__name__}: {exc}"
                continue
            with self._cond:
                self._detect_s = time.perf_counter() - t0
                self._result = _Result(seq, captured, dets, gray)
                self._error = None
                self._n_results += 1
            self._ready.set()

    def wait_ready(self, timeout: float) -> bool:
        """Block until the first detection result exists (or ``timeout`` s); True if it does."""
        return self._ready.wait(timeout)

    # -- caller's thread -------------------------------------------------------------------------
    def process(self, frame: np.ndarray, captured_at: float | None = None) -> LiveFrame:
        """Mask one (H, W, 3) uint8 BGR frame. Never blocks on the detector; never returns raw
        pixels. The frame must not be modified by the caller afterwards (the detector reads it)."""
        now = self.clock()
        captured = now if captured_at is None else captured_at
        self._seq += 1
        with self._cond:
            self._pending = (self._seq, frame, captured)
            self._cond.notify()
            result, error = self._result, self._error
        reason = None
        if error is not None:
            reason = f"error: {error}"
        elif result is None:
            reason = "starting"
        elif now - result.captured > self.options.deadline_s:
            reason = "stalled"
        hidden = None
        if reason is None:
            try:
                hidden = self._track(result, frame)
                out = self.pipeline.render(frame, hidden)
            except Exception as exc:  # noqa: BLE001 - fail closed on a tracking/rendering bug too
                log.warning("live masking failed: %s", exc)
                reason = f"error: {type(exc).__name__}: {exc}"
        if reason is not None:
            out = full_mask(frame, self.options.fail_colour_bgr)
            if self.options.banner:
                draw_banner(out, reason)
            self._paused += 1
        done = self.clock()
        self._frames += 1
        if self._last_t is not None and done > self._last_t:
            inst = 1.0 / (done - self._last_t)
            self._fps = inst if self._fps == 0 else 0.9 * self._fps + 0.1 * inst
        self._last_t = done
        self._latency = done - captured
        return LiveFrame(out, reason is None, reason, self._latency, self._fps, hidden)

    def _track(self, result: _Result, frame: np.ndarray) -> Detections:
        if result.seq == self._applied_seq:
            return self.tracker.update(None, frame)
        self._applied_seq = result.seq
        dets = result.detections
        if len(dets) and result.gray is not None:
            # The result belongs to an older frame: move its boxes to this frame by optical flow
            # and keep the union of old and moved box, so motion during detection is covered.
            cur = to_flow_gray(frame)
            if cur[0].shape == result.gray[0].shape:
                d = np.nan_to_num(flow_shift(result.gray[0], cur[0], cur[1], dets.xyxy))
                moved = dets.xyxy + np.concatenate([d, d], axis=1)
                dets = dets.with_boxes(np.concatenate([np.minimum(dets.xyxy[:, :2], moved[:, :2]),
                                                       np.maximum(dets.xyxy[:, 2:], moved[:, 2:])], axis=1))  # fmt: skip
        # Objects may be new (no velocity yet) and the result is ``lag`` frames old: grow its boxes
        # by a prior speed per frame of lag so a first sighting is not outrun by the object.
        lag = max(1.0, (self.clock() - result.captured) * self.options.fps)
        if len(dets):
            grow = self.options.prior_speed * min(frame.shape[:2]) * lag
            dets = dets.with_boxes(dets.xyxy + np.array([-grow, -grow, grow, grow], np.float32))
        return self.tracker.update(dets, frame)

    def telemetry(self) -> LiveTelemetry:
        """FPS, capture→masked latency, detector time and age of its newest result, provider."""
        with self._cond:
            result, detect_s, n = self._result, self._detect_s, self._n_results
        age = (self.clock() - result.captured) if result is not None else float("inf")
        providers = [str(getattr(d, "provider", "CPU")) for d in self.pipeline.detectors]
        return LiveTelemetry(self._fps, self._latency, detect_s, age, ", ".join(providers) or "none", self._frames,
                             self._paused, n)  # fmt: skip

    def close(self) -> None:
        """Stop the detector thread and join it (waits for a detection in progress to finish)."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout=30)
        if self._thread.is_alive():
            log.warning("live detector thread still busy after 30 s; abandoning it")

    def __enter__(self) -> "LiveMasker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass(frozen=True)
class LiveSummary:
    """How a live session ended: frames shown, how many were fully masked, and why it stopped."""

    frames: int
    paused_frames: int
    ended: str


def run_live(
    source,
    masker: LiveMasker,
    sinks: Iterable[Callable[[LiveFrame], None]] = (),
    stop: threading.Event | None = None,
    max_frames: int | None = None,
) -> LiveSummary:
    """Pump ``source.read()`` frames through ``masker`` into each sink until the source ends,
    ``stop`` is set or ``max_frames`` is reached. A source that raises is reported, not raised."""
    sinks = list(sinks)
    n = paused = 0
    ended = "stopped"
    while stop is None or not stop.is_set():
        if max_frames is not None and n >= max_frames:
            ended = f"{max_frames} frames done"
            break
        try:
            frame = source.read()
        except Exception as exc:  # noqa: BLE001 - a camera unplugged mid-stream, a broken file
            ended = f"source failed: {exc}"
            break
        if frame is None:
            ended = "source ended"
            break
        captured = masker.clock()
        out = masker.process(frame, captured)
        paused += not out.protected
        for sink in sinks:
            sink(out)
        n += 1
    return LiveSummary(n, paused, ended)
