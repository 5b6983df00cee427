"""Text drawn on a screen is found without reading it; a camera picture's texture is not text."""

import cv2
import numpy as np

from app.core.motion import to_flow_gray
from app.core.text_lines import drawn_text_boxes


def screen():
    img = np.full((720, 1280, 3), 245, np.uint8)
    cv2.rectangle(img, (0, 600), (1280, 720), (40, 40, 40), -1)  # a dark bar with light text
    lines = [("Priya Sharma", (120, 120), (20, 20, 20)), ("+44 7700 900123", (120, 300), (20, 20, 20)),
             ("Settings", (120, 670), (230, 230, 230))]
    for text, org, colour in lines:
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 1.2, colour, 2, cv2.LINE_AA)
    return img, lines


def covers(boxes, x, y):
    return bool(np.any((boxes[:, 0] <= x) & (boxes[:, 2] >= x) & (boxes[:, 1] <= y) & (boxes[:, 3] >= y)))


def test_text_on_a_screen_is_found_word_by_word_and_only_in_the_regions_asked():
    img, lines = screen()
    gray, scale = to_flow_gray(img)
    boxes = drawn_text_boxes(gray, scale, np.array([[0, 0, 1280, 720]], np.float32))
    for _, (x, y), _ in lines:  # each line's first letters, dark on light and light on dark
        assert covers(boxes, x + 20, y - 12)
    area = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).sum()
    assert area < 0.08 * 1280 * 720  # tight to the words, not the screen
    top = drawn_text_boxes(gray, scale, np.array([[0, 0, 1280, 200]], np.float32))
    assert len(top) and covers(top, 140, 108) and not covers(top, 140, 288)


def test_a_camera_picture_gives_no_text():
    rng = np.random.default_rng(1)
    photo = cv2.GaussianBlur(rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8), (0, 0), 1.5)
    gray, scale = to_flow_gray(photo)
    boxes = drawn_text_boxes(gray, scale, np.array([[0, 0, 1280, 720]], np.float32))
    area = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).sum() if len(boxes) else 0.0
    assert area < 0.01 * 1280 * 720


def test_the_words_of_a_line_are_one_box_and_columns_and_lines_stay_apart():
    img = np.full((720, 1280, 3), 245, np.uint8)
    cv2.putText(img, "Erik    Thompson", (120, 120), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (20, 20, 20), 3, cv2.LINE_AA)
    cv2.putText(img, "Home", (900, 120), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (20, 20, 20), 3, cv2.LINE_AA)  # another column
    cv2.putText(img, "Anna Berg", (120, 190), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (20, 20, 20), 3, cv2.LINE_AA)  # next line
    gray, scale = to_flow_gray(img)
    boxes = drawn_text_boxes(gray, scale, np.array([[0, 0, 1280, 720]], np.float32))
    name = boxes[(boxes[:, 1] < 110) & (boxes[:, 0] < 400)]
    assert len(name) == 1 and name[0, 2] > 420  # "Erik" and "Thompson": one box across the space
    assert covers(boxes, 950, 105) and not covers(boxes, 800, 105)  # the column gap stays open
    assert not covers(boxes, 200, 145)  # the space between the two lines too


def test_drawn_content_is_everything_but_flat_colour_and_a_camera_picture_is_one_piece():
    from app.core.text_lines import MIN_FLAT_SHARE, DrawnContent

    img = np.full((360, 640, 3), 245, np.uint8)
    img[100:160, 40:100] = np.random.default_rng(4).integers(0, 255, (60, 60, 3), dtype=np.uint8)  # a photo avatar
    drawn = DrawnContent(*to_flow_gray(img))
    boxes, flat, touching, runs_on = drawn.around(np.array([[0, 0, 640, 360]], np.float32), 0.0)
    assert len(boxes) == 1 and covers(boxes, 42, 102) and covers(boxes, 98, 158) and not covers(boxes, 300, 200)
    assert touching.all() and not runs_on.any() and flat >= MIN_FLAT_SHARE  # a screen
    assert not len(drawn.around(np.zeros((0, 4), np.float32), 10.0)[0])  # no regions: nothing to cover
    beside = drawn.around(np.array([[200, 0, 640, 360]], np.float32), 0.0)
    assert not len(beside[0]) and beside[1] == 1.0  # flat: nothing
    cut = drawn.around(np.array([[0, 0, 70, 130]], np.float32), 0.0)  # the avatar runs on past this search
    assert len(cut[0]) == 1 and cut[2].all() and cut[3].all()
    near = drawn.around(np.array([[0, 0, 70, 130]], np.float32), 40.0)  # ... not past this one
    assert near[2].all() and not near[3].any()
    photo = cv2.GaussianBlur(np.random.default_rng(5).integers(0, 255, (360, 640, 3), dtype=np.uint8), (0, 0), 1.0)
    whole, flat, touching, _ = DrawnContent(*to_flow_gray(photo)).around(np.array([[100, 50, 300, 250]], np.float32), 0.0)
    assert covers(whole[touching], 102, 52) and covers(whole[touching], 298, 248)
    assert flat < MIN_FLAT_SHARE  # a camera picture


def test_a_name_run_into_a_round_button_is_still_found():
    # A floating action button drawn over (or just beside) the end of a name joins the name's
    # strokes into one component taller than any text; the name must still be covered.
    for button_x in (430, 470):  # over the last letters, a few pixels after them
        img = np.full((720, 1280, 3), 245, np.uint8)
        cv2.putText(img, "Eleanor Whitfield", (120, 420), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 20, 20), 2, cv2.LINE_AA)
        cv2.circle(img, (button_x, 410), 55, (200, 120, 30), -1)
        cv2.line(img, (button_x - 20, 410), (button_x + 20, 410), (255, 255, 255), 4)
        cv2.line(img, (button_x, 390), (button_x, 430), (255, 255, 255), 4)
        gray, scale = to_flow_gray(img)
        boxes = drawn_text_boxes(gray, scale, np.array([[0, 0, 1280, 720]], np.float32))
        for x in range(125, 370, 15):  # every visible letter of the name, "Whitfie" included
            assert covers(boxes, x, 405), (button_x, x, boxes)
        assert not covers(boxes, 470, 300) and not covers(boxes, 470, 520)  # not the screen above or below


def test_a_round_button_alone_gives_no_text_line():
    img = np.full((720, 1280, 3), 245, np.uint8)
    cv2.circle(img, (640, 360), 55, (200, 120, 30), -1)
    gray, scale = to_flow_gray(img)
    boxes = drawn_text_boxes(gray, scale, np.array([[0, 0, 1280, 720]], np.float32))
    assert len(boxes) == 0


def test_rules_and_card_edges_are_not_content_but_text_and_barcode_bars_are():
    from app.core.text_lines import DrawnContent

    img = np.full((360, 640, 3), 32, np.uint8)  # a dark list of cards wider than the view (zoomed in)
    for y0 in (40, 160):
        img[y0 : y0 + 100] = 50
    cv2.putText(img, "SocialName", (60, 100), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (200, 200, 200), 2, cv2.LINE_AA)
    for x in range(400, 520, 12):  # barcode bars, each apart from the next
        img[175:255, x : x + 3] = 230
    drawn = DrawnContent(*to_flow_gray(img))
    between = drawn.around(np.array([[0, 130, 640, 170]], np.float32), 0.0)  # the gap between the two cards
    long_thin = [b for b in between[0] if b[2] - b[0] > 400 and b[3] - b[1] < 20]
    assert not long_thin  # the cards' edges are not filled
    everything = drawn.around(np.array([[0, 0, 640, 360]], np.float32), 0.0)[0]
    assert covers(everything, 70, 90) and covers(everything, 401, 200) and covers(everything, 497, 200)


def test_a_line_the_region_edge_cuts_is_found_whole():
    # A name scrolling in under the bottom edge was read, if at all, cut off: its part above the
    # unread region was never judged whole, so the whole line is covered.
    img, _ = screen()  # "Priya Sharma": letters from about y 96 to 121
    gray, scale = to_flow_gray(img)
    lower_part = drawn_text_boxes(gray, scale, np.array([[0, 112, 1280, 200]], np.float32))
    assert len(lower_part) == 1
    x0, y0, x1, y1 = lower_part[0]
    assert y0 <= 97 and y1 >= 121 and x0 <= 122 and x1 >= 330
    assert not len(drawn_text_boxes(gray, scale, np.array([[0, 140, 1280, 200]], np.float32)))  # a text height below: nothing
