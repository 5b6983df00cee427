"""Box evidence: weak detector code boxes of a decodable size must decode, weak payment cards on a
rendered screen must hold a card number, house numbers and shop signs are never drawn by an app;
confident boxes, small codes and camera pictures are kept."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from app.core.detections import Detections, Source
from app.inference.box_evidence import CodeEvidence, RenderedCardEvidence, CameraObjectEvidence
from vpd_testkit import qr_image

NAMES = ("qr_code", "barcode", "payment_card", "card_number")


def dets(boxes, scores, classes, sources=None):
    n = len(boxes)
    return Detections(np.array(boxes, np.float32).reshape(n, 4), np.array(scores, np.float32), np.array(classes, np.int32),
                      NAMES, sources=np.array(sources if sources is not None else [Source.DETECTOR] * n, np.int8))  # fmt: skip


def qr_frames() -> tuple[np.ndarray, np.ndarray, list[float]]:
    """A 400 x 600 rendered screen (flat white, a grey icon) and a camera-like frame (noise), each with
    a real QR code at 4 px a module; the code's xyxy."""
    qr = qr_image(scale=4)
    screen = np.full((400, 600, 3), 255, np.uint8)
    cv2.circle(screen, (350, 150), 45, (120, 120, 120), -1)  # an icon
    screen[250:350, 100:200] = np.random.default_rng(2).integers(0, 255, (100, 100, 3), dtype=np.uint8)  # an avatar photo
    photo = np.random.default_rng(0).integers(90, 170, (400, 600, 3), dtype=np.uint8)
    for frame in (screen, photo):
        frame[40 : 40 + qr.shape[0], 40 : 40 + qr.shape[1]] = qr
    return screen, photo, [56.0, 56.0, 24.0 + qr.shape[1], 24.0 + qr.shape[0]]  # the symbol without its quiet zone


def test_weak_code_boxes_on_a_screen_large_enough_to_decode_must_decode():
    screen, photo, qr_xyxy = qr_frames()
    found = dets([qr_xyxy,  # weak, on a real code: decodes
                  [300, 100, 400, 200],  # weak 100 px "QR" on the icon: should decode and does not
                  [300, 100, 400, 200],  # the same, confident: drawn pixels cannot be blurred, so checked too
                  [320, 120, 370, 170],  # weak 50 px "QR": too small to be sure a code would decode
                  [300, 300, 500, 360],  # weak 200 px "barcode" on white
                  [300, 300, 480, 360],  # weak 180 px "barcode": short of 95 modules at 2 px
                  [300, 100, 400, 200]],  # an OCR box of the class: not the detector's
                 [0.3, 0.3, 0.7, 0.3, 0.3, 0.3, 0.3], [0, 0, 0, 0, 1, 1, 0],
                 [Source.DETECTOR] * 6 + [Source.OCR])  # fmt: skip
    check = CodeEvidence()
    assert check.decodable_size(found).tolist() == [True, True, True, False, True, False, True]
    assert check.unreadable(found, screen).tolist() == [False, True, True, False, True, False, False]
    assert len(check.apply(found, screen)) == 4
    avatar = dets([[100, 250, 200, 350]], [0.3], [0])  # a photo shown on the screen is no drawing: not checked
    assert check.unreadable(avatar, screen).tolist() == [False]
    # in a camera picture blur and perspective keep real codes from decoding: nothing is dropped
    assert not check.unreadable(found, photo).any()
    # ... except a box over a quarter of the frame, at any score, where nothing decodes
    large = dets([[250, 80, 550, 350], [250, 80, 550, 350], [0, 0, 400, 300]], [0.3, 0.9, 0.3], [0, 0, 0])
    assert check.unreadable(large, photo).tolist() == [True, True, False]
    assert len(check.apply(dets([], [], []), screen)) == 0


def test_a_light_code_on_a_dark_screen_is_kept():
    qr = 255 - qr_image(scale=4)  # a dark theme's light-on-dark code
    screen = np.full((400, 600, 3), 30, np.uint8)
    screen[40 : 40 + qr.shape[0], 40 : 40 + qr.shape[1]] = qr
    box = [56.0, 56.0, 24.0 + qr.shape[1], 24.0 + qr.shape[0]]
    found = dets([box, box, [300, 100, 400, 200]], [0.9, 0.3, 0.9], [0, 0, 0])
    assert CodeEvidence().unreadable(found, screen).tolist() == [False, False, True]  # the last: flat dark colour


def test_weak_qr_boxes_in_a_photo_large_enough_to_decode_must_decode():
    qr = qr_image(scale=7)
    rng = np.random.default_rng(0)
    photo = cv2.GaussianBlur(rng.integers(60, 200, (600, 900, 3), dtype=np.uint8), (0, 0), 1.5)
    photo[20 : 20 + qr.shape[0], 20 : 20 + qr.shape[1]] = qr
    photo = np.clip(cv2.GaussianBlur(photo, (0, 0), 0.8) + rng.normal(0, 4, photo.shape), 0, 255).astype(np.uint8)  # a camera's blur and noise
    side = qr.shape[0] - 2 * 28  # the symbol without its 4-module quiet zone
    found = dets([[48, 48, 48 + side, 48 + side],  # weak, on the real code (7 px a module): decodes
                  [500, 200, 700, 400],  # weak 200 px "QR" on texture: a code that size would decode
                  [500, 200, 700, 400],  # the same, confident: kept
                  [520, 220, 640, 340]],  # weak 120 px: a real code this size may be too blurred to read
                 [0.3, 0.3, 0.7, 0.3], [0, 0, 0, 0])  # fmt: skip
    assert CodeEvidence().unreadable(found, photo).tolist() == [False, True, False, False]
    assert not CodeEvidence(photo_px_per_module=None).unreadable(found, photo).any()


def _screen_with_card() -> np.ndarray:
    """A rendered screen: white, one grey rounded 'card' (ID-1 shaped, 1.6:1) with a dark text bar."""
    frame = np.full((400, 600, 3), 255, np.uint8)
    cv2.rectangle(frame, (50, 50), (370, 250), (235, 235, 235), -1)
    cv2.rectangle(frame, (80, 100), (300, 120), (30, 30, 30), -1)
    return frame


def test_weak_payment_cards_on_a_rendered_screen_need_a_card_number_and_a_cards_shape():
    screen = _screen_with_card()
    card = [50, 50, 370, 250]
    check = RenderedCardEvidence()
    assert check.numberless_ui_cards(dets([card], [0.3], [2]), screen).tolist() == [True]
    assert len(check.apply(dets([card], [0.3], [2]), screen)) == 0
    assert check.numberless_ui_cards(dets([card], [0.8], [2]), screen).tolist() == [False]  # confident
    with_number = dets([card, [80, 100, 300, 120]], [0.3, 0.2], [2, 3])
    assert check.numberless_ui_cards(with_number, screen).tolist() == [False, False]
    # a weak box over a whole list or panel, a number inside or not, is no card an app drew
    panel = dets([[40, 40, 440, 360], [80, 100, 300, 120]], [0.3, 0.2], [2, 3])
    assert check.numberless_ui_cards(panel, screen).tolist() == [True, False]
    photo = np.random.default_rng(1).integers(0, 255, screen.shape, dtype=np.uint8)  # camera noise: no screen
    assert check.numberless_ui_cards(dets([card], [0.3], [2]), photo).tolist() == [False]
    screen[50:200, 50:450] = photo[50:200, 50:450]  # a photo of a card shown on a screen
    assert check.numberless_ui_cards(dets([card], [0.3], [2]), screen).tolist() == [False]
    from_ocr = dets([card], [0.3], [2], [Source.OCR])
    assert check.numberless_ui_cards(from_ocr, screen).tolist() == [False]


def test_house_numbers_and_shop_signs_drawn_by_an_app_are_dropped_at_any_score():
    names = ("house_number", "shop_sign", "license_plate", "street_sign")
    screen = np.full((300, 500, 3), 245, np.uint8)
    cv2.putText(screen, "123 456", (40, 120), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (20, 20, 20), 4)  # an OTP code, a dialler
    box = [30, 60, 330, 140]
    four = Detections(np.array([box] * 4, np.float32), np.array([0.3, 0.9, 0.3, 0.3], np.float32), np.arange(4), names,
                      sources=np.full(4, Source.DETECTOR, np.int8))  # fmt: skip
    check = CameraObjectEvidence()
    # house number (weak) and shop sign (sure) go; plates and street signs may be app graphics: kept
    assert check.drawn_boxes(four, screen).tolist() == [True, True, False, False]
    assert check.apply(four, screen).labels == ["license_plate", "street_sign"]
    photo = np.clip(screen + np.random.default_rng(0).normal(0, 8, screen.shape), 0, 255).astype(np.uint8)
    assert not check.drawn_boxes(four, photo).any()  # a camera picture of a number: kept
    from_ocr = Detections(four.xyxy, four.scores, four.class_ids, names, sources=np.full(4, Source.OCR, np.int8))
    assert not check.drawn_boxes(from_ocr, screen).any()  # the text readers' own judgement stands


def test_an_avatar_drawn_by_an_app_is_an_icon_and_a_profile_photo_is_kept():
    names = ("avatar",)
    screen = np.full((200, 400, 3), (40, 38, 36), np.uint8)
    cv2.circle(screen, (60, 100), 45, (60, 160, 30), -1)  # a round button with a glyph, or an app's icon
    cv2.putText(screen, "A", (42, 118), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (255, 255, 255), 3)
    rng = np.random.default_rng(1)
    photo = cv2.resize(rng.integers(0, 256, (15, 15, 3), dtype=np.uint8), (90, 90), interpolation=cv2.INTER_LINEAR)
    mask = np.zeros((90, 90), np.uint8)
    cv2.circle(mask, (45, 45), 45, 1, -1)
    screen[55:145, 255:345][mask > 0] = photo[mask > 0]  # a profile photo in a round avatar
    two = Detections(np.array([[12, 52, 108, 148], [252, 52, 348, 148]], np.float32), np.array([0.9, 0.3], np.float32),
                     np.zeros(2, np.int32), names, sources=np.full(2, Source.DETECTOR, np.int8))  # fmt: skip
    check = CameraObjectEvidence()
    assert check.drawn_boxes(two, screen).tolist() == [True, False]
    assert check.apply(two, screen).xyxy.tolist() == [[252, 52, 348, 148]]


def test_vpd_detector_applies_the_evidence_checks(tmp_path):
    pytest.importorskip("zxingcpp")
    from app.inference.vpd_detector import VpdDetector
    from vpd_testkit import make_detector_onnx

    # on a flat white 64 x 64 frame: a weak 60 px QR code (nothing decodes), a weak card with no
    # number, a confident card
    names = ("qr_code", "payment_card", "card_number")
    path = make_detector_onnx(tmp_path / "m.onnx", [(0, 2, 2, 62, 62, 0.3), (1, 10, 20, 40, 38, 0.3), (1, 8, 40, 40, 60, 0.8)],
                              class_names=names)  # fmt: skip
    det = VpdDetector.from_path(path, ["CPUExecutionProvider"], tiling=False)
    assert isinstance(det.code_check, CodeEvidence) and isinstance(det.card_check, RenderedCardEvidence)
    assert isinstance(det.camera_check, CameraObjectEvidence)
    frame = np.full((64, 64, 3), 255, np.uint8)
    assert det.detect(frame).scores.tolist() == [pytest.approx(0.8)]
    det.code_check = None
    assert sorted(det.detect(frame).labels) == ["payment_card", "qr_code"]
    det.card_check = None
    assert len(det.detect(frame)) == 3


def test_vpd_detector_completes_cut_faces_and_snaps_cut_avatars_to_their_picture(tmp_path):
    """At the frame's left border: a half face is widened inward to a face's shape; a loose
    avatar box over a photo cut in half is the photo's visible part, not a square covering the row."""
    from app.inference.vpd_detector import VpdDetector
    from vpd_testkit import make_detector_onnx

    names = ("face", "avatar")
    path = make_detector_onnx(tmp_path / "m.onnx", [(0, 0, 4, 12, 28, 0.9), (1, 0, 34, 16, 62, 0.9)],
                              class_names=names)  # fmt: skip
    det = VpdDetector.from_path(path, ["CPUExecutionProvider"], tiling=False)
    det.camera_check = None  # the synthetic photo below is judged by picture_bounds only
    frame = np.full((64, 64, 3), 245, np.uint8)
    rng = np.random.default_rng(2)
    frame[36:60, 0:11] = rng.integers(0, 200, (24, 11, 3), dtype=np.uint8)  # a photo, cut in half by the border
    found = {det.class_names[c]: b for b, c in zip(det.detect(frame).xyxy, det.detect(frame).class_ids)}
    np.testing.assert_allclose(found["face"], [0, 4, 0.75 * 24, 28], atol=0.5)
    assert found["avatar"][0] == 0 and found["avatar"][2] <= 12 and found["avatar"][1] <= 36 and found["avatar"][3] >= 60
