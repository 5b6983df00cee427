"""From a character span of a recognised text line to a box covering only that span.

OCR gives a line box (a quadrilateral) and, when asked, word boxes. Characters inside a word
get x-ranges apportioned by typical glyph width; a span's box runs from its first character's
left edge to its last character's right edge, plus a small safety margin, within the line.
A tilted line (more than ``MAX_SKEW_DEG``, up to ``MAX_TILT_DEG``: a sign or a page photographed at
an angle) has its characters apportioned along the line's quadrilateral instead, and a span's box
is the bounds of its slice of that quadrilateral. Steeper lines and vertical ones (a page
photographed sideways) fall back to the whole line box, where the reading direction is unsure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

MAX_SKEW_DEG = 8.0
MAX_TILT_DEG = 45.0
NARROW = set("il1.,:;|!'`()[]{}IjftrJ ")
WIDE = set("mwMW@%&OQGDH")


@dataclass(frozen=True)
class TextLine:
    """One recognised line: ``text`` and its ``quad`` (4, 2) float32 in frame pixels (clockwise
    from top-left), optional word boxes ``(word, quad)`` in reading order, and a score; ``ink``:
    the bounds (4,) xyxy of its ink, where they were measured on the frame read and the line has
    since been moved off it (``ScreenReading.placed``)."""

    text: str
    quad: np.ndarray
    score: float = 1.0
    words: tuple[tuple[str, np.ndarray], ...] = ()
    ink: np.ndarray | None = None


def char_weight(ch: str) -> float:
    """Relative advance width of a character in a proportional UI font."""
    if ch in NARROW:
        return 0.45
    if ch in WIDE:
        return 1.35
    return 1.0 if not ch.isupper() else 1.15


def quad_to_xyxy(quad: np.ndarray) -> np.ndarray:
    """Axis-aligned bounds (4,) float32 of a (4, 2) quadrilateral."""
    q = np.asarray(quad, np.float32).reshape(-1, 2)
    return np.array([q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()], np.float32)


def quad_extent(quad: np.ndarray) -> tuple[float, float]:
    """(length along the line, height across it) of a line quad, whatever its rotation: the
    longer and the shorter of its two mean side lengths (a tilted line's axis-aligned height
    grows with its length)."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    a = float(np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    b = float(np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    return max(a, b), min(a, b)


def skew_degrees(quad: np.ndarray) -> float:
    """Angle of the quad's top edge against the horizontal."""
    q = np.asarray(quad, np.float32).reshape(-1, 2)
    dx, dy = q[1] - q[0]
    return abs(math.degrees(math.atan2(float(dy), float(dx)))) if (dx or dy) else 0.0


def is_vertical(line: TextLine) -> bool:
    """Whether ``line`` runs down the frame rather than across it: its box at least 1.5 times as
    tall as wide with three or more characters (a line of one or two glyphs may be tall)."""
    x0, y0, x1, y1 = quad_to_xyxy(line.quad)
    return len(line.text.strip()) >= 3 and (y1 - y0) >= 1.5 * max(x1 - x0, 1e-6)


def is_tilted(line: TextLine) -> bool:
    """Whether ``line`` runs across the frame at a slant: its top edge more than ``MAX_SKEW_DEG``
    and at most ``MAX_TILT_DEG`` off the horizontal, left to right, and not vertical."""
    q = np.asarray(line.quad, np.float32).reshape(4, 2)
    return MAX_SKEW_DEG < skew_degrees(q) <= MAX_TILT_DEG and q[1, 0] > q[0, 0] and not is_vertical(line)


def tilted_span_xyxy(line: TextLine, start: int, end: int, margin: float = 0.35) -> np.ndarray:
    """Bounds (4,) float32 of the slice of a tilted ``line``'s quad that holds ``text[start:end]``
    (characters apportioned along the line by typical glyph width), grown by ``margin`` × the
    average character's length on each side, within the quad."""
    q = np.asarray(line.quad, np.float32).reshape(4, 2)
    chars = apportion(line.text, 0.0, 1.0)  # each character's stretch of the line, 0-1
    a, b = float(chars[start, 0]), float(chars[end - 1, 1])
    grow = margin * (b - a) / (end - start)
    a, b = max(0.0, a - grow), min(1.0, b + grow)
    pts = np.stack([q[0] + a * (q[1] - q[0]), q[0] + b * (q[1] - q[0]), q[3] + a * (q[2] - q[3]), q[3] + b * (q[2] - q[3])])
    return quad_to_xyxy(pts)


def apportion(text: str, x0: float, x1: float) -> np.ndarray:
    """Left/right x of each character of ``text`` laid out over ``[x0, x1]``: (len(text), 2)."""
    weights = np.array([char_weight(c) for c in text], np.float64)
    if not len(weights):
        return np.zeros((0, 2), np.float32)
    edges = x0 + (x1 - x0) * np.concatenate([[0.0], np.cumsum(weights)]) / weights.sum()
    return np.stack([edges[:-1], edges[1:]], axis=1).astype(np.float32)


def _word_offsets(text: str, words: Sequence[str]) -> list[int] | None:
    """Start offset of each word in ``text``, or None when the words do not spell the text."""
    offsets, pos = [], 0
    for word in words:
        found = text.find(word, pos)
        if found < 0 or text[pos:found].strip():
            return None
        offsets.append(found)
        pos = found + len(word)
    return offsets if not text[pos:].strip() else None


def _word_layout(line: TextLine) -> list[tuple[int, str, np.ndarray]] | None:
    """(start offset, word, xyxy) of each OCR word box of ``line``, or None when it has none or
    its words do not spell the text."""
    offsets = _word_offsets(line.text, [w for w, _ in line.words]) if line.words else None
    if offsets is None:
        return None
    return [(start, word, quad_to_xyxy(quad)) for (word, quad), start in zip(line.words, offsets)]


def char_boxes(line: TextLine, layout: list[tuple[int, str, np.ndarray]] | None = None) -> np.ndarray:
    """(len(text), 4) xyxy box of every character of ``line.text`` (spaces included); ``layout``:
    the line's ``_word_layout`` when the caller has it already."""
    n = len(line.text)
    line_box = quad_to_xyxy(line.quad)
    y0, y1 = line_box[[1, 3]]
    boxes = np.zeros((n, 4), np.float32)
    boxes[:, 1], boxes[:, 3] = y0, y1
    boxes[:, [0, 2]] = apportion(line.text, line_box[0], line_box[2])
    for start, word, wb in layout if layout is not None else _word_layout(line) or ():
        boxes[start : start + len(word), [0, 2]] = apportion(word, wb[0], wb[2])
        boxes[start : start + len(word), 1] = min(wb[1], y0)
        boxes[start : start + len(word), 3] = max(wb[3], y1)
    return boxes


def span_xyxy(line: TextLine, start: int, end: int, margin: float = 0.35) -> np.ndarray:
    """Box (4,) float32 over ``line.text[start:end]``, grown by ``margin`` × the average character
    width on each side and clipped to the line; for a tilted line, the bounds of its slice of the
    line (``tilted_span_xyxy``); the whole line box when the line is steeper or vertical."""
    line_box = quad_to_xyxy(line.quad)
    if not line.text:
        return line_box
    start, end = max(0, start), min(len(line.text), end)
    if end <= start:
        raise ValueError(f"empty span [{start}, {end}) in a line of {len(line.text)} characters")
    if is_tilted(line):
        return tilted_span_xyxy(line, start, end, margin)
    if skew_degrees(line.quad) > MAX_SKEW_DEG or is_vertical(line):
        return line_box
    layout = _word_layout(line)
    boxes = char_boxes(line, layout)[start:end]
    width = float(boxes[:, 2].max() - boxes[:, 0].min()) / max(end - start, 1)
    out = np.array([boxes[:, 0].min() - margin * width, boxes[:, 1].min(),
                    boxes[:, 2].max() + margin * width, boxes[:, 3].max()], np.float32)  # fmt: skip
    out[0] = max(out[0], line_box[0])
    out[2] = min(out[2], line_box[2])
    # The margin stops at the OCR's box of a neighbouring word: it covers ink the span's own box
    # left out, never the label before it ("mail:" before an address).
    before, after = _neighbour_word_edges(layout, start, end)
    if before is not None and before <= boxes[:, 0].min():
        out[0] = max(out[0], before)
    if after is not None and after >= boxes[:, 2].max():
        out[2] = min(out[2], after)
    return out


def _neighbour_word_edges(layout: list[tuple[int, str, np.ndarray]] | None, start: int,
                          end: int) -> tuple[float | None, float | None]:  # fmt: skip
    """Right edge of the last OCR word ending at or before ``start`` and left edge of the first
    starting at or after ``end`` in a line's ``_word_layout``; None where there is none."""
    before = after = None
    for first, word, xyxy in layout or ():
        if first + len(word) <= start:
            before = float(xyxy[2])
        elif first >= end and after is None:
            after = float(xyxy[0])
    return before, after


def fit_rows_to_ink(image: np.ndarray, box: np.ndarray, min_contrast: int = 48, margin: float = 0.2) -> np.ndarray:
    """Shrink ``box`` (xyxy) vertically to the rows that hold text ink, plus ``margin`` × the ink
    height above and below. OCR line boxes are about twice the text height; on a flat background
    (border pixels mostly one colour) ink is any pixel ``min_contrast`` away from it in some
    channel. ``image`` is (H, W) or (H, W, C). Boxes on textured or gradient backgrounds, or with
    no clear ink, come back unchanged."""
    h, w = image.shape[:2]
    x0, y0 = max(0, int(math.floor(box[0]))), max(0, int(math.floor(box[1])))
    x1, y1 = min(w, int(math.ceil(box[2]))), min(h, int(math.ceil(box[3])))
    crop = image[y0:y1, x0:x1].astype(np.int16).reshape(y1 - y0, x1 - x0, -1) if y1 > y0 and x1 > x0 else None
    if crop is None or crop.shape[0] < 6 or crop.shape[1] < 2:
        return box
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])  # (P, C)
    background = np.median(border, axis=0)
    if np.mean(np.abs(border - background).max(axis=1) < min_contrast / 2) < 0.8:
        return box
    rows = np.flatnonzero((np.abs(crop - background).max(axis=2) >= min_contrast).any(axis=1))
    if not len(rows):
        return box
    pad = margin * (rows[-1] + 1 - rows[0])
    top, bottom = y0 + rows[0] - pad, y0 + rows[-1] + 1 + pad
    return np.array([box[0], max(float(box[1]), top), box[2], min(float(box[3]), bottom)], np.float32)
