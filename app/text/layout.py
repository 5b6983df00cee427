"""Screen context of an OCR line: the label beside or above it, its role in a list row, its size
relative to the screen's body text. Pure geometry on ``TextLine`` quads (frame pixels)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from app.text.lines import TextLine, is_vertical


@dataclass(frozen=True)
class LineContext:
    """What surrounds one line on screen.

    ``above``: text of the nearest line above that overlaps it horizontally (a form label);
    ``left``: text just left of it on the same row (``Name:  John``); ``right``: a type label on
    its right ("Mobile"); ``height_ratio``: its height over the median line height (headlines are
    big); ``aligned_above`` / ``aligned_below``: a left-aligned line sits directly above / below
    (list rows: a title line with a secondary line under it); ``below_smaller``: the line below is
    smaller (a title over its subtitle); ``index``: position in reading order; ``column_head``:
    the top line of the left-aligned column this line continues, when that is not ``above``
    (a table's header "Username" over its third row); ``above_index``: the line ``above`` is.
    """

    above: str = ""
    left: str = ""
    right: str = ""
    height_ratio: float = 1.0
    aligned_above: bool = False
    aligned_below: bool = False
    below_smaller: bool = False
    index: int = 0
    column_head: str = ""
    above_index: int = -1

    @property
    def label_text(self) -> str:
        """The nearby label text as the rule-based recognisers expect it (above, then same row)."""
        return f"{self.above} {self.left} {self.right}".strip()


def bounds(line: TextLine) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of a line's quad."""
    q = line.quad
    return float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())


def reading_order(lines: list[TextLine]) -> list[TextLine]:
    """Lines sorted top to bottom, then left to right."""
    return sorted(lines, key=lambda l: (float(l.quad[:, 1].min()), float(l.quad[:, 0].min())))


def line_contexts(lines: list[TextLine]) -> list[LineContext]:
    """``LineContext`` of every line in ``lines`` (same order as given). Lines running down the
    frame (a page photographed sideways) get theirs among themselves, turned upright
    (``upright_lines``): beside horizontal lines every one of them would share a "row"."""
    vertical = [is_vertical(l) for l in lines]
    if not any(vertical):
        return _contexts(lines)
    out: list[LineContext | None] = [None] * len(lines)
    for want, group in ((False, [l for l, v in zip(lines, vertical) if not v]), (True, upright_lines([l for l, v in zip(lines, vertical) if v]))):
        for k, ctx in zip([i for i, v in enumerate(vertical) if v == want], _contexts(group)):
            out[k] = ctx
    return out  # type: ignore[return-value]


def upright_lines(lines: list[TextLine]) -> list[TextLine]:
    """Copies of vertical ``lines`` with their quads turned by a quarter so that they run left to
    right, in the direction they read: top to bottom unless most lines' word boxes run upwards."""
    votes = 0
    for l in lines:
        if len(l.words) >= 2:
            first, last = l.words[0][1][:, 1].mean(), l.words[-1][1][:, 1].mean()
            votes += 1 if last > first else -1 if last < first else 0
    # reading down, the text's top faces right: (x, y) -> (y, -x); reading up, it faces left
    sign = 1.0 if votes >= 0 else -1.0
    turned = []
    for l in lines:
        q = np.asarray(l.quad, np.float32)
        turned.append(TextLine(l.text, np.stack([sign * q[:, 1], -sign * q[:, 0]], axis=1), l.score))
    return turned


def _contexts(lines: list[TextLine]) -> list[LineContext]:
    if not lines:
        return []
    boxes = [bounds(l) for l in lines]  # plain floats: the pairwise loop below is Python
    heights = [max(b[3] - b[1], 1.0) for b in boxes]
    median_h = float(np.median(heights))
    order = {id(l): i for i, l in enumerate(reading_order(lines))}
    contexts = [_context(i, lines, boxes, heights, median_h, order[id(lines[i])]) for i in range(len(lines))]
    return [replace(c, column_head=_column_head(i, contexts, boxes, heights, lines)) for i, c in enumerate(contexts)]


def _column_head(i: int, contexts: list[LineContext], boxes: list, heights: list, lines) -> str:
    """Text of the topmost line of the left-aligned run of lines above line ``i`` (each within
    2.5 line heights of the next), or "" when that run is only the line directly above."""
    j, steps, seen = i, 0, {i}
    while True:
        k = contexts[j].above_index
        if k < 0 or k in seen or abs(boxes[k][0] - boxes[j][0]) > 0.8 * heights[j] or boxes[j][1] - boxes[k][3] > 2.5 * heights[j]:
            break
        seen.add(k)
        j, steps = k, steps + 1
    return lines[j].text if steps >= 2 else ""


def _context(i: int, lines, boxes: list, heights: list, median_h: float, index: int) -> LineContext:
    x0, y0, x1, y1 = boxes[i]
    h = heights[i]
    best, best_gap, best_j, left, right = "", 3.0 * h, -1, [], []
    aligned_above = aligned_below = below_smaller = False
    for j, (ox0, oy0, ox1, oy1) in enumerate(boxes):
        if j == i:
            continue
        same_row = abs(oy0 - y0) < 0.5 * h
        if oy1 <= y0 + 0.3 * h and ox1 > x0 - h and ox0 < x1:
            gap = y0 - oy1 + 0.3 * h
            if 0 <= gap < best_gap:
                best, best_gap, best_j = lines[j].text, gap, j
            if abs(ox0 - x0) < 0.8 * h and y0 - oy1 < 0.9 * h:
                aligned_above = True
        elif same_row and ox1 <= x0 + 2 and x0 - ox1 < 20 * h:
            left.append((float(ox1), lines[j].text))
        elif same_row and ox0 >= x1 - 2 and ox0 - x1 < 20 * h:
            right.append((float(ox0), lines[j].text))
        if oy0 >= y1 - 0.3 * h and abs(ox0 - x0) < 0.8 * h and oy0 - y1 < 0.9 * h:
            aligned_below = True
            below_smaller = below_smaller or heights[j] < 0.9 * h
    same_left = " ".join(t for _, t in sorted(left, reverse=True)[:2][::-1])
    same_right = " ".join(t for _, t in sorted(right)[:1])
    return LineContext(best, same_left, same_right, h / max(median_h, 1.0), aligned_above, aligned_below,
                       below_smaller, index, above_index=best_j)  # fmt: skip
