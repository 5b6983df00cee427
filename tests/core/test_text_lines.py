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
