"""COCO-style AP used by the evaluate/ablation commands (pure numpy, no torch needed)."""

from __future__ import annotations

import numpy as np
import pytest

from training.evaluate import AREA_SMALL, ImageEval, coco_ap

GT = np.array([[0, 0, 10, 10], [20, 20, 100, 100]], np.float32)  # a small (100 px^2) and a large box


def _im(det, cls=None, scores=None):
    det = np.asarray(det, np.float32).reshape(-1, 4)
    cls = np.zeros(len(det), int) if cls is None else np.asarray(cls)
    scores = np.linspace(0.9, 0.5, len(det)) if scores is None else np.asarray(scores)
    return ImageEval(GT, np.array([0, 0]), det, cls, scores)


@pytest.mark.parametrize(
    "det, cls, expected_all, expected_small",
    [
        (GT, None, (1.0, 1.0), 1.0),  # perfect
        ([], None, (0.0, 0.0), 0.0),  # nothing found
        (GT, [1, 1], (0.0, 0.0), 0.0),  # wrong class
        (GT[1:], None, (51 / 101, 51 / 101), 0.0),  # only the large one: half the recall, no small AP
        (GT[:1], None, (51 / 101, 51 / 101), 1.0),  # only the small one: small AP perfect, large GT ignored
        ([[0, 0, 11, 11]], None, (0.7 * 51 / 101, 51 / 101), 0.7),  # IoU 0.826 passes 7 of 10 thresholds
    ],
)
def test_coco_ap_table(det, cls, expected_all, expected_small):
    im = _im(det, cls)
    m, m50 = coco_ap([im], 2)
    assert (m, m50) == pytest.approx(expected_all, abs=1e-6)
    assert coco_ap([im], 2, AREA_SMALL)[0] == pytest.approx(expected_small, abs=1e-6)


def test_false_positive_ranked_first_lowers_precision():
    im = _im([[200, 200, 220, 220], *GT], scores=[0.95, 0.9, 0.8])
    m, m50 = coco_ap([im], 1)
    assert 0.5 < m50 < 1.0


def test_no_ground_truth_is_nan():
    im = ImageEval(np.zeros((0, 4), np.float32), np.zeros(0, int), GT, np.zeros(2, int), np.ones(2))
    assert np.isnan(coco_ap([im], 1)[0])


def test_set_overrides_parse_numbers_and_flags():
    from training.train import parse_overrides

    assert parse_overrides(["lr0=0.002", "warmup_epochs=0", "optimizer=AdamW", "cos_lr=true"]) == {
        "lr0": 0.002, "warmup_epochs": 0, "optimizer": "AdamW", "cos_lr": True}
    with pytest.raises(ValueError):
        parse_overrides(["lr0"])
