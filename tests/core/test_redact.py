import cv2
import numpy as np
import pytest

from app.core.redact import RedactionSettings, Style, fill_solid, full_mask, pixelate_block_size, redact
from vpd_testkit import text_frame

BOX = (10, 40, 230, 80)


def frame_with_text():
    return text_frame(120, 240, "jane.doe@mail.com", BOX)


@pytest.mark.parametrize("style", [Style.SOLID, Style.PIXELATE, Style.BLUR])
def test_each_style_hides_text(style):
    frame = frame_with_text()
    x1, y1, x2, y2 = BOX
    before = frame[y1:y2, x1:x2]
    out = redact(frame, np.array([BOX], np.float32), RedactionSettings(style=style), np.random.default_rng(0))
    after = out[y1:y2, x1:x2].astype(np.float32)
    # Text strokes vanish: no near-black text pixels remain, variance collapses.
    assert (before.min(axis=2) < 60).sum() > 50
    assert (after.min(axis=2) < 60).sum() == 0 or style is Style.SOLID
    if style is Style.SOLID:
        assert after.std() == 0
    else:
        assert after.std() < before.astype(np.float32).std() / 2
        # No stroke-scale structure left: fine detail (Laplacian energy) all but gone.
        assert cv2.Laplacian(after, cv2.CV_32F).var() < 0.1 * cv2.Laplacian(before.astype(np.float32), cv2.CV_32F).var()
    # Outside the box nothing changes, and the input is untouched.
    mask = np.ones(frame.shape[:2], bool)
    mask[y1:y2, x1:x2] = False
    assert (out[mask] == frame[mask]).all()
    assert (frame == frame_with_text()).all()


@pytest.mark.parametrize("h, w, expected", [(10, 200, 8), (40, 300, 20), (100, 30, 15), (300, 300, 150)])
def test_pixelate_block_scales_with_box_height(h, w, expected):
    assert pixelate_block_size(h, w) == expected


def test_pixelate_uses_blocks_of_that_size():
    frame = np.random.default_rng(1).integers(0, 255, (200, 200, 3), dtype=np.uint8)
    out = redact(frame, np.array([[0, 0, 200, 40]], np.float32), RedactionSettings(style=Style.PIXELATE, noise_sigma=0))
    block = out[0:20, 0:20]
    assert (block == block[0, 0]).all()


def test_fractional_box_edges_round_outward():
    frame = np.full((20, 20, 3), 255, np.uint8)
    out = redact(frame, np.array([[2.6, 2.6, 7.2, 7.2]], np.float32))
    assert (out[2:8, 2:8] == 0).all() and out[1, 1].tolist() == [255, 255, 255]


def test_outline_preview_keeps_content_visible_and_full_mask_hides_all():
    frame = frame_with_text()
    out = redact(frame, np.array([BOX], np.float32), RedactionSettings(style=Style.OUTLINE))
    assert out.std() > 0 and not (out == frame).all()
    assert (full_mask(frame) == 0).all()


def test_fill_solid_fills_exactly_the_box_on_any_frame_layout():
    rng = np.random.default_rng(3)
    base = rng.integers(0, 255, (37, 53, 3), np.uint8)
    cases = [(0, 0, 53, 37), (5, 7, 6, 8), (10, 3, 40, 30), (52, 36, 53, 37), (20, 10, 20, 30)]  # last is empty
    colour = (12, 200, 77)
    for x0, y0, x1, y1 in cases:
        for frame in (base.copy(), base.copy()[:, ::-1].copy()[:, ::-1], np.ascontiguousarray(base[..., :3])):
            expected = frame.copy()
            expected[y0:y1, x0:x1] = colour
            fill_solid(frame, x0, y0, x1, y1, colour)
            assert np.array_equal(frame, expected), (x0, y0, x1, y1)
    view = base.copy()[::2, ::2]  # not contiguous: filled through numpy
    expected = view.copy()
    expected[2:5, 1:9] = colour
    fill_solid(view, 1, 2, 9, 5, colour)
    assert np.array_equal(view, expected)
    gray = base[..., 0].copy()
    fill_solid(gray, 1, 1, 4, 4, (9, 9, 9))
    assert (gray[1:4, 1:4] == 9).all() and gray[0, 0] == base[0, 0, 0]


def test_solid_redaction_fills_each_box_with_the_colour_and_leaves_the_rest():
    rng = np.random.default_rng(4)
    frame = rng.integers(1, 255, (60, 80, 3), np.uint8)
    settings = RedactionSettings(colour_bgr=(0, 0, 255))
    out = redact(frame, np.array([[10.2, 5.5, 30.0, 20.0], [25, 15, 50, 40]], np.float32), settings)
    mask = np.zeros(frame.shape[:2], bool)
    mask[5:20, 10:30] = True
    mask[15:40, 25:50] = True
    assert (out[mask] == (0, 0, 255)).all()
    assert np.array_equal(out[~mask], frame[~mask])
    assert (full_mask(frame, (1, 2, 3)) == (1, 2, 3)).all()
