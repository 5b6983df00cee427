"""Span boxes cover only the PII span of a recognised line."""

import numpy as np
import pytest

from app.text.lines import TextLine, apportion, span_xyxy


def quad(x0, y0, x1, y1):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def test_apportion_covers_range_in_order():
    edges = apportion("ab c", 0, 100)
    assert edges[0, 0] == 0 and edges[-1, 1] == pytest.approx(100)
    assert np.all(np.diff(edges[:, 0]) > 0)


def test_span_box_uses_word_boxes_and_stays_on_the_span():
    text = "Mail: jane@x.io now"
    line = TextLine(text, quad(0, 10, 190, 30), 0.99,
                    (("Mail:", quad(0, 10, 50, 30)), ("jane@x.io", quad(60, 10, 150, 30)), ("now", quad(160, 10, 190, 30))))
    box = span_xyxy(line, text.index("jane"), text.index("jane") + len("jane@x.io"))
    assert 55 <= box[0] <= 60 and 150 <= box[2] <= 156  # the word, plus a small margin
    assert box[1] == 10 and box[3] == 30


def test_span_margin_stops_at_the_neighbouring_words():
    text = "mail: jane.doe@example.org now"
    words = (("mail:", quad(13, 18, 65, 46)), ("jane.doe@example.org", quad(65, 18, 323, 46)), ("now", quad(325, 18, 360, 46)))
    line = TextLine(text, quad(3, 18, 360, 46), 0.99, words)
    start = text.index("jane")
    box = span_xyxy(line, start, start + len("jane.doe@example.org"))
    assert box[0] == pytest.approx(65) and box[2] == pytest.approx(325)  # not into "mail:" or "now"
    first = span_xyxy(line, 0, len("mail:"))
    assert first[0] < 13 and first[2] == pytest.approx(65)  # the line's edge side keeps its margin


def test_span_box_without_word_boxes_apportions_line():
    text = "aaaa bbbb"
    line = TextLine(text, quad(0, 0, 90, 10))
    box = span_xyxy(line, 5, 9, margin=0)
    assert box[0] > 45 and box[2] == pytest.approx(90)


def test_a_tilted_line_boxes_the_span_on_its_slice_of_the_line():
    # 22° up-slope line, 100 px along, "abcdeghkno" of equal widths: "egh" is 40–70 % along it.
    q = np.array([[0, 0], [100, 40], [96, 50], [-4, 10]], np.float32)
    box = span_xyxy(TextLine("abcdeghkno", q), 4, 7, margin=0)
    top, bottom = q[0] + 0.4 * (q[1] - q[0]), q[3] + 0.7 * (q[2] - q[3])
    assert np.allclose(box, [q[3, 0] + 0.4 * (q[2, 0] - q[3, 0]), top[1], q[0, 0] + 0.7 * (q[1, 0] - q[0, 0]), bottom[1]], atol=1e-4)
    line_box = np.array([-4, 0, 100, 50], np.float32)
    area = lambda b: (b[2] - b[0]) * (b[3] - b[1])  # noqa: E731
    assert area(box) < 0.4 * area(line_box)
    grown = span_xyxy(TextLine("abcdeghkno", q), 4, 7)  # the default margin stays inside the line
    assert grown[0] < box[0] and grown[2] > box[2] and grown[0] >= -4 and grown[2] <= 100


def test_steep_and_upside_down_lines_fall_back_to_whole_line():
    steep = np.array([[0, 0], [40, 100], [30, 104], [-10, 4]], np.float32)  # 68°
    assert span_xyxy(TextLine("abcdef", steep), 2, 3).tolist() == [-10, 0, 40, 104]
    flipped = np.array([[100, 50], [0, 10], [4, 0], [104, 40]], np.float32)  # read right to left
    assert span_xyxy(TextLine("abcdef", flipped), 2, 3).tolist() == [0, 0, 104, 50]


def test_empty_span_is_an_error():
    with pytest.raises(ValueError):
        span_xyxy(TextLine("abc", quad(0, 0, 30, 10)), 2, 2)


def test_fit_rows_to_ink_shrinks_to_text_rows_on_flat_background():
    from app.text.lines import fit_rows_to_ink

    img = np.full((40, 100, 3), 240, np.uint8)
    img[15:25, 10:90] = (30, 30, 200)  # "text" rows 15..24 in red ink
    out = fit_rows_to_ink(img, np.array([5, 5, 95, 35], np.float32))
    assert out[0] == 5 and out[2] == 95  # horizontal extent untouched
    assert out[1] == pytest.approx(15 - 2) and out[3] == pytest.approx(25 + 2)  # 20 % of 10 rows


def test_fit_rows_to_ink_leaves_textured_or_blank_boxes_alone():
    from app.text.lines import fit_rows_to_ink

    box = np.array([0, 0, 50, 30], np.float32)
    noise = np.random.default_rng(0).integers(0, 255, (30, 50), dtype=np.uint8)
    assert fit_rows_to_ink(noise, box).tolist() == box.tolist()
    assert fit_rows_to_ink(np.full((30, 50), 200, np.uint8), box).tolist() == box.tolist()
    assert fit_rows_to_ink(noise, np.array([60, 60, 80, 80], np.float32)).tolist() == [60, 60, 80, 80]  # outside
