"""Fast-tier detection on what changed: during a scroll or pan, only the newly revealed part of
the frame is new to the detector, so only that part (with a margin) is detected again.

``ChangedRegionDetector.detect(seq, frame, gray)`` compares the frame with the one the previous
tick looked at, after the *measured* global shift between them (``MotionEstimator.between``):
* the previous tick's boxes are moved by that shift (what the detector saw has moved with the
  picture; what it found nothing in still holds nothing);
* the regions the shifted previous frame does not explain (``changed_boxes``: content scrolled in,
  a window that opened) are detected again, each grown by ``margin`` so an object cut by the
  region's border is seen whole when it is smaller than the margin; carried boxes that lie wholly
  inside a re-detected region are replaced by what the detector finds there now.

When nothing changed, the previous tick's boxes stand without a detector call (the same pixels
give the same boxes; on two cores a whole look there took the time OCR needed), and the whole
frame is looked at again only once the newest whole look is ``still_look_s`` old (another look at
a camera picture may find what the last one missed). It detects the whole frame — the same as
without it — when there is no previous tick, when the motion between the two frames is not known to within
``max_error_px`` (a cut, a zoom, too little texture), when the re-detected regions would cover
more than ``max_share`` of the frame, after ``full_every`` ticks since the last whole-frame look
(nothing depends on a chain of shifts for long, and a flaky detection gets more chances), and
when the detector is faster than the change check (``min_look_s``). Each result stands for the
whole frame whenever the picture moved rigidly (up to the detector's own variation between a crop
and the whole frame), and it comes sooner, so less of a scrolling frame is "unseen" in live mode;
``bench-video --parts pan-looks`` measures both the cost and what the looks find. Like the live
deadline, it relies on ``changed_boxes`` to notice new content: a change of less than its
grey-level threshold is not re-detected until the next whole-frame look. The OCR tier uses
``plan``/``finish`` with one crop per read (``app.core.live_ocr``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from app.core.detections import Detections, concat
from app.core.geometry import grown_and_merged
from app.core.motion import MotionEstimator, changed_boxes
from app.core.pipeline import Detector

Gray = tuple[np.ndarray, float]  # ``to_flow_gray`` output


@dataclass(frozen=True)
class RegionSettings:
    """``max_error_px``: the measured motion between two ticks must be known to this (px, root of
    the summed per-frame error variances) to reuse the older tick; the pixel comparison of
    ``changed_boxes`` checks it anyway (a wrong shift shows as change, which is re-detected).
    ``max_share``: re-detected area above this share of the frame → detect the whole frame.
    ``margin``: growth of each changed region, as a share of the frame's short side (at least
    ``min_margin_px``). ``full_every``: a whole-frame detection at least every this many ticks
    (whole looks give a flaky detection more chances: a region look sees an object about once, as
    it scrolls in). ``max_regions``: more separate regions → their union is detected as one.
    ``min_look_s``: only when a whole-frame look took at least this long (wall seconds, the newest
    one timed here) is the change check (≈ 24 ms measured on loaded cores) worth making; a detector
    faster than that looks at whole frames (with a fast colour-key detector the check cut the
    detection rate by a third and raised the live leak check's leaks). ``still_look_s``: a frame
    on which nothing changed since the previous look gets that look's boxes again without a
    detector call (the same pixels give the same boxes), and a whole look only once the newest
    whole look is this old (wall seconds): on a still screen the cores go to OCR instead."""

    max_error_px: float = 4.0
    max_share: float = 0.6
    margin: float = 0.2
    min_margin_px: float = 32.0
    full_every: int = 3
    max_regions: int = 3
    min_look_s: float = 0.1
    still_look_s: float = 1.0


@dataclass
class _Look:
    seq: int
    gray: Gray
    detections: Detections  # everything found on frame ``seq``, frame px


class ChangedRegionDetector:
    """Runs ``detectors`` on whole frames or on what changed since the previous call (see module
    docstring). Not thread-safe: one caller (the live detector thread)."""

    def __init__(self, detectors: Sequence[Detector], class_names: tuple[str, ...], motion: MotionEstimator,
                 settings: RegionSettings = RegionSettings(), clock: Callable[[], float] = time.perf_counter) -> None:  # fmt: skip
        self.clock = clock
        self._full_at = -np.inf  # when the newest whole look was made (``clock``)
        self.detectors = tuple(detectors)
        self.class_names = class_names
        self.motion = motion
        self.settings = settings
        self._last: _Look | None = None
        self._since_full = 0
        self.partial_calls = 0  # ticks that detected only changed regions (telemetry, tests)
        self.full_calls = 0
        self.last_regions = np.zeros((0, 4), np.float32)  # what the newest call detected, frame px
        self.look_s: float | None = None  # wall time of the newest whole-frame look timed by ``detect``

    def reset(self) -> None:
        """Forget the previous look (the next call detects the whole frame)."""
        self._last = None

    def _detect(self, frame: np.ndarray) -> Detections:
        return concat([d.detect(frame) for d in self.detectors], self.class_names)

    def detect(self, seq: int, frame: np.ndarray, gray: Gray | None) -> Detections:
        """Boxes for all of (H, W, 3) BGR ``frame`` number ``seq`` (frame px), ``gray`` its
        ``to_flow_gray`` copy (None: always the whole frame)."""
        plan = self.plan(seq, gray, frame.shape[:2])
        if plan is None:
            t0 = time.perf_counter()
            found = self._detect(frame)
            self.look_s = time.perf_counter() - t0
            return self.finish(seq, gray, frame.shape[:2], None, [found])
        found = [self._detect(np.ascontiguousarray(frame[y0:y1, x0:x1])) for x0, y0, x1, y1 in plan.crops()]
        return self.finish(seq, gray, frame.shape[:2], plan, found)

    def plan(self, seq: int, gray: Gray | None, hw: tuple[int, int]) -> "RegionPlan | None":
        """What to detect on frame ``seq``: the changed regions (``RegionPlan``), or None for the
        whole frame. For a detector that runs elsewhere (OCR): detect ``plan.crops()``, then
        call ``finish`` with what was found in each."""
        s, last = self.settings, self._last
        if gray is None or last is None or last.gray[0].shape != gray[0].shape:
            return None
        if self.look_s is not None and self.look_s < s.min_look_s:
            return None  # whole frames are cheaper than the change check
        moved = self.motion.between(last.seq, seq)
        if moved is None or not np.isfinite(moved[1]) or moved[1] > s.max_error_px:
            return None
        shift = np.asarray(moved[0], np.float32)
        changed = changed_boxes(last.gray[0], gray[0], gray[1], shift)
        if not len(changed):  # nothing new: the last look's boxes stand, a whole look now and then
            fresh = self.clock() - self._full_at < s.still_look_s
            return RegionPlan(np.zeros((0, 4), np.float32), shift, last) if fresh else None
        if self._since_full + 1 >= s.full_every:
            return None
        h, w = hw
        margin = max(s.min_margin_px, s.margin * min(h, w))
        regions = grown_and_merged(changed, hw, margin, s.max_regions)
        area = float(((regions[:, 2] - regions[:, 0]) * (regions[:, 3] - regions[:, 1])).sum())
        return None if area > s.max_share * h * w else RegionPlan(regions, shift, last)

    def finish(self, seq: int, gray: Gray | None, hw: tuple[int, int], plan: "RegionPlan | None",
               found: Sequence[Detections]) -> Detections:  # fmt: skip
        """Boxes for the whole of frame ``seq``: ``found`` is what the detectors returned for the
        whole frame (``plan`` None) or for each of ``plan.crops()`` (crop px)."""
        h, w = hw
        if plan is None:
            result = concat(list(found), self.class_names)
            self.full_calls += 1
            self._since_full = 0
            self._full_at = self.clock()
            self.last_regions = np.array([[0, 0, w, h]], np.float32)
        else:
            parts = [plan.carried(hw)]
            for (x0, y0, _, _), dets in zip(plan.crops(), found):
                if len(dets):
                    parts.append(dets.with_boxes(dets.xyxy + np.array([x0, y0, x0, y0], np.float32)))
            result = concat(parts, self.class_names)
            self.partial_calls += 1
            self._since_full += len(plan.regions) > 0  # a tick on which nothing changed is no look
            self.last_regions = plan.regions.astype(np.float32)
        if gray is not None:
            self._last = _Look(seq, gray, result)
        return result


@dataclass(frozen=True)
class RegionPlan:
    """Changed ``regions`` (K, 4) whole frame px to detect, the measured ``shift`` (2,) from the
    previous look's frame, and that look."""

    regions: np.ndarray
    shift: np.ndarray
    base: _Look

    def crops(self) -> list[tuple[int, int, int, int]]:
        """The regions as integer (x0, y0, x1, y1) slices, at least 2 px a side."""
        return [(x0, y0, x1, y1) for x0, y0, x1, y1 in self.regions.astype(int).tolist() if x1 - x0 >= 2 and y1 - y0 >= 2]

    def carried(self, hw: tuple[int, int]) -> Detections:
        """The previous look's boxes moved by the measured shift, clipped to the frame, minus those
        out of view and those wholly inside a re-detected region (looked at again)."""
        h, w = hw
        dets = self.base.detections
        if not len(dets):
            return dets
        dx, dy = float(self.shift[0]), float(self.shift[1])
        moved = dets.xyxy + np.array([dx, dy, dx, dy], np.float32)
        inside = np.zeros(len(moved), bool)
        for x0, y0, x1, y1 in self.crops():
            inside |= (moved[:, 0] >= x0) & (moved[:, 1] >= y0) & (moved[:, 2] <= x1) & (moved[:, 3] <= y1)
        in_view = (moved[:, 2] > 0) & (moved[:, 3] > 0) & (moved[:, 0] < w) & (moved[:, 1] < h)
        return dets.with_boxes(np.clip(moved, 0, [w, h, w, h])).take(~inside & in_view)
