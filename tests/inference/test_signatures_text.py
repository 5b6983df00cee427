"""Signature candidates from OCR lines: a tall, badly read line among a page's print is a
signature; confident print, headlines of common words, digits, letterheads and pages with too
few lines are not; the OCR wiring and its switch."""

import cv2
import numpy as np
import pytest

from app.core.detections import Source
from app.inference.ocr_rapid import OcrPiiDetector, OcrSettings
from app.inference.signatures_text import SignatureRules, ink_grown, reads_like_print, signature_candidates
from app.text.lines import TextLine
from vpd_testkit import FakeOcrEngine, photographed, quad

W, H = 800, 1000
BODY = ["Dear Ms Lambert, thank you", "for your letter of the tenth", "we are pleased to confirm",
        "the terms set out below and", "look forward to working with", "you over the coming year"]  # fmt: skip


def page() -> np.ndarray:
    """A photographed white page (the rules read the lines; the pixels only say paper or screen)."""
    return photographed(np.full((H, W, 3), 235, np.uint8))


def line(text, x0, y0, x1, y1, score=0.97) -> TextLine:
    return TextLine(text, np.array(quad(x0, y0, x1, y1), np.float32), score)


def body_lines(n=len(BODY), top=200) -> list[TextLine]:
    """``n`` lines of running text, 20 px tall, 30 px apart."""
    return [line(BODY[i % len(BODY)], 80, top + 30 * i, 600, top + 30 * i + 20) for i in range(n)]


def test_a_tall_badly_read_line_below_the_letter_is_a_signature():
    sig = line("Jmkbt", 100, 700, 300, 745, score=0.62)  # 45 px tall: 2.25x the body text
    found = signature_candidates(body_lines() + [sig], page())
    assert found.labels == ["signature"] and found.sources[0] == Source.OCR
    x0, y0, x1, y1 = found.xyxy[0]
    assert x0 < 100 and y0 < 700 and x1 > 300 and y1 > 745  # grown to the flourishes around the line
    assert x1 - x0 < 300 and y1 - y0 < 120  # but not into the page


def signed_page() -> np.ndarray:
    """A white page with a signature: a core stroke at y 700-745 (the OCR line), a loop that rises
    to y 660 and a flourish that trails down to y 790 and right to x 355."""
    img = np.full((H, W, 3), 240, np.uint8)
    core = np.array([[110, 730], [150, 705], [190, 740], [230, 706], [290, 735]], np.int32)
    loop = np.array([[150, 705], [160, 662], [175, 700]], np.int32)
    flourish = np.array([[290, 735], [320, 775], [353, 788]], np.int32)
    cv2.polylines(img, [core, loop, flourish], False, (90, 40, 20), 3)
    return img


def test_the_signature_box_follows_the_ink_beyond_the_line():
    img = signed_page()
    sig = line("Jmkbt", 100, 700, 300, 745, score=0.62)
    x0, y0, x1, y1 = signature_candidates(body_lines() + [sig], img).xyxy[0]
    assert y0 <= 660 and y1 >= 790 and x1 >= 355  # the loop and the flourish are inside
    # without the ink the fixed growth (0.3 / 0.6 line heights) would stop short of the flourish
    assert 300 + 0.3 * 45 < 353 and 745 + 0.6 * 45 < 788 and 700 - 0.6 * 45 > 662


def test_ink_growth_ignores_print_and_strokes_running_on():
    img = signed_page()
    cv2.putText(img, "Jane Marsh, Director", (120, 800), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 2)
    cv2.line(img, (100, 748), (100 + 600, 748), (20, 20, 20), 2)  # the rule it is signed on, 600 px long
    printed = [np.array([115, 782, 330, 806], np.float32)]
    box = np.array([100, 700, 300, 745], np.float32)
    x0, y0, x1, y1 = ink_grown(img, box, 45.0, printed)
    assert x1 < 400  # the ruled line (600 px) is not followed, though the signature touches it
    assert y0 <= 660  # and the signature's own ink still is
    # the typed name under the signature is not ink to follow (print box blanked)
    plain = ink_grown(signed_page(), box, 45.0, printed)
    assert y1 <= plain[3] + 1


def test_ink_growth_does_not_follow_strokes_into_the_frame_edge():
    # a close-up: the frame cuts the window of reach, and a mass of ink below the signature runs
    # into the frame's bottom edge (a page of old print): where it ends is not seen, so not followed
    img = np.ascontiguousarray(signed_page()[560:810])  # the core at y 140-185 of a 250-px frame
    cv2.rectangle(img, (290, 232), (360, 249), (30, 30, 30), -1)  # the flourish runs into it
    box = np.array([100, 140, 300, 185], np.float32)
    x0, y0, x1, y1 = ink_grown(img, box, 45.0, [])
    assert y1 < 240  # the strokes linked to the mass are not followed (the fixed growth stays)


def test_ink_growth_leaves_a_line_on_a_dark_photo_alone():
    dark = np.random.default_rng(0).integers(0, 120, (H, W, 3), dtype=np.uint8)
    box = np.array([100, 700, 300, 745], np.float32)
    assert np.array_equal(ink_grown(dark, box, 45.0, []), box)


def test_a_line_the_recogniser_could_not_read_at_all_is_a_signature():
    unread = line("", 420, 720, 640, 770, score=0.0)
    assert signature_candidates(body_lines() + [unread], page()).labels == ["signature"]


@pytest.mark.parametrize("text, score", [
    ("Terms and Conditions", 0.80),  # a heading of common words, read fairly well
    ("INVOICE", 0.93),  # capitals read confidently
    ("Mr Jonathan Smith", 0.99),  # a printed name: confident
    ("12 345 678", 0.70),  # digits
    ("Договор", 0.70),  # another script
    ("Kindest regards from all of us", 0.70),  # too many words for a signature
    ("xxxxxxxxxxxxxxxxxxxxxxx", 0.60),  # a long run of letters: a border or pattern
])  # fmt: skip
def test_tall_lines_that_read_like_print_are_not_signatures(text, score):
    tall = line(text, 100, 700, 500, 745, score=score)
    assert reads_like_print(tall, SignatureRules())
    assert len(signature_candidates(body_lines() + [tall], page())) == 0


def test_a_square_icon_read_as_a_letter_is_not_a_signature():
    # An avatar letter or an icon among a screen's rows: tall and badly read, but not a line.
    icon = line("O", 100, 700, 150, 745, score=0.4)
    assert len(signature_candidates(body_lines() + [icon], page())) == 0
    unread_icon = line("", 100, 700, 160, 745, score=0.0)
    assert len(signature_candidates(body_lines() + [unread_icon], page())) == 0
    # A wide logo or icon read as one character is not handwriting either, however long its box.
    wide_glyph = line("W", 100, 700, 250, 745, score=0.4)
    assert len(signature_candidates(body_lines() + [wide_glyph], page())) == 0
    assert len(signature_candidates(body_lines() + [wide_glyph], page(), SignatureRules(min_read_chars=1))) == 1


def test_a_letterhead_at_the_top_of_the_page_is_not_a_signature():
    logo = line("Qvrlx", 80, 40, 300, 100, score=0.55)  # a company's logo type
    assert len(signature_candidates(body_lines() + [logo], page())) == 0


def test_no_signature_without_a_page_of_text_around_it():
    # A photo or a screen with a few labels: nothing to measure the body text by.
    sig = line("Jmkbt", 100, 700, 300, 745, score=0.62)
    assert len(signature_candidates(body_lines(3) + [sig], page())) == 0


def test_a_line_as_tall_as_the_body_text_is_not_a_signature():
    same = line("Jmkbt", 100, 700, 300, 722, score=0.62)  # 22 px: 1.1x
    assert len(signature_candidates(body_lines() + [same], page())) == 0


def rotated(text, cx, cy, length, height, degrees, score):
    """A line of ``length`` x ``height`` px centred on (cx, cy), turned by ``degrees``."""
    t = np.radians(degrees)
    u, v = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    c = np.array([cx, cy])
    corners = [c - u * length / 2 - v * height / 2, c + u * length / 2 - v * height / 2,
               c + u * length / 2 + v * height / 2, c - u * length / 2 + v * height / 2]  # fmt: skip
    return TextLine(text, np.array(corners, np.float32), score)


def test_a_long_line_on_a_tilted_page_is_not_taken_for_a_tall_one():
    # Photographed at 30 degrees: a long line's axis-aligned box is far taller than a short
    # one's, though the text is the same size (the recogniser also reads the tilted print badly).
    page_lines = [rotated("Lorem ipsum dolor", 400, 200 + 40 * i, 200, 20, 30, 0.8) for i in range(6)]
    long = rotated("Nullam vitae", 400, 600, 500, 20, 30, 0.8)
    assert len(signature_candidates(page_lines + [long], page())) == 0
    sig = rotated("Jmkbt", 400, 800, 200, 45, 30, 0.6)  # truly taller: still a signature
    assert signature_candidates(page_lines + [long, sig], page()).labels == ["signature"]


def test_ocr_emits_signatures_unless_switched_off():
    lines = [(t.text, quad(*t.quad[0], *t.quad[2]), 0.97, ()) for t in body_lines()]
    engine = FakeOcrEngine(lines + [("Jmkbt", quad(100, 700, 300, 745), 0.62, ())])
    on = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False))
    assert "signature" in on.class_names
    assert "signature" in on.detect(page()).labels
    off = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False, signatures=False))
    assert "signature" not in off.class_names
    assert "signature" not in off.detect(page()).labels


def test_cli_switch_turns_the_specialist_off():
    import argparse

    from app.commands.common import add_detection_args, detector_config

    parser = argparse.ArgumentParser()
    add_detection_args(parser)
    assert detector_config(parser.parse_args([])).ocr_signatures is True
    assert detector_config(parser.parse_args(["--no-text-signatures"])).ocr_signatures is False


def scribble(img: np.ndarray, x0: int, y0: int) -> np.ndarray:
    """A 220 x 60 px cursive scribble (a run of loops, as in joined-up letters) with its top-left
    corner near (x0, y0), drawn in dark blue ink."""
    t = np.linspace(0, 8 * np.pi, 200)
    xs = x0 + 16 + 190 * t / t[-1] - 22 * np.sin(t)
    ys = y0 + 30 - 26 * np.cos(t)
    cv2.polylines(img, [np.stack([xs, ys], 1).astype(np.int32)], False, (90, 30, 10), 2)
    return img


def chart_line(img: np.ndarray) -> np.ndarray:
    """A dashboard's sparkline, 220 x 60 px, where a signature would be: one crossing per column."""
    xs = np.linspace(120, 340, 40)
    ys = 790 + 26 * np.sin(np.linspace(0, 5 * np.pi, 40)) * np.linspace(0.6, 1.0, 40)
    cv2.polylines(img, [np.stack([xs, ys], 1).astype(np.int32)], False, (90, 30, 10), 3)
    return img


def test_a_scribble_the_ocr_found_no_line_on_is_a_signature():
    img = scribble(photographed(np.full((H, W, 3), 235, np.uint8)), 120, 760)
    found = signature_candidates(body_lines(), img)
    assert found.labels == ["signature"]
    x0, y0, x1, y1 = found.xyxy[0]
    assert x0 <= 120 and y0 <= 762 and x1 >= 340 and y1 >= 818  # the whole scribble
    assert x1 - x0 < 300 and y1 - y0 < 110  # and not much more


@pytest.mark.parametrize("draw", [
    lambda img: cv2.circle(img, (300, 800), 50, (60, 40, 200), -1),  # a solid seal or logo
    lambda img: cv2.circle(img, (300, 800), 50, (160, 60, 40), 3),  # a round stamp: as tall as wide
    lambda img: scribble(img, 120, 40),  # in the letterhead
    chart_line,  # a chart's line
    lambda img: scribble(cv2.rectangle(img, (100, 740), (360, 840), (120, 120, 120), -1), 120, 760),  # not on paper
])  # fmt: skip
def test_ink_that_is_no_signature(draw):
    img = photographed(np.full((H, W, 3), 235, np.uint8))
    draw(img)
    assert len(signature_candidates(body_lines(), img)) == 0


def test_no_ink_signature_off_a_page_or_inside_a_line_of_print():
    img = scribble(photographed(np.full((H, W, 3), 235, np.uint8)), 120, 760)
    assert len(signature_candidates(body_lines(3), img)) == 0  # a photo or a screen with a few labels
    printed = line("for your letter of the tenth", 100, 750, 360, 830)
    assert len(signature_candidates(body_lines() + [printed], img)) == 0  # the OCR read it as print
