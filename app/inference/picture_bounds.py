"""A face inside a small picture on a screen (an avatar, a profile photo): hide the whole picture.

A face detector boxes the face, but on a screen the private thing is the picture it sits in: a
contact's photo, a chat avatar, a caller's portrait. Those are small pictures placed on flat
interface colour. The face box is therefore grown to the picture around it when, and only when,
such a picture can be seen: in a window a few face sizes wide, the pixels that differ from the
window's border colour form one compact, roughly square blob that holds the face, ends inside the
window and is ringed by that flat colour. In a photograph the face's surroundings are not flat,
the blob runs out of the window, and the face box is left as it is (the head mask).

The limits are what an avatar is, not figures fitted to a data set: square or round (aspect
3:4 to 4:3), at most ``MAX_SIDE_RATIO`` face boxes wide, on a background that varies by less than
``TOLERANCE`` grey levels.
"""

from __future__ import annotations

import cv2
import numpy as np

MAX_SIDE_RATIO = 3.0  # picture side / face box side (a face fills at least a third of its avatar)
TOLERANCE = 16  # max per-channel difference from the background colour that still counts as background
RING_FLAT = 0.9  # share of the ring around the picture that must be background colour
MIN_FACE_PX = 8


def picture_around_face(frame: np.ndarray, face_xyxy) -> tuple[float, float, float, float] | None:
    """The box of the small picture on flat colour that holds this face (frame pixels, xyxy), or
    ``None`` when the face is not in one (a photograph, a video of a person)."""
    x0, y0, x1, y1 = (float(v) for v in face_xyxy)
    side = max(x1 - x0, y1 - y0)
    if side < MIN_FACE_PX:
        return None
    # The face may sit anywhere in its picture (a portrait's face is high in it), so the window
    # reaches the picture's largest size beyond the face on every side.
    found = _picture(frame, (x0, y0, x1, y1), side * (MAX_SIDE_RATIO - 1.0) + 2)
    if found is None:
        return None
    px0, py0, px1, py1 = found
    if max(px1 - px0, py1 - py0) > MAX_SIDE_RATIO * side:
        return None
    if px1 - px0 < 0.5 * (x1 - x0) or py1 - py0 < 0.5 * (y1 - y0):
        return None  # the face is not in one picture (a face of several blobs: it is the scene)
    return float(min(x0, px0)), float(min(y0, py0)), float(max(x1, px1)), float(max(y1, py1))


def picture_in_box(frame: np.ndarray, xyxy) -> tuple[float, float, float, float] | None:
    """The visible bounds of the small picture on flat colour that a detector's box around it (an
    avatar) holds, or ``None`` when the box holds no such picture. The box may be loose by a
    quarter of its size (the detector's error), not more."""
    x0, y0, x1, y1 = (float(v) for v in xyxy)
    bw, bh = x1 - x0, y1 - y0
    if min(bw, bh) < MIN_FACE_PX:
        return None
    found = _picture(frame, (x0, y0, x1, y1), 0.25 * max(bw, bh) + 2)
    if found is None:
        return None
    px0, py0, px1, py1 = found
    loose = 0.25 * np.array([bw, bh, bw, bh])
    inside = np.all(np.array(found[:2]) >= np.array([x0, y0]) - loose[:2]) and np.all(
        np.array(found[2:]) <= np.array([x1, y1]) + loose[2:])  # fmt: skip
    if not inside or (px1 - px0) * (py1 - py0) < 0.2 * bw * bh:
        return None
    return float(px0), float(py0), float(px1), float(py1)


def picture_in_window(frame: np.ndarray, seed, reach: float, min_fill: float) -> tuple[int, int, int, int] | None:
    """Frame-pixel bounds (xyxy) of the compact picture on flat colour that reaches into ``seed``
    (xyxy), looked for up to ``reach`` px beyond it, whose differing pixels fill at least
    ``min_fill`` of its box (a photo or a disc, not an outline icon); ``None`` if there is none."""
    return _picture(frame, seed, reach, min_fill)


def _picture(frame: np.ndarray, seed, reach: float, min_fill: float = 0.0) -> tuple[int, int, int, int] | None:
    """Frame-pixel bounds of the compact, square or round blob that differs from the flat colour
    around the ``seed`` box (xyxy) and holds most of its differing pixels, looked for in a window
    ``reach`` px beyond the seed; ``None`` unless the blob ends inside the window (or at the
    frame's border), flat colour rings it and it fills ``min_fill`` of its box."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = seed
    wx0, wy0 = int(max(0, np.floor(x0 - reach))), int(max(0, np.floor(y0 - reach)))
    wx1, wy1 = int(min(w, np.ceil(x1 + reach))), int(min(h, np.ceil(y1 + reach)))
    win = frame[wy0:wy1, wx0:wx1]
    if win.shape[0] < 8 or win.shape[1] < 8:
        return None
    background = _border_colour(win)
    inner = (wx0 > 0, wy0 > 0, wx1 < w, wy1 < h)
    if background is None and sum(inner) >= 2:
        # A side of the window on the frame's border runs through whatever the frame cuts there
        # (the avatars of a list panned part-way out of view), not the picture's surroundings.
        # At least two sides must remain: a picture the frame cuts on three sides is the view's
        # own backdrop (a profile's header photo), not a small picture on interface colour.
        background = _border_colour(win, inner)
    if background is None:
        return None
    differs = (np.abs(win.astype(np.int16) - background).max(axis=2) > TOLERANCE).astype(np.uint8)
    differs = cv2.morphologyEx(differs, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(differs, connectivity=8)
    fx0, fy0 = int(max(0, x0 - wx0)), int(max(0, y0 - wy0))
    fx1, fy1 = int(min(win.shape[1], x1 - wx0)), int(min(win.shape[0], y1 - wy0))
    inside = labels[fy0:fy1, fx0:fx1]
    ids, counts = np.unique(inside[inside > 0], return_counts=True)
    if not len(ids):
        return None
    blob = int(ids[np.argmax(counts)])
    bx, by, bw, bh, area = (int(v) for v in stats[blob, :5])
    if area < min_fill * bw * bh:
        return None
    touches = (bx <= 0 and wx0 > 0) or (by <= 0 and wy0 > 0) or \
        (bx + bw >= win.shape[1] and wx1 < w) or (by + bh >= win.shape[0] and wy1 < h)  # fmt: skip
    if touches or not _square(bw, bh, cut_side=(bx <= 0 and wx0 == 0) or (bx + bw >= win.shape[1] and wx1 == w)):
        return None
    if _ring_flatness(differs, bx, by, bw, bh) < RING_FLAT:
        return None
    return bx + wx0, by + wy0, bx + bw + wx0, by + bh + wy0


def _square(bw: int, bh: int, cut_side: bool) -> bool:
    """True for a square or round picture's box (aspect 3:4 to 4:3). Where the frame's left or
    right edge cuts the picture (a view panned part-way across a list), its width may be short.
    Its height may not: below a head, a person's shoulders run out of the bottom of the frame."""
    return (cut_side or bw >= 0.75 * bh) and bw <= 4 / 3 * bh


def grow_faces_to_pictures(frame: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
    """Face boxes (N, 4), each grown to the picture it sits in where ``picture_around_face``
    finds one; other boxes unchanged."""
    out = np.array(xyxy, np.float32, copy=True).reshape(-1, 4)
    for i, box in enumerate(out):
        found = picture_around_face(frame, box)
        if found is not None:
            out[i] = found
    return out


def _border_colour(win: np.ndarray, sides: tuple[bool, bool, bool, bool] = (True, True, True, True)) -> np.ndarray | None:
    """The median colour of the window's outer pixels on ``sides`` (left, top, right, bottom) if
    most of them share it (flat interface colour), else ``None``."""
    left, top, right, bottom = sides
    parts = [p for use, p in ((top, win[0]), (bottom, win[-1]), (left, win[1:-1, 0]), (right, win[1:-1, -1])) if use]
    ring = np.concatenate(parts).astype(np.int16)
    colour = np.median(ring, axis=0).astype(np.int16)
    same = (np.abs(ring - colour).max(axis=1) <= TOLERANCE).mean()
    return colour if same >= 0.6 else None


def _ring_flatness(differs: np.ndarray, bx: int, by: int, bw: int, bh: int, width: int = 3) -> float:
    """Share of background pixels in a band ``width`` px wide just outside the blob's box."""
    hh, ww = differs.shape
    ox0, oy0, ox1, oy1 = max(0, bx - width), max(0, by - width), min(ww, bx + bw + width), min(hh, by + bh + width)
    outer = differs[oy0:oy1, ox0:ox1]
    total = outer.size - bw * bh
    if total <= 0:
        return 1.0
    differing = int(outer.sum()) - int(differs[by:by + bh, bx:bx + bw].sum())
    return 1.0 - differing / total
