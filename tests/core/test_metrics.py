"""Metrics against hand-computed cases."""

import numpy as np
import pytest

from app.core.metrics import APAccumulator, CoverageTally, average_precision, box_coverage, match_tp, redaction_mask


def test_mask_and_coverage():
    mask = redaction_mask(np.array([[0, 0, 10, 10]], np.float32), (20, 20))
    assert mask.sum() == 100
    cov = box_coverage(np.array([[0, 0, 10, 10], [5, 0, 15, 10], [10, 10, 20, 20]], np.float32), mask)
    assert cov.tolist() == [1.0, 0.5, 0.0]


def test_tally_recall_fp_and_negatives():
    t = CoverageTally(0.9)
    gt = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], np.float32)
    mask = redaction_mask(np.array([[0, 0, 10, 20]], np.float32), (40, 40))  # 200 px, 100 outside GT
    t.add(gt, mask)
    assert t.recall == 0.5 and t.fp_area == 0.5
    t.add(np.zeros((0, 4)), redaction_mask(np.array([[0, 0, 4, 4]], np.float32), (10, 10)))
    assert t.negative_area == pytest.approx(16 / 100)
    assert t.recall == 0.5  # negatives add no GT


def test_match_tp_greedy_by_score():
    gt = np.array([[0, 0, 10, 10]], np.float32)
    preds = np.array([[0, 0, 10, 10], [0, 0, 10, 9]], np.float32)
    assert match_tp(preds, np.array([0.5, 0.9]), gt, 0.5).tolist() == [True, False]  # the 0.9 one wins


def test_average_precision_hand_computed():
    # 2 GT; detections by score: TP, FP, TP → precision envelope 1 up to recall .5, then 2/3 to recall 1.
    ap = average_precision(np.array([0.9, 0.8, 0.7]), np.array([True, False, True]), 2)
    expected = (51 * 1.0 + 50 * (2 / 3)) / 101
    assert ap == pytest.approx(expected)
    assert average_precision(np.zeros(0), np.zeros(0, bool), 3) == 0.0
    assert average_precision(np.zeros(0), np.zeros(0, bool), 0) is None


def test_ap_accumulator_perfect_and_empty_classes():
    acc = APAccumulator(("a", "b"))
    gt = np.array([[0, 0, 10, 10]], np.float32)
    acc.add(gt, [0.9], [0], gt, [0])
    s = acc.summary()
    assert s["mAP50"] == 1.0 and s["mAP50-95"] == 1.0 and set(s["per_class_AP50"]) == {"a"}


def test_match_coco_prefers_valid_gt_and_flags_ignored():
    from app.core.metrics import match_coco

    gt = np.array([[0, 0, 10, 10], [0, 0, 10, 11]], np.float32)  # the first is ignored
    pred = np.array([[0, 0, 10, 10]], np.float32)  # IoU 1.0 with the ignored one, 0.91 with the valid one
    tp, ign = match_coco(pred, np.array([0.9]), gt, 0.5, gt_ignore=np.array([True, False]))
    assert tp.tolist() == [True] and ign.tolist() == [False]
    tp, ign = match_coco(pred, np.array([0.9]), gt[:1], 0.5, gt_ignore=np.array([True]))
    assert tp.tolist() == [True] and ign.tolist() == [True]


def test_ap_accumulator_area_range_ignores_other_sizes():
    from app.core.metrics import AREA_SMALL

    acc = APAccumulator(("a",), area_range=AREA_SMALL)
    gt = np.array([[0, 0, 10, 10], [20, 20, 100, 100]], np.float32)
    acc.add(gt[1:], [0.9], [0], gt, [0, 0])  # only the large box found: nothing small found
    assert acc.summary()["mAP50"] == 0.0
    acc = APAccumulator(("a",), area_range=AREA_SMALL)
    acc.add(gt, [0.5, 0.9], [0, 0], gt, [0, 0])  # the large match is ignored, not a false positive
    assert acc.summary()["mAP50"] == 1.0


def test_frame_share_clips_and_oversized_skips_gt_matched_boxes():
    from app.core.geometry import frame_share
    from app.core.metrics import oversized

    boxes = np.array([[0, 0, 50, 50], [-50, -50, 50, 50], [0, 0, 100, 30], [60, 60, 70, 70]], np.float32)
    assert np.allclose(frame_share(boxes, (100, 100)), [0.25, 0.25, 0.30, 0.01])
    assert oversized(boxes, (100, 100), 0.25).tolist() == [2]
    assert oversized(boxes, (100, 100), 0.2).tolist() == [0, 1, 2]
    gt = np.array([[0, 0, 100, 32]], np.float32)  # the wide box is a true large object
    assert oversized(boxes, (100, 100), 0.2, gt).tolist() == [0, 1]
