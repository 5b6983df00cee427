"""Street-name sign candidates from OCR lines: the street-name rules in several languages, the
shape and photo checks, a plaque read over two lines, the OCR wiring and its switch, and the real
OCR on a rendered street sign in a photo versus the same text on a flat screen."""

import importlib.util

import cv2
import numpy as np
import pytest

from app.core.detections import Source
from app.inference.ocr_rapid import OcrPiiDetector, OcrSettings
from app.inference.signs_text import SignRules, sign_candidates, street_name
from app.text.lines import TextLine
from vpd_testkit import FakeOcrEngine, quad
from vpd_testkit import photographed
from vpd_testkit import hidden_share_after_padding


@pytest.mark.parametrize("text, ok", [
    ("Main St", True), ("W 42nd St", True), ("MAIN ST", True), ("E 14 St", True), ("5th Ave", True),
    ("Sunset Blvd", True), ("Rue de Rivoli", True), ("Avenue des Champs-Élysées", True), ("Calle Mayor", True),
    ("Via Roma", True), ("Piazza Navona", True), ("ul. Marszałkowska", True), ("улица Ленина", True),
    ("Đường Lê Lợi", True), ("Hauptstraße", True), ("Hauptstr. 5", True), ("Keizersgracht", True),
    ("Drottninggatan", True), ("Vesterbrogade", True),
    ("Broadway", False),  # no street-type word: cannot be told from a brand
    ("Brigade", False), ("Catering", False),  # words that merely end like a street type
    ("Phở Hà Nội", False),  # a soup, not "Phố" (street)
    ("Via email", False), ("turn left on main street", False), ("Opening hours 9-17", False),
    ("St", False), ("Main St 12345678 call now", False), ("123 456 St", False),
])  # fmt: skip
def test_street_name_rules(text, ok):
    assert street_name(text) is ok


def photo(h=400, w=600, seed=0):
    """A camera-like frame: a gradient with sensor noise."""
    rng = np.random.default_rng(seed)
    base = np.linspace(60, 160, w, dtype=np.float32)[None, :, None].repeat(h, 0).repeat(3, 2)
    return np.clip(base + rng.normal(0, 6, (h, w, 3)), 0, 255).astype(np.uint8)


def line(text, x0, y0, x1, y1, score=0.95):
    return TextLine(text, np.array(quad(x0, y0, x1, y1), np.float32), score)


def test_candidates_photo_only_shape_checked_and_grown_to_the_plate():
    lines = [line("Main St", 200, 150, 300, 180), line("Elm Street", 20, 20, 20 + 300, 20 + 4),  # too thin to read
             line("Oak Ave", 400, 300, 480, 330, score=0.3)]  # not read well enough
    found = sign_candidates(lines, photo())
    assert found.labels == ["street_sign"] and found.sources.tolist() == [Source.OCR]
    x0, y0, x1, y1 = found.xyxy[0]
    assert x0 < 200 and y0 < 150 and x1 > 300 and y1 > 180 and (x1 - x0) * (y1 - y0) < 2.5 * 100 * 30
    assert 0 < found.scores[0] <= SignRules().score
    assert len(sign_candidates(lines, np.full((400, 600, 3), 250, np.uint8))) == 0  # the same line on a screen


def test_a_plaque_over_two_lines_is_read_together():
    lines = [line("ul.", 200, 100, 240, 125), line("Marszałkowska", 180, 130, 330, 160), line("Kawiarnia", 20, 300, 140, 330)]
    found = sign_candidates(lines, photo())
    assert len(found) == 1
    x0, y0, x1, y1 = found.xyxy[0]
    assert x0 < 180 and y0 < 100 and x1 > 330 and y1 > 160


def test_ocr_emits_signs_unless_switched_off():
    engine = FakeOcrEngine([("Main St", quad(200, 150, 300, 180), 0.95)])
    on = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False))
    assert "street_sign" in on.class_names and "street_sign" in on.detect(photo()).labels
    off = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False, signs=False))
    assert "street_sign" not in off.class_names and "street_sign" not in off.detect(photo()).labels


def render_sign(frame: np.ndarray, text: str, x: int, y: int, flat: bool) -> tuple[np.ndarray, tuple]:
    """A green street-name blade with a white border and white ``text``; ``flat=False`` makes it
    a photo (blur, sensor noise, JPEG). Returns the frame and the sign box."""
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, 1.2, 2)
    box = (x, y, x + tw + 30, y + th + 30)
    cv2.rectangle(frame, box[:2], box[2:], (40, 110, 20), -1)
    cv2.rectangle(frame, (box[0] + 3, box[1] + 3), (box[2] - 3, box[3] - 3), (240, 240, 240), 2)
    cv2.putText(frame, text, (x + 15, y + th + 15), cv2.FONT_HERSHEY_DUPLEX, 1.2, (245, 245, 245), 2, cv2.LINE_AA)
    if not flat:
        frame = photographed(frame)
    return frame, box


@pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None, reason="rapidocr not installed")
def test_real_ocr_finds_a_street_sign_in_a_photo_and_not_on_a_screen():
    det = OcrPiiDetector.from_package(["CPUExecutionProvider"], OcrSettings(use_classifier=False))
    frame, box = render_sign(photo(), "W 42nd St", 150, 120, flat=False)
    found = det.detect(frame)
    signs = found.take(np.array(found.labels) == "street_sign")
    assert len(signs) == 1
    x0, y0, x1, y1 = signs.xyxy[0]
    assert hidden_share_after_padding((x0, y0, x1, y1), box, frame.shape[:2]) >= 0.9  # with the app's padding
    assert (x1 - x0) * (y1 - y0) < 2 * (box[2] - box[0]) * (box[3] - box[1])
    screen, _ = render_sign(np.full((400, 600, 3), 250, np.uint8), "W 42nd St", 150, 120, flat=True)
    assert "street_sign" not in det.detect(screen).labels


def blade(frame: np.ndarray, box: tuple, colour=(40, 110, 20)) -> np.ndarray:
    """A one-colour panel with a white rim at ``box`` (xyxy), photographed."""
    cv2.rectangle(frame, box[:2], box[2:], colour, -1)
    cv2.rectangle(frame, box[:2], box[2:], (235, 235, 235), 4)
    return frame


def test_a_sign_box_reaches_the_edges_of_its_panel_not_a_fixed_margin():
    # Margins of one and a half letter heights above and two to the left: a fixed growth leaves them showing.
    panel = (130, 95, 440, 215)
    frame = photographed(blade(photo(), panel))
    found = sign_candidates([line("Main St", 190, 140, 400, 170)], frame)
    x0, y0, x1, y1 = found.xyxy[0]
    assert x0 <= panel[0] + 2 and y0 <= panel[1] + 2 and x1 >= panel[2] - 2 and y1 >= panel[3] - 2
    assert x0 >= panel[0] - 12 and y0 >= panel[1] - 12 and x1 <= panel[2] + 12 and y1 <= panel[3] + 12


def test_text_on_a_plain_wall_keeps_the_fixed_margin():
    wall = photographed(np.full((400, 600, 3), (90, 120, 150), np.uint8))
    found = sign_candidates([line("Main St", 190, 140, 400, 170)], wall)
    x0, y0, x1, y1 = found.xyxy[0]
    rules = SignRules()
    assert x0 == pytest.approx(190 - rules.grow_x * 30, abs=1) and y1 == pytest.approx(170 + rules.grow_y * 30, abs=1)


def test_a_street_type_set_apart_to_the_right_joins_the_name():
    frame = photographed(blade(photo(), (60, 100, 540, 200)))
    name, suffix = line("S Shore Crest", 80, 120, 420, 180), line("DR", 440, 122, 500, 150)
    found = sign_candidates([name, suffix], frame)
    assert len(found) == 1 and found.xyxy[0][2] >= 500
    below = line("DR", 440, 240, 500, 268)  # under the name, not beside it: not its suffix
    assert len(sign_candidates([name, below], frame)) == 0


def test_a_panel_cut_off_by_the_frame_is_hidden_to_the_frame_edge():
    frame = photographed(blade(photo(), (150, -10, 450, 110)))  # the sign runs out of the top of the picture
    x0, y0, x1, y1 = sign_candidates([line("Main St", 220, 30, 400, 60)], frame).xyxy[0]
    assert y0 == 0 and x0 <= 152 and x1 >= 448 and y1 >= 108
