"""Live masking that fails closed.

``LiveMasker.process(frame)`` never waits for the detector: detection runs in its own thread on
the newest frame, and every frame is masked with the newest result carried forward by the
privacy tracker. Until the first result, when the newest result is older than
``deadline_s`` (a stall) and after a detector error, the whole frame is masked and stamped
"PROTECTION PAUSED": a raw frame is never returned.

Slow detectors (OCR, 1–5 s a frame on a CPU) never run on the detection tick: the detector
thread hands a frame to an ``AsyncDetector`` whenever the previous OCR run has finished (at most
every ``ocr_interval_s``) and merges the newest OCR boxes into every detection result, moved to
the ticked frame by optical flow, until a newer OCR result replaces them. So OCR boxes are
re-applied as hits on every tick (no blinking, no coast dilation) and the tracker moves/holds them
like any other box. Fail-closed is driven by the fast detectors only: a slow OCR is no stall, and
an OCR error is logged and reported in telemetry but does not blank the output, because OCR is a
second opinion on text the VPD detector also covers, and blanking a live stream for each OCR
hiccup (seconds per run) would make protection unusable; its last good boxes stay held meanwhile.
Only when OCR is the sole detector does it run on the tick and drive fail-closed itself.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable

import cv2
import numpy as np

from app.core.async_detector import AsyncDetector, DetectorGroup, split_slow_detectors
from app.core.detections import Detections, concat
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from app.core.redact import RedactionSettings, full_mask
from app.core.tracking import PrivacyTracker, TrackerSettings, flow_shift, to_flow_gray

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LiveOptions:
    """``hold_s``: how long a lost box stays masked. ``deadline_s``: a result older than this
    means the detector stalled. ``fps``: nominal rate, to convert the hold into frames.
    ``ocr_interval_s``: least time between OCR submissions (one runs at a time anyway).
    ``ocr_hold_s``: least time an OCR result is re-applied when no newer one replaces it; the
    hold used is at least twice the measured OCR cycle (interval + latency), so boxes never blink
    off between results however slow OCR is, yet expire if OCR keeps failing."""

    hold_s: float = 0.5
    deadline_s: float = 1.0
    fps: float = 30.0
    optical_flow: bool = True
    banner: bool = True
    fail_colour_bgr: tuple[int, int, int] = (0, 0, 0)
    prior_speed: float = 0.01  # fraction of the frame's short side per frame, for unseen motion
    ocr_interval_s: float = 1.0
    ocr_hold_s: float = 3.0


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
    ocr_s: float = 0.0  # submit → result of the newest OCR run
    ocr_age_s: float = float("inf")  # capture time of the OCR'd frame → now
    ocr_results: int = 0
    ocr_error: str | None = None  # newest OCR run failed; protection continues on the other detectors


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


@dataclass
class _OcrState:
    """OCR bookkeeping, touched by the detector thread only (telemetry copies under the lock)."""

    runner: AsyncDetector
    inflight: tuple[int, float, tuple[np.ndarray, float] | None, float] | None = None  # seq, captured, gray, t
    last_submit: float | None = None
    boxes: Detections | None = None  # newest good OCR boxes, placed on the frame of ``gray``
    gray: tuple[np.ndarray, float] | None = None
    captured: float = 0.0  # capture time of the frame OCR read
    latency_s: float = 0.0


def follow(dets: Detections, prev: tuple[np.ndarray, float] | None, cur: tuple[np.ndarray, float] | None,
           keep_old: bool) -> Detections:  # fmt: skip
    """Move boxes from the frame of ``prev`` to that of ``cur`` (``to_flow_gray`` outputs) by
    optical flow; ``keep_old`` keeps the union of old and moved box. Unchanged without flow."""
    if not len(dets) or prev is None or cur is None or prev[0].shape != cur[0].shape:
        return dets
    d = np.nan_to_num(flow_shift(prev[0], cur[0], cur[1], dets.xyxy))
    moved = dets.xyxy + np.concatenate([d, d], axis=1)
    if not keep_old:
        return dets.with_boxes(moved)
    return dets.with_boxes(np.concatenate([np.minimum(dets.xyxy[:, :2], moved[:, :2]),
                                           np.maximum(dets.xyxy[:, 2:], moved[:, 2:])], axis=1))  # fmt: skip


class LiveMasker:
    """Masks a live stream with ``pipeline``; detection in a background thread, OCR in another.
    Call ``close()`` (or use as a context manager) to stop and join the threads. ``clock`` is
    injectable for tests. ``set_settings`` changes policy/style mid-session."""

    def __init__(self, pipeline: Pipeline, options: LiveOptions = LiveOptions(),
                 clock: Callable[[], float] = time.perf_counter) -> None:  # fmt: skip
        self.pipeline = pipeline
        self.options = options
        self.clock = clock
        self.tracker = PrivacyTracker(
            TrackerSettings.for_fps(options.fps, options.hold_s, optical_flow=options.optical_flow), pipeline.class_names
        )
        fast, slow = split_slow_detectors(pipeline.detectors)
        # With OCR alone there is nothing fast to keep protection alive: it runs on the tick then.
        self._fast = fast if fast else tuple(pipeline.detectors)
        self._ocr = None
        if fast and slow:
            self._ocr = _OcrState(AsyncDetector(slow[0] if len(slow) == 1 else DetectorGroup(slow)))
        self._settings_lock = threading.Lock()
        self._view = pipeline  # policy + redaction in force; replaced whole by ``set_settings``
        self._cond = threading.Condition()
        self._stop = False
        self._pending: tuple[int, np.ndarray, float] | None = None
        self._result: _Result | None = None
        self._error: str | None = None
        self._ocr_error: str | None = None
        self._ocr_results = 0
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

    def set_settings(self, policy: Policy | None = None, redaction: RedactionSettings | None = None) -> None:
        """Use another policy and/or redaction style from the next frame on (thread-safe). Boxes
        already tracked under the old policy are still held out their hold (never fewer boxes)."""
        with self._settings_lock:
            self._view = self._view.with_settings(policy, redaction)

    def settings(self) -> tuple[Policy, RedactionSettings]:
        """The policy and redaction style in force."""
        with self._settings_lock:
            return self._view.policy, self._view.redaction

    # -- detector thread -------------------------------------------------------------------------
    def _work(self) -> None:
        names = self.pipeline.class_names
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
                raw = concat([d.detect(frame) for d in self._fast], names)
                gray = to_flow_gray(frame) if self.options.optical_flow else None
            except Exception as exc:  # noqa: BLE001 - any detector failure must pause protection
                log.warning("live detector failed: %s", exc)
                with self._cond:
                    self._error = f"{type(exc).__name__}: {exc}"
                continue
            detect_s = time.perf_counter() - t0
            if self._ocr is not None:
                try:
                    ocr = self._ocr_tick(seq, frame, captured, gray)
                except Exception as exc:  # noqa: BLE001 - an OCR bookkeeping bug must not stop detection
                    log.exception("live OCR step failed")
                    ocr = None
                    with self._cond:
                        self._ocr_error = f"{type(exc).__name__}: {exc}"
                if ocr is not None and len(ocr):
                    raw = concat([raw, ocr], names)
            with self._cond:
                self._detect_s = detect_s
                self._result = _Result(seq, captured, raw, gray)
                self._error = None
                self._n_results += 1
            self._ready.set()

    def _ocr_tick(self, seq: int, frame: np.ndarray, captured: float,
                  gray: tuple[np.ndarray, float] | None) -> Detections | None:  # fmt: skip
        """Collect a finished OCR run, carry the newest OCR boxes onto this frame, submit the next
        run when the last one is done and ``ocr_interval_s`` has passed. Never waits for OCR."""
        st, opt = self._ocr, self.options
        now = self.clock()
        res = st.runner.latest()
        if st.inflight is not None and res is not None and res.frame_index == st.inflight[0]:
            _, cap, gray_k, t_submit = st.inflight
            st.inflight = None
            st.latency_s = time.perf_counter() - t_submit
            if res.error is not None:  # keep holding the last good boxes; report, don't pause
                with self._cond:
                    self._ocr_error = res.error
            else:
                # The OCR'd frame is older than this one: keep both the old and the moved box.
                st.boxes, st.gray, st.captured = follow(res.detections, gray_k, gray, True), gray, cap
                with self._cond:
                    self._ocr_error = None
                    self._ocr_results += 1
        elif st.boxes is not None:
            st.boxes, st.gray = follow(st.boxes, st.gray, gray, False), gray
        hold = max(opt.ocr_hold_s, 2 * (opt.ocr_interval_s + st.latency_s))
        if st.boxes is not None and now - st.captured > hold:
            st.boxes = None  # OCR has failed for a long time: stop masking where text used to be
        if st.inflight is None and st.runner.idle and (st.last_submit is None or
                                                       now - st.last_submit >= opt.ocr_interval_s):  # fmt: skip
            st.runner.submit(frame, seq)
            st.inflight, st.last_submit = (seq, captured, gray, time.perf_counter()), now
        return st.boxes

    def wait_ready(self, timeout: float) -> bool:
        """Block until the first detection result exists (or ``timeout`` s); True if it does."""
        return self._ready.wait(timeout)

    # -- caller's thread -------------------------------------------------------------------------
    def process(self, frame: np.ndarray, captured_at: float | None = None) -> LiveFrame:
        """Mask one (H, W, 3) uint8 BGR frame. Never blocks on the detector or OCR; never returns
        raw pixels. The frame must not be modified by the caller afterwards (the detector reads it)."""
        now = self.clock()
        captured = now if captured_at is None else captured_at
        with self._settings_lock:
            view = self._view  # read once per frame
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
                hidden = self._track(result, frame, view)
                out = view.render(frame, hidden)
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

    def _track(self, result: _Result, frame: np.ndarray, view: Pipeline) -> Detections:
        if result.seq == self._applied_seq:
            return self.tracker.update(None, frame)
        self._applied_seq = result.seq
        dets = view.select(result.detections)
        if result.gray is not None:
            # The result belongs to an older frame: move its boxes to this frame by optical flow
            # and keep the union of old and moved box, so motion during detection is covered.
            dets = follow(dets, result.gray, to_flow_gray(frame) if len(dets) else None, True)
        # Objects may be new (no velocity yet) and the result is ``lag`` frames old: grow its boxes
        # by a prior speed per frame of lag so a first sighting is not outrun by the object.
        lag = max(1.0, (self.clock() - result.captured) * self.options.fps)
        if len(dets):
            grow = self.options.prior_speed * min(frame.shape[:2]) * lag
            dets = dets.with_boxes(dets.xyxy + np.array([-grow, -grow, grow, grow], np.float32))
        return self.tracker.update(dets, frame)

    def telemetry(self) -> LiveTelemetry:
        """FPS, capture→masked latency, detector time and age of its newest result, provider, OCR."""
        with self._cond:
            result, detect_s, n = self._result, self._detect_s, self._n_results
            ocr_error, ocr_results = self._ocr_error, self._ocr_results
        now = self.clock()
        age = (now - result.captured) if result is not None else float("inf")
        st = self._ocr
        ocr_s = st.latency_s if st is not None else 0.0
        ocr_age = now - st.captured if st is not None and ocr_results else float("inf")
        providers = [str(getattr(d, "provider", "CPU")) for d in self.pipeline.detectors]
        return LiveTelemetry(self._fps, self._latency, detect_s, age, ", ".join(providers) or "none", self._frames,
                             self._paused, n, ocr_s, ocr_age, ocr_results, ocr_error)  # fmt: skip

    def close(self) -> None:
        """Stop the detector and OCR threads and join them (each finishes the frame it is on)."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout=30)
        if self._thread.is_alive():
            log.warning("live detector thread still busy after 30 s; abandoning it")
        if self._ocr is not None:
            self._ocr.runner.close(timeout=30)

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
