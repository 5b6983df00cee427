"""A tracker with a privacy rule: it may add boxes, never drop one.

* Its output is a superset of its input: every input detection is emitted on the frame it
  arrives (a new object is masked on its first frame), its box only grown.
* A box the detector loses keeps being masked for ``hold_frames``, moved by its estimated motion
  (sparse optical flow when a frame is given, else constant velocity) and dilated as it ages.
* Boxes are padded by their speed, so a fast object does not outrun its mask.

Off-the-shelf trackers that only report confirmed tracks must not decide what is masked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import clip_xyxy, iou_matrix

FLOW_MAX_SIDE = 640  # optical flow runs on a downscaled grey frame: enough for box motion, cheap


@dataclass(frozen=True)
class TrackerSettings:
    """``hold_frames``: frames a lost box stays masked. ``dilate_per_frame``: fraction of the box
    size added on each side per frame without a hit (capped at ``max_dilate``). ``motion_pad``:
    frames of motion added on each side in the direction of travel."""

    hold_frames: int = 15
    iou_match: float = 0.05
    gate_diag: float = 1.0
    gate_growth: float = 0.25
    dilate_per_frame: float = 0.03
    max_dilate: float = 1.0
    motion_pad: float = 2.0
    velocity_smoothing: float = 0.6
    coast_growth: float = 1.0
    optical_flow: bool = True

    @classmethod
    def for_fps(cls, fps: float, hold_s: float = 1.0, **kw) -> "TrackerSettings":
        """Settings with the hold expressed in seconds at ``fps``."""
        return cls(hold_frames=max(1, int(round(hold_s * (fps or 30.0)))), **kw)


@dataclass
class _Track:
    track_id: int
    class_id: int
    score: float
    source: int
    box: np.ndarray  # current estimate, float32 (4,)
    hit_box: np.ndarray  # box at the last hit
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(4, np.float32))  # px/frame per coordinate
    since_hit: int = 0


def to_flow_gray(frame: np.ndarray) -> tuple[np.ndarray, float]:
    """Grey, downscaled copy of a (H, W, 3) BGR frame for optical flow, and its scale factor."""
    h, w = frame.shape[:2]
    scale = min(1.0, FLOW_MAX_SIDE / max(h, w))
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    if scale < 1.0:
        gray = cv2.resize(gray, (max(1, int(w * scale)), max(1, int(h * scale))), interpolation=cv2.INTER_AREA)
    return gray, scale


def flow_shift(prev: np.ndarray, cur: np.ndarray, scale: float, xyxy: np.ndarray) -> np.ndarray:
    """Per-box (dx, dy) in source pixels from pyramidal Lucas–Kanade on a 3×3 grid inside each box.

    ``prev``/``cur`` are outputs of ``to_flow_gray``. Rows are NaN where too few points tracked.
    """
    n = len(xyxy)
    out = np.full((n, 2), np.nan, np.float32)
    if not n:
        return out
    f = np.array([0.2, 0.5, 0.8], np.float32)
    fx, fy = np.meshgrid(f, f)
    b = xyxy * scale
    px = b[:, None, 0] + (b[:, None, 2] - b[:, None, 0]) * fx.reshape(1, -1)
    py = b[:, None, 1] + (b[:, None, 3] - b[:, None, 1]) * fy.reshape(1, -1)
    pts = np.stack([px, py], -1).reshape(-1, 1, 2).astype(np.float32)
    nxt, status, _ = cv2.calcOpticalFlowPyrLK(prev, cur, pts, None, winSize=(15, 15), maxLevel=2)
    d = (nxt - pts).reshape(n, 9, 2) / scale
    ok = status.reshape(n, 9).astype(bool)
    for i in range(n):
        if ok[i].sum() >= 3:
            out[i] = np.median(d[i][ok[i]], axis=0)
    return out


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


def centre_velocity(v_xyxy: np.ndarray) -> np.ndarray:
    """Per-corner velocity → the same centre velocity on all corners, so a box clipped by the
    frame edge (one side stuck at 0) moves instead of shrinking to nothing when extrapolated."""
    v = np.asarray(v_xyxy, np.float32)
    cx, cy = (v[0] + v[2]) / 2, (v[1] + v[3]) / 2
    return np.array([cx, cy, cx, cy], np.float32)


class PrivacyTracker:
    """Implements the ``Tracker`` protocol of ``app.core.pipeline``.

    ``update(detections, frame)``: ``detections`` None on frames where no detector ran (stride).
    The first ``len(detections)`` output rows are the input detections in input order (boxes
    grown by motion padding), followed by coasted boxes tagged ``Source.TRACKER``.
    ``frame`` (H, W, 3) BGR may be None when optical flow is off.
    """

    def __init__(self, settings: TrackerSettings = TrackerSettings(), class_names: tuple[str, ...] = ()) -> None:
        self.settings = settings
        self.class_names = tuple(class_names)
        self.tracks: list[_Track] = []
        self._next_id = 0
        self._prev_gray: tuple[np.ndarray, float] | None = None

    def reset(self) -> None:
        """Forget every track (e.g. after a seek or a source change)."""
        self.tracks.clear()
        self._prev_gray = None

    def update(self, detections: Detections | None, frame: np.ndarray | None) -> Detections:
        """Advance one frame and return the boxes to hide on it (superset of ``detections``)."""
        s = self.settings
        if detections is not None:
            self.class_names = detections.class_names
        self._predict(frame)
        n_in = 0
        matched: set[int] = set()
        det_track: list[_Track] = []
        if detections is not None and len(detections):
            n_in = len(detections)
            det_track = self._associate(detections, matched)
        for t in self.tracks:
            if id(t) not in matched:
                t.since_hit += 1
        self.tracks = [t for t in self.tracks if id(t) in matched or t.since_hit <= s.hold_frames]
        return self._emit(detections if n_in else None, det_track, matched, frame)

    # -- steps ---------------------------------------------------------------------------------
    def _predict(self, frame: np.ndarray | None) -> None:
        shifts = None
        if self.settings.optical_flow and frame is not None:
            cur = to_flow_gray(frame)
            if self._prev_gray is not None and self.tracks and self._prev_gray[0].shape == cur[0].shape:
                shifts = flow_shift(self._prev_gray[0], cur[0], cur[1], np.stack([t.box for t in self.tracks]))
            self._prev_gray = cur
        for i, t in enumerate(self.tracks):
            if shifts is not None and np.isfinite(shifts[i, 0]):
                dx, dy = shifts[i]
                t.box = t.box + np.array([dx, dy, dx, dy], np.float32)
            else:
                t.box = t.box + t.velocity

    def _associate(self, dets: Detections, matched: set[int]) -> list[_Track]:
        s = self.settings
        boxes = np.stack([t.box for t in self.tracks]) if self.tracks else np.zeros((0, 4), np.float32)
        iou = iou_matrix(dets.xyxy, boxes) if len(boxes) else np.zeros((len(dets), 0))
        if len(boxes):
            # Fast or small objects may not overlap their prediction: also accept a detection whose
            # centre lies within ``gate_diag`` box diagonals, ranked below any overlapping one.
            dc = (dets.xyxy[:, None, :2] + dets.xyxy[:, None, 2:]) / 2 - (boxes[None, :, :2] + boxes[None, :, 2:]) / 2
            dist = np.hypot(dc[..., 0], dc[..., 1])
            diag = np.hypot(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])[None, :]
            unseen = np.array([t.since_hit for t in self.tracks], np.float32)[None, :]
            gate = diag * (s.gate_diag + s.gate_growth * unseen)  # search wider the longer unseen
            near = np.clip(1 - dist / np.maximum(gate, 1e-6), 0, 1)
            iou = np.where(iou >= s.iou_match, 1.0 + iou, near * 0.99)
            same = dets.class_ids[:, None] == np.array([t.class_id for t in self.tracks])[None, :]
            iou = np.where(same, iou, 0.0)
        out: list[_Track | None] = [None] * len(dets)
        # Greedy by IoU, one detection per track.
        for flat in np.argsort(-iou, axis=None):
            i, j = divmod(int(flat), iou.shape[1]) if iou.shape[1] else (0, 0)
            if not iou.shape[1] or iou[i, j] <= 0:
                break
            t = self.tracks[j]
            if out[i] is not None or id(t) in matched:
                continue
            out[i] = t
            matched.add(id(t))
            box = dets.xyxy[i]
            gap = max(1, t.since_hit + 1)
            v = centre_velocity((box - t.hit_box) / gap)
            t.velocity = (s.velocity_smoothing * v + (1 - s.velocity_smoothing) * t.velocity).astype(np.float32)
            t.box, t.hit_box, t.since_hit = box.copy(), box.copy(), 0
            t.score, t.source = float(dets.scores[i]), int(dets.sources[i])
        for i in range(len(dets)):
            if out[i] is None:  # a new object: it becomes a track and is masked now
                t = _Track(self._next_id, int(dets.class_ids[i]), float(dets.scores[i]), int(dets.sources[i]),
                           dets.xyxy[i].copy(), dets.xyxy[i].copy())  # fmt: skip
                self._next_id += 1
                self.tracks.append(t)
                matched.add(id(t))
                out[i] = t
        return out  # type: ignore[return-value]

    def _emit(self, dets: Detections | None, det_track: list[_Track], matched: set[int],
              frame: np.ndarray | None) -> Detections:  # fmt: skip
        s = self.settings
        rows: list[tuple[np.ndarray, float, int, int, int]] = []
        if dets is not None:
            for i, t in enumerate(det_track):
                rows.append((self._grown(dets.xyxy[i], t, 0), float(dets.scores[i]), int(dets.class_ids[i]),
                             t.track_id, int(dets.sources[i])))  # fmt: skip
        for t in self.tracks:
            if id(t) in matched and dets is not None:
                continue
            rows.append((self._grown(t.box, t, t.since_hit), t.score, t.class_id, t.track_id, int(Source.TRACKER)))
        if not rows:
            return Detections.empty(self.class_names)
        xyxy = np.stack([r[0] for r in rows]).astype(np.float32)
        if frame is not None:
            xyxy = clip_xyxy(xyxy, frame.shape[:2])
        return Detections(xyxy, [r[1] for r in rows], [r[2] for r in rows], self.class_names,
                          [r[3] for r in rows], [r[4] for r in rows])  # fmt: skip

    def _grown(self, box: np.ndarray, t: _Track, age: int) -> np.ndarray:
        s = self.settings
        speed = np.abs(t.velocity)
        # Coasting: besides following the motion model, allow the object to deviate from it by
        # ``coast_growth`` × its speed per frame unseen (turns, reversals, braking).
        extra_x = (s.motion_pad + s.coast_growth * age) * max(speed[0], speed[2])
        extra_y = (s.motion_pad + s.coast_growth * age) * max(speed[1], speed[3])
        frac = min(s.dilate_per_frame * age, s.max_dilate)
        return grow_xyxy(box, frac, extra_x, extra_y)[0]
