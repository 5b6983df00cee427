"""Live masking that fails closed, in two tiers.

``LiveMasker.process(frame)`` never waits for a detector: detection runs in its own thread on
the newest frame, and every frame is masked with the newest result, moved to the frame by the
*measured* motion (``app.core.motion``: a global shift per frame plus per-box optical flow) and
carried by the privacy tracker.

* Fast tier (the VPD detector, faces): runs on every detection tick. When its newest result is
  older than ``deadline_s``, the regions that changed since that result's frame (after the
  measured pan/scroll) are filled: what the detector has not seen is not shown. On a screen
  (mostly flat colour) that is each thing drawn there, whole, while the flat colour between
  stays visible: flat colour holds nothing private. Until its first
  result, when its newest result is older than the stall deadline (``stall_s``, or 2.5 recent
  ticks) and after an error, the whole frame is masked and stamped "PROTECTION PAUSED": a raw
  frame is never returned.
* OCR tier (1–5 s a frame on a CPU): runs beside it whenever its previous run has finished (at
  most every ``ocr_interval_s``); its newest boxes are re-applied on every tick, moved by the
  measured motion. Its deadline is per region: when its newest good read is older than
  ``ocr_deadline_s`` (or 2.5 recent OCR cycles, if longer) or it fails, text classes are
  unprotected *where the picture changed since that read* (after compensating the measured
  pan/scroll), so those regions are filled (on a screen, what is drawn in them), and
  ``LiveFrame.text_paused`` says why. Unchanged regions stay covered by the held OCR boxes.
  Only when OCR is the sole detector does it run on the tick and drive fail-closed itself.

Holds count capture-clock seconds of *detector* time: a box expires only when a detection
result from a frame more than ``hold_s`` (or two detector ticks, if longer) after its last hit
has missed it, so a slow detector or a fast source never lets a held box lapse early.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from typing import Callable

import cv2
import numpy as np

from app.core.allocator import live_heap
from app.core.async_detector import (OCR_PRIORITY_STEP, AlternatingLooks, AsyncDetector, DetectorGroup,
                                     lower_thread_priority, split_slow_detectors)
from app.core.detections import Detections, Source, concat
from app.core.face_context import FaceContext
from app.core.geometry import intersection_matrix
from app.core.live_lead import LeadSettings, LeadTracker
from app.core.live_ocr import OcrTier
from app.core.live_regions import ChangedRegionDetector, RegionSettings
from app.core.motion import FrameMotion, MotionEstimator, Shift, box_shifts, changed_boxes, revealed_boxes, to_flow_gray
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from app.core.redact import RedactionSettings, fill_solid, full_mask, integer_boxes
from app.core.text_lines import MIN_FLAT_SHARE, DrawnContent, drawn_text_boxes
from app.core.tracking import PrivacyTracker, TrackerSettings

log = logging.getLogger(__name__)

# How far beyond the strip a pan or scroll brought in a drawn thing is followed (share of the
# frame's short side): an avatar a few pixels of which the last result saw is hidden whole.
UNSEEN_REACH = 0.15


@dataclass(frozen=True)
class LiveOptions:
    """``hold_s``: detector-clock seconds a lost box stays masked (at least two detector ticks).
    ``deadline_s``: a fast-tier result older than this has not seen what changed since: the
    regions that changed since its frame (after the measured pan/scroll) are filled; without
    motion the whole frame is. ``stall_s``: older than this (or ``deadline_ticks`` recent ticks, if
    longer) means the detector stalled: the whole frame is masked. ``fps``: nominal source rate (informative). ``ocr_interval_s``: least time between
    OCR submissions (one runs at a time anyway). ``ocr_deadline_s``: an OCR read older than this
    (or than 2.5 recent OCR cycles, if longer) leaves text unprotected where the picture changed
    since (those regions are filled). ``ocr_priority_step``: how far the OCR worker's nice value is
    raised (the fast tier's is raised by ``FAST_PRIORITY_STEP``; the frame loop's is not).
    ``max_dilate_px``: cap on the growth of a box from measured motion error.
    ``deadline_ticks``: the stall deadline is at least this many recent fast-tier ticks (a result
    is up to two ticks old when the next arrives); a detector that stops answering still pauses.
    ``changed_regions``: after a rigid scroll or pan, the fast tier re-detects only what the
    shifted previous tick does not explain (``app.core.live_regions``); None: always whole frames.
    ``lead``: also hide, for each object moving against the picture, the stretch its measured
    velocity covers in the age of its newest detection (``app.core.live_lead``).
    ``full_look_every``: a fast detector with a cheaper quick look (faces) takes its full look on
    every N-th tick and the quick one between (``AlternatingLooks``); 1 (default): always the full
    look. Measured on the contacts pan clip, 2 shows more of the picture (changed outside the truth
    99.5 → 46.5 %) but leaks more (5 → 64 frames): the fresher fast tier fills fewer stale regions,
    and scrolled-in names then show until OCR reads them.
    ``cover_unread_text``: text drawn on flat colour where no OCR read has looked yet (scrolled
    in, typed, opened since) is covered line by line until a read judges it
    (``app.core.text_lines``); camera pictures are not searched this way.
    ``cover_unseen_content``: what a pan or scroll brought into view since the fast tier's newest
    result (the strip the measured shift reveals) is covered where it is not flat colour, until a
    result has looked at it: an avatar entering a scrolled list is hidden before the detector's
    next tick, the list's background is not (a camera picture's strip is covered whole)."""

    hold_s: float = 0.5
    deadline_s: float = 1.0
    stall_s: float = 5.0
    fps: float = 30.0
    optical_flow: bool = True
    banner: bool = True
    fail_colour_bgr: tuple[int, int, int] = (0, 0, 0)
    ocr_interval_s: float = 1.0
    ocr_priority_step: int = OCR_PRIORITY_STEP
    ocr_deadline_s: float = 4.0
    max_dilate_px: float = 48.0
    error_sigmas: float = 3.0
    deadline_ticks: float = 2.5
    changed_regions: RegionSettings | None = RegionSettings()
    lead: bool = True
    full_look_every: int = 1
    cover_unread_text: bool = True
    cover_unseen_content: bool = True

    def __post_init__(self) -> None:
        if self.full_look_every < 1:
            raise ValueError(f"full look interval must be ≥ 1 tick, got {self.full_look_every}")


@dataclass(frozen=True)
class LiveFrame:
    """One output frame (H, W, 3) uint8 BGR. ``protected`` False means it was fully masked for
    ``reason`` ('starting', 'stalled', 'error: …'). ``latency_s``: capture → masked.
    ``text_paused``: why text-class protection is paused in part of the frame (those parts are
    filled; ``text_regions`` (K, 4) xyxy), None when OCR is current. ``stale``: why the regions
    that changed since the fast tier's newest result are filled (``stale_regions``), None when
    that result is within ``deadline_s``. ``unread_text``: (K, 4) xyxy text lines drawn where no
    OCR read has looked yet, filled until one judges them (``cover_unread_text``). ``unseen_content``:
    (K, 4) xyxy what is drawn on flat colour where the fast tier's newest result has not looked yet,
    filled until a result has (``cover_unseen_content``)."""

    frame: np.ndarray
    protected: bool
    reason: str | None
    latency_s: float
    fps: float
    hidden: Detections | None = None
    text_paused: str | None = None
    text_regions: np.ndarray | None = None
    stale: str | None = None
    stale_regions: np.ndarray | None = None
    unread_text: np.ndarray | None = None
    unseen_content: np.ndarray | None = None


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
    ocr_error: str | None = None  # newest OCR run failed; text is unprotected where the picture changes
    text_paused_frames: int = 0  # frames with text-class protection paused in some region
    stale_frames: int = 0  # frames where regions changed since the newest fast result were filled


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


def follow(dets: Detections, prev: tuple[np.ndarray, float] | None, cur: tuple[np.ndarray, float] | None,
           shift: Shift | None = None, sigmas: float = 3.0, cap_px: float = 48.0) -> Detections:  # fmt: skip
    """Move boxes from the frame of ``prev`` to that of ``cur`` (``to_flow_gray`` outputs) by
    optical flow started at the measured global ``shift`` between them, each grown by ``sigmas`` ×
    its measured error (capped at ``cap_px``). Unchanged without flow."""
    if not len(dets) or prev is None or cur is None or prev[0].shape != cur[0].shape:
        return dets
    d, err = box_shifts(prev[0], cur[0], cur[1], dets.xyxy, shift or Shift(0.0, 0.0, 0.0))
    g = np.minimum(sigmas * err, cap_px)[:, None]
    moved = dets.xyxy + np.concatenate([d, d], axis=1) + np.concatenate([-g, -g, g, g], axis=1)
    return dets.with_boxes(moved)


def fill_regions(frame: np.ndarray, xyxy: np.ndarray, colour_bgr: tuple[int, int, int]) -> np.ndarray:
    """Fill (K, 4) xyxy regions of ``frame`` (in place) with a solid colour."""
    for x0, y0, x1, y1 in integer_boxes(np.asarray(xyxy, np.float32).reshape(-1, 4), frame.shape[:2]):
        fill_solid(frame, x0, y0, x1, y1, colour_bgr)
    return frame


class LiveMasker:
    """Masks a live stream with ``pipeline``; detection in a background thread, OCR in another.
    Call ``close()`` (or use as a context manager) to stop and join the threads. ``clock`` is
    injectable for tests. ``set_settings`` changes policy/style mid-session."""

    def __init__(self, pipeline: Pipeline, options: LiveOptions = LiveOptions(),
                 clock: Callable[[], float] = time.perf_counter) -> None:  # fmt: skip
        self.pipeline = pipeline
        self.options = options
        self.clock = clock
        self._tracker_settings = TrackerSettings(hold=options.hold_s, optical_flow=options.optical_flow,
                                                 error_sigmas=options.error_sigmas,
                                                 max_dilate_px=options.max_dilate_px)  # fmt: skip
        self.tracker = PrivacyTracker(self._tracker_settings, pipeline.class_names)
        self.motion = MotionEstimator(history=max(300, int(20 * (options.fps or 30.0))))
        self.lead = None
        if options.lead:
            self.lead = LeadTracker(self.motion if options.optical_flow else None,
                                    LeadSettings(error_sigmas=options.error_sigmas))  # fmt: skip
        fast, slow = split_slow_detectors(pipeline.detectors)
        if options.full_look_every > 1:
            fast = tuple(AlternatingLooks(d, options.full_look_every) if hasattr(d, "detect_quick") else d for d in fast)
        # With OCR alone there is nothing fast to keep protection alive: it runs on the tick then.
        self._fast = fast if fast else tuple(pipeline.detectors)
        # During a scroll or pan only the newly revealed part is new to the detector: re-detecting
        # just that part keeps results fresh, so less of a scrolling frame is left unseen.
        self.regions = None
        if options.changed_regions is not None and options.optical_flow:
            self.regions = ChangedRegionDetector(self._fast, pipeline.class_names, self.motion, options.changed_regions)
        self._ocr: OcrTier | None = None
        if fast and slow:
            runner = AsyncDetector(slow[0] if len(slow) == 1 else DetectorGroup(slow), options.ocr_priority_step)
            # OCR boxes are carried tick after tick: moved, never grown (growth would accumulate).
            carry = lambda d, a, ga, b, gb: self._carry(d, a, ga, b, gb, grow=False)  # noqa: E731
            ocr_regions = None
            if options.changed_regions is not None and options.optical_flow:  # one crop: OCR runs one call
                ocr_regions = ChangedRegionDetector((), pipeline.class_names, self.motion,
                                                    replace(options.changed_regions, max_regions=1))  # fmt: skip
            self._ocr = OcrTier(runner, options.ocr_interval_s, options.ocr_deadline_s, clock, self.motion, carry,
                                ocr_regions)  # fmt: skip
        self._settings_lock = threading.Lock()
        self._view = pipeline  # policy + redaction in force; replaced whole by ``set_settings``
        self._cond = threading.Condition()
        self._stop = False
        self._pending: tuple[int, np.ndarray, float] | None = None
        self._working = False  # the detector thread is on a frame it took
        self._result: _Result | None = None
        self._error: str | None = None
        self._ready = threading.Event()
        self._applied_seq = -1
        self._applied_captured: float | None = None
        self._tick_s = 0.0  # capture-time spacing of consecutive applied results (EMA)
        self._seq = 0
        self._started = clock()
        self._fps = 0.0
        self._last_t: float | None = None
        self._latency = 0.0
        self._detect_s = 0.0
        self._ticks: deque[float] = deque(maxlen=8)  # capture → result of the recent fast-tier ticks
        self._frames = self._paused = self._n_results = self._text_paused = self._stale = 0
        self._unread_last: tuple[int, np.ndarray] | None = None  # frame number, unread text lines on it
        self._drawn: tuple[int, DrawnContent] | None = None  # frame number, what is drawn on it
        live_heap(start=True)  # frames from the heap, not fresh mappings, while this session runs
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
        lower_thread_priority(detectors=self._fast)  # the frame loop must keep its share of the cores
        names = self.pipeline.class_names
        while True:
            with self._cond:
                while self._pending is None and not self._stop:
                    self._cond.wait()
                if self._stop:
                    return
                seq, frame, captured = self._pending
                self._pending = None
                self._working = True
                self._cond.notify_all()
            t0 = time.perf_counter()
            try:
                gray = to_flow_gray(frame) if self.options.optical_flow else None
                if self.regions is not None:
                    raw = self.regions.detect(seq, frame, gray)
                else:
                    raw = concat([d.detect(frame) for d in self._fast], names)
            except Exception as exc:  # noqa: BLE001 - any detector failure must pause protection
                log.warning("live detector failed: %s", exc)
                with self._cond:
                    self._error = f"{type(exc).__name__}: {exc}"
                    self._working = False
                continue
            detect_s = time.perf_counter() - t0
            if self._ocr is not None:
                try:
                    ocr = self._ocr.tick(seq, frame, captured, gray)
                    raw = self._ocr.judge(raw, seq, gray)  # a headline boxed as a name goes, as in a still
                except Exception as exc:  # noqa: BLE001 - an OCR bookkeeping bug must not stop detection
                    log.exception("live OCR step failed")
                    ocr = None
                    self._ocr.fail(f"{type(exc).__name__}: {exc}")
                if ocr is not None and len(ocr):
                    raw = concat([raw, ocr], names)
            raw = FaceContext().apply(raw)  # the tiers are fused here, not by ``detect_all``
            with self._cond:
                self._detect_s = detect_s
                # Capture → result: what one tick costs, including any wait for the frame.
                self._ticks.append(max(detect_s, self.clock() - captured))
                self._result = _Result(seq, captured, raw, gray)
                self._error = None
                self._n_results += 1
                self._working = False
                self._cond.notify_all()
            self._ready.set()

    def _carry(self, dets: Detections, seq_from: int, gray_from, seq_to: int, gray_to, grow: bool = True) -> Detections:
        """Boxes found on frame ``seq_from`` moved to frame ``seq_to`` by the measured motion
        (``seq_from`` -1: no global estimate, flow alone)."""
        if not len(dets) or gray_from is None or gray_to is None:
            return dets
        moved = self.motion.between(seq_from, seq_to) if seq_from >= 0 else None
        shift = Shift(float(moved[0][0]), float(moved[0][1]), moved[1]) if moved is not None else None
        sigmas = self.options.error_sigmas if grow else 0.0
        return follow(dets, gray_from, gray_to, shift, sigmas, self.options.max_dilate_px)

    def stall_s(self) -> float:
        """The fast tier's stall deadline in force: ``stall_s`` or ``deadline_ticks`` times the
        slowest of the last 8 completed ticks (capture → result), whichever is longer."""
        with self._cond:
            typical = max(self._ticks, default=0.0)
        return max(self.options.stall_s, self.options.deadline_ticks * typical)

    def wait_results(self, n: int, timeout: float) -> bool:
        """Block until ``n`` fast-tier results exist (tests, benchmarks); False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._n_results >= n, timeout)

    def detector_idle(self) -> bool:
        """True when the detector thread waits for a frame: none pending, none in hand (tests,
        benchmarks: with a fake clock, lets the caller wait until the thread has settled)."""
        with self._cond:
            return self._pending is None and not self._working

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
        motion = self.motion.step(frame, self._seq) if self.options.optical_flow else None
        with self._cond:
            self._pending = (self._seq, frame, captured)
            self._cond.notify()
            result, error = self._result, self._error
        reason = None
        if error is not None:
            reason = f"error: {error}"
        elif result is None:
            reason = "starting"
        elif now - result.captured > self.stall_s():
            reason = "stalled"
        hidden = text_paused = regions = stale = stale_regions = unread = unseen = None
        if reason is None and now - result.captured > self.options.deadline_s:
            stale, stale_regions = self._unseen(result, motion, now, frame.shape[:2])
            if stale_regions is None:
                reason = "stalled"  # no motion to tell what changed: everything is unseen
        if reason is None:
            try:
                hidden = self._track(result, frame, view, motion)
                out = view.render(frame, hidden)
                if self._ocr is not None and any(view.policy.hides(c) for c in self._ocr.text_classes):
                    text_paused, regions = self._ocr.gaps(frame.shape[:2], motion, now)
                    if regions is not None and motion is not None:
                        regions = self._drawn_in(regions, motion, frame.shape[:2])
                    # While OCR is behind, everything changed since its read is filled already.
                    if self.options.cover_unread_text and motion is not None and regions is None:
                        unread = self._unread_text(frame.shape[:2], motion)
                if self.options.cover_unseen_content and stale_regions is None:
                    unseen = self._unseen_content(result, motion, frame.shape[:2])
                for fill in (regions, stale_regions, unread, unseen):
                    if fill is not None and len(fill):
                        fill_regions(out, fill, view.redaction.colour_bgr)
            except Exception as exc:  # noqa: BLE001 - fail closed on a tracking/rendering bug too
                log.warning("live masking failed: %s", exc)
                reason = f"error: {type(exc).__name__}: {exc}"
        if reason is not None:
            out = full_mask(frame, self.options.fail_colour_bgr)
            if self.options.banner:
                draw_banner(out, reason)
            self._paused += 1
        self._text_paused += text_paused is not None
        self._stale += stale is not None
        done = self.clock()
        self._frames += 1
        if self._last_t is not None and done > self._last_t:
            inst = 1.0 / (done - self._last_t)
            self._fps = inst if self._fps == 0 else 0.9 * self._fps + 0.1 * inst
        self._last_t = done
        self._latency = done - captured
        return LiveFrame(out, reason is None, reason, self._latency, self._fps, hidden, text_paused, regions,
                         stale if reason is None else None, stale_regions if reason is None else None,
                         unread if reason is None else None, unseen if reason is None else None)  # fmt: skip

    def _unread_text(self, hw: tuple[int, int], motion: FrameMotion) -> np.ndarray:
        """Text lines drawn where no OCR read has looked yet, on this frame. They are looked for on
        every second frame (≈ 2 ms at 720p); in between, the last ones are moved by this frame's
        measured shift (a line scrolled in since shows a frame later at most)."""
        last = self._unread_last
        moved = self.motion.between(last[0], motion.seq) if last is not None and motion.seq % 2 else None
        if moved is not None and moved[1] <= 1.0:  # a shift measured to a pixel: the lines moved with it
            d = np.asarray(moved[0], np.float32)
            return last[1] + np.array([d[0], d[1], d[0], d[1]], np.float32)
        not_read = self._ocr.unread(hw, motion.seq, (motion.gray, motion.scale))
        boxes = drawn_text_boxes(motion.gray, motion.scale, not_read)
        self._unread_last = (motion.seq, boxes)
        return boxes

    def _unseen_content(self, result: _Result, motion: FrameMotion | None, hw: tuple[int, int]) -> np.ndarray | None:
        """What is drawn (not flat colour) in the part of this frame a pan or scroll brought in
        since the fast tier's newest result (its frame did not show it), with the rest of each
        thing drawn across that part's edge (an avatar cut there was not seen whole either). None
        when there is none or the motion is unknown (the deadline and stall rules cover that)."""
        if motion is None or result.seq >= motion.seq:
            return None
        moved = self.motion.between(result.seq, motion.seq)
        if moved is None:
            return None
        strips = revealed_boxes(hw, moved[0])
        out = np.concatenate([self._drawn_in(strip[None], motion, hw) for strip in strips] or [np.zeros((0, 4))])
        return out.astype(np.float32) if len(out) else None

    def _drawn_in(self, regions: np.ndarray, motion: FrameMotion, hw: tuple[int, int]) -> np.ndarray:
        """What to fill for ``regions`` (K, 4) xyxy that a tier has not looked at. On a screen
        (mostly flat colour round them): each thing drawn in or across them, whole (a detector saw
        its part outside them only cut off), or only its part inside when it runs on past the
        search (a camera picture, a page's backdrop: not one small drawn thing). Flat colour holds
        nothing private and stays visible. On a camera picture: the regions themselves."""
        regions = np.asarray(regions, np.float32).reshape(-1, 4)
        if not len(regions):
            return regions
        boxes, flat, touching, runs_on = self._drawn_across(regions, motion, hw)
        if flat < MIN_FLAT_SHARE:
            return regions
        out = [boxes[touching & ~runs_on]]
        hits = intersection_matrix(boxes, regions) > 0  # (boxes, regions)
        for region, hit in zip(regions, hits.T):
            out.append(np.clip(boxes[runs_on & hit], region[[0, 1, 0, 1]], region[[2, 3, 2, 3]]))
        return np.concatenate(out).astype(np.float32)

    def _drawn_across(self, regions: np.ndarray, motion: FrameMotion,
                      hw: tuple[int, int]) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:  # fmt: skip
        """What is drawn on flat colour around ``regions`` (K, 4) xyxy, searched up to
        ``UNSEEN_REACH`` of the short side beyond their bounds (``DrawnContent.around``). The
        frame's drawn content is found once per frame, however many region sets ask."""
        if self._drawn is None or self._drawn[0] != motion.seq:
            self._drawn = (motion.seq, DrawnContent(motion.gray, motion.scale))
        return self._drawn[1].around(regions, UNSEEN_REACH * min(hw))

    def _unseen(self, result: _Result, motion: FrameMotion | None, now: float,
                hw: tuple[int, int]) -> tuple[str, np.ndarray | None]:  # fmt: skip
        """(why, regions) for a fast-tier result older than ``deadline_s``: what changed since its
        frame, after the measured motion, with the things drawn across its edges; regions None
        when that cannot be told."""
        why = f"detector {now - result.captured:.1f} s behind: changed regions hidden"
        if motion is None or result.gray is None:
            return why, None
        moved = self.motion.between(result.seq, motion.seq)
        if moved is None:
            return why, None
        changed = changed_boxes(result.gray[0], motion.gray, motion.scale, moved[0], exact=True)
        return why, self._drawn_in(changed, motion, hw)

    def _track(self, result: _Result, frame: np.ndarray, view: Pipeline, motion: FrameMotion | None) -> Detections:
        hidden = self._track_boxes(result, frame, view, motion)
        if self.lead is None:
            return hidden
        # A lagging result shows where objects were: add where their measured motion takes them.
        sweeps, untrusted = self.lead.sweeps(self._seq, hidden.class_names, frame.shape[:2])
        if not len(sweeps):
            return hidden
        parts = [hidden, sweeps]
        if untrusted.any():
            parts.append(self._changed_near(result, motion, sweeps.take(np.flatnonzero(untrusted)), frame.shape[:2]))
        return concat(parts, hidden.class_names)

    def _changed_near(self, result: _Result, motion: FrameMotion | None, sweeps: Detections,
                      hw: tuple[int, int]) -> Detections:  # fmt: skip
        """Regions changed in place since ``result``'s frame that touch ``sweeps`` (whose position
        the picture's motion cannot confirm): the whole frame when that cannot be told."""
        if motion is None or result.gray is None:
            boxes = np.array([[0, 0, hw[1], hw[0]]], np.float32)
        else:
            # The shift estimate is what is untrusted: compare in place. A still picture then shows
            # only what moved on it; a picture that did move shows as changed nearly everywhere.
            changed = changed_boxes(result.gray[0], motion.gray, motion.scale, np.zeros(2, np.float32))
            s = sweeps.xyxy
            touch = ((changed[:, None, 0] <= s[None, :, 2]) & (changed[:, None, 2] >= s[None, :, 0])
                     & (changed[:, None, 1] <= s[None, :, 3]) & (changed[:, None, 3] >= s[None, :, 1])).any(1)  # fmt: skip
            boxes = changed[touch]
        n = len(boxes)
        cid = int(sweeps.class_ids[0])
        return Detections(boxes.reshape(-1, 4), np.ones(n), [cid] * n, sweeps.class_names, [-1] * n,
                          [int(Source.TRACKER)] * n)  # fmt: skip

    def _track_boxes(self, result: _Result, frame: np.ndarray, view: Pipeline,
                     motion: FrameMotion | None) -> Detections:  # fmt: skip
        if result.seq == self._applied_seq:
            return self.tracker.update(None, frame, motion=motion)
        self._applied_seq = result.seq
        if self._applied_captured is not None and result.captured > self._applied_captured:
            gap = result.captured - self._applied_captured
            self._tick_s = gap if self._tick_s == 0 else 0.8 * self._tick_s + 0.2 * gap
            # At least two detector ticks: one missed detection must not unmask an object.
            hold = max(self.options.hold_s, 2 * self._tick_s)
            if hold != self.tracker.settings.hold:
                self.tracker.settings = replace(self._tracker_settings, hold=hold)
        self._applied_captured = result.captured
        dets = view.select(result.detections, frame.shape[:2])
        # The faces found, hidden or not (a streamer's own face is evidence too): held boxes they contradict go.
        faces = result.detections.take(np.flatnonzero(result.detections.sources == Source.FACE))
        if self.lead is not None:
            self.lead.observe(result.seq, result.captured, dets, self.tracker.settings.hold, frame.shape[:2], result.gray)
        if motion is not None:  # the result belongs to an older frame: move it by the measured motion
            dets = self._carry(dets, result.seq, result.gray, motion.seq, (motion.gray, motion.scale))
            faces = self._carry(faces, result.seq, result.gray, motion.seq, (motion.gray, motion.scale), grow=False)
        tracked = self.tracker.update(dets, frame, t=result.captured, motion=motion)
        return FaceContext().release_held(self.tracker, tracked, faces)

    def telemetry(self) -> LiveTelemetry:
        """FPS, capture→masked latency, detector time and age of its newest result, provider, OCR."""
        with self._cond:
            result, detect_s, n = self._result, self._detect_s, self._n_results
        read, ocr_error, ocr_results = self._ocr.state() if self._ocr is not None else (None, None, 0)
        now = self.clock()
        age = (now - result.captured) if result is not None else float("inf")
        ocr_s = self._ocr.latency_s if self._ocr is not None else 0.0
        ocr_age = now - read.captured if read is not None else float("inf")
        providers = [str(getattr(d, "provider", "CPU")) for d in self.pipeline.detectors]
        return LiveTelemetry(self._fps, self._latency, detect_s, age, ", ".join(providers) or "none", self._frames,
                             self._paused, n, ocr_s, ocr_age, ocr_results, ocr_error, self._text_paused,
                             self._stale)  # fmt: skip

    def close(self) -> None:
        """Stop the detector and OCR threads and join them (each finishes the frame it is on)."""
        with self._cond:
            first_close, self._stop = not self._stop, True
            self._cond.notify_all()
        self._thread.join(timeout=30)
        if self._thread.is_alive():
            log.warning("live detector thread still busy after 30 s; abandoning it")
        if self._ocr is not None:
            self._ocr.close()
        if first_close:
            live_heap(start=False)

    def __enter__(self) -> "LiveMasker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


from app.core.live_run import LiveSummary, run_live  # noqa: E402,F401 - the loop lives beside, re-exported here
