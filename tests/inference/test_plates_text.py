"""Licence-plate candidates from OCR lines: character rules, shape rules, the photo check, the
OCR wiring, and the real OCR on a rendered plate photo versus the same text on a flat screen."""

import importlib.util

import cv2
import numpy as np
import pytest

from app.core.detections import Source
from app.inference.ocr_rapid import OcrPiiDetector, OcrSettings
from app.inference.plates_text import PlateRules, looks_rendered, plate_candidates, plate_shape_ok, plate_text
from app.text.lines import TextLine
from vpd_testkit import FakeOcrEngine, quad
from vpd_testkit import photographed
from vpd_testkit import hidden_share_after_padding


@pytest.mark.parametrize("text, chars", [
    ("LS12 ZRK", "LS12ZRK"), ("AB-123-CD", "AB123CD"), ("M AB 1234", "MAB1234"), ("7ABC123", "7ABC123"),
    ("KCB-439", "KCB439"), ("DüW KD 600", "DUWKD600"), ("沪B·IE727", "BIE727"), ("YL08", "YL08"),
    ("PORSCHE", None), ("GLENIE", None), ("GJO-ZVM", None), ("75665", None), ("6611-72", None),  # one kind only
    ("15-02-1953", None), ("C13:00", None), ("RATE: 123.7", None), ("13-86.1A", None),  # dates, times, labels
    ("Route 66", None), ("Panamera Turbo", None),  # lower case: not a plate
    ("221B", None), ("A380", None),  # four characters need two letters and two digits
    ("AB1", None), ("AB12CD345EF", None), ("A1B2C3D4", None),  # too short, too long, too many runs
    ("12:30", None), ("KAKAO.LV", None), ("$12.99", None), ("", None),
    ("ZRY*159", "ZRY159"), ("258=10X", "25810X"), ("M:AB 123", "MAB123"),  # bolts and seals read as marks
    ("11:113:10", "1111310"), ("6-1337-92", "6133792"), ("57:777·70", "5777770"),  # digits in three groups
    ("12:30:45", None), ("1953-02-15", None), ("555-12-34", None), ("829432", None),  # clock, date, phone, code
    ("EST.19", None), ("RATE:12", None),
])  # fmt: skip
def test_plate_text_rules(text, chars):
    assert plate_text(text) == chars


def test_plate_shape_rules():
    hw = (400, 600)
    assert plate_shape_ok(np.array(quad(100, 100, 220, 130), np.float32), hw)
    assert not plate_shape_ok(np.array(quad(100, 100, 110, 104), np.float32), hw)  # too small to be read
    assert not plate_shape_ok(np.array(quad(100, 100, 120, 150), np.float32), hw)  # taller than wide
    assert not plate_shape_ok(np.array(quad(0, 100, 590, 160), np.float32), hw)  # spans the frame
    slanted = np.array([[100, 100], [200, 180], [190, 200], [90, 120]], np.float32)
    assert not plate_shape_ok(slanted, hw)


def noisy_photo(h=300, w=480, seed=0):
    """A camera-like frame: a gradient with sensor noise."""
    rng = np.random.default_rng(seed)
    base = np.linspace(60, 160, w, dtype=np.float32)[None, :, None].repeat(h, 0).repeat(3, 2)
    return np.clip(base + rng.normal(0, 6, (h, w, 3)), 0, 255).astype(np.uint8)


def test_rendered_screens_are_told_from_photos():
    box = np.array([100, 100, 200, 130], np.float32)
    assert looks_rendered(np.full((300, 480, 3), 240, np.uint8), box, 0.6)
    assert not looks_rendered(noisy_photo(), box, 0.6)


def test_candidates_from_lines_photo_only_and_grown_to_the_plate():
    lines = [TextLine("KX 482 TB", np.array(quad(200, 150, 320, 180), np.float32), 0.95),
             TextLine("Opening hours 9-17", np.array(quad(20, 20, 220, 40), np.float32), 0.95),
             TextLine("AB 123 CD", np.array(quad(20, 250, 140, 280), np.float32), 0.3)]  # not read well enough
    found = plate_candidates(lines, noisy_photo())
    assert found.labels == ["license_plate"] and found.sources.tolist() == [Source.OCR]
    x0, y0, x1, y1 = found.xyxy[0]
    assert x0 < 200 and y0 < 150 and x1 > 320 and y1 > 180 and x1 - x0 < 150
    assert 0 < found.scores[0] <= PlateRules().score
    assert len(plate_candidates(lines, np.full((300, 480, 3), 250, np.uint8))) == 0  # same text on a screen


def test_ocr_emits_plates_unless_switched_off():
    engine = FakeOcrEngine([("KX 482 TB", quad(200, 150, 320, 180), 0.95)])
    on = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False))
    assert "license_plate" in on.class_names and on.detect(noisy_photo()).labels == ["license_plate"]
    off = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False, plates=False))
    assert "license_plate" not in off.class_names and len(off.detect(noisy_photo())) == 0


def render_plate(frame: np.ndarray, text: str, x: int, y: int, flat: bool) -> tuple[np.ndarray, tuple]:
    """A white plate with a dark border and ``text`` at (x, y); returns the frame and the plate box.
    ``flat=False`` makes it a photo: blur, sensor noise and JPEG."""
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, 1.1, 2)
    box = (x, y, x + tw + 24, y + th + 26)
    cv2.rectangle(frame, box[:2], box[2:], (235, 235, 235), -1)
    cv2.rectangle(frame, box[:2], box[2:], (20, 20, 20), 2)
    cv2.putText(frame, text, (x + 12, y + th + 13), cv2.FONT_HERSHEY_DUPLEX, 1.1, (15, 15, 15), 2, cv2.LINE_AA)
    if not flat:
        frame = photographed(frame)
    return frame, box


@pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None, reason="rapidocr not installed")
def test_real_ocr_finds_a_rendered_plate_in_a_photo_and_not_on_a_screen():
    det = OcrPiiDetector.from_package(["CPUExecutionProvider"], OcrSettings(use_classifier=False))
    photo, box = render_plate(noisy_photo(), "KX 482 TB", 150, 120, flat=False)
    found = det.detect(photo)
    plates = found.take(np.array(found.labels) == "license_plate")
    assert len(plates) == 1
    # the plate is hidden once the usual padding (15 % of the box height) is added
    x0, y0, x1, y1 = plates.xyxy[0]
    assert hidden_share_after_padding((x0, y0, x1, y1), box, photo.shape[:2]) >= 0.9  # with the app's padding
    assert (x1 - x0) * (y1 - y0) < 2 * (box[2] - box[0]) * (box[3] - box[1])
    screen, _ = render_plate(np.full((300, 480, 3), 250, np.uint8), "KX 482 TB", 150, 120, flat=True)
    assert "license_plate" not in det.detect(screen).labels


def test_detector_plate_boxes_of_any_score_confirm_text_candidates():
    from app.core.detections import Detections
    from app.inference.plates_text import confirm_plates

    names = ("face", "license_plate")
    fused = Detections(np.array([[100, 100, 200, 140], [300, 100, 400, 140], [90, 90, 210, 150], [290, 90, 410, 150]],
                                np.float32), np.array([0.3, 0.3, 0.06, 0.9]), np.array([1, 1, 1, 0]), names,
                       sources=np.array([Source.OCR, Source.OCR, Source.DETECTOR, Source.DETECTOR]))  # fmt: skip
    out = confirm_plates(fused)
    # the first candidate lies in a weak detector plate box; the second only in a face box
    assert out.scores.tolist() == pytest.approx([PlateRules().confirmed_score, 0.3, 0.06, 0.9])
    engine = FakeOcrEngine([("KX 482 TB", quad(200, 150, 320, 180), 0.95)])
    det = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False))
    found = det.detect(noisy_photo())
    seen = Detections(np.array([[190, 140, 330, 190]], np.float32), np.array([0.05]), np.array([0]), ("license_plate",))
    from app.core.detections import concat

    assert det.refine(concat([found, seen])).scores.max() == pytest.approx(PlateRules().confirmed_score)


def test_a_confirmed_plate_is_cut_to_a_sure_detector_outline_that_holds_its_line():
    from app.core.detections import Detections
    from app.inference.plates_text import confirm_plates, plate_box

    hw = (480, 640)
    line = TextLine("KX 482 TB", quad(200, 300, 320, 330), 0.95)
    grown = plate_box(np.array(line.quad, np.float32), hw)

    def confirmed(outline, score=0.5, lines=(line,)):
        fused = Detections(np.array([grown, outline], np.float32), np.array([0.3, score]), np.array([0, 0]),
                           ("license_plate",), sources=np.array([Source.OCR, Source.DETECTOR]))  # fmt: skip
        return confirm_plates(fused, list(lines)).xyxy[0].tolist()

    # the plate's rim, found by the detector, is tighter than the fixed growth: the box becomes it
    assert confirmed([195, 296, 326, 336]) == pytest.approx([195, 296, 326, 336])
    # a rim a little inside the line's ends is joined with the line: every character stays hidden
    assert confirmed([203, 296, 318, 336]) == pytest.approx([200, 296, 320, 336])
    # kept as grown: an outline that leaves much of the line out, a weak outline, a loose one (the
    # whole car), no line read
    assert confirmed([230, 296, 310, 336]) == pytest.approx(grown.tolist())
    assert confirmed([195, 296, 326, 336], score=0.1) == pytest.approx(grown.tolist())
    assert confirmed([120, 220, 420, 420]) == pytest.approx(grown.tolist())
    assert confirmed([195, 296, 326, 336], lines=()) == pytest.approx(grown.tolist())


def test_detector_plate_boxes_over_a_road_sign_word_go_but_not_over_a_plate_or_a_weak_read():
    from app.core.detections import Detections, concat
    from app.inference.plates_text import drop_road_sign_objects, plate_text

    def drop_road_sign_plates(fused, lines):
        return drop_road_sign_objects(fused, lines, {"license_plate": lambda t: plate_text(t) is not None})

    names = ("license_plate",)
    boxes = np.array([[100, 100, 300, 200], [400, 100, 600, 200], [700, 100, 900, 200]], np.float32)
    fused = Detections(boxes, np.array([0.6, 0.6, 0.6]), np.array([0, 0, 0]), names,
                       sources=np.full(3, Source.DETECTOR, np.int8))  # fmt: skip
    lines = [TextLine("STOP", quad(150, 130, 250, 170), 0.97),  # a stop sign
             TextLine("Stop", quad(450, 120, 550, 150), 0.95), TextLine("KX 482 TB", quad(440, 160, 560, 190), 0.9),
             TextLine("STOP", quad(750, 130, 850, 170), 0.4)]  # read too weakly to say  # fmt: skip
    assert drop_road_sign_plates(fused, lines).xyxy.tolist() == boxes[1:].tolist()
    assert len(drop_road_sign_plates(fused, [])) == 3
    ocr_plate = Detections(boxes[:1], np.array([0.3]), np.array([0]), names, sources=np.array([Source.OCR], np.int8))
    assert len(drop_road_sign_plates(concat([ocr_plate]), lines)) == 1  # only the detector's boxes are judged
    # through the OCR detector's refine step, on the frame it last read
    engine = FakeOcrEngine([("STOP", quad(150, 130, 250, 170), 0.97)])
    det = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False))
    found = det.detect(noisy_photo())
    assert "license_plate" not in det.refine(concat([found, fused.take(np.array([0]))])).labels


def test_a_detector_house_number_box_over_a_stop_sign_goes_one_over_a_number_stays():
    from app.core.detections import Detections
    from app.inference.plates_text import drop_road_sign_objects
    from app.inference.shop_signs_text import house_number_text

    names = ("house_number",)
    boxes = np.array([[100, 100, 300, 300], [400, 100, 600, 300]], np.float32)
    fused = Detections(boxes, np.array([0.7, 0.7]), np.array([0, 0]), names, sources=np.full(2, Source.DETECTOR, np.int8))
    lines = [TextLine("STOP", quad(140, 170, 260, 230), 0.96),  # an octagon read as a house number
             TextLine("STOP", quad(420, 120, 580, 160), 0.96), TextLine("42", quad(470, 200, 530, 280), 0.9)]
    kept = drop_road_sign_objects(fused, lines, {"house_number": house_number_text})
    assert kept.xyxy.tolist() == boxes[1:].tolist()  # the panel with a number read on it stays
