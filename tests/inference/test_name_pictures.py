"""Tests for app/inference/name_pictures.py: the picture just before a name read on a screen is
hidden as an avatar; icons, pictures far from the name and photographs are not."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from app.core.detections import Detections, Source
from app.inference.name_pictures import name_pictures, picture_before_name

CLASSES = ("person_name", "username", "email", "avatar")
NAME = (200, 180, 345, 222)  # "Jane Doe" as the reading boxes it (42 px tall)


def _texture(h: int, w: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (max(2, h // 6), max(2, w // 6), 3), dtype=np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _row(picture: str, bg=(250, 250, 250), left: int = 60, side: int = 122) -> np.ndarray:
    """A list screen: something at ``left`` (a photo, initials on a disc, an outline icon or
    nothing), vertically centred on the name line beside it."""
    frame = np.full((400, 900, 3), bg, np.uint8)
    cy = (NAME[1] + NAME[3]) // 2
    x0, y0 = left, cy - side // 2
    if picture == "photo":
        mask = np.zeros((side, side), np.uint8)
        cv2.circle(mask, (side // 2, side // 2), side // 2, 1, -1)
        photo = _texture(side, side)
        frame[y0 : y0 + side, x0 : x0 + side][mask > 0] = photo[mask > 0]
    elif picture == "initials":
        cv2.circle(frame, (x0 + side // 2, cy), side // 2, (180, 120, 60), -1)
        cv2.putText(frame, "JD", (x0 + side // 4, cy + side // 6), cv2.FONT_HERSHEY_SIMPLEX, side / 80, (255, 255, 255), 3)
    elif picture == "chip":  # one flat colour: a placeholder tile or colour chip
        cv2.rectangle(frame, (x0, y0), (x0 + side, y0 + side), (60, 30, 200), -1)
    elif picture == "icon":  # an outline glyph (a phone handset's ring), mostly background inside
        cv2.circle(frame, (x0 + side // 2, cy), side // 2, (90, 90, 90), 3)
    cv2.putText(frame, "Jane Doe", (NAME[0], NAME[3] - 8), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (30, 30, 30), 3)
    return frame


@pytest.mark.parametrize("picture", ["photo", "initials"])
@pytest.mark.parametrize("bg", [(250, 250, 250), (32, 33, 36)])
def test_the_picture_before_a_name_is_found_whole(picture, bg):
    side = 122
    found = picture_before_name(_row(picture, bg, side=side), NAME)
    assert found is not None
    cy = (NAME[1] + NAME[3]) / 2
    assert abs(found[0] - 60) <= 3 and abs(found[2] - (60 + side)) <= 3
    assert abs(found[1] - (cy - side / 2)) <= 3 and abs(found[3] - (cy + side / 2)) <= 3


@pytest.mark.parametrize("case", ["icon", "chip", "nothing", "far", "tiny", "line_high", "photograph"])
def test_no_picture_where_there_is_no_avatar_before_the_name(case):
    if case == "photograph":
        frame = _texture(400, 900, seed=5)
    elif case == "far":  # a picture in another column, far from the name
        frame = _row("photo", left=0, side=60)
    elif case == "tiny":  # a bullet or status dot, smaller than the letters
        frame = _row("initials", left=170, side=20)
    elif case == "line_high":  # a mark no taller than the name's line (an emoji, a label such as "cc:")
        frame = _row("initials", left=145, side=46)
    else:
        frame = _row(case)
    assert picture_before_name(frame, NAME) is None


def test_name_pictures_adds_one_avatar_per_picture_for_names_and_user_names_only():
    frame = _row("photo")
    found = Detections.from_lists(CLASSES, Source.OCR, [np.array(NAME, np.float32)] * 3, [0.9, 0.8, 0.7],
                                  class_ids=[0, 1, 2])
    out = name_pictures(found, frame, CLASSES)
    assert out.labels == ["avatar"] and out.sources.tolist() == [Source.OCR]
    emails_only = found.take(np.array([2]))
    assert len(name_pictures(emails_only, frame, CLASSES)) == 0
