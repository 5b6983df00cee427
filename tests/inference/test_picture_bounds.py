"""Tests for app/inference/picture_bounds.py: a face in an avatar is grown to the avatar, a face in
a photograph is not."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from app.inference.picture_bounds import grow_faces_to_pictures, picture_around_face


def _texture(h: int, w: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (max(2, h // 6), max(2, w // 6), 3), dtype=np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _list_row(round_avatar: bool, bg=(250, 250, 250)) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A 400x900 list screen: a 122 px avatar at (50, 140) and a name line beside it."""
    frame = np.full((400, 900, 3), bg, np.uint8)
    avatar = (50, 140, 172, 262)
    x0, y0, x1, y1 = avatar
    photo = _texture(y1 - y0, x1 - x0)
    if round_avatar:
        mask = np.zeros(photo.shape[:2], np.uint8)
        cv2.circle(mask, ((x1 - x0) // 2, (y1 - y0) // 2), (x1 - x0) // 2, 1, -1)
        frame[y0:y1, x0:x1][mask > 0] = photo[mask > 0]
    else:
        frame[y0:y1, x0:x1] = photo
    cv2.putText(frame, "Jane Doe", (200, 215), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (30, 30, 30), 3)
    return frame, avatar


@pytest.mark.parametrize("round_avatar", [False, True])
@pytest.mark.parametrize("bg", [(250, 250, 250), (32, 33, 36)])
def test_face_in_an_avatar_grows_to_the_avatar(round_avatar, bg):
    frame, (ax0, ay0, ax1, ay1) = _list_row(round_avatar, bg)
    face = (85, 165, 140, 240)  # the face inside, as a face detector boxes it
    found = picture_around_face(frame, face)
    assert found is not None
    assert found[0] <= ax0 + 3 and found[1] <= ay0 + 3 and found[2] >= ax1 - 3 and found[3] >= ay1 - 3
    assert found[2] - found[0] <= (ax1 - ax0) + 8  # the picture, not the name beside it


def test_face_in_a_photograph_is_left_alone():
    frame = _texture(400, 600, seed=3)
    face = (250, 150, 310, 230)
    assert picture_around_face(frame, face) is None
    out = grow_faces_to_pictures(frame, np.array([face], np.float32))
    np.testing.assert_array_equal(out, np.array([face], np.float32))


def test_a_person_against_a_plain_wall_is_not_an_avatar():
    frame = np.full((480, 640, 3), 200, np.uint8)
    frame[150:480, 230:410] = _texture(330, 180, seed=5)  # head and shoulders running out of the frame
    assert picture_around_face(frame, (280, 170, 360, 260)) is None


def test_a_wide_banner_is_not_an_avatar():
    frame = np.full((400, 900, 3), 250, np.uint8)
    frame[140:262, 50:420] = _texture(122, 370, seed=7)  # a 3:1 picture: a banner, not a portrait
    assert picture_around_face(frame, (85, 165, 140, 240)) is None


def test_grow_keeps_every_box_and_grows_only_avatars():
    frame, avatar = _list_row(True)
    boxes = np.array([[85, 165, 140, 240], [600, 20, 640, 60]], np.float32)  # the avatar face, a face on flat colour with no picture
    out = grow_faces_to_pictures(frame, boxes)
    assert out.shape == (2, 4)
    assert out[0, 2] - out[0, 0] > 100
    np.testing.assert_array_equal(out[1], boxes[1])


def test_an_avatar_cut_by_the_left_edge_of_the_view_still_grows_to_its_visible_part():
    frame, (ax0, ay0, ax1, ay1) = _list_row(True)
    view = np.ascontiguousarray(frame[:, 90:])  # panned: the frame's left edge cuts the avatar
    found = picture_around_face(view, (0, 165, 50, 240))  # the face, cut as the detector sees it
    assert found is not None
    assert found[0] == 0 and found[1] <= ay0 + 3 and found[2] >= ax1 - 90 - 3 and found[3] >= ay1 - 3



def test_a_face_high_in_its_portrait_grows_to_the_whole_picture():
    """A portrait's face sits in its upper part: the picture reaches further below the face than
    above it, up to the largest avatar a face fills a third of."""
    frame, (ax0, ay0, ax1, ay1) = _list_row(False)
    face = (90, 143, 134, 187)  # 44 px, at the top of the 122 px picture (over a third of it)
    found = picture_around_face(frame, face)
    assert found is not None
    assert found[0] <= ax0 + 3 and found[1] <= ay0 + 3 and found[2] >= ax1 - 3 and found[3] >= ay1 - 3


def test_an_avatar_in_a_column_of_avatars_cut_by_the_frame_edge_still_grows_to_its_visible_part():
    """A list panned part-way out of view: the frame's left edge cuts every avatar of the column,
    so the window's left side runs through them; it is not the picture's surroundings."""
    frame = np.full((860, 700, 3), 250, np.uint8)
    for i, y in enumerate((0, 215, 430, 645)):  # rows 215 px apart, avatars 200 px, cut in half
        mask = np.zeros((200, 200), np.uint8)
        cv2.circle(mask, (100, 100), 100, 1, -1)
        photo = _texture(200, 200, seed=10 + i)
        view = frame[y:y + 200, 0:100]
        view[mask[:, 100:] > 0] = photo[:, 100:][mask[:, 100:] > 0]
        frame[y + 65:y + 135, 130:600] = 30  # the name beside it, a dark line
    found = picture_around_face(frame, (0, 470, 50, 590))  # the half face of the third avatar
    assert found is not None
    assert found[0] == 0 and found[1] <= 433 and found[3] >= 627 and found[2] <= 105


def test_a_face_detector_completes_cut_heads_except_those_in_a_picture():
    """A head cut by the frame's border is widened inward to a whole face's shape, unless the
    picture it sits in is seen: then that picture's visible part is the mask."""
    from app.core.box_sanity import BoxSanity
    from app.core.detections import Source
    from app.inference.face_centerface import FaceDetectorBase

    class Heads(FaceDetectorBase):
        settings = type("S", (), {"box_scale": 1.0})()

    frame, (ax0, ay0, ax1, ay1) = _list_row(True)
    view = np.ascontiguousarray(frame[:, 90:])  # the avatar cut: 32 px of it in view
    photo = _texture(400, 300, seed=4)  # and a photograph cut by the right edge
    scene = np.concatenate([view, photo], axis=1)
    w = scene.shape[1]
    boxes = np.array([[0, 165, 40, 240], [w - 30, 100, w, 180]], np.float32)
    out = Heads().head_masks(scene, boxes, np.array([0.9, 0.9], np.float32))
    assert out.xyxy[0, 2] <= ax1 - 90 + 4  # the avatar's visible part, not 0.75 of its height
    assert out.xyxy[0, 3] >= ay1 - 3
    assert out.xyxy[1, 0] <= w - 0.75 * 80 + 1  # the photo's head completed inward
    assert np.all(out.sources == Source.FACE)
    kept = BoxSanity().apply(out, scene.shape[:2])  # the pipeline's sanity step leaves them as they are
    np.testing.assert_array_equal(kept.xyxy, out.xyxy)
