"""Whole-document regions from OCR layout: ID pages (labels or MRZ), receipts, parcel labels; the
negatives (prose, a sign-up form on a screen, a price list without a total); the grouping of
lines into blocks; the OCR wiring and its switch; the ID box widened to the holder's photo; and
the real OCR on a rendered receipt photo."""

import importlib.util

import cv2
import numpy as np
import pytest

from app.core.detections import Detections, Source, concat
from app.inference.documents_text import (DocumentRules, attach_portraits, document_candidates, document_regions,
                                          line_blocks, mrz_page, plain)  # fmt: skip
from app.inference.ocr_rapid import OcrPiiDetector, OcrSettings
from app.text.lines import TextLine
from vpd_testkit import FakeOcrEngine, quad
from vpd_testkit import hidden_share_after_padding


def photo(h=600, w=800, seed=0):
    """A camera-like frame: grey with sensor noise."""
    rng = np.random.default_rng(seed)
    return np.clip(128 + rng.normal(0, 8, (h, w, 3)), 0, 255).astype(np.uint8)


def line(text, x, y, w=None, h=20, score=0.95):
    return TextLine(text, np.array(quad(x, y, x + (w or 11 * len(text)), y + h), np.float32), score)


def receipt_lines(x=200, y=50):
    rows = [("MILK", "2.49"), ("BREAD", "3.10"), ("APPLES 1.2 kg", "4.25"), ("SUBTOTAL", "9.84"), ("TAX 8%", "0.79"),
            ("TOTAL", "10.63")]  # fmt: skip
    out = [line("CORNER MARKET", x + 80, y), line("12/03/2024 14:22", x + 80, y + 30)]
    for k, (item, price) in enumerate(rows):
        out += [line(item, x, y + 70 + 30 * k), line(price, x + 320 - 11 * len(price), y + 70 + 30 * k)]
    return out + [line("VISA **** 4417", x, y + 260), line("THANK YOU", x + 90, y + 290)]


ID_PAGE = [line("IDENTITY CARD", 300, 40), line("Surname / Nom", 300, 80), line("MUSTERMANN", 300, 105),
           line("Given names / Prénoms", 300, 135), line("ERIKA", 300, 160), line("Date of birth", 300, 190),
           line("12.08.1964", 300, 215), line("Nationality", 300, 245), line("DEUTSCH", 300, 270)]  # fmt: skip
ID_PAGE_DE = [line("Name", 300, 80), line("MUSTERMANN", 300, 105), line("Vornamen", 300, 135), line("ERIKA", 300, 160),
              line("Geburtsdatum", 300, 190), line("12.08.1964", 300, 215), line("Staatsangehörigkeit", 300, 245),
              line("DEUTSCH", 300, 270), line("Gültig bis", 300, 300), line("01.02.2031", 300, 325)]  # fmt: skip
MRZ = [line("P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", 100, 400, w=600),
       line("L898902C36UTO7408122F1204159ZE184226B<<<<<10", 100, 425, w=600)]  # fmt: skip
LABEL = [line("SHIP TO:", 100, 100), line("JOHN SMITH", 100, 125), line("123 MAIN ST", 100, 150),
         line("SPRINGFIELD, IL 62704", 100, 175), line("UPS GROUND", 100, 210),
         line("TRACKING #: 1Z999AA10123456784", 100, 235)]  # fmt: skip
PROSE = [line("The committee met on Tuesday to discuss the", 100, 100), line("new budget and the date of the", 100, 125),
         line("next meeting. Members of the public may", 100, 150), line("attend; the total cost is 12.50", 100, 175)]  # fmt: skip
PRICE_LIST = [line(f"Item {k}", 100, 100 + 30 * k) for k in range(5)] + [line(f"{k}.99", 400, 100 + 30 * k) for k in range(5)]


def test_plain_text_drops_case_and_accents():
    assert plain("Prénoms  /  Płeć") == "prenoms / plec"


@pytest.mark.parametrize("lines, cls", [
    (receipt_lines(), "receipt"), (ID_PAGE, "id_card"), (ID_PAGE_DE, "id_card"), (MRZ, "passport"),
    (ID_PAGE[:3] + [line(m.text, 100, 135 + 25 * k, w=600) for k, m in enumerate(MRZ)], "passport"),
    (LABEL, "shipping_label"),
    (PROSE, None), (PRICE_LIST, None), (ID_PAGE[1:5], None),  # prose, no total line, two labels only
])  # fmt: skip
def test_documents_are_recognised_by_their_cues(lines, cls):
    found = document_regions(lines, photo())
    assert [r.class_name for r in found] == ([cls] if cls else [])


def test_id_labels_split_around_the_photo_count_for_the_whole_card():
    top = [line("Surname", 300, 40), line("MUSTERMANN", 300, 65)]
    middle = [line("Given names", 300, 150), line("ERIKA", 300, 175)]  # 3.5 line heights lower
    bottom = [line("Date of birth", 300, 260), line("12.08.1964", 300, 285)]
    assert [r.class_name for r in document_regions(top, photo())] == []
    (region,) = document_regions(top + middle + bottom, photo())
    assert region.class_name == "id_card" and region.xyxy[1] < 40 and region.xyxy[3] > 305


def test_receipts_in_currencies_without_cents():
    rows = [("NASI GORENG", "25.000"), ("ES TEH", "8.000"), ("KERUPUK", "5.000"), ("TOTAL", "38.000"),
            ("CASH", "50.000"), ("CHANGE", "12.000")]  # fmt: skip
    lines = [l for k, (item, price) in enumerate(rows)
             for l in (line(item, 200, 100 + 30 * k), line(price, 520 - 11 * len(price), 100 + 30 * k))]  # fmt: skip
    assert [r.class_name for r in document_regions(lines, photo())] == ["receipt"]


def test_region_spans_the_lines_with_a_margin_and_score_grows_with_cues():
    lines = receipt_lines()
    (region,) = document_regions(lines, photo())
    boxes = np.array([[l.quad[:, 0].min(), l.quad[:, 1].min(), l.quad[:, 0].max(), l.quad[:, 1].max()] for l in lines])
    assert (region.xyxy[:2] < boxes[:, :2].min(0)).all() and (region.xyxy[2:] > boxes[:, 2:].max(0)).all()
    assert (region.xyxy[2:] - region.xyxy[:2] < boxes[:, 2:].max(0) - boxes[:, :2].min(0) + 3 * 20).all()
    fewer = [l for l in lines if not any(w in l.text for w in ("VISA", "THANK", "TAX", "/"))]
    (weaker,) = document_regions(fewer, photo())
    assert 0.25 < weaker.score < region.score


def test_id_labels_on_a_rendered_screen_are_a_form_but_an_mrz_is_a_document():
    screen = np.full((600, 800, 3), 250, np.uint8)
    assert document_regions(ID_PAGE, screen) == []
    assert [r.class_name for r in document_regions(MRZ, screen)] == ["passport"]


def test_mrz_read_with_guillemets_still_counts():
    from app.inference.documents_text import is_mrz

    assert is_mrz("P<UTOERIKSSON«ANNA<MARIA«««««««<") and not is_mrz("Hello «world»")


def test_mrz_gives_the_page_above_it():
    page = mrz_page(np.array([[100, 400, 700, 420], [100, 425, 700, 445]], np.float32))
    assert page[0] < 100 and page[2] > 700 and page[3] >= 445 and 445 - page[1] == pytest.approx(0.8 * 600, abs=30)
    (region,) = document_regions(MRZ, photo())
    assert region.xyxy[1] < 100 and region.xyxy[3] >= 445  # clipped to the frame at the top


def test_separate_documents_are_separate_blocks():
    lines = receipt_lines(x=20, y=20) + [line(t.text, t.quad[0, 0] + 800, t.quad[0, 1] + 100) for t in LABEL]
    found = document_regions(lines, photo(h=700, w=1400))
    assert sorted(r.class_name for r in found) == ["receipt", "shipping_label"]
    a, b = (r.xyxy for r in found)
    assert min(a[3], b[3]) <= max(a[1], b[1]) or min(a[2], b[2]) <= max(a[0], b[0])  # no overlap


def test_a_receipt_takes_in_its_sections_below_a_break_but_not_text_beside_it():
    lines = receipt_lines(x=200, y=50)
    footer = [line("Terminal-ID 60122456", 200, 440), line("BITTE BELEG AUFBEWAHREN", 200, 465)]  # 3 heights lower
    aside = [line("Opening hours", 1000, 440), line("Mon-Fri 8-20", 1000, 465)]  # another column
    (region,) = document_regions(lines + footer + aside, photo(w=1300))
    assert region.xyxy[3] > 485 and region.xyxy[2] < 1000
    far = [line(l.text, 200, l.quad[0, 1] + 120) for l in footer]  # 9 heights lower: another paper
    (region,) = document_regions(lines + far, photo())
    assert region.xyxy[3] < 560


def test_blocks_join_columns_and_rows_but_not_distant_lines():
    boxes = np.array([[0, 0, 50, 20], [0, 24, 60, 44], [300, 24, 340, 44], [0, 200, 50, 220]], np.float32)
    assert line_blocks(boxes) == [[0, 1, 2], [3]]
    assert line_blocks(boxes, DocumentRules(column_gap=5)) == [[0, 1], [2], [3]]


def test_ocr_emits_documents_unless_switched_off():
    engine = FakeOcrEngine([(l.text, l.quad.tolist(), 0.95) for l in receipt_lines()])
    on = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False, plates=False, signs=False))
    found = on.detect(photo())
    assert "receipt" in on.class_names and "receipt" in found.labels
    assert set(found.take(np.array(found.labels) == "receipt").sources) == {Source.OCR}
    off = OcrPiiDetector(engine, "CPU", OcrSettings(use_classifier=False, plates=False, signs=False, documents=False))
    assert "receipt" not in off.class_names and "receipt" not in off.detect(photo()).labels


def test_id_box_widens_to_the_holders_photo_beside_it():
    names = ("face", "id_card", "receipt")
    fused = Detections(np.array([[300, 40, 500, 300], [120, 80, 240, 230], [600, 50, 700, 150], [300, 400, 500, 550]],
                                np.float32), np.array([0.6, 0.9, 0.9, 0.5]), np.array([1, 0, 0, 2]), names,
                       sources=np.array([Source.OCR, Source.FACE, Source.FACE, Source.OCR]))  # fmt: skip
    out = attach_portraits(fused)
    assert out.xyxy[0, 0] < 120 and out.xyxy[0, 2] >= 500  # the photo on the left joined
    assert out.xyxy[0, 3] >= 300 and (out.xyxy[1:] == fused.xyxy[1:]).all()  # the face far right did not grow it
    detector_id = Detections(fused.xyxy[:2], fused.scores[:2], fused.class_ids[:2], names,
                             sources=np.array([Source.DETECTOR, Source.FACE]))  # fmt: skip
    assert (attach_portraits(detector_id).xyxy == detector_id.xyxy).all()  # only boxes read from text
    assert len(attach_portraits(concat([Detections.empty(names)]))) == 0


def render_receipt(seed=0):
    """A white receipt on a dark wooden-ish table, photographed: blur, noise, JPEG. Returns the
    frame and the receipt box."""
    rng = np.random.default_rng(seed)
    frame = np.clip(60 + rng.normal(0, 12, (800, 700, 3)), 0, 255).astype(np.uint8)
    box = (170, 60, 530, 700)
    cv2.rectangle(frame, box[:2], (box[2] - 1, box[3] - 1), (236, 238, 240), -1)
    rows = [("CORNER MARKET", ""), ("12/03/2024 14:22", ""), ("", ""), ("MILK", "2.49"), ("BREAD", "3.10"),
            ("APPLES", "4.25"), ("COFFEE", "7.80"), ("", ""), ("SUBTOTAL", "17.64"), ("TAX", "1.41"), ("TOTAL", "19.05"),
            ("", ""), ("VISA", "19.05"), ("THANK YOU", "")]  # fmt: skip
    font = (cv2.FONT_HERSHEY_SIMPLEX, 0.8)
    for k, (item, price) in enumerate(rows):  # items left, prices right-aligned, as a till prints them
        y = box[1] + 70 + 40 * k
        cv2.putText(frame, item, (box[0] + 25, y), *font, (30, 30, 30), 2, cv2.LINE_AA)
        width = cv2.getTextSize(price, *font, 2)[0][0]
        cv2.putText(frame, price, (box[2] - 25 - width, y), *font, (30, 30, 30), 2, cv2.LINE_AA)
    frame = cv2.GaussianBlur(frame, (3, 3), 0.8)
    frame = np.clip(frame + rng.normal(0, 4, frame.shape), 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 88])[1], cv2.IMREAD_COLOR), box


@pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None, reason="rapidocr not installed")
def test_real_ocr_finds_a_photographed_receipt():
    det = OcrPiiDetector.from_package(["CPUExecutionProvider"], OcrSettings(use_classifier=False))
    frame, box = render_receipt()
    found = det.detect(frame)
    receipts = found.take(np.array(found.labels) == "receipt")
    assert len(receipts) == 1
    x0, y0, x1, y1 = receipts.xyxy[0]
    assert hidden_share_after_padding((x0, y0, x1, y1), box, frame.shape[:2]) >= 0.9  # with the app's padding
    assert (x1 - x0) * (y1 - y0) < 1.3 * (box[2] - box[0]) * (box[3] - box[1])
    assert document_candidates([], frame).class_names == ("id_card", "passport", "receipt", "shipping_label")
