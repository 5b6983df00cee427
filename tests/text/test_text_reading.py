"""The shipped text-PII classifier on screens laid out as OCR reads them: a name in a list row is
hidden, a headline is not; an ID page keeps its labels and loses its values; an address block is one
region; a detector text box on a headline is dropped. These run the real model file
(``models/text-pii.npz``) and the real name gazetteer, so a worse model fails them."""

from dataclasses import replace

import numpy as np
import pytest

from app.core.detections import Detections, Source, concat
from app.core.policy import TEXT_PII
from app.text.classifier import TextPiiClassifier
from app.text.lines import TextLine
from app.text.model import load_model
from app.text.screen import read_screen, refine

FRAME = np.full((1400, 1200, 3), 255, np.uint8)  # blank: span boxes keep the line height


def line(text, x0, y0, h=30.0, char_w=None):
    w = (char_w or 0.55 * h) * len(text)
    quad = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float32)
    return TextLine(text, quad, 0.98)


@pytest.fixture(scope="module")
def classifier():
    return TextPiiClassifier(load_model())


def covered(regions, ln, share=0.6):
    """True when the boxes in ``regions`` cover at least ``share`` of line ``ln``'s width."""
    x0, y0, x1, y1 = ln.quad[:, 0].min(), ln.quad[:, 1].min(), ln.quad[:, 0].max(), ln.quad[:, 1].max()
    mask = np.zeros(int(x1 - x0) + 1, bool)
    for r in regions:
        b = r.xyxy
        if min(b[3], y1) - max(b[1], y0) > 0.5 * (y1 - y0):
            mask[max(0, int(b[0] - x0)) : max(0, int(b[2] - x0))] = True
    return mask.mean() >= share


def contacts_screen():
    lines = [line("Contacts", 40, 30, 44), line("Search contacts", 40, 100, 26)]
    names = ["Liam Becker", "Priya Sharma", "Sofia Rossi", "Lucía Romero", "Jonas Weber", "Mai Tran"]
    rows = []
    for i, name in enumerate(names):
        y = 180 + 120 * i
        rows.append(line(name, 160, y, 34))
        lines += [rows[-1], line(str(["Mobile", "Work", "Home", "Mobile", "Office", "Mobile"][i]), 160, y + 44, 24)]
    return lines, rows


def news_screen():
    headline = line("Scientists Discover Rare Species Deep In The Amazon Rainforest", 40, 40, 48, 22)
    body = [line("The team spent three months mapping the river basin before the find.", 40, 120, 24),
            line("Read more", 40, 160, 22), line("Share", 200, 160, 22)]
    return [headline] + body, headline


def test_a_name_in_a_list_row_is_hidden(classifier):
    lines, rows = contacts_screen()
    regions = read_screen(lines, FRAME, classifier).regions
    hidden = [r for r in rows if covered(regions, r)]
    assert len(hidden) >= 5, [r.text for r in rows if r not in hidden]
    assert not covered(regions, lines[0]) and not covered(regions, lines[1])  # "Contacts", "Search contacts"


def test_a_headline_is_not_hidden(classifier):
    lines, headline = news_screen()
    reading = read_screen(lines, FRAME, classifier)
    assert not any(covered(reading.regions, ln, 0.2) for ln in lines)
    assert reading.readings[0].p_private < 0.5


ID_LABELS = ["IDENTITY CARD", "Surname / Nom", "Given names / Prénoms", "Date of birth", "Nationality", "Document no."]
ID_VALUES = ["MUSTERMANN", "Erika", "12.08.1964", "DEUTSCH", "T22000129"]


def id_page(with_mrz=True):
    lines = [line(ID_LABELS[0], 300, 30, 36)]
    labels, values = [lines[0]], []
    for i, (lab, val) in enumerate(zip(ID_LABELS[1:], ID_VALUES)):
        y = 100 + 70 * i
        labels.append(line(lab, 300, y, 20))
        values.append(line(val, 300, y + 24, 32))
    lines += labels[1:] + values
    if with_mrz:
        mrz = [line("IDD<<T220001293<<<<<<<<<<<<<<<", 60, 480, 34, 24), line("6408125<2010315D<<<<<<<<<<<<<4", 60, 522, 34, 24),
               line("MUSTERMANN<<ERIKA<<<<<<<<<<<<<", 60, 564, 34, 24)]
        lines += mrz
        values += mrz
    return lines, labels, values


def test_an_id_page_keeps_its_labels_and_loses_its_values(classifier):
    lines, labels, values = id_page()
    regions = read_screen(lines, FRAME, classifier).regions
    assert all(covered(regions, v) for v in values), [v.text for v in values if not covered(regions, v)]
    assert not any(covered(regions, lab, 0.3) for lab in labels), [l.text for l in labels if covered(regions, l, 0.3)]


def detections(boxes, names, source=Source.DETECTOR, classes=TEXT_PII + ("id_card", "passport"), scores=None):
    scores = np.full(len(boxes), 0.7, np.float32) if scores is None else np.asarray(scores, np.float32)
    return Detections(np.array(boxes, np.float32).reshape(-1, 4), scores,
                      np.array([classes.index(n) for n in names], np.int32), classes,
                      sources=np.full(len(boxes), source, np.int8))  # fmt: skip


def test_a_detector_boxed_id_card_without_mrz_is_read_field_by_field(classifier):
    lines, labels, values = id_page(with_mrz=False)
    reading = read_screen(lines, FRAME, classifier)
    fused = refine(concat([detections([[250, 10, 900, 500]], ["id_card"]), reading.detections()]), reading)
    added = [r for r in _regions(fused) if r is not None]
    assert all(covered(added, v) for v in values)
    assert not any(covered(added, lab, 0.3) for lab in labels)


@pytest.mark.parametrize("texts, dropped", [
    (["Vault", "All items", "Favourites", "Settings", "Lock now"], True),  # a window read clearly: no labels, no MRZ
    (["Vault", "All items", "Favourites"], False),  # too little read to judge: the box stays
])
def test_a_document_box_on_ordinary_ui_text_does_not_blank_it(classifier, texts, dropped):
    lines = [line(t, 40, 40 + 50 * i, 26) for i, t in enumerate(texts)]
    reading = read_screen(lines, FRAME, classifier)
    fused = refine(detections([[0, 0, 600, 400]], ["passport"]), reading)
    assert len(fused) == (0 if dropped else 1)  # no fields added either way


def test_a_detector_name_box_over_a_message_preview_shrinks_to_the_name(classifier):
    lines = [line("Inbox", 40, 20, 40), line("Liam Becker", 120, 100, 34),
             line("Thanks, the invoice for the new office chairs is attached", 120, 136, 28)]
    reading = read_screen(lines, FRAME, classifier)
    fused = refine(detections([[116, 97, 1016, 166]], ["person_name"]), reading)  # one box over name and preview
    boxes = fused.take(fused.sources == Source.DETECTOR).xyxy
    assert len(boxes) >= 1 and all(b[3] <= 136 + 2 for b in boxes), boxes  # on the name line only
    from app.text.regions import Region

    assert covered([Region(b, "person_name", 0.7, "") for b in boxes], lines[1])


def test_a_detector_text_box_on_a_headline_is_dropped_and_one_on_a_name_kept(classifier):
    lines, headline = news_screen()
    contacts, rows = contacts_screen()
    shifted = [TextLine(l.text, l.quad + np.float32([0, 400]), l.score) for l in contacts]
    reading = read_screen(lines + shifted, FRAME, classifier)
    h = headline.quad
    name = shifted[2].quad  # "Liam Becker"
    boxes = [[h[:, 0].min(), h[:, 1].min(), h[:, 0].max(), h[:, 1].max()],
             [name[:, 0].min(), name[:, 1].min(), name[:, 0].max(), name[:, 1].max()]]
    fused = refine(detections(boxes, ["person_name", "person_name"]), reading)
    kept = fused.take(fused.sources == Source.DETECTOR)
    assert len(kept) == 1 and kept.xyxy[0][1] > 400


def test_a_postal_address_block_is_one_region(classifier):
    lines = [line("Shipping address", 60, 40, 24), line("Erika Mustermann", 60, 80, 26),
             line("Heidestraße 17", 60, 114, 26), line("51147 Köln", 60, 148, 26), line("Germany", 60, 182, 26)]
    regions = read_screen(lines, FRAME, classifier).regions
    blocks = [r for r in regions if r.reason.startswith("address block")]
    assert blocks, [(r.class_name, r.reason) for r in regions]
    b = blocks[0].xyxy
    assert b[1] <= 114 + 1 and b[3] >= 148 + 26 - 1  # street and city lines in one box


def _regions(fused):
    from app.text.regions import Region

    ocr = fused.take(fused.sources == Source.OCR)
    return [Region(b, "id_number", float(s), "") for b, s in zip(ocr.xyxy, ocr.scores)]


def test_ordinary_words_on_tiles_and_in_labelled_fields_are_not_hidden(classifier):
    """Words of ordinary language standing alone (a category grid, sign-like words) or after a
    label that is not a person's ("Title:", "Category:") read as not private, while the names of a
    contact list next to them stay hidden."""
    words = ["Groceries", "Bakery", "Pharmacy", "Garden", "Library", "Hardware", "EXIT", "PARKING"]
    tiles = [line(w, 80 + 520 * (i % 2), 160 + 220 * (i // 2), 60) for i, w in enumerate(words)]
    fields = [line("Title: Weekend Plans", 40, 1050, 40), line("Category: Kitchen", 40, 1120, 40)]
    lines = [line("Categories", 40, 30, 44)] + tiles + fields
    regions = read_screen(lines, FRAME, classifier).regions
    assert not [t.text for t in tiles + fields if covered(regions, t, 0.3)]
    contacts, rows = contacts_screen()
    regions = read_screen(contacts, FRAME, classifier).regions
    assert sum(covered(regions, r) for r in rows) >= 5


def test_a_reading_judges_the_detector_boxes_of_a_frame_the_picture_has_scrolled_in(classifier):
    from app.text.screen import judge_by_reading

    lines, headline = news_screen()
    contacts, rows = contacts_screen()
    shifted = [TextLine(l.text, l.quad + np.float32([0, 400]), l.score) for l in contacts]
    reading = read_screen(lines + shifted, FRAME, classifier)
    scroll = np.float32([0, -150])  # on the later frame the page has moved 150 px up
    h, name = headline.quad + scroll, shifted[2].quad + scroll
    boxes = [[h[:, 0].min(), h[:, 1].min(), h[:, 0].max(), h[:, 1].max()],
             [name[:, 0].min(), name[:, 1].min(), name[:, 0].max(), name[:, 1].max()]]
    later = detections(boxes, ["person_name", "person_name"])
    judged = judge_by_reading(later, reading.readings, reading.weak, -scroll)
    assert len(judged) == 1 and abs(judged.xyxy[0][1] - boxes[1][1]) < 8  # the name stays, where it is now
    # A box over text the reading did not see (scrolled in since) stands.
    new = detections([[40, 1300, 400, 1340]], ["person_name"])
    assert len(judge_by_reading(new, reading.readings, reading.weak, -scroll)) == 1
    # A box the video's tracker held there is judged only when its source is asked for.
    held = replace(later, sources=np.full(len(later), int(Source.TRACKER)))
    assert len(judge_by_reading(held, reading.readings, reading.weak, -scroll)) == 2
    assert len(judge_by_reading(held, reading.readings, reading.weak, -scroll, (Source.TRACKER,))) == 1


def _keys(letters, y, x0=20, pitch=106, h=40):
    """One row of on-screen keyboard keys, each letter read as its own line."""
    return [line(ch, x0 + pitch * i, y, h) for i, ch in enumerate(letters)]


def test_a_detector_code_box_over_a_keyboard_row_goes_but_a_code_typed_into_boxes_stays(classifier):
    keyboard = _keys("qwertyuiop", 900) + _keys("asdfghjkl", 1030, x0=70) + _keys("zxcvbnm", 1160, x0=170)
    otp = [line(d, 200 + 120 * i, 400, 60) for i, d in enumerate("482917")]
    reading = read_screen(keyboard + otp, FRAME, classifier)
    boxes = [[10, 890, 1070, 950], [60, 1020, 1010, 1080], [180, 390, 900, 470]]
    fused = refine(detections(boxes, ["verification_code"] * 3), reading)
    kept = fused.take(fused.sources == Source.DETECTOR)
    assert len(kept) >= 1 and all(b[1] >= 380 and b[3] <= 480 for b in kept.xyxy)  # only the typed code


def test_keyboard_rows_need_single_letters_in_layout_order(classifier):
    from app.text.regions import keyboard_row

    def read(lines):
        return read_screen(lines, FRAME, classifier).readings

    assert keyboard_row(read(_keys("azertyuiop", 900)))  # AZERTY
    assert keyboard_row(read(_keys("ghjk", 900)))
    assert not keyboard_row(read(_keys("qwe", 900)))  # too few keys to tell
    assert keyboard_row(read(_keys("qwrtuop", 900)))  # keys the OCR missed (e, y, i)
    assert keyboard_row(read(_keys("zxcbnmx", 900)))  # ... and backspace read as "X"
    assert not keyboard_row(read(_keys("tqyrw", 900)))  # not in keyboard order
    assert not keyboard_row(read(_keys("crane", 900)))  # a word in letter tiles
    assert not keyboard_row(read(_keys("1234", 900)))  # digits: a code typed one digit a box
    assert not keyboard_row(read([line("qwertyuiop", 20, 900, 40)]))  # typed text, one line


class _FixedModel:
    """Stands in for the shipped model: each token's P(private as a name) is given by the test."""

    def __init__(self, model, p_name):
        self.classes, self.dim, self.meta = model.classes, model.dim, model.meta
        self.feature_version, self._p = model.feature_version, p_name

    def probabilities(self, feats):
        out = np.zeros((len(feats), len(self.classes)), np.float32)
        p = np.array(self._p[: len(feats)], np.float32)
        out[:, 0], out[:, self.classes.index("person_name")] = 1.0 - p, p
        return out


@pytest.mark.parametrize("text, p_name, hidden", [
    ("Carter Blake", [0.04, 0.77], "Carter Blake"),  # a first name that is also a surname and a word
    ("Alan Young", [0.85, 0.03], "Alan Young"),  # a surname that is an ordinary word
    ("Home Alice", [0.0, 0.79], "Alice"),  # a UI word before a name stays
    ("Clerk Craig", [0.0, 0.82], "Craig"),  # a word that is no popular name stays
    ("Meeting with Carter Blake", [0.0, 0.0, 0.04, 0.77], "Blake"),  # running text: not a name line
])
def test_a_line_that_is_only_a_name_is_hidden_whole_when_part_of_it_is_read_as_one(classifier, text, p_name, hidden):
    fixed = TextPiiClassifier(_FixedModel(classifier.model, p_name), classifier.names, threshold=0.7)
    spans = fixed.read([line(text, 40, 40)])[0].spans
    assert [text[s.start : s.end] for s in spans] == [hidden]


def test_a_reading_placed_on_another_frame_moves_its_lines_and_leaves_out_those_out_of_view_or_read_again():
    from app.text.classifier import LineReading
    from app.text.layout import LineContext
    from app.text.screen import ScreenReading

    def reading(text, y):
        quad = np.array([[10, y], [90, y], [90, y + 10], [10, y + 10]], np.float32)
        line = TextLine(text, quad, 0.9, ((text, quad.copy()),))
        return LineReading(line, (), ((0, len(text)),), np.array([0.9], np.float32), ("none",), LineContext())

    r = ScreenReading([reading("top", 5), reading("middle", 50), reading("bottom", 90)], weak=0.3)
    placed = r.placed(np.array([0, -20], np.float32), (100, 200), read_again=np.array([0, 60, 200, 100], np.float32))
    assert [x.line.text for x in placed.readings] == ["middle"]  # "top" scrolled out, "bottom" read again
    np.testing.assert_allclose(placed.readings[0].line.quad[:, 1], [30, 30, 40, 40])
    np.testing.assert_allclose(placed.readings[0].line.words[0][1][:, 1], [30, 30, 40, 40])
    assert placed.weak == 0.3 and r.readings[1].line.quad[0, 1] == 50  # the original is untouched
    # the ink, measured on the frame read by its span-box function, travels with the line
    inked = replace(r, span_box=lambda line, s, e: np.array([12, line.quad[0, 1] + 2, 80, line.quad[0, 1] + 8], np.float32))
    moved = inked.placed(np.array([5, -20], np.float32), (100, 200)).placed(np.array([0, -5], np.float32), (100, 200))
    middle = next(x for x in moved.readings if x.line.text == "middle")
    np.testing.assert_allclose(middle.line.ink, [17, 27, 85, 33])
    np.testing.assert_allclose(moved.span_box(middle.line, 0, 6)[[1, 3]], [27, 33])


@pytest.mark.parametrize("p_name, det_class, det_score, hidden", [
    ([0.04, 0.65], "person_name", 0.2, True),  # both lean to a name, neither alone is sure: hidden
    ([0.04, 0.65], "phone_number", 0.2, False),  # they disagree on what it is: the detector's score stands
    ([0.04, 0.10], "person_name", 0.2, False),  # the reading finds no name there: the box goes
])
def test_a_weak_detector_text_box_that_the_reading_weakly_agrees_with_is_hidden(classifier, p_name, det_class,
                                                                                 det_score, hidden):  # fmt: skip
    fixed = TextPiiClassifier(_FixedModel(classifier.model, p_name), classifier.names, threshold=0.7)
    ln = line("Carter Blake", 40, 40)
    reading = read_screen([ln], FRAME, fixed)
    assert not reading.regions  # the reading alone (0.65 < 0.7) hides nothing
    q = ln.quad
    fused = refine(detections([[q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()]], [det_class],
                              scores=[det_score]), reading)  # fmt: skip
    from app.core.policy import Policy

    kept = Policy(conf=0.25).select(fused)
    assert (len(kept) == 1) is hidden, (fused.labels, fused.scores)
