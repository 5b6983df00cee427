"""A tracker with a privacy rule: it may add boxes, never drop one.

* Its output is a superset of its input: every input detection is emitted on the frame it
  arrives (a new object is masked on its first frame), its box only grown.
* A box the detector loses keeps being masked for ``hold`` (on the clock the caller gives:
  capture seconds in live mode, frames otherwise), moved by the *measured* motion: per-box
  Lucas–Kanade started at the frame's global shift (``app.core.motion``) when frames are given,
  else its constant velocity.
* A held box grows only by what was not measured: ``error_sigmas`` × the root of the summed
  squared per-frame motion errors (or, without frames, of its speed), capped at ``max_dilate_px``.
  A static box on a static picture stays the size it was detected; nothing grows by a fixed
  amount per frame of age.

Off-the-shelf trackers that only report confirmed tracks must not decide what is masked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.core.box_sanity import EDGE_PX
from app.core.detections import Detections, Source
from app.core.geometry import clip_xyxy, iou_matrix
from app.core.motion import FLOW_MAX_SIDE, FrameMotion, MotionEstimator, box_shifts, to_flow_gray  # noqa: F401


@dataclass(frozen=True)
class TrackerSettings:
    """``hold``: how long a lost box stays masked, in the unit of the ``t`` given to ``update``
    (frames when none is given). ``motion_pad``: frames of the box's measured motion added on
    each side (the box is moved by the motion measured on the frame it masks; half a frame covers
    a camera's exposure smear about that position). ``error_sigmas``/``max_dilate_px``: growth of a held box
    from its accumulated measured motion error, and its cap in pixels. ``gate_short_side``: the
    distance gate is in box short sides instead of diagonals (boxes in motion-compensated scene
    coordinates barely move: a text line must not be linked to the next line down).
    ``max_size_ratio``: a detection links to a track only when its width or its height is within
    this factor of the track's (an object does not double in size
    while unseen; linking two false boxes of different sizes made one box sweep the frame)."""

    hold: float = 15
    iou_match: float = 0.05
    gate_diag: float = 1.0
    gate_growth: float = 0.25
    motion_pad: float = 0.5
    velocity_smoothing: float = 0.6
    error_sigmas: float = 3.0
    max_dilate_px: float = 48.0
    optical_flow: bool = True
    gate_short_side: bool = False
    max_size_ratio: float = 1.5


@dataclass
class _Track:
    track_id: int
    class_id: int
    score: float
    source: int
    box: np.ndarray  # current estimate, float32 (4,)
    hit_box: np.ndarray  # box at the last hit
    hit_t: float  # clock time of the last hit
    # px/frame per coordinate, against the picture (with measured frames; else in the frame)
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(4, np.float32))
    picture_shift: np.ndarray = field(default_factory=lambda: np.zeros(2, np.float32))  # picture's motion since the hit, px
    since_hit: int = 0  # frames
    variance: float = 0.0  # summed squared motion error since the last hit, px²
    predicted: np.ndarray | None = None  # where measured motion put it on this frame
    step: np.ndarray = field(default_factory=lambda: np.zeros(2, np.float32))  # its motion on this frame, px
    flowed: bool = True  # moved only by the frames' measured motion since its hit (not by its velocity alone)
    cut: np.ndarray = field(default_factory=lambda: np.zeros(4, bool))  # sides of the hit box the frame's border cut


def grow_xyxy(xyxy: np.ndarray, fraction: np.ndarray | float, extra_x: np.ndarray | float = 0.0,
              extra_y: np.ndarray | float = 0.0) -> np.ndarray:  # fmt: skip
    """Grow boxes by ``fraction`` of their own width/height plus ``extra`` px on each side."""
    out = np.asarray(xyxy, np.float32).reshape(-1, 4).copy()
    w = (out[:, 2] - out[:, 0]) * fraction + extra_x
    h = (out[:, 3] - out[:, 1]) * fraction + extra_y
    out[:, 0] -= w
    out[:, 2] += w
    out[:, 1] -= h
    out[:, 3] += h
    return out


def cut_sides(xyxy: np.ndarray, hw: tuple[int, int]) -> np.ndarray:
    """(N, 4) bool: the sides of boxes (N, 4) xyxy that the border of an ``hw`` frame cuts."""
    b = np.asarray(xyxy, np.float32).reshape(-1, 4)
    h, w = hw
    return np.stack([b[:, 0] <= EDGE_PX, b[:, 1] <= EDGE_PX, b[:, 2] >= w - EDGE_PX, b[:, 3] >= h - EDGE_PX], 1)


def extend_cut_sides(xyxy: np.ndarray, hw: tuple[int, int]) -> np.ndarray:
    """Boxes (N, 4) with each side the frame's border cuts moved out past the border by the box's
    own size on that axis: the object goes on beyond the view, and a box read there and moved
    into view with the picture (a list scrolled up) must still cover the part that was hidden."""
    b = np.array(xyxy, np.float32, copy=True).reshape(-1, 4)
    cut = cut_sides(b, hw)
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    b[:, 0] -= np.where(cut[:, 0], w, 0)
    b[:, 1] -= np.where(cut[:, 1], h, 0)
    b[:, 2] += np.where(cut[:, 2], w, 0)
    b[:, 3] += np.where(cut[:, 3], h, 0)
    return b


def _pinned_to_border(box: np.ndarray, cut: np.ndarray, hw: tuple[int, int] | None) -> np.ndarray:
    """``box`` (4,) with each side in ``cut`` (the border cut it at the hit) kept at or past that
    border: the object went on beyond the view, so as the picture carries the box inwards, what
    comes into view behind the side is more of the object."""
    if hw is None:
        return box
    border = np.array([0.0, 0.0, hw[1], hw[0]], np.float32)
    beyond = np.concatenate([np.minimum(box[:2], border[:2]), np.maximum(box[2:], border[2:])])
    return np.where(cut, beyond, box).astype(np.float32)


def object_velocity(v_xyxy: np.ndarray, cut: np.ndarray | None) -> np.ndarray:
    """(vx, vy) of an object from the per-side velocities (4,) between two of its boxes: the
    centre's, except on an axis where the frame's border cuts a side of either box (``cut``,
    (4,) bool, x0 y0 x1 y1). There the cut side stands still while more of the object comes into
    view (or goes out), so only the other side moves with it; with both sides cut, the axis says
    nothing (0)."""
    v = np.asarray(v_xyxy, np.float32)
    out = np.array([(v[0] + v[2]) / 2, (v[1] + v[3]) / 2], np.float32)
    if cut is None:
        return out
    for axis in (0, 1):
        lo, hi = bool(cut[axis]), bool(cut[axis + 2])
        if lo or hi:
            out[axis] = 0.0 if lo and hi else (v[axis + 2] if lo else v[axis])
    return out


def centre_velocity(v_xyxy: np.ndarray) -> np.ndarray:
    """Per-corner velocity → the same centre velocity on all corners, so a box clipped by the
    frame edge (one side stuck at 0) moves instead of shrinking to nothing when extrapolated."""
    v = np.asarray(v_xyxy, np.float32)
    cx, cy = (v[0] + v[2]) / 2, (v[1] + v[3]) / 2
    return np.array([cx, cy, cx, cy], np.float32)


class PrivacyTracker:
    """Implements the ``Tracker`` protocol of ``app.core.pipeline``.

    ``update(detections, frame, t, motion)``: ``detections`` None on frames where no detector ran.
    The first ``len(detections)`` output rows are the input detections in input order (grown to
    include the track's measured position), followed by held boxes tagged ``Source.TRACKER``.
    ``frame`` (H, W, 3) BGR may be None when optical flow is off.
    """

    def __init__(self, settings: TrackerSettings = TrackerSettings(), class_names: tuple[str, ...] = ()) -> None:
        self.settings = settings
        self.class_names = tuple(class_names)
        self.tracks: list[_Track] = []
        self._next_id = 0
        self._motion = MotionEstimator(history=2)
        self._prev: FrameMotion | None = None
        self._frames = 0
        self._clock = 0.0  # newest detector time seen (frames until a time is given)
        self._timed = False
        self._hw: tuple[int, int] | None = None

    def reset(self) -> None:
        """Forget every track (e.g. after a seek or a source change)."""
        self.tracks.clear()
        self._motion.reset()
        self._prev = None

    def forget(self, track_ids) -> None:
        """End the tracks with these ids (e.g. held boxes a new look contradicts)."""
        ids = {int(i) for i in track_ids}
        self.tracks = [tr for tr in self.tracks if tr.track_id not in ids]

    def update(self, detections: Detections | None, frame: np.ndarray | None, t: float | None = None,
               motion: FrameMotion | None = None) -> Detections:  # fmt: skip
        """Advance one frame and return the boxes to hide on it (superset of ``detections``).

        ``t``: the clock time of the frame ``detections`` were found on (live: its capture time,
        seconds); tracks expire when the newest such time is more than ``hold`` past their last
        hit, so time passes only when the detector has looked again. A tracker never given ``t``
        counts one unit per call (frames).
        ``motion``: this frame's estimate when the caller already has it (else computed here).
        """
        s = self.settings
        self._frames += 1
        if t is not None:
            self._timed = True
            if detections is not None:
                self._clock = max(self._clock, float(t))
        elif not self._timed:
            self._clock = float(self._frames)
        if detections is not None:
            self.class_names = detections.class_names
        if frame is not None:
            self._hw = frame.shape[:2]
        self._predict(frame, motion)
        matched: set[int] = set()
        det_track: list[_Track] = []
        if detections is not None and len(detections):
            det_track = self._associate(detections, matched, self._clock if t is None else float(t))
        for tr in self.tracks:
            if id(tr) not in matched:
                tr.since_hit += 1
        self.tracks = [tr for tr in self.tracks if id(tr) in matched or self._clock - tr.hit_t <= s.hold]
        return self._emit(detections if det_track else None, det_track, frame)

    # -- steps ---------------------------------------------------------------------------------
    def _predict(self, frame: np.ndarray | None, motion: FrameMotion | None) -> None:
        s = self.settings
        prev = self._prev
        if motion is None and s.optical_flow and frame is not None:
            motion = self._motion.step(frame)
        self._prev = motion
        if motion is not None and prev is not None and self.tracks and prev.gray.shape == motion.gray.shape:
            boxes = np.stack([tr.box for tr in self.tracks])
            shifts, errors, ok = box_shifts(prev.gray, motion.gray, motion.scale, boxes, motion.shift, with_ok=True)
            g = motion.shift.vector if np.isfinite(motion.shift.error_px) else np.zeros(2, np.float32)
            for tr, (dx, dy), err, tracked in zip(self.tracks, shifts, errors, ok):
                tr.picture_shift = tr.picture_shift + g
                rel = float(np.abs(tr.velocity[:2]).max())  # its speed against the picture
                if not tracked and rel > 0.5:
                    # Flat colour gives the flow nothing to hold on to: an object that moved
                    # against the picture between hits keeps that velocity on top of the
                    # picture's motion, and that relative speed is its uncertainty. One not yet
                    # seen moving against the picture moves with it (the branch below).
                    tr.box = tr.box + tr.velocity + np.concatenate([g, g])
                    tr.step = tr.velocity[:2] + g
                    tr.variance += min(rel + float(err), s.max_dilate_px) ** 2
                    continue
                tr.box = tr.box + np.array([dx, dy, dx, dy], np.float32)
                tr.step = np.array([dx, dy], np.float32)
                tr.variance += float(min(err, s.max_dilate_px)) ** 2
        else:
            for tr in self.tracks:  # no pixels: constant velocity, its speed as the uncertainty
                tr.flowed = False
                tr.box = tr.box + tr.velocity
                tr.step = np.array([max(abs(tr.velocity[0]), abs(tr.velocity[2])),
                                    max(abs(tr.velocity[1]), abs(tr.velocity[3]))], np.float32)  # fmt: skip
                tr.variance += float(np.abs(tr.velocity).max()) ** 2
        for tr in self.tracks:
            if tr.cut.any():
                tr.box = _pinned_to_border(tr.box, tr.cut, self._hw)
            tr.predicted = tr.box.copy()

    def _associate(self, dets: Detections, matched: set[int], t: float) -> list[_Track]:
        s = self.settings
        boxes = np.stack([tr.box for tr in self.tracks]) if self.tracks else np.zeros((0, 4), np.float32)
        iou = iou_matrix(dets.xyxy, boxes) if len(boxes) else np.zeros((len(dets), 0))
        if len(boxes):
            # Fast or small objects may not overlap their prediction: also accept a detection whose
            # centre lies within ``gate_diag`` box diagonals, ranked below any overlapping one.
            dc = (dets.xyxy[:, None, :2] + dets.xyxy[:, None, 2:]) / 2 - (boxes[None, :, :2] + boxes[None, :, 2:]) / 2
            dist = np.hypot(dc[..., 0], dc[..., 1])
            bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
            diag = (np.minimum(bw, bh) if s.gate_short_side else np.hypot(bw, bh))[None, :]
            unseen = np.array([tr.since_hit for tr in self.tracks], np.float32)[None, :]
            gate = diag * (s.gate_diag + s.gate_growth * unseen)  # search wider the longer unseen
            # A track the frames' measured motion carried is where the object is, give or take
            # its measured error: a short side, not a search that widens with every frame unseen
            # (it linked a name to another row's name 500 px away, and their union was masked).
            flowed = np.array([tr.flowed for tr in self.tracks])
            if flowed.any():
                err = np.array([self._error_growth(tr) + s.motion_pad * float(np.abs(tr.step).max())
                                for tr in self.tracks], np.float32)  # fmt: skip
                gate = np.where(flowed[None, :], np.minimum(bw, bh)[None, :] * s.gate_diag + err[None, :], gate)
            near = np.clip(1 - dist / np.maximum(gate, 1e-6), 0, 1)
            dw, dh = (dets.xyxy[:, 2] - dets.xyxy[:, 0])[:, None], (dets.xyxy[:, 3] - dets.xyxy[:, 1])[:, None]
            # Both sides: an object entering past the frame edge grows along one axis only.
            ratio = np.minimum(np.maximum(dw, bw[None]) / np.maximum(np.minimum(dw, bw[None]), 1e-6),
                               np.maximum(dh, bh[None]) / np.maximum(np.minimum(dh, bh[None]), 1e-6))  # fmt: skip
            iou = np.where(iou >= s.iou_match, 1.0 + iou, near * 0.99)
            iou = np.where(ratio <= s.max_size_ratio, iou, 0.0)
            same = dets.class_ids[:, None] == np.array([tr.class_id for tr in self.tracks])[None, :]
            iou = np.where(same, iou, 0.0)
        out: list[_Track | None] = [None] * len(dets)
        # Greedy by IoU, one detection per track.
        for flat in np.argsort(-iou, axis=None):
            i, j = divmod(int(flat), iou.shape[1]) if iou.shape[1] else (0, 0)
            if not iou.shape[1] or iou[i, j] <= 0:
                break
            tr = self.tracks[j]
            if out[i] is not None or id(tr) in matched:
                continue
            out[i] = tr
            matched.add(id(tr))
            box = dets.xyxy[i]
            gap = max(1, tr.since_hit + 1)
            v = centre_velocity((box - tr.hit_box - np.tile(tr.picture_shift, 2)) / gap)
            tr.picture_shift = np.zeros(2, np.float32)
            tr.velocity = (s.velocity_smoothing * v + (1 - s.velocity_smoothing) * tr.velocity).astype(np.float32)
            tr.box, tr.hit_box, tr.since_hit, tr.variance, tr.hit_t = box.copy(), box.copy(), 0, 0.0, t
            tr.flowed = True
            tr.cut = self._cut(box)
            tr.score, tr.source = float(dets.scores[i]), int(dets.sources[i])
        for i in range(len(dets)):
            if out[i] is None:  # a new object: it becomes a track and is masked now
                tr = _Track(self._next_id, int(dets.class_ids[i]), float(dets.scores[i]), int(dets.sources[i]),
                            dets.xyxy[i].copy(), dets.xyxy[i].copy(), t, predicted=dets.xyxy[i].copy(),
                            cut=self._cut(dets.xyxy[i]))  # fmt: skip
                self._next_id += 1
                self.tracks.append(tr)
                matched.add(id(tr))
                out[i] = tr
        return out  # type: ignore[return-value]

    def _emit(self, dets: Detections | None, det_track: list[_Track], frame: np.ndarray | None) -> Detections:
        rows: list[tuple[np.ndarray, float, int, int, int]] = []
        hit = {id(tr) for tr in det_track}
        if dets is not None:
            for i, tr in enumerate(det_track):
                # A hit is masked where it was found and where the track's measured motion put
                # the object: a detection from an older frame may lag the object.
                box = self._padded(dets.xyxy[i], tr)
                box = np.concatenate([np.minimum(box[:2], tr.predicted[:2]), np.maximum(box[2:], tr.predicted[2:])])
                rows.append((box, float(dets.scores[i]), int(dets.class_ids[i]), tr.track_id, int(dets.sources[i])))
        for tr in self.tracks:
            if id(tr) in hit:
                continue
            rows.append((self._grown(tr), tr.score, tr.class_id, tr.track_id, int(Source.TRACKER)))
        if not rows:
            return Detections.empty(self.class_names)
        xyxy = np.stack([r[0] for r in rows]).astype(np.float32)
        if frame is not None:
            xyxy = clip_xyxy(xyxy, frame.shape[:2])
        return Detections(xyxy, [r[1] for r in rows], [r[2] for r in rows], self.class_names,
                          [r[3] for r in rows], [r[4] for r in rows])  # fmt: skip

    def _cut(self, box: np.ndarray) -> np.ndarray:
        """(4,) bool: the sides of ``box`` the frame's border cuts (none while the size is unknown)."""
        return cut_sides(box, self._hw)[0] if self._hw is not None else np.zeros(4, bool)

    def _padded(self, box: np.ndarray, tr: _Track) -> np.ndarray:
        """A box grown by ``motion_pad`` frames of its measured motion on this frame (the edges of
        a moving object smear over the exposure)."""
        pad = self.settings.motion_pad
        return grow_xyxy(box, 0.0, pad * abs(float(tr.step[0])), pad * abs(float(tr.step[1])))[0]

    def _error_growth(self, tr: _Track) -> float:
        """Px a side a held box grows by its summed measured motion error (3σ, capped)."""
        s = self.settings
        return min(s.error_sigmas * float(np.sqrt(tr.variance)), s.max_dilate_px)

    def _grown(self, tr: _Track) -> np.ndarray:
        grow = self._error_growth(tr)
        return grow_xyxy(self._padded(tr.box, tr), 0.0, grow, grow)[0]
