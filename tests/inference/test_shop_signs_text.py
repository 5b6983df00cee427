"""Shop-sign and house-number candidates from OCR lines: the house-number text rule, signs from
large-glyph lines (read or found-but-unread) on a photographed wall but not on a screen or a page,
lone number plaques but not prices, clocks or plate parts, the OCR wiring and its switch, and the
real OCR on rendered boards and plaques (a Cyrillic board that the recogniser cannot read)."""

import importlib.util

import cv2
import numpy as np
import pytest

from app.core.detections import Detections, Source
from app.inference.ocr_rapid import OcrPiiDetector, OcrSettings, UnreadLines
from app.inference.shop_signs_text import (FacadeRules, drop_parts_of_objects, house_number_text, shop_sign_candidates,
                                           sign_text)
from app.text.lines import TextLine
from vpd_testkit import FakeOcrEngine, hidden_share_after_padding, photographed, quad

needs_ocr = pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None, reason="rapidocr not installed")


@pytest.mark.parametrize("text, ok", [
    ("12", True), ("7", True), ("221B", True), ("12а", True), ("12/3", True), ("46/1", True), ("No. 15", True),
    ("№ 7", True), ("1024", True), ("8A", True),
    ("12:30", False), ("$12", False), ("12.99", False), ("2024-11-30", False), ("12345", False),
    ("555 0199", False), ("AB 123", False), ("EXIT", False), ("", False),
    ("9-21", False), ("10-20", False),  # opening hours
    ("300p", False), ("199р", False), ("100M", False), ("5k", False), ("24h", False), ("24/7", False),  # units
])  # fmt: skip
def test_house_number_text(text, ok):
    assert house_number_text(text) is ok


@pytest.mark.parametrize("text, ok", [("PECTOPAH", True), ("Bar ber", True), ("24 CAFE", True),
                                      ("4934433", False), ("1-800", False), ("A", False),
                                      ("Scan this code with", False)])  # fmt: skip
def test_sign_text_is_mostly_letters(text, ok):
    assert sign_text(text) is ok


def wall(h=480, w=720, seed=0):
    """A photographed brick wall: rows of bricks with mortar, shading and sensor noise."""
    rng = np.random.default_rng(seed)
    frame = np.full((h, w, 3), (70, 80, 150), np.uint8)
    for y in range(0, h, 24):
        cv2.line(frame, (0, y), (w, y), (170, 175, 180), 2)
        for x in range(-48 * (y // 24 % 2) // 2, w, 48):
            cv2.line(frame, (x, y), (x, y + 24), (170, 175, 180), 2)
    frame = frame.astype(np.float32) * np.linspace(0.8, 1.1, w, dtype=np.float32)[None, :, None]
    return np.clip(frame + rng.normal(0, 7, frame.shape), 0, 255).astype(np.uint8)


def screen(h=480, w=720):
    """A rendered screen: flat panels."""
    frame = np.full((h, w, 3), 245, np.uint8)
    cv2.rectangle(frame, (0, 0), (w, 60), (60, 40, 30), -1)
    return frame


def line(text, x0, y0, x1, y1, score=0.95):
    return TextLine(text, np.array(quad(x0, y0, x1, y1), np.float32), score)


def test_a_row_of_large_lines_is_one_board_on_a_wall_and_nothing_on_a_screen():
    lines = [line("BAKERY", 200, 100, 360, 140), line("", 370, 100, 470, 140, score=0.0),  # found, not read
             line("Open daily 8-20", 220, 300, 330, 312)]  # small print: no sign
    found = shop_sign_candidates(lines, wall())
    assert found.labels == ["shop_sign"] and found.sources.tolist() == [Source.OCR]
    x0, y0, x1, y1 = found.xyxy[0]
    assert x0 < 200 and y0 <= 100 and x1 > 470 and y1 >= 140 and (x1 - x0) * (y1 - y0) < 1.5 * 270 * 40
    assert found.scores[0] == pytest.approx(FacadeRules().sign_score)
    assert len(shop_sign_candidates(lines, screen())) == 0  # a big headline on a rendered screen


@pytest.mark.parametrize("lines, n", [
    ([line("A", 200, 100, 420, 140, score=0.6)], 1),  # one letter read over a whole word: not read, still a sign
    ([line("", 200, 100, 250, 150, score=0.0)], 0),  # a square found but not read: a QR code or texture
    ([line("KX 482 TB", 200, 100, 420, 140)], 0),  # a licence plate is the plate reader's
    ([line("Main St", 200, 100, 420, 140)], 0),  # a street name is the street-sign reader's
    ([line("STOP", 200, 100, 300, 140)], 0),  # a road sign names no business
    ([line("WHICH ONE", 100, 100, 300, 140), line("REVS YOUR", 100, 150, 300, 190),
      line("ENGINE", 100, 200, 300, 240)], 0),  # advertising copy, not a name
])  # fmt: skip
def test_which_lines_make_a_sign(lines, n):
    assert len(shop_sign_candidates(lines, wall())) == n


def test_far_apart_lines_are_separate_boards():
    found = shop_sign_candidates([line("BAKERY", 40, 100, 200, 140), line("PHARMACY", 480, 100, 680, 140)], wall())
    assert len(found) == 2


def test_a_slanted_blade_does_not_join_the_big_sign_below_it():
    blade = TextLine("CAFE ROMA", np.array([[100, 50], [260, 90], [255, 115], [95, 75]], np.float32), 0.95)  # 25 px letters
    found = shop_sign_candidates([blade, line("PHARMACY", 130, 125, 330, 200)], wall())
    assert len(found) == 2 and all(y1 - y0 < 120 for _, y0, _, y1 in found.xyxy)


def test_a_board_larger_than_a_quarter_of_the_frame_is_no_shop_sign():
    # Two stacked big lines over the lower half of the frame: a product label or banner held close.
    banner = [line("GOLDEN", 40, 260, 640, 340), line("HARVEST", 40, 350, 640, 430)]
    assert len(shop_sign_candidates(banner, wall())) == 0
    assert len(shop_sign_candidates([line("GOLDEN", 200, 260, 520, 340)], wall())) == 1  # a board of its own size


def test_a_page_of_text_gives_no_sign():
    page = [line(f"Soup {i} Salad", 40, 40 + 40 * i, 680, 40 + 40 * i + 22) for i in range(10)]
    assert len(shop_sign_candidates(page, wall())) == 0
    assert len(shop_sign_candidates(page[:1], wall())) == 1  # one such line alone is a sign


def test_a_lone_number_plaque_is_a_house_number():
    found = shop_sign_candidates([line("127", 300, 200, 380, 250, score=0.99)], wall())
    assert found.labels == ["house_number"]
    x0, y0, x1, y1 = found.xyxy[0]
    assert hidden_share_after_padding((x0, y0, x1, y1), (306, 206, 374, 244), (480, 720)) >= 0.9


def test_a_large_tilted_number_is_measured_along_its_slant():
    # 0.53 of the frame tall along its slant, but its bounds span 0.67: a number photographed from below
    tilted = TextLine("307", np.array([[200, 160], [560, 100], [600, 340], [240, 420]], np.float32), 0.99)
    found = shop_sign_candidates([tilted], wall())
    assert found.labels == ["house_number"]
    assert hidden_share_after_padding(tuple(found.xyxy[0]), (240, 160, 560, 360), (480, 720)) >= 0.9
    too_big = TextLine("307", np.array([[100, 60], [620, 0], [680, 400], [160, 470]], np.float32), 0.99)
    assert len(shop_sign_candidates([too_big], wall())) == 0  # a number filling the frame is no plaque


@pytest.mark.parametrize("lines", [
    [line("127", 300, 200, 380, 250, score=0.5)],  # read unsure: bricks and railings read as digits
    [line("12:45", 300, 200, 420, 250)],  # a clock
    [line("129", 300, 200, 380, 250), line("EUR", 390, 200, 460, 250)],  # a price with its currency
    [line("AB", 230, 200, 290, 250), line("1234", 300, 200, 400, 250)],  # part of a plate
    [line("127", 300, 200, 340, 209)],  # small print
])  # fmt: skip
def test_no_house_number_for_prices_clocks_plates_or_small_print(lines):
    assert "house_number" not in shop_sign_candidates(lines, wall()).labels


def test_a_number_on_a_plate_box_is_dropped():
    names = ("license_plate", "house_number")
    fused = Detections(np.array([[100, 100, 300, 150], [150, 110, 200, 140], [400, 100, 450, 140],
                                 [500, 100, 600, 150], [520, 110, 560, 140]], np.float32),
                       np.array([0.6, 0.3, 0.3, 0.2, 0.3], np.float32), np.array([0, 1, 1, 0, 1], np.int32), names,
                       sources=np.array([Source.DETECTOR, Source.OCR, Source.OCR, Source.DETECTOR, Source.OCR], np.int8))  # fmt: skip
    kept = drop_parts_of_objects(fused)  # the one on the weak plate box (a plaque the detector half-mistook) stays
    assert kept.labels == ["license_plate", "house_number", "license_plate", "house_number"]
    assert kept.xyxy[1, 0] == 400 and kept.xyxy[3, 0] == 520


def test_a_sign_on_a_decoded_code_is_dropped():
    names = ("qr_code", "shop_sign")
    fused = Detections(np.array([[50, 0, 470, 440], [50, 0, 470, 130], [60, 450, 460, 500]], np.float32),
                       np.array([1.0, 0.3, 0.3], np.float32), np.array([0, 1, 1], np.int32), names,
                       sources=np.array([Source.DETECTOR, Source.OCR, Source.OCR], np.int8))  # fmt: skip
    assert drop_parts_of_objects(fused).xyxy[:, 1].tolist() == [0, 450]  # the code and the print below it


def test_no_house_number_on_a_screen():
    assert len(shop_sign_candidates([line("127", 300, 200, 380, 250, score=0.99)], screen())) == 0


class EngineWithUnread(FakeOcrEngine):
    """A fake RapidOCR whose wrapped last step notes the ``unread`` lines; like RapidOCR it skips
    that step on a frame where it finds no line."""

    def __init__(self, lines, unread):
        super().__init__(lines)
        self.unread = unread
        self.build_final_output = UnreadLines(lambda *a: None)

    def __call__(self, img, return_word_box=True):
        if self.lines or self.unread:
            self.build_final_output.last = list(self.unread)
        return super().__call__(img, return_word_box)


def test_ocr_passes_unread_lines_and_emits_both_classes_unless_switched_off():
    board = (np.array(quad(200, 100, 470, 140), np.float32), 0.0)  # a board it could not read
    engine = EngineWithUnread([("127", quad(300, 200, 380, 250), 0.99)], [board])
    on = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False))
    assert {"shop_sign", "house_number"} <= set(on.class_names)
    assert sorted(on.detect(wall()).labels) == ["house_number", "shop_sign"]
    assert len(on.last_unread) == 1 and on.last_unread[0].text == "" and on.last_run.lines == 1
    engine.lines, engine.unread = [], []  # a frame with no line: no stale unread line from the last one
    assert len(on.detect(wall())) == 0 and on.last_unread == []
    engine.lines, engine.unread = [("127", quad(300, 200, 380, 250), 0.99, ())], [board]
    off = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False, shop_signs=False))
    assert not {"shop_sign", "house_number"} & set(off.class_names)
    assert not {"shop_sign", "house_number"} & set(off.detect(wall()).labels)


def render_board(frame: np.ndarray, text: str, x: int, y: int, cyrillic: bool = False) -> tuple[np.ndarray, tuple]:
    """A dark sign board with large white ``text`` at (x, y) on ``frame``; returns the frame and the
    board box. Cyrillic text is drawn with DejaVu Sans (matplotlib's copy), Latin with OpenCV."""
    if cyrillic:
        from PIL import Image, ImageDraw, ImageFont

        font = ImageFont.truetype(str(_dejavu()), 44)
        left, top, right, bottom = font.getbbox(text)
        box = (x, y, x + right - left + 40, y + bottom - top + 36)
        cv2.rectangle(frame, box[:2], box[2:], (30, 30, 30), -1)
        image = Image.fromarray(frame)
        ImageDraw.Draw(image).text((x + 20 - left, y + 18 - top), text, font=font, fill=(245, 245, 245))
        return np.asarray(image).copy(), box
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, 1.6, 3)
    box = (x, y, x + tw + 40, y + th + 36)
    cv2.rectangle(frame, box[:2], box[2:], (30, 30, 30), -1)
    cv2.putText(frame, text, (x + 20, y + th + 18), cv2.FONT_HERSHEY_DUPLEX, 1.6, (245, 245, 245), 3, cv2.LINE_AA)
    return frame, box


def _dejavu():
    matplotlib = pytest.importorskip("matplotlib")
    from pathlib import Path

    return Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"


def _boxes(found, label):
    return found.xyxy[np.array(found.labels) == label]


@pytest.fixture(scope="module")
def real_ocr():
    return OcrPiiDetector.from_package(["CPUExecutionProvider"], OcrSettings(use_classifier=False))


@needs_ocr
def test_real_ocr_finds_a_board_and_a_plaque_on_a_wall_and_nothing_on_a_screen(real_ocr):
    frame, board = render_board(wall(), "BAKERY", 160, 60)
    (tw, th), _ = cv2.getTextSize("127", cv2.FONT_HERSHEY_SIMPLEX, 1.5, 3)
    plaque = (480, 330, 480 + tw + 20, 330 + th + 20)
    cv2.rectangle(frame, plaque[:2], plaque[2:], (235, 235, 235), -1)
    cv2.putText(frame, "127", (490, 330 + th + 10), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (20, 20, 20), 3, cv2.LINE_AA)
    frame = photographed(frame)
    found = real_ocr.detect(frame)
    (sign,) = _boxes(found, "shop_sign")
    (number,) = _boxes(found, "house_number")
    text_box = (board[0] + 20, board[1] + 18, board[2] - 20, board[3] - 18)  # the letters must be hidden
    assert hidden_share_after_padding(sign, text_box, frame.shape[:2]) >= 0.9
    assert hidden_share_after_padding(number, (490, 340, 490 + tw, 340 + th), frame.shape[:2]) >= 0.9
    shot, _ = render_board(screen(), "BAKERY", 160, 60)
    cv2.putText(shot, "12:45", (480, 360), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (20, 20, 20), 3, cv2.LINE_AA)
    cv2.putText(shot, "127", (480, 440), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (20, 20, 20), 3, cv2.LINE_AA)
    assert not {"shop_sign", "house_number"} & set(real_ocr.detect(shot).labels)


@needs_ocr
def test_real_ocr_keeps_a_cyrillic_board_it_cannot_read(real_ocr):
    frame, board = render_board(wall(seed=1), "ПЕКАРНЯ", 180, 120, cyrillic=True)
    found = real_ocr.detect(photographed(frame))
    assert not real_ocr.last_lines and len(real_ocr.last_unread) == 1  # found, read as nothing
    (sign,) = _boxes(found, "shop_sign")
    text_box = (board[0] + 20, board[1] + 18, board[2] - 20, board[3] - 18)
    assert hidden_share_after_padding(sign, text_box, frame.shape[:2]) >= 0.9


def test_cli_switch_turns_the_specialist_off():
    import argparse

    from app.commands.common import add_detection_args, detector_config

    parser = argparse.ArgumentParser()
    add_detection_args(parser)
    assert detector_config(parser.parse_args([])).ocr_shop_signs is True
    assert detector_config(parser.parse_args(["--no-text-shop-signs"])).ocr_shop_signs is False
