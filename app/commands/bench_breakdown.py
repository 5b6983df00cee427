"""Where over-masking comes from: the changed pixels outside the true boxes, per drawn region kind.

Every pixel that changed outside the truth is shared equally among the drawn regions that cover
it (a pixel under a held face box and a detected plate box counts half to each); a changed pixel
under no region (encoder noise, a banner) counts as ``NOT_DRAWN``. So, frame by frame, the
shares of all kinds add up to that frame's changed-outside share (``FrameScore.outside``); the
breakdown prints their means over the frames, beside the mean and median of the total.

A region kind is a label such as ``"face held"`` (class name plus how the box came to be there),
or for live output ``"stale (detector behind)"``, ``"text paused (OCR behind)"``, ``"paused"``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Sequence

import numpy as np

NOT_DRAWN = "not under any drawn region"
Region = tuple[str, Sequence[float]]  # (kind label, xyxy in frame px)


def region_labels(xyxy: np.ndarray, class_ids: np.ndarray, sources: np.ndarray, class_names: Sequence[str],
                  tracker_source: int) -> list[Region]:  # fmt: skip
    """(label, box) pairs for drawn boxes: the class name and ``held`` for boxes the tracker or gap
    filler added (``sources == tracker_source``), ``detected`` for detections on their frame."""
    return [(f"{class_names[int(c)]} {'held' if int(s) == tracker_source else 'detected'}", b)
            for b, c, s in zip(np.asarray(xyxy).reshape(-1, 4), class_ids, sources)]  # fmt: skip


class OutsideBreakdown:
    """Running per-kind shares of the changed area outside the true boxes."""

    def __init__(self) -> None:
        self.frames = 0
        self.totals: list[float] = []
        self._sums: defaultdict[str, float] = defaultdict(float)

    def add(self, changed: np.ndarray, inside: np.ndarray, regions: Iterable[Region]) -> dict[str, float]:
        """One frame: ``changed`` and ``inside`` (H, W) bool maps (pixel changed; pixel in a true
        box) and the regions drawn. Returns this frame's share per kind (of the pixels outside
        the truth); they add up to the frame's changed-outside share."""
        h, w = changed.shape
        outside_px = int((~inside).sum())
        share: defaultdict[str, float] = defaultdict(float)
        self.frames += 1
        if outside_px == 0:
            self.totals.append(0.0)
            return {}
        co = (changed & ~inside).astype(np.float64)
        boxes: list[tuple[str, int, int, int, int]] = []
        cover = np.zeros((h, w), np.int32)
        for label, box in regions:
            x0, y0 = max(0, int(np.floor(box[0]))), max(0, int(np.floor(box[1])))
            x1, y1 = min(w, int(np.ceil(box[2]))), min(h, int(np.ceil(box[3])))
            if x1 > x0 and y1 > y0:
                cover[y0:y1, x0:x1] += 1
                boxes.append((label, x0, y0, x1, y1))
        weight = co / np.maximum(cover, 1)
        for label, x0, y0, x1, y1 in boxes:
            share[label] += float(weight[y0:y1, x0:x1].sum()) / outside_px
        bare = float(co[cover == 0].sum()) / outside_px
        if bare:
            share[NOT_DRAWN] += bare
        for label, v in share.items():
            self._sums[label] += v
        self.totals.append(float(co.sum()) / outside_px)
        return dict(share)

    def means(self) -> dict[str, float]:
        """Mean share per kind over the frames added (they add up to the mean total)."""
        return {k: v / self.frames for k, v in self._sums.items()} if self.frames else {}

    def summary(self, top: int = 8) -> str:
        """One line: the mean and median total and the ``top`` kinds by mean share."""
        if not self.frames:
            return "no frames"
        rows = sorted(self.means().items(), key=lambda kv: -kv[1])
        shown = ", ".join(f"{k} {v:.1%}" for k, v in rows[:top] if v >= 0.0005)
        rest = sum(v for _, v in rows[top:])
        more = f", {len(rows) - top} other kinds {rest:.1%}" if len(rows) > top else ""
        return (f"changed outside truth by kind (mean over frames {np.mean(self.totals):.1%}, median "
                f"{np.median(self.totals):.1%}): {shown or 'nothing'}{more}")  # fmt: skip
