"""Tiled detection for large frames: native-scale tiles with overlap plus one downscaled full
view, merged so that an object cut by a tile seam comes out as one box.

Text in a 4K screenshot is ~12 px high; downscaled to 640 it would be 2 px and unreadable to the
model. Tiles keep native scale, matching the native-scale crops the detector was trained on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.core.geometry import connected_groups, inside_share, intersection_matrix, nms

SEAM_TOLERANCE_PX = 2.0


@dataclass(frozen=True)
class Tile:
    """A window ``[x0, x1) × [y0, y1)`` of the source frame."""

    x0: int
    y0: int
    x1: int
    y1: int


def needs_tiling(hw: tuple[int, int], input_hw: tuple[int, int], ratio: float = 1.5) -> bool:
    """Tile when the frame is more than ``ratio`` times the model input on either side."""
    return hw[0] > input_hw[0] * ratio or hw[1] > input_hw[1] * ratio


def _starts(length: int, tile: int, overlap: int) -> list[int]:
    if length <= tile:
        return [0]
    count = math.ceil((length - overlap) / (tile - overlap))
    step = (length - tile) / (count - 1)
    return [int(round(i * step)) for i in range(count)]


def plan_tiles(hw: tuple[int, int], tile_hw: tuple[int, int], overlap: int) -> list[Tile]:
    """Evenly spaced tiles covering an ``hw`` frame; neighbours overlap by at least ``overlap`` px."""
    h, w = hw
    th, tw = tile_hw
    if overlap >= min(th, tw):
        raise ValueError("tile overlap must be smaller than the tile")
    return [
        Tile(x, y, min(x + tw, w), min(y + th, h))
        for y in _starts(h, th, overlap)
        for x in _starts(w, tw, overlap)
    ]


def truncated_mask(xyxy: np.ndarray, tile: Tile, hw: tuple[int, int]) -> np.ndarray:
    """True for boxes (source pixels) touching an edge of ``tile`` that is not a frame edge."""
    tol = SEAM_TOLERANCE_PX
    touch = np.zeros(len(xyxy), bool)
    if tile.x0 > 0:
        touch |= xyxy[:, 0] <= tile.x0 + tol
    if tile.y0 > 0:
        touch |= xyxy[:, 1] <= tile.y0 + tol
    if tile.x1 < hw[1]:
        touch |= xyxy[:, 2] >= tile.x1 - tol
    if tile.y1 < hw[0]:
        touch |= xyxy[:, 3] >= tile.y1 - tol
    return touch


def _fuse_seam_pieces(xyxy, scores, class_ids, truncated):
    """Union same-class pieces of one object cut by a seam (at least one side truncated)."""
    inter = intersection_matrix(xyxy, xyxy)
    widths = xyxy[:, 2] - xyxy[:, 0]
    heights = xyxy[:, 3] - xyxy[:, 1]
    ox = (np.minimum(xyxy[:, None, 2], xyxy[None, :, 2]) - np.maximum(xyxy[:, None, 0], xyxy[None, :, 0])).clip(0)
    oy = (np.minimum(xyxy[:, None, 3], xyxy[None, :, 3]) - np.maximum(xyxy[:, None, 1], xyxy[None, :, 1])).clip(0)
    rx = ox / np.maximum(np.minimum(widths[:, None], widths[None, :]), 1e-6)
    ry = oy / np.maximum(np.minimum(heights[:, None], heights[None, :]), 1e-6)
    # Pieces of one object share (almost) all of the axis along the seam and overlap across it.
    aligned = (np.maximum(rx, ry) > 0.8) & (np.minimum(rx, ry) > 0.05)
    pair = (inter > 0) & aligned & (class_ids[:, None] == class_ids[None, :])
    pair &= truncated[:, None] | truncated[None, :]
    out_xyxy, out_scores, out_cls, out_trunc = [], [], [], []
    for members in connected_groups(pair):
        m = np.array(members)
        out_xyxy.append([xyxy[m, 0].min(), xyxy[m, 1].min(), xyxy[m, 2].max(), xyxy[m, 3].max()])
        out_scores.append(scores[m].max())
        out_cls.append(class_ids[m[0]])
        out_trunc.append(bool(truncated[m].all()) if len(m) == 1 else False)
    return (
        np.array(out_xyxy, np.float32).reshape(-1, 4),
        np.array(out_scores, np.float32),
        np.array(out_cls, np.int32),
        np.array(out_trunc, bool),
    )


def merge_tiled(
    xyxy: np.ndarray,
    scores: np.ndarray,
    class_ids: np.ndarray,
    truncated: np.ndarray,
    iou_threshold: float = 0.5,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge detections gathered from tiles and the full view (all in source pixels).

    Seam pieces are fused first, then duplicates from overlapping tiles are removed by NMS, and
    a truncated piece that lies inside a same-class box from elsewhere is dropped.
    """
    if len(xyxy) == 0:
        return xyxy.reshape(0, 4).astype(np.float32), scores.astype(np.float32), class_ids.astype(np.int32)
    xyxy, scores, class_ids, truncated = _fuse_seam_pieces(
        np.asarray(xyxy, np.float32), np.asarray(scores, np.float32), np.asarray(class_ids, np.int32), truncated
    )
    keep = nms(xyxy, scores, class_ids, iou_threshold)
    xyxy, scores, class_ids, truncated = xyxy[keep], scores[keep], class_ids[keep], truncated[keep]
    covered = inside_share(xyxy, xyxy)
    np.fill_diagonal(covered, 0)
    same = class_ids[:, None] == class_ids[None, :]
    inside_other = ((covered > 0.8) & same & ~truncated[None, :]).any(axis=1)
    drop = truncated & inside_other
    return xyxy[~drop], scores[~drop], class_ids[~drop]
