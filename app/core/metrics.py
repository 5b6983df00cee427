"""Evaluation metrics for redaction: recall-at-coverage, false-positive area, and COCO-style AP.

Redaction is judged by pixels, not by box matching: a ground-truth box is *hidden* when at least
``coverage`` (default 90 %) of its area lies under the union of the redaction boxes (padding
included), whichever class or source produced them. All boxes are xyxy float32 in image pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.core.geometry import box_area, frame_share, iou_matrix
from app.core.redact import integer_boxes

IOU_THRESHOLDS = np.round(np.arange(0.5, 0.96, 0.05), 2)


def redaction_mask(xyxy: np.ndarray, hw: tuple[int, int]) -> np.ndarray:
    """(H, W) bool mask of the pixels the redaction boxes cover (rounded outward, as ``redact`` does)."""
    mask = np.zeros(hw, bool)
    for x0, y0, x1, y1 in integer_boxes(np.asarray(xyxy, np.float32).reshape(-1, 4), hw):
        mask[y0:y1, x0:x1] = True
    return mask


def box_coverage(gt_xyxy: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Fraction (N,) float of each ground-truth box's pixels that ``mask`` covers (0 for empty boxes)."""
    out = np.zeros(len(gt_xyxy), np.float64)
    for i, (x0, y0, x1, y1) in enumerate(integer_boxes(np.asarray(gt_xyxy, np.float32).reshape(-1, 4), mask.shape)):
        region = mask[y0:y1, x0:x1]
        out[i] = float(region.mean()) if region.size else 0.0
    return out


def outside_mask(gt_xyxy: np.ndarray, hw: tuple[int, int]) -> np.ndarray:
    """(H, W) bool: pixels outside every ground-truth box."""
    return ~redaction_mask(gt_xyxy, hw)


def oversized(pred_xyxy: np.ndarray, hw: tuple[int, int], max_share: float, gt_xyxy: np.ndarray | None = None,
              match_iou: float = 0.5) -> np.ndarray:  # fmt: skip
    """Indices of predicted boxes covering more than ``max_share`` of the frame. A box that matches
    a ground-truth box (IoU ≥ ``match_iou``) is a true large object (a whole document in a photo)
    and is not reported."""
    pred_xyxy = np.asarray(pred_xyxy, np.float32).reshape(-1, 4)
    big = frame_share(pred_xyxy, hw) > max_share
    if gt_xyxy is not None and len(gt_xyxy) and big.any():
        big &= iou_matrix(pred_xyxy, np.asarray(gt_xyxy, np.float32).reshape(-1, 4)).max(1) < match_iou
    return np.flatnonzero(big)


@dataclass
class CoverageTally:
    """Running totals for recall-at-coverage and false-positive area over many images.

    ``fp_area`` = redacted pixels outside all GT boxes / all redacted pixels (images with GT);
    ``negative_area`` = redacted pixels / image pixels on images with no GT box.
    """

    coverage: float = 0.9
    gt: int = 0
    hidden: int = 0
    masked_px: int = 0
    fp_px: int = 0
    negative_px: int = 0
    negative_masked_px: int = 0

    def add(self, gt_xyxy: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Count one image; returns the per-box coverage fractions."""
        gt_xyxy = np.asarray(gt_xyxy, np.float32).reshape(-1, 4)
        cov = box_coverage(gt_xyxy, mask)
        if len(gt_xyxy):
            self.gt += len(gt_xyxy)
            self.hidden += int((cov >= self.coverage).sum())
            self.masked_px += int(mask.sum())
            self.fp_px += int((mask & outside_mask(gt_xyxy, mask.shape)).sum())
        else:
            self.negative_px += mask.size
            self.negative_masked_px += int(mask.sum())
        return cov

    def add_boxes(self, coverages: np.ndarray) -> None:
        """Count GT boxes only (per-category tallies, where pixel FP has no meaning)."""
        self.gt += len(coverages)
        self.hidden += int((np.asarray(coverages) >= self.coverage).sum())

    @property
    def recall(self) -> float | None:
        return self.hidden / self.gt if self.gt else None

    @property
    def fp_area(self) -> float | None:
        return self.fp_px / self.masked_px if self.masked_px else (0.0 if self.gt else None)

    @property
    def negative_area(self) -> float | None:
        return self.negative_masked_px / self.negative_px if self.negative_px else None

    def as_dict(self) -> dict:
        return {"gt_boxes": self.gt, "hidden": self.hidden, "recall_at_coverage": self.recall,
                "fp_area": self.fp_area, "negative_area_redacted": self.negative_area}  # fmt: skip


AREA_ALL = (0.0, float("inf"))
AREA_SMALL = (0.0, 32.0**2)  # COCO "small": under 32² pixels


def match_coco(pred_xyxy: np.ndarray, pred_scores: np.ndarray, gt_xyxy: np.ndarray, iou_threshold: float,
               gt_ignore: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Greedy COCO matching for one image and class. Predictions are taken in descending score
    order; each takes the unmatched GT of highest IoU ≥ ``iou_threshold``, preferring GTs not in
    ``gt_ignore``. Returns ``(tp, matched_ignored)`` flags in that score order."""
    order = np.argsort(-np.asarray(pred_scores), kind="stable")
    tp, matched_ignored = np.zeros(len(order), bool), np.zeros(len(order), bool)
    if not len(gt_xyxy) or not len(order):
        return tp, matched_ignored
    ious = iou_matrix(np.asarray(pred_xyxy, np.float32)[order], np.asarray(gt_xyxy, np.float32))
    ignore = np.zeros(len(gt_xyxy), bool) if gt_ignore is None else np.asarray(gt_ignore, bool)
    taken = np.zeros(len(gt_xyxy), bool)
    for i in range(len(order)):
        for pool in (~ignore, ignore):  # a valid GT beats any ignored one
            cand = np.where(taken | ~pool, -1.0, ious[i])
            j = int(cand.argmax())
            if cand[j] >= iou_threshold:
                taken[j], tp[i], matched_ignored[i] = True, True, ignore[j]
                break
    return tp, matched_ignored


def match_tp(pred_xyxy: np.ndarray, pred_scores: np.ndarray, gt_xyxy: np.ndarray, iou_threshold: float) -> np.ndarray:
    """True for predictions (in descending score order) that match a not-yet-matched GT box with
    IoU ≥ ``iou_threshold`` (``match_coco`` with no ignored GT)."""
    return match_coco(pred_xyxy, pred_scores, gt_xyxy, iou_threshold)[0]


def average_precision(scores: np.ndarray, tp: np.ndarray, num_gt: int) -> float | None:
    """COCO 101-point interpolated AP from pooled detections (``scores``, ``tp`` flags).
    None when there is no ground truth."""
    if num_gt == 0:
        return None
    if not len(scores):
        return 0.0
    order = np.argsort(-np.asarray(scores), kind="stable")
    tp = np.asarray(tp, bool)[order]
    ctp, cfp = np.cumsum(tp), np.cumsum(~tp)
    recall = ctp / num_gt
    precision = ctp / np.maximum(ctp + cfp, 1e-12)
    # Precision envelope: the best precision at any recall ≥ r.
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    points = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, points, side="left")
    sampled = np.where(idx < len(precision), precision[np.minimum(idx, len(precision) - 1)], 0.0)
    return float(sampled.mean())


@dataclass
class APAccumulator:
    """Collects per-image predictions and GT per class; ``summary()`` gives mAP50, mAP50-95, per-class AP.

    ``area_range`` (pixels²) evaluates one object size as COCO does: GT outside it is ignored, and
    so are predictions matched to it or unmatched predictions outside it. ``max_dets`` caps the
    predictions kept per image and class (COCO: 100)."""

    class_names: tuple[str, ...]
    area_range: tuple[float, float] = AREA_ALL
    max_dets: int | None = None
    _scores: dict = field(default_factory=dict)
    _tp: dict = field(default_factory=dict)
    _ignored: dict = field(default_factory=dict)
    _num_gt: dict = field(default_factory=dict)

    def _outside(self, xyxy: np.ndarray) -> np.ndarray:
        area = box_area(xyxy)
        return (area < self.area_range[0]) | (area >= self.area_range[1])

    def add(self, pred_xyxy, pred_scores, pred_cls, gt_xyxy, gt_cls) -> None:
        """One image: predictions and GT with class ids into ``class_names``."""
        pred_xyxy, gt_xyxy = np.asarray(pred_xyxy, np.float32).reshape(-1, 4), np.asarray(gt_xyxy, np.float32).reshape(-1, 4)
        pred_scores, pred_cls, gt_cls = np.asarray(pred_scores), np.asarray(pred_cls), np.asarray(gt_cls)
        for c in range(len(self.class_names)):
            p, g = pred_cls == c, gt_cls == c
            gt_ignore = self._outside(gt_xyxy[g])
            self._num_gt[c] = self._num_gt.get(c, 0) + int((~gt_ignore).sum())
            if not p.any():
                continue
            order = np.argsort(-pred_scores[p], kind="stable")[: self.max_dets]
            boxes, s = pred_xyxy[p][order], pred_scores[p][order]
            matched = [match_coco(boxes, s, gt_xyxy[g], t, gt_ignore) for t in IOU_THRESHOLDS]
            tp = np.stack([m[0] for m in matched])
            ignored = np.stack([m[1] for m in matched]) | (~tp & self._outside(boxes)[None, :])
            self._scores.setdefault(c, []).append(s)
            self._tp.setdefault(c, []).append(tp)
            self._ignored.setdefault(c, []).append(ignored)

    def per_class(self) -> dict[str, list[float]]:
        """AP at each IoU threshold for every class that has ground truth."""
        out = {}
        empty = np.zeros((len(IOU_THRESHOLDS), 0), bool)
        for c, name in enumerate(self.class_names):
            n = self._num_gt.get(c, 0)
            if not n:
                continue
            scores = np.concatenate(self._scores.get(c, [np.zeros(0)]))
            flags = np.concatenate(self._tp.get(c, [empty]), axis=1)
            ignored = np.concatenate(self._ignored.get(c, [empty]), axis=1)
            out[name] = [average_precision(scores[~ignored[k]], flags[k][~ignored[k]], n)
                         for k in range(len(IOU_THRESHOLDS))]
        return out

    def summary(self) -> dict:
        per = self.per_class()
        if not per:
            return {"mAP50": None, "mAP50-95": None, "per_class_AP50-95": {}, "per_class_AP50": {}}
        ap = np.array(list(per.values()), np.float64)
        return {
            "mAP50": float(ap[:, 0].mean()),
            "mAP50-95": float(ap.mean()),
            "per_class_AP50-95": {k: float(np.mean(v)) for k, v in per.items()},
            "per_class_AP50": {k: float(v[0]) for k, v in per.items()},
        }
