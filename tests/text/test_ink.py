"""Span boxes trimmed to their ink: tighter masks, and no glyph pixel left visible."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from app.core.geometry import pad_xyxy
from app.core.redact import RedactionSettings, integer_boxes
from app.text.ink import ink_xyxy, line_ink_xyxy
from app.text.lines import TextLine, is_vertical, span_xyxy
from app.text.screen import span_box_function


def flat(h=40, w=120, grey=245):
    return np.full((h, w, 3), grey, np.uint8)


def test_flat_background_is_trimmed_to_the_ink_plus_margin():
    img = flat()
    img[15:25, 30:70] = 20
    assert ink_xyxy(img, np.array([10, 2, 100, 38], np.float32)).tolist() == [29, 14, 71, 26]


def test_gradient_background_is_trimmed_too():
    img = (np.linspace(200, 240, 40)[:, None, None] + np.zeros((40, 120, 3))).astype(np.uint8)
    img[15:25, 30:70] = 20
    assert ink_xyxy(img, np.array([10, 2, 100, 38], np.float32)).tolist() == [29, 14, 71, 26]


def test_underline_and_border_stop_the_trim():
    img = flat()
    img[15:25, 30:70] = 20
    img[30, :] = 120  # an underline (or a row border) across the whole box: never trimmed away
    assert ink_xyxy(img, np.array([10, 2, 100, 38], np.float32))[3] >= 31
    tinted = flat()
    tinted[:8] = 200  # the box starts on a tinted strip above the text: not its background, kept
    tinted[15:25, 30:70] = 20
    assert ink_xyxy(tinted, np.array([10, 2, 100, 38], np.float32))[1] == 2


def test_noise_and_blank_boxes_are_left_alone():
    box = np.array([10, 2, 100, 38], np.float32)
    noise = np.random.default_rng(0).integers(0, 255, (40, 120, 3), dtype=np.uint8)
    assert ink_xyxy(noise, box).tolist() == box.tolist()
    assert ink_xyxy(flat(), box).tolist() == box.tolist()
    assert ink_xyxy(flat(), np.array([10, 10, 12, 30], np.float32)).tolist() == [10, 10, 12, 30]  # too small


def test_an_edge_through_a_glyph_moves_out_to_where_the_ink_ends():
    img = flat()
    img[15:25, 30:64] = 20
    out = ink_xyxy(img, np.array([10, 2, 60, 38], np.float32))  # the right edge cuts the "word"
    assert out[2] == 65
    far = flat(w=200)
    far[15:25, 30:190] = 20  # ink runs on past the reach: the edge stays where it was
    assert ink_xyxy(far, np.array([10, 2, 60, 38], np.float32))[2] == 60


@pytest.mark.parametrize("at", [(0, 0), (80, 0), (0, 22), (80, 22)], ids=["top-left", "top-right", "bottom-left", "bottom-right"])
def test_boxes_at_the_frame_edges_and_grey_frames(at):
    x, y = at
    img = flat()
    img[y + 5 : y + 15, x + 10 : x + 30] = 20  # a block of "ink" near one corner of the frame
    box = np.array([x, y, x + 40, y + 18], np.float32)
    expected = [x + 9, y + 4, x + 31, y + 16]
    assert ink_xyxy(img, box).tolist() == expected
    assert ink_xyxy(img[..., 0], box).tolist() == expected
    edge = flat()
    edge[y + 5 : y + 15, : x + 30] = 20  # ink running into the frame's border: the edge stays
    assert ink_xyxy(edge, np.array([max(0, x - 2), y, x + 40, y + 18], np.float32))[0] == max(0, x - 2)


def vertical_page(columns=8, pitch=20, h=400):
    """A page photographed sideways: ``columns`` lines of "ink" running down a flat frame."""
    img = flat(h=h, w=columns * pitch + 20)
    for k in range(columns):
        img[20 : h - 20, 14 + k * pitch : 24 + k * pitch] = 30
    img[30 : h - 20 : 40, 10:110] = 90  # glyph strokes bridging the gaps of the first columns now and then
    return img


def test_a_vertical_line_is_fitted_across_its_width_not_grown_into_its_neighbours():
    img = vertical_page()
    loose = np.array([51, 10, 67, 390], np.float32)  # the third column's line box, loose by a few px
    assert line_ink_xyxy(img, loose, vertical=True).tolist() == [51, 19, 67, 381]  # ends trimmed along it
    narrow = np.array([48, 10, 75, 390], np.float32)  # a box whose right edge cuts the next line
    fitted = line_ink_xyxy(img, narrow, vertical=True)
    assert fitted[0] >= 46 and fitted[2] <= 77
    # read as a horizontal line, the "text height" is 380 px and the edges reach over whole columns
    across = ink_xyxy(img, narrow)
    assert across[2] - across[0] > 3 * (fitted[2] - fitted[0])
    assert line_ink_xyxy(img, narrow).tolist() == across.tolist()


def test_a_span_of_a_vertical_line_is_boxed_on_that_line_only():
    img = vertical_page()
    line = TextLine("Sed a faucibus tortor, suspendisse velit", np.array([[51, 10], [67, 10], [67, 390], [51, 390]], np.float32))
    assert is_vertical(line) and not is_vertical(TextLine("17", np.array([[0, 0], [10, 0], [10, 30], [0, 30]], np.float32)))
    out = span_box_function(img)(line, 4, 14)
    assert out[0] >= 51 and out[2] <= 67 and out[1] <= 20 and out[3] >= 380


# Rendered text: every glyph pixel (any coverage) must stay under the padded mask.

# from fonts-dejavu-core and fonts-liberation2 (installed by ``make test``)
FONTS = ("DejaVuSans.ttf", "DejaVuSerif.ttf", "LiberationSans-Italic.ttf", "LiberationSerif-Italic.ttf", "DejaVuSans-Bold.ttf")
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation2"),
             Path("/usr/share/fonts/truetype/liberation"), Path("/usr/share/fonts/TTF"))  # fmt: skip
CASES = [  # text, index of the private word, font, size, background BGR, ink BGR, underline, JPEG
    ("From Jürgen Åström today", 1, 0, 18, (250, 250, 250), (30, 30, 30), False, False),
    ("Email gyq_jqp@example.com now", 1, 1, 22, (250, 250, 250), (40, 40, 40), False, True),
    ("Sent by Zoë Pérez-López", 2, 2, 28, (36, 32, 30), (235, 235, 235), False, False),
    ("Contact Björn Quigley", 1, 3, 15, (215, 240, 255), (20, 20, 20), True, False),
    ("User @jay.pig_99 here", 1, 4, 36, (250, 250, 250), (200, 90, 20), True, True),
    ("Note: Ólafur Çağla jQuery", 2, 0, 13, (245, 240, 240), (60, 60, 60), False, False),
]


def _font(name):
    for folder in FONT_DIRS:
        if (folder / name).is_file():
            return folder / name
    pytest.skip(f"font {name} not installed (Debian: fonts-dejavu-core fonts-liberation2)")


def render_line(text, word_index, font_name, size, bg, ink_bgr, underline, jpeg):
    """A frame with one line of text, a loose OCR-like TextLine for it (line box about twice the
    text height, word boxes a little off) and the glyph coverage (H, W) bool of the chosen word."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(_font(font_name)), size)
    h, w = size * 4, int(font.getlength(text)) + 80
    canvas = np.tile(np.array(bg, np.float32), (h, w, 1))
    x, top = 40, int(size * 1.5)
    words, word_quads, private = text.split(" "), [], None
    for i, word in enumerate(words):
        layer = Image.new("L", (w, h), 0)
        draw = ImageDraw.Draw(layer)
        draw.text((x, top), word, font=font, fill=255)
        adv = font.getlength(word)
        if underline and i == word_index:
            uy = top + font.getmetrics()[0] + max(1, size // 12)
            draw.line([(x, uy), (x + adv, uy)], fill=255, width=max(1, size // 14))
        alpha = np.asarray(layer, np.float32)[..., None] / 255
        canvas = canvas * (1 - alpha) + np.array(ink_bgr, np.float32) * alpha
        if i == word_index:
            private = alpha[..., 0] > 0
        # OCR word boxes are rough: a few pixels short or long at either end
        word_quads.append((word, np.array([[x + 2, top], [x + adv - 3, top], [x + adv - 3, top + size], [x + 2, top + size]], np.float32)))
        x += int(adv + font.getlength(" "))
    frame = canvas.round().astype(np.uint8)
    if jpeg:
        frame = cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])[1], cv2.IMREAD_COLOR)
    y0, y1 = top - size // 2, top + int(size * 1.5)  # a loose line box, as the OCR's detector gives
    quad = np.array([[36, y0], [x, y0], [x, y1], [36, y1]], np.float32)
    start = sum(len(wd) + 1 for wd in words[:word_index])
    return frame, TextLine(text, quad, 0.99, tuple(word_quads)), (start, start + len(words[word_index])), private


def _mask(box, hw):
    s = RedactionSettings()
    x0, y0, x1, y1 = integer_boxes(pad_xyxy(np.asarray(box, np.float32)[None], s.padding, s.min_padding_px, hw), hw)[0]
    mask = np.zeros(hw, bool)
    mask[y0:y1, x0:x1] = True
    return mask


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rendered_words_stay_fully_hidden_and_the_mask_shrinks(case):
    text, word_index, font, size, bg, ink_bgr, underline, jpeg = case
    frame, line, (start, end), glyphs = render_line(text, word_index, FONTS[font], size, bg, ink_bgr, underline, jpeg)
    loose = span_xyxy(line, start, end)
    tight = ink_xyxy(frame, loose)
    mask = _mask(tight, frame.shape[:2])
    assert not (glyphs & ~mask).any(), f"{int((glyphs & ~mask).sum())} glyph pixels of {text.split()[word_index]!r} visible"
    assert mask.sum() < 0.8 * _mask(loose, frame.shape[:2]).sum()


def test_read_screen_boxes_a_name_by_its_ink():
    from app.text.recognisers import find_pii  # noqa: F401 - the rule path needs no model file
    from app.text.screen import read_screen

    frame, line, (start, end), glyphs = render_line("Email gyq_jqp@example.com now", 1, FONTS[0], 22,
                                                    (250, 250, 250), (40, 40, 40), False, False)  # fmt: skip
    regions = read_screen([line], frame, None).regions
    assert [r.class_name for r in regions] == ["email"]
    ys, xs = np.nonzero(glyphs)
    x0, y0, x1, y1 = regions[0].xyxy
    assert x0 <= xs.min() and y0 <= ys.min() and x1 >= xs.max() + 1 and y1 >= ys.max() + 1
    assert y1 - y0 <= 1.2 * (ys.max() + 1 - ys.min())


def test_every_mask_on_a_line_has_the_line_height_so_no_word_outline_shows():
    from app.text.screen import span_box_function

    frame, line, (start, end), glyphs = render_line("hello ocean gypsy", 1, FONTS[0], 22,
                                                    (250, 250, 250), (40, 40, 40), False, False)  # fmt: skip
    _, _, _, all_glyphs = render_line("hello ocean gypsy", 0, FONTS[0], 22, (250, 250, 250), (40, 40, 40), False, False)
    _, _, _, low_glyphs = render_line("hello ocean gypsy", 2, FONTS[0], 22, (250, 250, 250), (40, 40, 40), False, False)
    box = span_box_function(frame)
    ocean = box(line, start, end)  # x-height letters only
    hello, gypsy = box(line, 0, 5), box(line, end + 1, len(line.text))
    assert ocean[1] == hello[1] == gypsy[1] and ocean[3] == hello[3] == gypsy[3]
    top, bottom = np.nonzero(all_glyphs)[0].min(), np.nonzero(low_glyphs)[0].max() + 1
    assert ocean[1] <= top and ocean[3] >= bottom  # from the ascenders of "hello" to the descenders of "gypsy"
    assert ocean[3] - ocean[1] <= 1.3 * (bottom - top)
