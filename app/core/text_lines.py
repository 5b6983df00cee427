"""Where text (and anything else) is drawn on a screen, found in a few milliseconds without reading it.

Live masking reads text (OCR) seconds after it appears. Until a read has seen a region, the
text drawn there is unjudged: ``drawn_text_boxes`` finds it so it can be covered line by line
instead of leaving it readable or blacking out the whole region. Text on a screen is dark-on-light
or light-on-dark strokes on flat colour: a morphological gradient marks stroke edges, a short
horizontal closing joins the letters of a word, and components of text height are kept where the
colour round them is mostly flat. In a camera picture it is not: stroke-like edges there are
texture, and are left alone. The words of a line are joined into one box (``join_words``). A line
run into something taller (a round action button floating over a name's end) is taken apart from
it by the rows that cross many strokes.

The fast tier (the detector, faces) is a few frames behind too. ``DrawnContent`` finds
whatever is drawn on flat colour where it has not looked yet (a picture scrolled in), so that is
covered piece by piece while the flat colour around stays visible, and so do rules (dividers,
the edges of cards).
"""

from __future__ import annotations

import cv2
import numpy as np

from app.core.geometry import grown_and_merged, intersection_matrix

EDGE_LEVEL = 40  # grey-level gradient of a stroke edge drawn on flat colour
FLAT_LEVEL = 8  # gradient below this is flat colour
MIN_FLAT_SHARE = 0.6  # round text on a screen most pixels are flat colour; in a camera picture few are
MIN_HEIGHT, MAX_HEIGHT = 4, 48  # text heights looked for, in the grey image's px
_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
_JOIN = np.ones((1, 7), np.uint8)  # joins the letters of a word (gaps up to 6 px)
_CLOSE_CONTENT = np.ones((5, 5), np.uint8)  # one picture's or word's parts are one component
WORD_GAP = 1.0  # words of one line lie at most this many text heights apart (``join_words``)
LINE_OVERLAP = 0.6  # ... and share this much of the smaller one's height
MIN_CROSSINGS = 6  # a row through a line of text crosses at least this many stroke edges
RULE_MAX_THICKNESS = 6  # a rule (a divider, a card's edge) is at most this thick, grey-image px,
RULE_MIN_LENGTH = 0.4  # ... runs at least this share of the frame's width (or height) ...
RULE_MAX_CHANGE = 0.15  # ... and changes along its length in at most this share of it


def drawn_text_boxes(gray: np.ndarray, scale: float, regions: np.ndarray, pad: float = 2.0) -> np.ndarray:
    """Text-like components (K, 4) xyxy source px in or across ``regions`` (M, 4) xyxy source px of
    a ``to_flow_gray`` image ``gray`` (``scale``: its size over the source frame's), each grown by
    ``pad`` grey-image px. A line a region's edge cuts is found whole, up to a text height beyond
    the edge: its part outside was seen only cut off (a name scrolling in under the bottom edge was
    read, if at all, as a partial line). Camera pictures give (almost) none."""
    h, w = gray.shape[:2]
    regions = np.asarray(regions, np.float32).reshape(-1, 4)
    reach = MAX_HEIGHT / scale  # source px
    searched = grown_and_merged(regions, (h / scale, w / scale), reach, len(regions))
    out = []
    for region in searched:
        crop = _gradient(gray, scale, region, MIN_HEIGHT)
        if crop is None:
            continue
        x0, y0, grad = crop
        edges = (grad >= EDGE_LEVEL).astype(np.uint8)
        strokes = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, _JOIN)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(strokes, connectivity=8)
        if n < 2:
            continue
        # Share of flat colour in each component's box grown by its height on every side: high
        # round text on a screen, low in a photo's texture.
        flat = cv2.integral((grad < FLAT_LEVEL).astype(np.uint8))
        on_flat = lambda cx, cy, cw, ch: _flat_share(flat, cx, cy, cw, ch) >= MIN_FLAT_SHARE  # noqa: E731
        for k, (cx, cy, cw, ch, _) in enumerate(stats[1:n], start=1):
            if ch > MAX_HEIGHT and on_flat(cx, cy, cw, ch):
                # Text joined to something taller drawn beside it (a round action button over a
                # name's end): its letters are looked for apart from that.
                part = (labels[cy : cy + ch, cx : cx + cw] == k) & (edges[cy : cy + ch, cx : cx + cw] > 0)
                for lx0, ly0, lx1, ly1 in _text_rows_of(part, on_flat, cx, cy):
                    out.append([x0 + lx0 - pad, y0 + ly0 - pad, x0 + lx1 + pad, y0 + ly1 + pad])
                continue
            if MIN_HEIGHT <= ch <= MAX_HEIGHT and cw >= 0.3 * ch and on_flat(cx, cy, cw, ch):
                out.append([x0 + cx - pad, y0 + cy - pad, x0 + cx + cw + pad, y0 + cy + ch + pad])
    if not out:
        return np.zeros((0, 4), np.float32)
    boxes = join_words(np.array(out, np.float32)) / scale
    boxes = boxes[(intersection_matrix(boxes, regions) > 0).any(axis=1)]  # lines in or across a region
    return np.clip(boxes, 0, np.array([w, h, w, h], np.float32) / scale).reshape(-1, 4)


def _flat_share(flat: np.ndarray, cx: int, cy: int, cw: int, ch: int) -> float:
    """Share of flat-colour pixels (integral image ``flat``) in a component's box (x, y, w, h)
    grown by its height on every side (two heights below, where a line's descenders end)."""
    gh, gw = flat.shape[0] - 1, flat.shape[1] - 1
    ax, ay, bx, by = max(0, cx - ch), max(0, cy - ch), min(gw, cx + cw + ch), min(gh, cy + 2 * ch)
    return _box_sum(flat, ax, ay, bx, by) / max(1, (bx - ax) * (by - ay))


def _box_sum(ii: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> float:
    """Sum over the pixels [y0, y1) × [x0, x1) of the image whose ``cv2.integral`` is ``ii``."""
    return float(ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0])


def _text_rows_of(part: np.ndarray, on_flat, ox: int, oy: int) -> list[tuple[int, int, int, int]]:
    """Lines of text (xyxy, offset by ``ox``, ``oy``) in the stroke mask ``part`` (bool) of one component
    too tall for text. A line is a band of rows of text height that each cross many strokes (a
    round button's edge crosses a row twice, or once along its top and bottom arcs); within a band,
    strokes less than a band height apart are one line."""
    crossings = (np.diff(part.astype(np.int8), axis=1) == 1).sum(1) + part[:, 0]
    busy = crossings >= MIN_CROSSINGS
    out = []
    for top, bottom in _runs(busy, gap=2):  # a row along the tops of small letters crosses few
        h = bottom - top
        if not MIN_HEIGHT <= h <= MAX_HEIGHT:
            continue
        for left, right in _runs(part[top:bottom].any(0), gap=h):
            if right - left >= 0.3 * h and on_flat(left + ox, top + oy, right - left, h):
                out.append((left + ox, top + oy, right + ox, bottom + oy))
    return out


def _runs(flags: np.ndarray, gap: int = 0) -> list[tuple[int, int]]:
    """[start, end) of the runs of True in ``flags``; runs at most ``gap`` apart are joined."""
    idx = np.flatnonzero(flags)
    if not len(idx):
        return []
    breaks = np.flatnonzero(np.diff(idx) > gap + 1)
    starts = np.concatenate([[idx[0]], idx[breaks + 1]])
    ends = np.concatenate([idx[breaks], [idx[-1]]]) + 1
    return list(zip(starts.tolist(), ends.tolist()))


def join_words(boxes: np.ndarray, gap: float = WORD_GAP) -> np.ndarray:
    """Word boxes (K, 4) xyxy joined into line boxes: taken left to right, a box joins a line box
    when they share most of the smaller one's height (``LINE_OVERLAP``) and it starts at most
    ``gap`` × that height after the line ends. A word space is a fraction of the text height; the
    gap between a list's columns is several heights. A line masked whole shows neither the gaps
    between its words nor their lengths."""
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    lines = np.zeros((0, 4), np.float32)
    for box in b[np.argsort(b[:, 0], kind="stable")]:
        if len(lines):
            h = np.minimum(lines[:, 3] - lines[:, 1], box[3] - box[1])
            overlap = np.minimum(lines[:, 3], box[3]) - np.maximum(lines[:, 1], box[1])
            near = (overlap >= LINE_OVERLAP * h) & (box[0] - lines[:, 2] <= gap * h)
            if near.any():
                i = int(np.flatnonzero(near)[0])
                lines[i] = [min(lines[i, 0], box[0]), min(lines[i, 1], box[1]), max(lines[i, 2], box[2]), max(lines[i, 3], box[3])]
                continue
        lines = np.vstack([lines, box[None]])
    return lines


class DrawnContent:
    """Everything drawn on flat colour in one ``to_flow_gray`` image (pictures, icons, text),
    found once and then asked about any number of regions of that frame: the connected parts that
    are not flat colour, as boxes (K, 4) xyxy source px each grown by ``pad`` grey-image px, and
    the share of flat-colour pixels in a region (high on a screen, low in a camera picture, which
    is not flat anywhere and so comes out as large pieces). Flat colour holds nothing private."""

    def __init__(self, gray: np.ndarray, scale: float, pad: float = 2.0) -> None:
        h, w = gray.shape[:2]
        self.scale = scale
        self.size = np.array([w, h, w, h], np.float32) / scale  # the frame's bounds, source px
        grad = cv2.morphologyEx(gray, cv2.MORPH_GRADIENT, _KERNEL)
        drawn = cv2.threshold(grad, FLAT_LEVEL - 1, 1, cv2.THRESH_BINARY)[1]  # 1 where not flat colour
        self._drawn = cv2.integral(drawn)
        # 16-bit labels are faster. After the 5x5 closing the parts lie ≥ 5 px apart: an image up to
        # 1000 px a side (a flow image is ≤ 640) holds at most 200² of them, under 65536.
        ltype = cv2.CV_16U if max(h, w) <= 1000 else cv2.CV_32S
        n, _, stats, _ = cv2.connectedComponentsWithStats(cv2.morphologyEx(drawn, cv2.MORPH_CLOSE, _CLOSE_CONTENT),
                                                          connectivity=8, ltype=ltype)  # fmt: skip
        xywh = stats[1:n, :4].astype(np.float32)
        xywh = xywh[~_rules(gray, stats[1:n, :4])]
        grey_boxes = np.concatenate([xywh[:, :2] - pad, xywh[:, :2] + xywh[:, 2:] + pad], axis=1).reshape(-1, 4)
        self.boxes = np.clip(grey_boxes / scale, 0, self.size)

    def flat_share(self, region) -> float:
        """Share of flat-colour pixels in ``region`` (xyxy source px); 1.0 for an empty one."""
        h, w = self._drawn.shape[0] - 1, self._drawn.shape[1] - 1
        x0, y0, x1, y1 = (np.asarray(region, np.float32) * self.scale).tolist()
        x0, y0 = min(w, max(0, int(np.floor(x0)))), min(h, max(0, int(np.floor(y0))))
        x1, y1 = max(x0, min(w, int(np.ceil(x1)))), max(y0, min(h, int(np.ceil(y1))))
        area = (x1 - x0) * (y1 - y0)
        if not area:
            return 1.0
        return 1.0 - _box_sum(self._drawn, x0, y0, x1, y1) / area

    def around(self, regions: np.ndarray, reach: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
        """What is drawn round ``regions`` (K, 4) xyxy source px, searched up to ``reach`` source px
        beyond their bounds: the drawn boxes that reach into the search (N, 4), the search's
        flat-colour share, which boxes reach into a region (N,) and which run on past the search
        inside the frame (N,): a backdrop or a camera picture rather than one drawn thing."""
        regions = np.asarray(regions, np.float32).reshape(-1, 4)
        if not len(regions):
            return np.zeros((0, 4), np.float32), 1.0, np.zeros(0, bool), np.zeros(0, bool)
        search = np.concatenate([regions[:, :2].min(0) - reach, regions[:, 2:].max(0) + reach])
        search = np.clip(search, 0, self.size)
        b = self.boxes[intersection_matrix(self.boxes, search[None])[:, 0] > 0]
        touching = (intersection_matrix(b, regions) > 0).any(1)
        tol = 2.0 / self.scale
        runs_on = (b[:, :2] < search[:2] - tol).any(1) | (b[:, 2:] > search[2:] + tol).any(1)
        return b, self.flat_share(search), touching, runs_on


def _rules(gray: np.ndarray, xywh: np.ndarray) -> np.ndarray:
    """(K,) bool: which drawn components (x, y, w, h grey px) are rules — dividers and the edges
    of cards and panels: thin, long across the frame, and the same all along their length (a line
    of text changes at every stroke; a barcode's bars are thick, or short, or run together). A
    rule holds nothing to read."""
    out = np.zeros(len(xywh), bool)
    w, h = xywh[:, 2], xywh[:, 3]
    rows = (h <= RULE_MAX_THICKNESS) & (w >= RULE_MIN_LENGTH * gray.shape[1])  # changes looked for along a row
    cols = (w <= RULE_MAX_THICKNESS) & (h >= RULE_MIN_LENGTH * gray.shape[0]) & ~rows
    for k in np.flatnonzero(rows | cols):  # a few per frame: most components are short
        x, y, cw, ch = xywh[k]
        axis = 1 if rows[k] else 0
        steps = np.abs(np.diff(gray[y : y + ch, x : x + cw].astype(np.int16), axis=axis)) >= FLAT_LEVEL
        out[k] = steps.any(axis=1 - axis).mean() <= RULE_MAX_CHANGE
    return out


def _gradient(gray: np.ndarray, scale: float, region, min_side: int) -> tuple[int, int, np.ndarray] | None:
    """(x0, y0, morphological gradient) of ``region`` (xyxy source px) cut from a ``to_flow_gray``
    image, its corner in grey-image px; None when the cut is under ``min_side`` px either way."""
    h, w = gray.shape[:2]
    x0, y0, x1, y1 = (np.asarray(region, np.float32) * scale).tolist()
    x0, y0 = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
    x1, y1 = min(w, int(np.ceil(x1))), min(h, int(np.ceil(y1)))
    if x1 - x0 < min_side or y1 - y0 < min_side:
        return None
    return x0, y0, cv2.morphologyEx(gray[y0:y1, x0:x1], cv2.MORPH_GRADIENT, _KERNEL)
