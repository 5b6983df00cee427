"""The flat-coloured panel that a photographed sign's text is printed on.

A street-name sign, a shop's board or a house-number plaque is text on a panel of one colour,
often with a border, and the whole panel is the sign. Its margins differ from sign to sign (a
US street blade has half a letter height above and below its name, a wall plaque two letter
heights), so a fixed growth of the text box either leaves part of the panel showing or spills
onto the wall. ``panel_bounds`` walks out from the text over the colour just round it until that
colour ends, side by side. A side whose colour runs on past the search (a plain wall, the sky) is
no edge: the caller keeps its own growth there.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class PanelRules:
    """How far to look for a panel's edge and what counts as its colour.

    ``reach_x`` / ``reach_y``: the search beyond the text, in text heights; ``ring``: the margin
    round the text whose colour is the panel's, in text heights; ``tolerance``: colour distance
    (OpenCV 8-bit Lab) within which a pixel is panel; ``min_ring_share``: share of the ring that
    must be that colour (else the text is not on a panel); ``min_line_share``: share of a row or
    column beside the text that must be panel for the panel to go on there; ``border``: added
    beyond each found edge (a sign's rim), in text heights."""

    reach_x: float = 3.0
    reach_y: float = 2.0
    ring: float = 0.25
    tolerance: float = 22.0
    min_ring_share: float = 0.6
    min_line_share: float = 0.5
    border: float = 0.15


def _walk(shares: np.ndarray, dists: np.ndarray, min_share: float, near: float, settle: int) -> int | None:
    """Steps taken outward over per-line panel ``shares`` (nearest first) to the panel's edge:
    where the lines stop being panel for ``settle`` lines on end (a thin seam, a mortar joint or a
    bolt is crossed). None when the panel runs on to the end of the search, or when its colour
    only drifted away (shading, a gradient): the ``settle`` lines before a real edge are still
    within ``near`` of the panel's colour on average (``dists``)."""
    below = shares < min_share
    for i in range(len(below) - max(2, settle) + 1):  # an edge needs ``settle`` lines beyond it
        if below[i] and below[i + 1] and float(shares[i : i + settle].mean()) < min_share:
            before = dists[max(0, i - settle) : i]
            return i if not len(before) or float(before.mean()) < near else None
    return None


def panel_bounds(frame: np.ndarray, span: np.ndarray, height: float, rules: PanelRules = PanelRules()) -> np.ndarray:
    """Edges (4,) xyxy frame px of the one-colour panel round the text ``span`` (xyxy) of letter
    ``height`` px in (H, W, 3) BGR ``frame``, each grown by the rim; NaN on a side where no edge
    was found within the search, and all NaN when the text is not on a flat-coloured panel."""
    none = np.full(4, np.nan, np.float32)
    fh, fw = frame.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in span)
    rx, ry = rules.reach_x * height, rules.reach_y * height
    cx0, cy0 = max(0, int(np.floor(x0 - rx))), max(0, int(np.floor(y0 - ry)))
    cx1, cy1 = min(fw, int(np.ceil(x1 + rx))), min(fh, int(np.ceil(y1 + ry)))
    sx0, sy0 = int(round(x0)) - cx0, int(round(y0)) - cy0
    sx1, sy1 = int(round(x1)) - cx0, int(round(y1)) - cy0
    if sx1 - sx0 < 2 or sy1 - sy0 < 2 or cx1 <= cx0 or cy1 <= cy0:
        return none
    lab = cv2.cvtColor(np.ascontiguousarray(frame[cy0:cy1, cx0:cx1]), cv2.COLOR_BGR2LAB).astype(np.float32)
    m = max(2, int(round(rules.ring * height)))
    ring = np.zeros(lab.shape[:2], bool)
    ring[max(0, sy0 - m) : sy1 + m, max(0, sx0 - m) : sx1 + m] = True
    ring[max(0, sy0) : sy1, max(0, sx0) : sx1] = False
    if ring.sum() < 8:
        return none
    colour = np.median(lab[ring], axis=0)
    dist = np.linalg.norm(lab - colour, axis=2)
    panel = dist < rules.tolerance
    if panel[ring].mean() < rules.min_ring_share:
        return none
    beside, over = (slice(max(0, sy0), sy1), slice(None)), (slice(None), slice(max(0, sx0), sx1))
    rows, cols = panel[beside].mean(axis=0), panel[over].mean(axis=1)  # per column beside, per row over
    row_d, col_d = np.median(dist[beside], axis=0), np.median(dist[over], axis=1)
    walk = lambda s, d: _walk(s, d, rules.min_line_share, 0.5 * rules.tolerance, m)  # noqa: E731
    left = walk(rows[: max(0, sx0)][::-1], row_d[: max(0, sx0)][::-1])
    right = walk(rows[sx1:], row_d[sx1:])
    top = walk(cols[: max(0, sy0)][::-1], col_d[: max(0, sy0)][::-1])
    bottom = walk(cols[sy1:], col_d[sy1:])
    rim = rules.border * height
    out = none.copy()
    # A panel that is still panel where the frame ends is cut off by it: the edge is the frame's.
    at_frame = (cx0 == 0 and x0 - rx < 0 and sx0 > 0 and rows[0] >= rules.min_line_share,
                cy0 == 0 and y0 - ry < 0 and sy0 > 0 and cols[0] >= rules.min_line_share,
                cx1 == fw and x1 + rx > fw and sx1 < len(rows) and rows[-1] >= rules.min_line_share,
                cy1 == fh and y1 + ry > fh and sy1 < len(cols) and cols[-1] >= rules.min_line_share)
    inner = (cx0 + sx0, cy0 + sy0, cx0 + sx1, cy0 + sy1)
    limit = (0.0, 0.0, float(fw), float(fh))
    for k, (steps, sign) in enumerate(((left, -1), (top, -1), (right, 1), (bottom, 1))):
        if steps is not None:
            edge = inner[k] + sign * (steps + rim)
            out[k] = max(limit[k], edge) if sign < 0 else min(limit[k], edge)
        elif at_frame[k]:
            out[k] = limit[k]
    return out


def fit_to_panel(frame: np.ndarray, span: np.ndarray, grown: np.ndarray, height: float,
                 rules: PanelRules = PanelRules()) -> np.ndarray:  # fmt: skip
    """``grown`` (xyxy: the text ``span`` grown by the caller's own rule) with each side moved to
    the panel's edge where one was found (``panel_bounds``), out or in: the panel is the sign, so
    a growth wider than a tight plate is cut back to it. Sides with no edge keep ``grown``."""
    edges = panel_bounds(frame, span, height, rules)
    return np.where(np.isnan(edges), np.asarray(grown, np.float32), edges).astype(np.float32)
