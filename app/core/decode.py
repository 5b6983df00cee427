"""Decode raw YOLO outputs into boxes in model-input pixels.

Two ultralytics layouts are understood:

* detect head ``(1, 4 + nc, N)``: ``cx, cy, w, h`` then per-class scores (already sigmoid),
  as exported by YOLOv8/YOLO11 — needs NMS;
* end-to-end ``(1, K, 6)``: ``x1, y1, x2, y2, score, class`` as exported by YOLO26/YOLOv10
  with their NMS-free head — its one-to-one output is final, so no NMS here (two overlapping
  boxes it keeps are both hidden); duplicates between tiles are merged later by ``merge_tiled``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.core.geometry import nms


@dataclass(frozen=True)
class DecodeSettings:
    """Thresholds for decoding. ``conf`` is the floor kept for later per-class policy."""

    conf: float = 0.05
    iou: float = 0.5
    max_det: int = 1000


def is_end_to_end(shape: tuple[int, ...], num_classes: int) -> bool:
    """True when an output of ``shape`` is the ``(1, K, 6)`` end-to-end layout."""
    return len(shape) == 3 and shape[2] == 6 and shape[1] != 4 + num_classes


def decode_yolo(
    output: np.ndarray, num_classes: int, settings: DecodeSettings = DecodeSettings()
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode one image's raw output.

    output: float32 ``(1, 4+nc, N)`` or ``(1, K, 6)``.
    Returns ``xyxy (M,4) float32`` in model-input pixels, ``scores (M,)`` and ``class_ids (M,) int32``,
    after confidence filtering and (detect-head layout only) class-aware NMS, sorted by score.
    """
    output = np.asarray(output, np.float32)
    if output.ndim != 3 or output.shape[0] != 1:
        raise ValueError(f"expected a (1, C, N) detector output, got {output.shape}")
    end_to_end = is_end_to_end(output.shape, num_classes)
    if end_to_end:
        rows = output[0]
        xyxy, scores, class_ids = rows[:, :4], rows[:, 4], rows[:, 5].astype(np.int32)
    else:
        if output.shape[1] != 4 + num_classes:
            raise ValueError(
                f"output has {output.shape[1]} channels; a detect head for {num_classes} classes has {4 + num_classes}"
            )
        rows = output[0].T  # (N, 4+nc)
        class_ids = rows[:, 4:].argmax(axis=1).astype(np.int32)
        scores = rows[np.arange(len(rows)), 4 + class_ids]
        cxcywh = rows[:, :4]
        xyxy = np.concatenate([cxcywh[:, :2] - cxcywh[:, 2:] / 2, cxcywh[:, :2] + cxcywh[:, 2:] / 2], axis=1)
    keep = scores >= settings.conf
    xyxy, scores, class_ids = xyxy[keep], scores[keep], class_ids[keep]
    valid = (class_ids >= 0) & (class_ids < num_classes)
    xyxy, scores, class_ids = xyxy[valid], scores[valid], class_ids[valid]
    kept = (np.argsort(-scores, kind="stable") if end_to_end else nms(xyxy, scores, class_ids, settings.iou))[: settings.max_det]
    return xyxy[kept].astype(np.float32), scores[kept].astype(np.float32), class_ids[kept]
