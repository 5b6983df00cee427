"""Box plausibility: per-class size limits from training labels (derivation, the weak/strong rule,
the VPD detector's wiring), and large detector code boxes that the decoder cannot read."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from app.core.detections import Detections, Source, concat
from app.inference.box_plausibility import SIZE_LIMITS, SizePlausibility, derive_size_limits, undecoded_large_codes
from vpd_testkit import qr_image

NAMES = ("email", "qr_code", "barcode", "face")


def dets(boxes, scores, classes, sources=None):
    n = len(boxes)
    return Detections(np.array(boxes, np.float32).reshape(n, 4), np.array(scores, np.float32), np.array(classes, np.int32),
                      NAMES, sources=np.array(sources if sources is not None else [Source.DETECTOR] * n, np.int8))  # fmt: skip


def test_weak_boxes_far_beyond_their_class_size_go_strong_ones_stay():
    hw = (100, 100)
    check = SizePlausibility(limits={"email": 0.05, "qr_code": 0.5}, margin=2.0, min_share=0.12, strong_score=0.5)
    found = dets([[0, 0, 30, 30], [0, 0, 40, 40], [0, 0, 40, 40], [0, 0, 90, 90], [0, 0, 95, 95]],
                 [0.3, 0.3, 0.8, 0.3, 0.3], [0, 0, 0, 1, 3])  # fmt: skip
    # 9 % email: within 2 x 5 % (and under the 12 % checked at all); 16 % weak email: dropped; 16 % strong email: kept; 81 % QR: within
    # 2 x 50 %; a face (no limit in the table): kept at any size
    assert check.oversized(found, hw).tolist() == [False, True, True, False, False]
    assert check.apply(found, hw).xyxy[:, 2].tolist() == [30, 40, 90, 95]
    assert len(check.apply(Detections.empty(NAMES), hw)) == 0
    assert not SizePlausibility(limits={"email": 0.05}).oversized(found, hw)[1]  # 16 %: under a quarter of the frame


def test_size_limits_are_derived_from_yolo_labels(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "1.txt").write_text("0 0.5 0.5 0.1 0.2\n1 0.5 0.5 0.5 0.5\n")
    (tmp_path / "a" / "2.txt").write_text("0 0.5 0.5 0.1 0.4\n\n")
    limits = derive_size_limits([tmp_path / "a"], NAMES, quantile=100)
    assert limits == {"email": pytest.approx(0.04), "qr_code": pytest.approx(0.25)}
    # the shipped table: text lines are small, documents and codes may fill the picture
    assert SIZE_LIMITS["email"] < 0.1 < SIZE_LIMITS["license_plate"] < 0.5 < SIZE_LIMITS["qr_code"]


def test_vpd_detector_drops_weak_oversized_boxes(tmp_path):
    from app.inference.vpd_detector import VpdDetector
    from vpd_testkit import make_detector_onnx

    # an email over half the 64 x 64 input (weak) and a small strong one
    path = make_detector_onnx(tmp_path / "m.onnx", [(1, 2, 2, 60, 40, 0.4), (1, 10, 50, 30, 58, 0.9)])
    det = VpdDetector.from_path(path, ["CPUExecutionProvider"], tiling=False)
    assert isinstance(det.size_check, SizePlausibility)
    frame = np.full((64, 64, 3), 255, np.uint8)
    assert det.detect(frame).xyxy[:, 1].round().tolist() == [50]
    det.size_check = None
    assert len(det.detect(frame)) == 2


def test_large_detector_codes_need_a_decoded_symbol_inside():
    hw = (100, 100)
    fused = dets([[0, 0, 80, 80], [10, 10, 70, 70], [0, 0, 20, 20], [0, 0, 90, 60], [0, 0, 80, 80]],
                 [0.9, 0.9, 0.9, 0.9, 0.9], [1, 1, 1, 2, 3])  # fmt: skip
    decoded = np.zeros((0, 4), np.float32)
    # nothing decoded: the large QR boxes and the large barcode box go; the small QR and the face stay
    assert undecoded_large_codes(fused, decoded, hw).tolist() == [True, True, False, True, False]
    decoded = np.array([[20, 70, 36, 80]], np.float32)  # a symbol decoded inside the first box only
    assert undecoded_large_codes(fused, decoded, hw).tolist() == [False, True, False, True, False]
    ocr = dets([[0, 0, 80, 80]], [0.9], [1], [Source.OCR])
    assert undecoded_large_codes(ocr, np.zeros((0, 4), np.float32), hw).tolist() == [False]


def test_code_detector_refine_keeps_a_large_code_it_read_and_drops_one_it_did_not():
    qr = qr_image(scale=8)
    from app.inference.codes_zxing import CodeDetector

    frame = np.full((qr.shape[0] + 40, qr.shape[1] + 40, 3), 255, np.uint8)
    frame[20 : 20 + qr.shape[0], 20 : 20 + qr.shape[1]] = qr
    codes = CodeDetector()
    decoded = codes.detect(frame)
    assert len(decoded) == 1
    h, w = frame.shape[:2]
    seen = dets([[10, 10, w - 10, h - 10]], [0.7], [1])
    assert len(codes.refine(concat([decoded, seen], NAMES))) == 2  # the detector's box over a decoded code stays
    codes.detect(np.full_like(frame, 128))  # a grey frame: nothing decodes
    assert len(codes.refine(seen)) == 0
