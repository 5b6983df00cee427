"""Where a moving object can be while the live detector lags.

A detection result describes the frame it was captured on, which is ``age`` frames old by the
time it is shown (a 0.3 s detector at 30 fps: 9 frames). An object that moves against the
picture has moved on by then; flat colour (a card, a sign) gives optical flow nothing to follow,
so the box moved by flow stays behind and the object's leading edge shows.

``LeadTracker`` measures each object's own velocity from the detector's results, in frames of the
source (the capture frame number of each result is known) and against the measured global
motion (a pan moves everything; ``MotionEstimator.between``). On every shown frame it adds, for
each object moving against the picture, its *sweep*: the hull of where it was found (moved with
the picture) and where its velocity puts it one frame after now, grown on each axis by the measured
change of that velocity between results times the same number of frames. Deceleration and reversal stay
inside the hull; acceleration is covered by the growth. Where the picture's own motion since the
detection is not known (a flat picture gives the global shift nothing to measure; a cut), the
live masker also hides the regions that changed since the detection and touch the sweep
(``LiveMasker``): what the detector has not seen there is not shown.

Nothing here grows by a fixed amount per frame: a static object adds nothing, and a moving one
adds the distance its own measured motion covers in the age of its newest detection.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import box_area, clip_xyxy
from app.core.motion import MotionEstimator
from app.core.tracking import cut_sides, object_velocity


@dataclass(eq=False)  # compared by identity
class _Object:
    class_id: int
    box: np.ndarray  # (4,) xyxy on frame ``seq``
    seq: int  # capture frame of its newest detection
    captured: float  # capture time of that frame (for the hold)
    velocity: np.ndarray  # (4,) px/frame against the picture, per coordinate
    velocity_error: np.ndarray  # (2,) px/frame per axis: change of the velocity between its last two measurements
    measured: bool = False  # a velocity needs two detections
    trail: list = field(default_factory=list)  # earlier (seq, box) detections, newest last
    patch: tuple[np.ndarray, np.ndarray] | None = None  # its grey look on frame ``seq`` and where (``_grey_patch``)


@dataclass(frozen=True)
class LeadSettings:
    """``min_speed``: px/frame against the picture below which an object is static (no sweep).
    ``min_baseline``: a velocity is measured against the newest earlier detection at least this
    many frames older when there is one (a box jitters by a pixel or two between detections: over
    one frame that is a velocity of as much), from the last ``trail`` detections.
    ``error_sigmas``: the sweep also grows by this many times the measured error of the picture's
    motion since the detection, up to ``max_error_grow_px``. ``gate``/``gate_growth``: a detection continues an object when its
    centre is within ``gate`` + ``gate_growth`` × frames since its last detection box widths
    across and box heights down of where the picture's and the object's measured motion put it
    (an object not yet measured may have moved that far), and only when at least ``min_in_view``
    of the box it predicts is inside the frame: its own detection would be cut by the frame's edge
    to under ``max_size_ratio`` of its size, so a whole-sized box is another object (on a
    scrolled list, the rows that scrolled in while the detector lagged are not the rows that
    scrolled out, moved down the list against the scroll). Per axis, not in box diagonals: with the
    pan or scroll taken out, a line of a list is not continued by the next line down (a wide box's
    diagonal spans several lines), which would read as a fast vertical motion and sweep the rows. ``max_size_ratio``: nor when its width or height differs by more than this factor (two
    different objects). ``still_match``: an object whose grey look (with at least ``min_texture``
    grey levels of spread) is found again where the picture's motion alone puts it, to within
    ``still_search_px`` flow pixels, with at least this normalised correlation, has not moved: no
    detection elsewhere continues it (on a scrolled list, the next row's avatar is not this row's
    avatar moved a row, while this one went undetected)."""

    min_speed: float = 0.5
    min_baseline: int = 6
    trail: int = 8
    error_sigmas: float = 3.0
    max_error_grow_px: float = 48.0
    gate: float = 1.0
    gate_growth: float = 0.25
    max_size_ratio: float = 1.5
    min_in_view: float = 0.5
    still_match: float = 0.8
    still_search_px: int = 3
    min_texture: float = 6.0


def _grey_patch(gray: tuple[np.ndarray, float] | None, box: np.ndarray,
                min_px: int = 6) -> tuple[np.ndarray, np.ndarray] | None:  # fmt: skip
    """The part of ``gray`` (a ``to_flow_gray`` copy) under ``box`` (xyxy, frame px) that the frame
    shows, and that part's box in frame px; None when it is under ``min_px`` flow pixels either way."""
    if gray is None:
        return None
    img, scale = gray
    x0, y0 = max(0, int(round(box[0] * scale))), max(0, int(round(box[1] * scale)))
    x1, y1 = min(img.shape[1], int(round(box[2] * scale))), min(img.shape[0], int(round(box[3] * scale)))
    if x1 - x0 < min_px or y1 - y0 < min_px:
        return None
    return img[y0:y1, x0:x1].copy(), np.array([x0, y0, x1, y1], np.float32) / scale


def _edge_velocity(v: np.ndarray, box: np.ndarray, base: np.ndarray, hw: tuple[int, int] | None) -> tuple[float, float]:
    """The (x, y) velocity of an object from the per-side velocities ``v`` (4,) between two of its
    boxes (``tracking.object_velocity``: a side the frame's edge cuts in either box is no motion)."""
    cut = None if hw is None else (cut_sides(box, hw) | cut_sides(base, hw))[0]
    vx, vy = object_velocity(v, cut)
    return float(vx), float(vy)


class LeadTracker:
    """Velocities of detected objects from the live detector's results, and their sweeps."""

    def __init__(self, motion: MotionEstimator | None, settings: LeadSettings = LeadSettings()) -> None:
        self.motion = motion
        self.settings = settings
        self.objects: list[_Object] = []

    def _moved(self, seq_from: int, seq_to: int) -> tuple[np.ndarray, float]:
        """Global (dx, dy) from one frame to another and its measured error (px); no estimator
        (optical flow off): a still picture; frames no longer known: an infinite error."""
        if self.motion is None:
            return np.zeros(2, np.float32), 0.0
        between = self.motion.between(seq_from, seq_to)
        if between is None:
            return np.zeros(2, np.float32), float("inf")
        return np.asarray(between[0], np.float32), float(between[1])

    def observe(self, seq: int, captured: float, dets: Detections, hold_s: float,
                hw: tuple[int, int] | None = None, gray: tuple[np.ndarray, float] | None = None) -> None:  # fmt: skip
        """Take the detections found on capture frame ``seq`` (in that frame's coordinates, of
        size ``hw``; ``gray``: that frame's ``to_flow_gray`` copy, to tell objects that stayed
        where the picture put them); objects not seen for more than ``hold_s`` of capture time
        are forgotten."""
        s = self.settings
        boxes = dets.xyxy.astype(np.float32)
        moved = [self._moved(ob.seq, seq)[0] for ob in self.objects]  # the picture's motion since each was seen
        still = [ob.seq < seq and self._still(ob, g, gray) for ob, g in zip(self.objects, moved)]
        pairs = []  # (distance, detection, object) of every plausible continuation
        for i, (box, cid) in enumerate(zip(boxes, dets.class_ids)):
            w, h = box[2] - box[0], box[3] - box[1]
            for j, ob in enumerate(self.objects):
                if ob.class_id != int(cid) or ob.seq >= seq:
                    continue
                gap, g = seq - ob.seq, moved[j]
                if still[j]:  # it is where the picture put it: only a detection there continues it
                    gap, pred = 0, ob.box + np.concatenate([g, g])
                else:
                    pred = ob.box + np.concatenate([g, g]) + (ob.velocity * gap if ob.measured else 0.0)
                pw, ph = pred[2] - pred[0], pred[3] - pred[1]
                if hw is not None and box_area(clip_xyxy(pred[None], hw))[0] < s.min_in_view * max(pw * ph, 1e-6):
                    continue  # it has left the view: a whole-sized box in view is something else
                ratio = min(max(w, pw) / max(min(w, pw), 1e-6), max(h, ph) / max(min(h, ph), 1e-6))
                off = np.abs((box[:2] + box[2:]) / 2 - (pred[:2] + pred[2:]) / 2)
                d = float(np.hypot(*off))
                reach = (s.gate + s.gate_growth * gap) * np.array([w, h], np.float32)
                if ratio <= s.max_size_ratio and bool(np.all(off <= reach)):
                    pairs.append((d, i, j))
        match: dict[int, _Object] = {}
        used: set[int] = set()
        for _, i, j in sorted(pairs):  # nearest first: two cards of one class do not swap
            if i not in match and j not in used:
                match[i] = self.objects[j]
                used.add(j)
        free = [ob for j, ob in enumerate(self.objects) if j not in used]
        kept: list[_Object] = []
        for i, (box, cid) in enumerate(zip(boxes, dets.class_ids)):
            best = match.get(i)
            patch = _grey_patch(gray, box)
            if best is None:
                kept.append(_Object(int(cid), box.copy(), seq, captured, np.zeros(4, np.float32), np.zeros(2, np.float32),
                                    patch=patch))  # fmt: skip
                continue
            trail = (best.trail + [(best.seq, best.box)])[-s.trail :]
            base_seq, base_box = next((p for p in reversed(trail) if seq - p[0] >= s.min_baseline), trail[0])
            g = self._moved(base_seq, seq)[0]
            v = (box - base_box - np.concatenate([g, g])) / (seq - base_seq)
            cx, cy = _edge_velocity(v, box, base_box, hw)  # one velocity for the whole box
            v = np.array([cx, cy, cx, cy], np.float32)
            err = np.abs(v - best.velocity)[:2] if best.measured else np.zeros(2, np.float32)
            kept.append(_Object(int(cid), box.copy(), seq, captured, v, err, True, trail, patch))
        kept += [ob for ob in free if captured - ob.captured <= hold_s]
        self.objects = kept

    def _still(self, ob: _Object, moved: np.ndarray, gray: tuple[np.ndarray, float] | None) -> bool:
        """True when ``ob``'s grey look is found again in ``gray`` where the picture's motion
        ``moved`` (dx, dy frame px) alone puts it; only the part the frame still shows is compared,
        and only when that is at least half of it."""
        if gray is None or ob.patch is None:
            return False
        img, scale = gray
        patch, where = ob.patch
        ph, pw = patch.shape
        px, py = int(round((where[0] + moved[0]) * scale)), int(round((where[1] + moved[1]) * scale))
        cx0, cy0 = max(0, -px), max(0, -py)  # the patch's part still in view
        cx1, cy1 = min(pw, img.shape[1] - px), min(ph, img.shape[0] - py)
        if cx1 - cx0 < max(6, pw // 2) or cy1 - cy0 < max(6, ph // 2):
            return False
        part = patch[cy0:cy1, cx0:cx1]
        if float(part.std()) < self.settings.min_texture:
            return False  # flat: nothing to find it by
        r = self.settings.still_search_px
        x0, y0 = max(0, px + cx0 - r), max(0, py + cy0 - r)
        area = img[y0 : min(img.shape[0], py + cy1 + r), x0 : min(img.shape[1], px + cx1 + r)]
        return float(cv2.matchTemplate(area, part, cv2.TM_CCOEFF_NORMED).max()) >= self.settings.still_match

    def sweeps(self, seq_now: int, class_names: tuple[str, ...], hw: tuple[int, int]) -> tuple[Detections, np.ndarray]:
        """For frame ``seq_now``: the hull of each moving object's detected box (moved with the
        picture) and its position one frame past now, grown by its velocity error over the same
        frames and by ``error_sigmas`` × the picture motion's measured error (at most
        ``max_error_grow_px``), clipped to the (H, W) frame, tagged ``Source.TRACKER``; and (N,)
        True where that error was beyond the cap or unknown (a flat picture, a cut): the caller
        must hide what changed there."""
        s = self.settings
        rows, ids, untrusted = [], [], []
        for ob in self.objects:
            speed = float(np.abs(ob.velocity[:2]).max())
            if not ob.measured or speed < s.min_speed:
                continue
            ahead = max(0, seq_now - ob.seq) + 1
            g, g_err = self._moved(ob.seq, seq_now)
            here = ob.box + np.concatenate([g, g])
            there = here + ob.velocity * ahead
            # Growth by the picture's motion error is capped; beyond the cap the caller hides what
            # changed around the sweep instead (``untrusted``).
            grow = s.error_sigmas * g_err
            untrusted.append(not grow <= s.max_error_grow_px)
            gx, gy = ob.velocity_error * ahead + min(grow, s.max_error_grow_px)
            rows.append([min(here[0], there[0]) - gx, min(here[1], there[1]) - gy,
                         max(here[2], there[2]) + gx, max(here[3], there[3]) + gy])  # fmt: skip
            ids.append(ob.class_id)
        if not rows:
            return Detections.empty(class_names), np.zeros(0, bool)
        n = len(rows)
        return Detections(clip_xyxy(np.array(rows, np.float32), hw), np.ones(n), ids, class_names, [-1] * n,
                          [int(Source.TRACKER)] * n), np.array(untrusted)  # fmt: skip
