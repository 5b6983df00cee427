"""Trim a text span's box to the ink it holds.

A span box comes from the OCR line box (about twice the text height) and character widths
apportioned over the word boxes, plus a safety margin: it is loose on every side. The redaction
padding is then added on top. Here the box is shrunk, side by side, over the outer rows and columns
that are plain background, so that the padding is applied to the ink and not to a loose box.

A row (or column) counts as background when all its pixels lie within ``tolerance`` of its median
and that median follows on smoothly from the background row before it (so a vertical gradient or a
flat tint is background, while an underline, a border or a coloured row behind part of the box
stops the trim). Trimming starts at the box edge and stops at the first row or column that is not
background: the result never cuts ink and is always inside the box. Noisy or textured crops (photos)
have no plain rows and keep their box.
"""

from __future__ import annotations

import math

import numpy as np

TOLERANCE = 24  # grey levels: faint anti-aliasing and JPEG ringing of text are above this
STEP = 12  # largest median change between neighbouring background rows (gradients change ~1-2)
MIN_SIDE = 4  # crops smaller than this are left alone
# Beyond the ink, as a share of its height (at least 1 px, for anti-aliasing fainter than
# ``TOLERANCE``); the redaction padding, which grows with the text, comes on top.
MARGIN = 0.0


def _plain(lines: np.ndarray, background: np.ndarray, tolerance: int) -> np.ndarray:
    """(L,) bool: which of ``lines`` (L, N, C) int16 hold one colour within ``tolerance``, that
    colour being the ``background`` (C,) one (a line along a glyph stroke is one colour too)."""
    if not lines.size:
        return np.zeros(len(lines), bool)
    median, uniform = _one_colour(lines, tolerance)
    return uniform & (np.abs(median - background).max(axis=1) <= tolerance)


def _one_colour(lines: np.ndarray, tolerance: int) -> tuple[np.ndarray, np.ndarray]:
    """The median colour (L, C) of each of ``lines`` (L, N, C) and whether all its pixels lie
    within ``tolerance`` of it (L,) bool."""
    median = np.median(lines, axis=1)
    return median, np.abs(lines - median[:, None, :]).max(axis=(1, 2)) <= tolerance


def _plain_count(lines: np.ndarray, background: np.ndarray, tolerance: int, step: int) -> int:
    """How many of the leading ``lines`` (L, N, C) int16 are plain background, in order: the first
    of the ``background`` colour, each one colour and close to the one before (a gradient, not an
    underline, a border or a glyph stroke)."""
    median, plain = _one_colour(lines, tolerance)
    plain[1:] &= np.abs(np.diff(median, axis=0)).max(axis=1) <= step
    plain[0] &= bool(np.abs(median[0] - background).max() <= tolerance)
    return int(np.argmin(plain)) if not plain.all() else len(lines)


def _edge_shift(inward: np.ndarray, outward: np.ndarray, background: np.ndarray, tolerance: int, step: int) -> int:
    """How far one edge moves: -k trims the k plain lines at the edge (``inward``: lines from the
    edge into the box); +k extends over k lines of ink just outside it (``outward``: lines from the
    edge away from the box, as far as it may reach), up to the first plain one; 0 when ink runs on
    past the reach (nothing to go by) or stops right at the edge."""
    plain_in = _plain_count(inward, background, tolerance, step)
    if plain_in:
        return -plain_in
    plain_out = _plain(outward, background, tolerance)
    return int(np.argmax(plain_out)) if plain_out.any() else 0


def _lines(image: np.ndarray, rows: slice, cols: slice, axis: int, flip: bool) -> np.ndarray:
    """Rows (axis 0) or columns (axis 1) of ``image[rows, cols]`` as (L, N, C) int16, in scan order."""
    part = image[rows, cols].astype(np.int16)
    part = part.reshape(part.shape[0], part.shape[1], image.shape[2] if image.ndim == 3 else 1)
    part = part if axis == 0 else part.transpose(1, 0, 2)
    return part[::-1] if flip else part


def line_ink_xyxy(image: np.ndarray, box: np.ndarray, vertical: bool = False) -> np.ndarray:
    """``ink_xyxy`` for the box of a text line running across the frame, or down it when
    ``vertical``: the image and box are then read transposed, so that the text height is the
    box's width and the reach beyond an edge is sized by it, not by the line's length."""
    if not vertical:
        return ink_xyxy(image, box)
    box = np.asarray(box, np.float32)
    return ink_xyxy(image.swapaxes(0, 1), box[[1, 0, 3, 2]])[[1, 0, 3, 2]]


def ink_xyxy(image: np.ndarray, box: np.ndarray, margin: float = MARGIN, tolerance: int = TOLERANCE,
             step: int = STEP, reach: float = 0.5) -> np.ndarray:  # fmt: skip
    """``box`` (4,) xyxy float32 in pixels of ``image`` ((H, W) or (H, W, C) uint8) fitted to the ink
    it holds: plain background rows and columns at its edges are cut off, and an edge that cuts
    through ink moves out to where the ink ends (a glyph the OCR box or the character widths left
    out), by at most ``reach`` × the text height. A moved edge gets ``margin`` × the ink's height (at least 1 px) beyond the ink. A
    box with no ink, or too small, comes back unchanged."""
    box = np.asarray(box, np.float32)
    h, w = image.shape[:2]
    x0, y0 = max(0, int(math.floor(box[0]))), max(0, int(math.floor(box[1])))
    x1, y1 = min(w, int(math.ceil(box[2]))), min(h, int(math.ceil(box[3])))
    if y1 - y0 < MIN_SIDE or x1 - x0 < MIN_SIDE:
        return box
    inside = _lines(image, slice(y0, y1), slice(x0, x1), 0, False)
    # the background colour: the median of the box's border, which crosses little ink
    background = np.median(np.concatenate([inside[0], inside[-1], inside[:, 0], inside[:, -1]]), axis=0)
    if _plain_count(inside, background, tolerance, step) == len(inside):  # no ink at all: not ours to judge
        return box
    far = max(2, int(round(reach * 0.5 * (y1 - y0))))  # the OCR line box is about twice the text height
    cols = slice(x0, x1)
    top = _edge_shift(inside, _lines(image, slice(max(0, y0 - far), y0), cols, 0, True), background, tolerance, step)
    bottom = _edge_shift(inside[::-1], _lines(image, slice(y1, min(h, y1 + far)), cols, 0, False), background, tolerance, step)
    new_y0, new_y1 = y0 - top, y1 + bottom
    rows = slice(new_y0, new_y1)
    far = max(2, int(round(reach * (new_y1 - new_y0))))
    band = _lines(image, rows, cols, 1, False)
    left = _edge_shift(band, _lines(image, rows, slice(max(0, x0 - far), x0), 1, True), background, tolerance, step)
    right = _edge_shift(band[::-1], _lines(image, rows, slice(x1, min(w, x1 + far)), 1, False), background, tolerance, step)
    new_x0, new_x1 = x0 - left, x1 + right
    margin_px = max(1.0, margin * (new_y1 - new_y0))
    out = np.array(box, np.float32)
    for i, (shift, edge, outward) in enumerate(((left, new_x0, -1), (top, new_y0, -1), (right, new_x1, 1), (bottom, new_y1, 1))):
        if shift < 0:  # trimmed: the margin stays inside the old box
            out[i] = edge + outward * margin_px
            out[i] = max(out[i], box[i]) if outward < 0 else min(out[i], box[i])
        elif shift > 0:
            out[i] = edge + outward * margin_px
    out[[0, 2]] = out[[0, 2]].clip(0, w)
    out[[1, 3]] = out[[1, 3]].clip(0, h)
    return out
