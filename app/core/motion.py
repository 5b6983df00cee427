"""Measured frame motion: a global shift per frame (pans, scrolls) and per-box shifts, each with
its measured error, so held boxes move with the picture and grow only by what was not measured.

* ``global_shift``: phase correlation on a downscaled grey frame (a pan or a scroll is one rigid
  shift), refined and checked with pyramidal Lucas–Kanade on a sparse grid (on a mostly flat
  screen, on the corners of its text and icons instead). The error is the median misfit of the
  points against that shift: small for a pan, large for a cut.
* ``box_shifts``: Lucas–Kanade on a 3×3 grid inside each box, started at the global shift, so a
  box on a moving object follows the object and a box on the scrolled page follows the page.
* ``MotionEstimator``: one call per frame; keeps the cumulative offset and error variance by
  frame number, so boxes found on an older frame (a slow detector) can be moved to this one.

Everything here is in source-frame pixels outside the helpers that say otherwise.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

FLOW_MAX_SIDE = 640  # optical flow runs on a downscaled grey frame: enough for box motion, cheap
PHASE_MAX_SIDE = 320  # phase correlation needs even less: it only finds the dominant shift
MIN_RESPONSE = 0.05  # below this, the phase peak is noise (a cut, a flat frame): trust LK only
STRONG_RESPONSE = 0.3  # a peak this sharp is one rigid shift even where LK finds no texture
CORNER_POINTS = 70  # as many as the grid
LK_WIN = (15, 15)
LK_LEVELS = 3
# A box whose pixels are the same on both frames (to this many grey levels: video compression)
# did not move, with no error at all; only where it holds this much contrast (a flat patch looks
# the same however the picture under it moved).
STILL_NOISE = 3
STILL_CONTRAST = 16


def to_flow_gray(frame: np.ndarray) -> tuple[np.ndarray, float]:
    """Grey, downscaled copy of a (H, W, 3) BGR frame for optical flow, and its scale factor."""
    h, w = frame.shape[:2]
    scale = min(1.0, FLOW_MAX_SIDE / max(h, w))
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    if scale < 1.0:
        gray = cv2.resize(gray, (max(1, int(w * scale)), max(1, int(h * scale))), interpolation=cv2.INTER_AREA)
    return gray, scale


@dataclass(frozen=True)
class Shift:
    """Content motion from one frame to the next: (dx, dy) source px; ``error_px``: measured
    misfit of that rigid shift (median over a point grid), the per-frame motion uncertainty."""

    dx: float
    dy: float
    error_px: float

    @property
    def vector(self) -> np.ndarray:
        return np.array([self.dx, self.dy], np.float32)


ZERO_SHIFT = Shift(0.0, 0.0, 0.0)


def _lk(prev: np.ndarray, cur: np.ndarray, pts: np.ndarray, init: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lucas–Kanade from ``pts`` (M, 2) started at ``pts + init``: flows (M, 2) and ok mask (M,)."""
    p0 = pts.reshape(-1, 1, 2).astype(np.float32)
    p1 = (pts + init).reshape(-1, 1, 2).astype(np.float32)
    nxt, status, _ = cv2.calcOpticalFlowPyrLK(prev, cur, p0, p1, winSize=LK_WIN, maxLevel=LK_LEVELS,
                                              flags=cv2.OPTFLOW_USE_INITIAL_FLOW)  # fmt: skip
    ok = status.reshape(-1).astype(bool)
    h, w = cur.shape[:2]
    nxt = nxt.reshape(-1, 2)
    ok &= (nxt[:, 0] >= 0) & (nxt[:, 1] >= 0) & (nxt[:, 0] < w) & (nxt[:, 1] < h)
    return nxt - pts, ok


def _corners(gray: np.ndarray, n: int = CORNER_POINTS) -> np.ndarray:
    """Up to ``n`` well-spread strong corners of ``gray`` (M, 2) flow px, for the point check."""
    h, w = gray.shape[:2]
    found = cv2.goodFeaturesToTrack(gray, n, 0.01, max(4.0, min(h, w) / 20))
    return np.zeros((0, 2), np.float32) if found is None else found.reshape(-1, 2).astype(np.float32)


def _rigid_on_corners(prev: np.ndarray, cur: np.ndarray, init: np.ndarray, tolerance: float) -> tuple | None:
    """(dx, dy, error) flow px of the strong corners of ``prev`` when nearly all of them (90 %)
    moved together within ``tolerance`` px; None when there are too few or they disagree."""
    pts = _corners(prev)
    if len(pts) < 6:
        return None
    flow, ok = _lk(prev, cur, pts, init)
    if ok.sum() < 6:
        return None
    d = np.median(flow[ok], axis=0)
    err = float(np.percentile(np.hypot(*(flow[ok] - d).T), 90))
    return (float(d[0]), float(d[1]), err) if err <= tolerance else None


def global_shift(prev: np.ndarray, cur: np.ndarray, scale: float) -> Shift:
    """Dominant rigid shift between two ``to_flow_gray`` images (same shape), in source px."""
    if prev.shape != cur.shape or min(prev.shape[:2]) < 16:
        return Shift(0.0, 0.0, float("inf"))
    h, w = prev.shape[:2]
    s2 = min(1.0, PHASE_MAX_SIDE / max(h, w))
    size = (max(16, int(w * s2)), max(16, int(h * s2)))
    a = cv2.resize(prev, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    b = cv2.resize(cur, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    (px, py), response = cv2.phaseCorrelate(a, b, cv2.createHanningWindow(size, cv2.CV_32F))
    init = np.array([px / s2, py / s2], np.float32) if response >= MIN_RESPONSE else np.zeros(2, np.float32)
    gx, gy = np.meshgrid(np.linspace(0.08, 0.92, 10) * w, np.linspace(0.08, 0.92, 7) * h)
    pts = np.stack([gx.ravel(), gy.ravel()], 1).astype(np.float32)
    flow, ok = _lk(prev, cur, pts, init)
    if ok.sum() < 6:
        # A mostly flat screen leaves the grid points on blank colour. What is drawn there (text,
        # icons) can still confirm a rigid shift, but only if all of it moved together: on a flat
        # background the drawn things may be objects moving on their own, and the background's
        # own motion cannot be seen.
        rigid = _rigid_on_corners(prev, cur, init, 1.0 / s2)
        if rigid is not None:
            return Shift(float(rigid[0] / scale), float(rigid[1] / scale), float(rigid[2] / scale))
        # Too little texture for the point check: a strong phase peak is still a measured
        # shift, good to one phase-correlation pixel; without one, a cut.
        err = 1.0 / (s2 * scale) if response >= STRONG_RESPONSE else float("inf")
        return Shift(float(init[0] / scale), float(init[1] / scale), err)
    d = np.median(flow[ok], axis=0)
    err = float(np.median(np.hypot(*(flow[ok] - d).T)))
    return Shift(float(d[0] / scale), float(d[1] / scale), err / scale)


def box_shifts(prev: np.ndarray, cur: np.ndarray, scale: float, xyxy: np.ndarray,
               shift: Shift = ZERO_SHIFT, with_ok: bool = False):  # fmt: skip
    """Per-box (dx, dy) source px by Lucas–Kanade on a 3×3 grid inside each (N, 4) xyxy box,
    started at the global ``shift``, and each box's error (spread of its points, source px).
    A box whose points do not track (flat colour) takes the global shift and the global error;
    ``with_ok`` also returns the (N,) mask of boxes that tracked."""
    n = len(xyxy)
    shifts = np.tile(shift.vector, (n, 1)).astype(np.float32)
    errors = np.full(n, shift.error_px, np.float32)
    tracked = np.zeros(n, bool)
    if not n or prev.shape != cur.shape:
        return (shifts, errors, tracked) if with_ok else (shifts, errors)
    b = np.asarray(xyxy, np.float32) * scale
    # The flow's half-pixel floor is an uncertainty of a measured motion. Summed frame after frame
    # it grew a box held on a still screen by 3 × √frames half-pixels a side (21 px in 1.6 s at
    # 720p): pixels that did not change measure no motion and no error, and need no flow.
    still = unchanged_in_place(prev, cur, b)
    shifts[still], errors[still], tracked[still] = 0.0, 0.0, True
    moving = np.flatnonzero(~still)
    if not len(moving):
        return (shifts, errors, tracked) if with_ok else (shifts, errors)
    f = np.array([0.2, 0.5, 0.8], np.float32)
    fx, fy = np.meshgrid(f, f)
    bm = b[moving]
    px = bm[:, None, 0] + (bm[:, None, 2] - bm[:, None, 0]) * fx.reshape(1, -1)
    py = bm[:, None, 1] + (bm[:, None, 3] - bm[:, None, 1]) * fy.reshape(1, -1)
    pts = np.stack([px, py], -1).reshape(-1, 2)
    flow, ok = _lk(prev, cur, pts, shift.vector * scale)
    flow, ok = flow.reshape(len(moving), 9, 2) / scale, ok.reshape(len(moving), 9)
    for k, i in enumerate(moving):
        if ok[k].sum() >= 3:
            d = np.median(flow[k][ok[k]], axis=0)
            shifts[i] = d
            errors[i] = float(np.median(np.hypot(*(flow[k][ok[k]] - d).T))) + 0.5 / scale
            tracked[i] = True
    return (shifts, errors, tracked) if with_ok else (shifts, errors)


def unchanged_in_place(prev: np.ndarray, cur: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(N,) mask of the (N, 4) xyxy boxes (``prev``'s px) whose pixels are the same on both grey
    images and hold some contrast: what is under them has not moved."""
    h, w = cur.shape[:2]
    out = np.zeros(len(boxes), bool)
    for i, (x0, y0, x1, y1) in enumerate(np.round(boxes).astype(int).tolist()):
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        a = prev[y0:y1, x0:x1]
        out[i] = int(a.max()) - int(a.min()) >= STILL_CONTRAST and int(cv2.absdiff(a, cur[y0:y1, x0:x1]).max()) <= STILL_NOISE
    return out


@dataclass(frozen=True)
class FrameMotion:
    """The motion estimate of one frame: its grey copy, scale, shift from the previous frame, and
    the cumulative offset / error variance since the stream began (for moving old boxes)."""

    seq: int
    gray: np.ndarray
    scale: float
    shift: Shift
    offset: np.ndarray  # (2,) cumulative (dx, dy) source px
    variance: float  # cumulative sum of squared per-frame errors


class MotionEstimator:
    """Call ``step(frame)`` once per frame, in order. ``between(a, b)`` moves boxes across frames
    using the cumulative offsets of the last ``history`` frames."""

    def __init__(self, history: int = 600) -> None:
        self.history = history
        self._seq = -1
        self._last: FrameMotion | None = None
        self._log: OrderedDict[int, tuple[np.ndarray, float]] = OrderedDict()

    @property
    def last(self) -> FrameMotion | None:
        """The newest frame's estimate (None before the first ``step``)."""
        return self._last

    def reset(self) -> None:
        """Forget the stream (a seek or source change: no motion across the cut)."""
        self._last = None
        self._log.clear()

    def step(self, frame: np.ndarray, seq: int | None = None) -> FrameMotion:
        """Estimate the motion of (H, W, 3) BGR ``frame`` from the previous one."""
        self._seq = self._seq + 1 if seq is None else seq
        gray, scale = to_flow_gray(frame)
        prev = self._last
        if prev is None or prev.gray.shape != gray.shape:
            shift = Shift(0.0, 0.0, 0.0) if prev is None else Shift(0.0, 0.0, float("inf"))
            offset, var = np.zeros(2, np.float32), 0.0
        else:
            shift = global_shift(prev.gray, gray, scale)
            offset = prev.offset + shift.vector
            var = prev.variance + min(shift.error_px, 1e6) ** 2
        self._last = FrameMotion(self._seq, gray, scale, shift, offset, var)
        self._log[self._seq] = (offset, var)
        while len(self._log) > self.history:
            self._log.popitem(last=False)
        return self._last

    def between(self, seq_from: int, seq_to: int) -> tuple[np.ndarray, float] | None:
        """Cumulative (dx, dy) and error (px, root of summed variances) from frame ``seq_from`` to
        ``seq_to``; None when either is no longer (or not yet) in the history."""
        a, b = self._log.get(seq_from), self._log.get(seq_to)
        if a is None or b is None:
            return None
        return b[0] - a[0], float(np.sqrt(max(0.0, b[1] - a[1])))


def changed_boxes(ref: np.ndarray, cur: np.ndarray, scale: float, shift: np.ndarray, block: int = 16,
                  threshold: int = 24, exact: bool = False) -> np.ndarray:  # fmt: skip
    """Regions of ``cur`` not explained by ``ref`` moved by ``shift`` (2,) source px: (K, 4) xyxy
    source px. Both are ``to_flow_gray`` images; content scrolled in from outside ``ref`` counts
    as changed. A pixel is changed when it is more than ``threshold`` grey levels outside the range
    of the reference within ±2 flow px; blocks of ``block`` flow px with any changed pixel, with
    one block of margin, make the regions: the bounds of each connected group (few boxes, for
    re-detecting), or with ``exact`` rectangles covering exactly those blocks (for filling: the
    bounds of the L-shaped strip a diagonal pan reveals are the whole frame)."""
    if ref.shape != cur.shape:
        h, w = cur.shape[:2]
        return np.array([[0, 0, w / scale, h / scale]], np.float32)
    h, w = cur.shape[:2]
    m = np.float32([[1, 0, shift[0] * scale], [0, 1, shift[1] * scale]])
    moved = cv2.warpAffine(ref, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
    valid = cv2.warpAffine(np.full_like(ref, 255), m, (w, h), flags=cv2.INTER_NEAREST, borderValue=0)
    # Changed = brighter than the brightest or darker than the darkest reference pixel within
    # ±2 px: edges that moved by a fraction of a pixel (the shift is measured, not exact; video
    # compression) are not change, new content is.
    ref_b, cur_b = cv2.GaussianBlur(moved, (3, 3), 0), cv2.GaussianBlur(cur, (3, 3), 0)
    k = np.ones((5, 5), np.uint8)
    # Saturating uint8 differences: c > hi + t exactly when max(0, c - hi) > t (t ≥ 0).
    outside = cv2.max(cv2.subtract(cur_b, cv2.dilate(ref_b, k)), cv2.subtract(cv2.erode(ref_b, k), cur_b))
    changed = cv2.max(cv2.compare(outside, threshold, cv2.CMP_GT), cv2.compare(valid, 255, cv2.CMP_LT))
    gh, gw = -(-h // block), -(-w // block)
    padded = np.zeros((gh * block, gw * block), np.uint8)
    padded[:h, :w] = changed
    grid = padded.reshape(gh, block, gw, block).max(axis=(1, 3)) // 255
    if not grid.any():
        return np.zeros((0, 4), np.float32)
    grid = cv2.dilate(grid, np.ones((3, 3), np.uint8))
    if exact:
        boxes = (grid_rectangles(grid) * block).tolist()
    else:
        n, _, stats, _ = cv2.connectedComponentsWithStats(grid, connectivity=8)
        boxes = [[x * block, y * block, (x + bw) * block, (y + bh) * block] for x, y, bw, bh, _ in stats[1:n]]
    out = np.array(boxes, np.float32).reshape(-1, 4) / scale
    return np.minimum(out, np.array([w, h, w, h], np.float32) / scale)


def grid_rectangles(grid: np.ndarray) -> np.ndarray:
    """Rectangles (K, 4) int xyxy in cells that cover exactly the non-zero cells of a 2-D ``grid``:
    each row's runs, a run stacked on an identical run of the row above joined to it."""
    open_runs: dict[tuple[int, int], int] = {}  # (x0, x1) -> first row
    out = []
    for y, row in enumerate(np.vstack([grid != 0, np.zeros((1, grid.shape[1]), bool)])):
        edges = np.flatnonzero(np.diff(np.concatenate([[0], row.astype(np.int8), [0]])))
        runs = set(zip(edges[::2].tolist(), edges[1::2].tolist()))
        for run in [r for r in open_runs if r not in runs]:
            out.append([run[0], open_runs.pop(run), run[1], y])
        for run in runs:
            open_runs.setdefault(run, y)
    return np.array(out, np.int64).reshape(-1, 4)


def revealed_boxes(hw: tuple[int, int], shift) -> np.ndarray:
    """The strips (K ≤ 2, 4) xyxy of an ``hw`` frame whose content was outside the view before
    the picture moved by ``shift`` (2,) source px (content at (x, y) is now at (x, y) + shift):
    what a pan or scroll has brought in."""
    h, w = hw
    dx, dy = float(shift[0]), float(shift[1])
    out = []
    if dx >= 1:
        out.append([0, 0, min(w, dx), h])
    elif dx <= -1:
        out.append([max(0, w + dx), 0, w, h])
    if dy >= 1:
        out.append([0, 0, w, min(h, dy)])
    elif dy <= -1:
        out.append([0, max(0, h + dy), w, h])
    return np.array(out, np.float32).reshape(-1, 4)
