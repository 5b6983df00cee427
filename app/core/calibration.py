"""Per-class score calibration of the VPD detector, and the large-box rule.

Training (``python -m training calibrate``) measures, on the synthetic validation split and the
held-out real photos (never on real-dev), the score at which each class's boxes become worth
hiding, and writes it into the model's metadata (``vpd_class_conf``). The detector then remaps
its scores so that each class's calibrated threshold lands on ``pivot`` (the app's default
confidence, 0.25): one slider keeps working for every class, and a class the model is
over-confident about no longer floods the picture at the default.

A box covering a large part of the frame is where a false positive costs most (a "passport" over
half a password manager); such a box counts as confident only from ``large_min_score`` (more
likely right than wrong), whatever its class threshold.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping

import numpy as np

from app.core.detections import Detections
from app.core.geometry import frame_share


@dataclass(frozen=True)
class ScoreCalibration:
    """Class name -> raw score that maps to ``pivot``; boxes over ``large_area`` of the frame
    need a raw score of at least ``large_min_score`` to reach it."""

    thresholds: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    pivot: float = 0.25
    large_area: float = 0.25
    large_min_score: float = 0.5

    def raw_thresholds(self, detections: Detections, hw: tuple[int, int]) -> np.ndarray:
        """(N,) float32: the raw score each box needs to reach ``pivot``."""
        names = detections.class_names
        per_class = np.array([self.thresholds.get(n, self.pivot) for n in names], np.float32)
        t = per_class[detections.class_ids]
        large = frame_share(detections.xyxy, hw) > self.large_area
        return np.where(large, np.maximum(t, self.large_min_score), t).astype(np.float32)

    def apply(self, detections: Detections, hw: tuple[int, int]) -> Detections:
        """``detections`` with calibrated scores: piecewise linear and monotonic per box, the box's
        raw threshold mapped to ``pivot``, 0 to 0 and 1 to 1."""
        if not len(detections):
            return detections
        t = np.clip(self.raw_thresholds(detections, hw), 1e-3, 1 - 1e-3)
        s = detections.scores
        p = self.pivot
        calibrated = np.where(s < t, s * p / t, p + (s - t) * (1 - p) / (1 - t))
        return replace(detections, scores=np.clip(calibrated, 0, 1).astype(np.float32))


def parse_class_conf(value: str | None, class_names) -> Mapping[str, float]:
    """``vpd_class_conf`` metadata (JSON ``{class: score}``) -> mapping over known classes."""
    import json

    if not value:
        return MappingProxyType({})
    raw = json.loads(value)
    if not isinstance(raw, dict):
        raise ValueError("vpd_class_conf must be a JSON object")
    return MappingProxyType({str(k): float(v) for k, v in raw.items() if k in class_names and 0 < float(v) < 1})
