import numpy as np
import pytest

from app.core.decode import DecodeSettings, decode_yolo


def head_output(rows, nc):
    out = np.zeros((1, 4 + nc, len(rows)), np.float32)
    for j, (cx, cy, w, h, scores) in enumerate(rows):
        out[0, :4, j] = [cx, cy, w, h]
        out[0, 4:, j] = scores
    return out


def test_decode_head_layout_against_hand_computed_boxes():
    out = head_output([(50, 40, 20, 10, [0.1, 0.9]), (10, 10, 4, 4, [0.6, 0.2]), (30, 30, 10, 10, [0.01, 0.02])], nc=2)
    xyxy, scores, cls = decode_yolo(out, 2, DecodeSettings(conf=0.25))
    assert xyxy.tolist() == [[40, 35, 60, 45], [8, 8, 12, 12]]
    assert np.allclose(scores, [0.9, 0.6]) and cls.tolist() == [1, 0]


def test_decode_end_to_end_layout():
    out = np.zeros((1, 300, 6), np.float32)
    out[0, 0] = [1, 2, 11, 12, 0.8, 2]
    out[0, 1] = [1, 2, 11, 12, 0.1, 0]
    xyxy, scores, cls = decode_yolo(out, 3, DecodeSettings(conf=0.25))
    assert xyxy.tolist() == [[1, 2, 11, 12]] and cls.tolist() == [2]


def test_decode_end_to_end_output_is_final_no_nms():
    # The NMS-free head already chose one box per object; overlapping boxes it keeps (nested
    # lines, a card inside a card) are both hidden, as ultralytics' own predict keeps them.
    out = np.zeros((1, 300, 6), np.float32)
    out[0, 0] = [10, 10, 50, 50, 0.6, 1]
    out[0, 1] = [12, 10, 50, 52, 0.9, 1]
    xyxy, scores, cls = decode_yolo(out, 3, DecodeSettings(conf=0.25, iou=0.5))
    assert np.allclose(scores, [0.9, 0.6]) and xyxy.tolist() == [[12, 10, 50, 52], [10, 10, 50, 50]]


def test_decode_applies_nms_to_overlapping_candidates():
    out = head_output([(50, 50, 20, 20, [0.9]), (51, 50, 20, 20, [0.8]), (90, 90, 10, 10, [0.7])], nc=1)
    xyxy, scores, _ = decode_yolo(out, 1, DecodeSettings(conf=0.25, iou=0.5))
    assert len(xyxy) == 2 and np.allclose(scores, [0.9, 0.7])


def test_decode_rejects_wrong_channel_count():
    with pytest.raises(ValueError, match="channels"):
        decode_yolo(np.zeros((1, 9, 10), np.float32), 3)
