"""The slow tier of live masking: OCR beside the frame loop, with a deadline per region.

``OcrTier.tick`` runs on the detector thread: it collects a finished OCR run, carries the newest
OCR boxes onto the ticked frame by the measured motion, and submits the next run when the last
one is done (at most every ``interval_s``); it never waits for OCR. ``OcrTier.gaps`` runs on the
caller's thread: while the newest good read is older than the deadline (``deadline_s``, or 2.5
recent OCR cycles if longer) or OCR fails, text is
unprotected where the picture changed since that read (after compensating the measured
pan/scroll), and those regions are returned to be filled, with the reason to show.
``OcrTier.unread`` gives the regions no read has seen yet at all, where the live masker covers
the drawn text line by line until a read judges it.

With ``regions`` (a ``ChangedRegionDetector`` used for its plan only), a run after a rigid scroll
or pan reads only what the shifted previous read does not explain (one crop, with a margin), and
the previous read's boxes are moved by the measured shift: each read is still one of the whole
frame, and it comes sooner, since OCR's time grows with the lines it reads.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from app.core.async_detector import AsyncDetector
from app.core.detections import Detections, Source, concat
from app.core.geometry import inside_share
from app.core.live_regions import ChangedRegionDetector, RegionPlan
from app.core.motion import FrameMotion, MotionEstimator, changed_boxes
from app.core.policy import TEXT_PII
from app.core.tracking import cut_sides, extend_cut_sides

Gray = tuple[np.ndarray, float]  # ``to_flow_gray`` output
Carry = Callable[[Detections, int, "Gray | None", int, "Gray | None"], Detections]


MAX_JUDGE_ERROR_PX = 3.0  # a read judges the detector's text boxes only across motion measured this well


class Reading(Protocol):
    """What an OCR run made of its frame's text (``app.text.screen.ScreenReading``)."""

    def placed(self, offset: np.ndarray, hw: tuple[int, int], read_again: np.ndarray | None = None) -> "Reading": ...

    def whole(self, hw: tuple[int, int]) -> "Reading": ...

    def cut(self, hw: tuple[int, int]) -> np.ndarray: ...

    def plus(self, other: "Reading") -> "Reading": ...

    def judge(self, dets: Detections, to_reading: np.ndarray) -> Detections: ...


@dataclass(frozen=True)
class OcrRead:
    """The frame of the newest good OCR read: its number, capture time and grey copy, and
    ``unjudged`` (K, 4): the lines it saw cut by the frame's border, frame px (read as a part of
    their text, they were judged by no one)."""

    seq: int
    captured: float
    gray: Gray | None
    unjudged: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))


class OcrTier:
    """OCR on a worker thread (``runner``), its boxes carried frame to frame by ``carry``."""

    def __init__(self, runner: AsyncDetector, interval_s: float, deadline_s: float, clock: Callable[[], float],
                 motion: MotionEstimator, carry: Carry, regions: ChangedRegionDetector | None = None) -> None:  # fmt: skip
        self.runner = runner
        self.regions = regions
        self.interval_s, self.deadline_s = interval_s, deadline_s
        self.clock, self.motion, self.carry = clock, motion, carry
        self.text_classes = frozenset(runner.class_names)
        self.started = clock()
        self._lock = threading.Lock()
        # seq, captured, gray, submit time, region plan (None: whole frame), frame (h, w)
        self._inflight: tuple[int, float, Gray | None, float, RegionPlan | None, tuple[int, int]] | None = None
        self._last_submit: float | None = None
        self._boxes: Detections | None = None  # newest good OCR boxes, placed on the frame of ``_gray``
        self._gray: Gray | None = None
        self._seq = -1  # the frame ``_boxes`` are placed on
        self.latency_s = 0.0
        self._cycles: deque[float] = deque(maxlen=8)  # capture of a read → capture of the next read
        self.error: str | None = None
        self.results = 0
        self.read: OcrRead | None = None
        self._reading: Reading | None = None  # the line verdicts of ``read``, whole frame px of its frame

    # -- detector thread -------------------------------------------------------------------------
    def tick(self, seq: int, frame: np.ndarray, captured: float, gray: Gray | None) -> Detections | None:
        """The newest OCR boxes moved onto frame ``seq``; submits the next run when due."""
        now = self.clock()
        res = self.runner.latest()
        if self._inflight is not None and res is not None and res.frame_index == self._inflight[0]:
            k, cap, gray_k, t_submit, plan, hw = self._inflight
            self._inflight = None
            self.latency_s = time.perf_counter() - t_submit
            if res.error is not None:  # keep holding the last good boxes; text is unprotected where it changes
                with self._lock:
                    self.error = res.error
            else:
                found = res.detections
                reading = self._whole_reading(res.reading, plan, hw)
                if self.regions is not None:  # the read of frame k, whole: carried boxes + the crop's
                    found = self.regions.finish(k, gray_k, hw, plan, [found])
                # A line half out of view was read as half a line: what scrolls in after it is its rest.
                found = found.with_boxes(extend_cut_sides(found.xyxy, hw)) if len(found) else found
                found = self.carry(found, k, gray_k, seq, gray)
                found = concat([found, self._judged_before(found, seq, gray)], found.class_names)
                self._boxes, self._gray, self._seq = found, gray, seq
                with self._lock:
                    if self.read is not None:
                        self._cycles.append(cap - self.read.captured)
                    self.error, self.read = None, OcrRead(k, cap, gray_k, self._cut_at_border(res.reading, plan, hw))
                    self._reading = reading
                    self.results += 1
        elif self._boxes is not None and self._gray is not None:
            self._boxes, self._gray, self._seq = self.carry(self._boxes, self._seq, self._gray, seq, gray), gray, seq
        if self._inflight is None and self.runner.idle and (self._last_submit is None or
                                                           now - self._last_submit >= self.interval_s):  # fmt: skip
            hw = frame.shape[:2]
            plan = self.regions.plan(seq, gray, hw) if self.regions is not None else None
            crops = plan.crops()[:1] if plan is not None else []
            if plan is not None and crops:
                x0, y0, x1, y1 = crops[0]
                self.runner.submit(np.ascontiguousarray(frame[y0:y1, x0:x1]), seq)
            else:
                plan = None
                self.runner.submit(frame, seq)
            self._inflight, self._last_submit = (seq, captured, gray, time.perf_counter(), plan, hw), now
        return self._boxes

    def _judged_before(self, found: Detections, seq: int, gray: Gray | None) -> Detections:
        """The previous read's boxes (carried onto frame ``seq``) over text that has not changed
        since that read and that the new read ``found`` (on frame ``seq``) no longer boxes: a
        line judged private stays private while it stays in view unchanged, though a read taken
        with other lines round it (after a scroll) judges it otherwise."""
        read, prev = self.read, self._boxes
        if read is None or gray is None or prev is None or not len(prev) or self._gray is None:
            return Detections.empty(found.class_names)
        changed = self._changed_since_read(read, seq, gray, exact=True)
        if changed is None:
            return Detections.empty(found.class_names)
        prev = self.carry(prev, self._seq, self._gray, seq, gray)
        keep = np.ones(len(prev), bool)
        if len(found):
            keep &= inside_share(prev.xyxy, found.xyxy).sum(axis=1) < 0.5
        if len(changed):
            keep &= inside_share(prev.xyxy, changed).sum(axis=1) == 0
        return prev.take(np.flatnonzero(keep))

    def _whole_reading(self, reading: Reading | None, plan: RegionPlan | None, hw: tuple[int, int]) -> Reading | None:
        """The line verdicts of a finished run over its whole frame, less the lines cut by the
        border of what it read (read as part of their text): a crop's (``plan``) moved to frame
        px, with the previous read's lines outside the crop moved by the plan's shift."""
        if reading is None:
            return None
        if plan is None:
            return reading.whole(hw).placed(np.zeros(2, np.float32), hw)  # its ink measured now, while the frame is at hand
        x0, y0, x1, y1 = plan.crops()[0]
        reading = reading.whole((y1 - y0, x1 - x0)).placed(np.array([x0, y0], np.float32), hw)
        prev, read = self._reading, self.read
        if prev is None or read is None or read.seq != plan.base.seq:
            return reading
        return prev.placed(plan.shift, hw, read_again=np.array([x0, y0, x1, y1], np.float32)).plus(reading)

    @staticmethod
    def _cut_at_border(reading: Reading | None, plan: RegionPlan | None, hw: tuple[int, int]) -> np.ndarray:
        """(K, 4) frame px: the lines a finished run saw cut by the frame's border (a line its
        crop's border cuts inside the frame is the previous read's, ``_whole_reading``)."""
        if reading is None:
            return np.zeros((0, 4), np.float32)
        x0, y0, x1, y1 = plan.crops()[0] if plan is not None else (0, 0, hw[1], hw[0])
        lines = reading.cut((y1 - y0, x1 - x0)) + np.array([x0, y0, x0, y0], np.float32)
        return lines[cut_sides(lines, hw).any(1)]

    def judge(self, dets: Detections, seq: int, gray: Gray | None) -> Detections:
        """``dets`` of frame ``seq`` with the detector's text boxes judged by the newest read, as a
        still's are by its own reading (``Reading.judge``: cut to the lines holding a private
        word, dropped over a headline), where the picture has not changed since that read; boxes
        over changed pixels, or when the motion since the read is not measured well, stand."""
        read, reading = self.read, self._reading
        text = np.isin(dets.labels, TEXT_PII) & (dets.sources == Source.DETECTOR) if len(dets) else np.zeros(0, bool)
        if read is None or reading is None or gray is None or not text.any():
            return dets  # nothing to judge: no change check (it runs on every tick of a still screen)
        moved = self.motion.between(read.seq, seq)
        if moved is None or moved[1] > MAX_JUDGE_ERROR_PX:
            return dets
        changed = self._changed_since_read(read, seq, gray, exact=True)
        if changed is None:
            return dets
        still = inside_share(dets.xyxy, changed).sum(axis=1) == 0 if len(changed) else np.ones(len(dets), bool)
        if not still.any():
            return dets
        judged = reading.judge(dets.take(np.flatnonzero(still)), -np.asarray(moved[0], np.float32))
        return concat([dets.take(np.flatnonzero(~still)), judged], dets.class_names)

    def fail(self, message: str) -> None:
        """Record a failure of the OCR bookkeeping itself (treated like a failed run)."""
        with self._lock:
            self.error = message

    # -- caller's thread -------------------------------------------------------------------------
    def deadline(self) -> float:
        """The deadline in force: ``deadline_s``, or 2.5 recent OCR cycles if longer (a read is up
        to two cycles old when the next lands), so a slow but working OCR is no stall."""
        with self._lock:
            return max(self.deadline_s, 2.5 * max(self._cycles, default=0.0))

    def state(self) -> tuple[OcrRead | None, str | None, int]:
        """(newest good read, newest error, number of good reads), consistently."""
        with self._lock:
            return self.read, self.error, self.results

    def gaps(self, hw: tuple[int, int], motion: FrameMotion | None, now: float) -> tuple[str | None, np.ndarray | None]:
        """(why text protection is paused, (K, 4) xyxy regions to fill), or (None, None) while
        OCR is current. Without a usable read or motion, the region is the whole frame."""
        read, error, _ = self.state()
        since = read.captured if read is not None else self.started
        if error is None and now - since <= self.deadline():
            return None, None
        why = f"OCR failed ({error})" if error is not None else f"OCR {now - since:.1f} s behind"
        regions = self._changed_since_read(read, motion.seq, (motion.gray, motion.scale), exact=True) if motion else None
        if regions is None:
            return f"text unprotected: {why}; frame hidden", np.array([[0, 0, hw[1], hw[0]]], np.float32)
        return f"text unprotected where the picture changed: {why}", regions

    def unread(self, hw: tuple[int, int], seq: int, gray: Gray) -> np.ndarray:
        """(K, 4) xyxy regions of frame ``seq`` (``gray``: its ``to_flow_gray``) that no OCR read
        has judged: what changed since the newest good read, after the measured motion (the whole
        frame before the first read, or when the motion since cannot be told), and the lines that
        read saw cut by the frame's border, moved with the picture (a name half scrolled in then
        was seen, but not judged)."""
        read, _, _ = self.state()
        regions = self._changed_since_read(read, seq, gray)
        if regions is None:
            return np.array([[0, 0, hw[1], hw[0]]], np.float32)
        if len(read.unjudged):
            d = np.tile(np.asarray(self.motion.between(read.seq, seq)[0], np.float32), 2)
            moved = np.clip(read.unjudged + d, 0, [hw[1], hw[0], hw[1], hw[0]])
            moved = moved[(moved[:, 2] > moved[:, 0]) & (moved[:, 3] > moved[:, 1])]
            regions = np.concatenate([regions.reshape(-1, 4), moved]).astype(np.float32)
        return regions

    def _changed_since_read(self, read: OcrRead | None, seq: int, gray: Gray, exact: bool = False) -> np.ndarray | None:
        """(K, 4) xyxy regions of frame ``seq`` that changed since ``read``'s frame, after the
        measured motion (``changed_boxes``: bounds to search in, or with ``exact`` the changed
        blocks themselves, to fill); None when there is no read or the motion since it cannot be told."""
        moved = self.motion.between(read.seq, seq) if read is not None and read.gray is not None else None
        return None if moved is None else changed_boxes(read.gray[0], gray[0], gray[1], moved[0], exact=exact)

    def close(self) -> None:
        """Stop the OCR worker (after its current frame)."""
        self.runner.close(timeout=30)
