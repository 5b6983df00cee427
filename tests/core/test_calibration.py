"""Per-class score calibration and the large-box rule."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.calibration import ScoreCalibration, parse_class_conf
from app.core.detections import Detections

NAMES = ("email", "passport")


def _dets(boxes, scores, ids):
    return Detections(np.array(boxes, np.float32), np.array(scores, np.float32), np.array(ids, np.int32), NAMES)


def test_class_threshold_maps_to_pivot_and_order_is_kept():
    cal = ScoreCalibration({"email": 0.5})
    d = _dets([[0, 0, 10, 10]] * 4, [0.1, 0.5, 0.75, 1.0], [0, 0, 0, 0])
    s = cal.apply(d, (1000, 1000)).scores
    assert s == pytest.approx([0.05, 0.25, 0.625, 1.0])
    assert np.all(np.diff(s) > 0)


def test_uncalibrated_class_keeps_its_score():
    cal = ScoreCalibration({"email": 0.5})
    d = _dets([[0, 0, 10, 10]] * 3, [0.1, 0.3, 0.9], [1, 1, 1])
    assert cal.apply(d, (1000, 1000)).scores == pytest.approx([0.1, 0.3, 0.9])


def test_a_large_box_needs_a_high_raw_score():
    cal = ScoreCalibration({"passport": 0.2})
    small = _dets([[0, 0, 100, 100]], [0.4], [1])
    large = _dets([[0, 0, 600, 600]], [0.4], [1])  # 36 % of a 1000 x 1000 frame
    assert cal.apply(small, (1000, 1000)).scores[0] > 0.25
    assert cal.apply(large, (1000, 1000)).scores[0] < 0.25
    assert cal.apply(_dets([[0, 0, 600, 600]], [0.7], [1]), (1000, 1000)).scores[0] > 0.25


def test_metadata_parsing_keeps_known_classes_in_range():
    conf = parse_class_conf('{"email": 0.4, "unknown": 0.3, "passport": 1.5}', NAMES)
    assert dict(conf) == {"email": 0.4}
    assert dict(parse_class_conf(None, NAMES)) == {}
    with pytest.raises(ValueError):
        parse_class_conf("[0.3]", NAMES)
