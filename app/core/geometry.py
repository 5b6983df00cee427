"""Box geometry: letterbox, padding, clipping, IoU and non-maximum suppression.

All boxes are ``xyxy`` float32 arrays of shape (N, 4).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

LETTERBOX_FILL = 114  # ultralytics' grey, so the model sees what it saw in training


@dataclass(frozen=True)
class LetterboxTransform:
    """How a source frame was mapped into the model input: ``input = source * scale + (pad_x, pad_y)``."""

    scale: float
    pad_x: float
    pad_y: float
    source_hw: tuple[int, int]


def letterbox(image: np.ndarray, size_hw: tuple[int, int]) -> tuple[np.ndarray, LetterboxTransform]:
    """Resize ``image`` (H, W, 3) uint8 keeping aspect and pad to ``size_hw`` with grey.

    Matches ultralytics' LetterBox (centred padding, bilinear resize, rounding of pads).
    """
    h, w = image.shape[:2]
    out_h, out_w = size_hw
    scale = min(out_h / h, out_w / w)
    new_w, new_h = int(round(w * scale)), int(round(h * scale))
    pad_w, pad_h = (out_w - new_w) / 2, (out_h - new_h) / 2
    if (new_w, new_h) != (w, h):
        image = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    top, bottom = int(round(pad_h - 0.1)), int(round(pad_h + 0.1))
    left, right = int(round(pad_w - 0.1)), int(round(pad_w + 0.1))
    padded = cv2.copyMakeBorder(
        image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(LETTERBOX_FILL,) * 3
    )
    return padded, LetterboxTransform(scale, float(left), float(top), (h, w))


def letterbox_xyxy(xyxy: np.ndarray, tf: LetterboxTransform) -> np.ndarray:
    """Map source-pixel boxes into model-input pixels."""
    out = np.asarray(xyxy, np.float32).copy()
    out *= tf.scale
    out[:, [0, 2]] += tf.pad_x
    out[:, [1, 3]] += tf.pad_y
    return out


def unletterbox_xyxy(xyxy: np.ndarray, tf: LetterboxTransform) -> np.ndarray:
    """Map model-input boxes back to source pixels, clipped to the source frame."""
    out = np.asarray(xyxy, np.float32).copy()
    out[:, [0, 2]] -= tf.pad_x
    out[:, [1, 3]] -= tf.pad_y
    out /= tf.scale
    return clip_xyxy(out, tf.source_hw)


SMALL_FRAME_LONG_SIDE = 1024  # small frames are read upscaled towards this longest side


def upscale_factor(hw: tuple[int, int], min_long_side: int = SMALL_FRAME_LONG_SIDE, max_factor: float = 3.0) -> float:
    """How much to enlarge a frame of height/width ``hw`` before reading it: towards
    ``min_long_side`` on its longest side, by at most ``max_factor`` (1.0: read as it is). The
    detectors miss objects a few pixels tall, and a small photo's plate or code is one."""
    long = max(hw)
    return min(max_factor, min_long_side / long) if 0 < long < min_long_side else 1.0


def upscaled(image: np.ndarray, factor: float) -> np.ndarray:
    """``image`` resized by ``factor`` with bicubic interpolation (the same array when 1.0)."""
    if factor == 1.0:
        return image
    return cv2.resize(image, (round(image.shape[1] * factor), round(image.shape[0] * factor)), interpolation=cv2.INTER_CUBIC)


def clip_xyxy(xyxy: np.ndarray, hw: tuple[int, int]) -> np.ndarray:
    """Clip boxes to a frame of height/width ``hw``."""
    out = np.asarray(xyxy, np.float32).copy()
    out[:, [0, 2]] = out[:, [0, 2]].clip(0, hw[1])
    out[:, [1, 3]] = out[:, [1, 3]].clip(0, hw[0])
    return out


def pad_xyxy(xyxy: np.ndarray, fraction, min_px: float, hw: tuple[int, int]) -> np.ndarray:
    """Grow each box by ``fraction`` (a float, or one per box) of its smaller side (at least
    ``min_px``) on every side."""
    out = np.asarray(xyxy, np.float32).copy()
    if not len(out):
        return out
    side = np.minimum(out[:, 2] - out[:, 0], out[:, 3] - out[:, 1])
    grow = np.maximum(side * fraction, min_px)[:, None]
    out[:, :2] -= grow
    out[:, 2:] += grow
    return clip_xyxy(out, hw)


def mirror_xyxy(xyxy: np.ndarray, width: float) -> np.ndarray:
    """Boxes (N, 4) xyxy of an image ``width`` px wide, mirrored left-right (its own inverse)."""
    xyxy = np.asarray(xyxy, np.float32).reshape(-1, 4)
    return np.stack([width - xyxy[:, 2], xyxy[:, 1], width - xyxy[:, 0], xyxy[:, 3]], axis=1)


def box_area(xyxy: np.ndarray) -> np.ndarray:
    """Area of each box; degenerate boxes have area 0."""
    xyxy = np.asarray(xyxy, np.float32)
    return (xyxy[:, 2] - xyxy[:, 0]).clip(0) * (xyxy[:, 3] - xyxy[:, 1]).clip(0)


def frame_share(xyxy: np.ndarray, hw: tuple[int, int]) -> np.ndarray:
    """Share (N,) float of the frame each box covers, after clipping the box to the frame."""
    h, w = hw
    boxes = clip_xyxy(np.asarray(xyxy, np.float32).reshape(-1, 4), hw)
    return box_area(boxes).astype(np.float64) / float(max(h * w, 1))


def intersection_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise intersection areas, shape (len(a), len(b))."""
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clip(0)
    return wh[..., 0] * wh[..., 1]


def inside_share(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, M): share of each of (N, 4) boxes ``a``'s area that lies inside each of (M, 4) boxes ``b``."""
    a, b = np.asarray(a, np.float32).reshape(-1, 4), np.asarray(b, np.float32).reshape(-1, 4)
    return intersection_matrix(a, b) / np.maximum(box_area(a), 1e-6)[:, None]


def centres_inside(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, M) bool: whether the centre of each of (N, 4) boxes ``a`` lies in each of (M, 4) boxes
    ``b`` (edges included)."""
    a, b = np.asarray(a, np.float32).reshape(-1, 4), np.asarray(b, np.float32).reshape(-1, 4)
    c = (a[:, None, :2] + a[:, None, 2:]) / 2
    return ((c >= b[None, :, :2]) & (c <= b[None, :, 2:])).all(axis=2)


def connected_groups(linked: np.ndarray) -> list[list[int]]:
    """Connected groups of a symmetric (N, N) bool "linked" matrix (only its upper triangle is
    read): lists of indices, each ascending, groups ordered by their first index."""
    n = len(linked)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(*np.nonzero(np.triu(linked, 1))):
        parent[find(int(j))] = find(int(i))
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise IoU, shape (len(a), len(b))."""
    inter = intersection_matrix(a, b)
    union = box_area(a)[:, None] + box_area(b)[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0)


def nms(xyxy: np.ndarray, scores: np.ndarray, class_ids: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Class-aware greedy NMS. Returns kept indices sorted by descending score."""
    if len(xyxy) == 0:
        return np.zeros(0, np.int64)
    # Offsetting boxes per class makes one pass class-aware (the batched-NMS trick).
    offset = class_ids.astype(np.float32)[:, None] * (float(np.abs(xyxy).max()) + 1.0) * 2
    boxes = xyxy + offset
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    areas = box_area(boxes)
    while len(order):
        i = order[0]
        keep.append(int(i))
        rest = order[1:]
        if not len(rest):
            break
        inter = intersection_matrix(boxes[i : i + 1], boxes[rest])[0]
        iou = inter / np.maximum(areas[i] + areas[rest] - inter, 1e-9)
        order = rest[iou <= iou_threshold]
    return np.array(keep, np.int64)


def grown_and_merged(boxes: np.ndarray, hw: tuple[int, int], margin: float, max_regions: int) -> np.ndarray:
    """Grow (K, 4) xyxy boxes by ``margin`` px, clip to the (height, width) ``hw`` frame, merge
    overlapping ones (so no pixel is searched twice); more than ``max_regions`` left → their union.
    Whole pixels."""
    h, w = hw
    grown = np.clip(boxes + np.array([-margin, -margin, margin, margin], np.float32), 0, [w, h, w, h])
    merged: list[np.ndarray] = []
    for b in sorted(grown.tolist(), key=lambda b: (b[1], b[0])):
        b = np.array(b, np.float32)
        for i, m in enumerate(merged):
            if b[0] < m[2] and m[0] < b[2] and b[1] < m[3] and m[1] < b[3]:
                merged[i] = np.concatenate([np.minimum(m[:2], b[:2]), np.maximum(m[2:], b[2:])])
                break
        else:
            merged.append(b)
    out = np.array(merged, np.float32).reshape(-1, 4)
    if len(out) > max_regions:
        out = np.concatenate([out[:, :2].min(0), out[:, 2:].max(0)])[None]
    return np.round(out)  # whole pixels for slicing
