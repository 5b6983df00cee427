"""Person plug-in (BlazePose detector): decoding of the body circle into a person box."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from app.inference.person_blazepose import HALF_WIDTH, decode_pose


def _one_anchor(head, hip, radius_point, logit=3.0, anchor=(100.0, 100.0)):
    reg = np.zeros((1, 1, 12), np.float32)
    ax, ay = anchor
    reg[0, 0, 0:4] = [head[0] - ax, head[1] - ay, head[2], head[3]]
    reg[0, 0, 4:6] = [hip[0] - ax, hip[1] - ay]
    reg[0, 0, 6:8] = [radius_point[0] - ax, radius_point[1] - ay]
    return reg, np.array([[[logit]]], np.float32), np.array([anchor], np.float32)


def test_standing_person_box_spans_the_body_circle_and_the_head():
    reg, logits, anchors = _one_anchor(head=(200, 60, 40, 40), hip=(200, 200), radius_point=(200, 60))
    xyxy, scores = decode_pose(reg, logits, anchors, (480, 640))
    assert len(xyxy) == 1 and scores[0] > 0.9
    x0, y0, x1, y1 = xyxy[0]
    r = 140
    assert (y0, y1) == pytest.approx((40, 340))  # head top (60 - 20) above the circle's top (60)
    assert (x0, x1) == pytest.approx((200 - HALF_WIDTH * r, 200 + HALF_WIDTH * r))


def test_low_scores_are_dropped_and_boxes_clipped():
    reg, logits, anchors = _one_anchor(head=(10, 10, 30, 30), hip=(20, 300), radius_point=(20, 0), logit=-3.0)
    assert len(decode_pose(reg, logits, anchors, (320, 320))[0]) == 0
    reg, logits, anchors = _one_anchor(head=(10, 10, 30, 30), hip=(20, 300), radius_point=(20, 0))
    xyxy, _ = decode_pose(reg, logits, anchors, (320, 320))
    assert xyxy.min() >= 0 and xyxy[:, [1, 3]].max() <= 320


def test_mismatched_anchor_count_is_an_error():
    reg, logits, anchors = _one_anchor(head=(0, 0, 1, 1), hip=(0, 0), radius_point=(0, 1))
    with pytest.raises(ValueError):
        decode_pose(reg, logits, np.zeros((2, 2), np.float32), (64, 64))


@pytest.mark.skipif(importlib.util.find_spec("mediapipe") is None, reason="mediapipe wheel (model file) not installed")
def test_packaged_model_finds_nobody_in_a_flat_picture(tmp_path, monkeypatch):
    monkeypatch.setenv("VPD_CACHE_DIR", str(tmp_path))
    from app.inference.person_blazepose import PersonDetector

    det = PersonDetector.from_package(["CPUExecutionProvider"])
    frame = np.full((360, 640, 3), 128, np.uint8)
    d = det.detect(frame)
    assert d.class_names == ("person",) and len(d) == 0
