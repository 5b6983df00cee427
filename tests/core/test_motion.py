"""Measured motion: the global shift of a pan, per-box flow, and the regions a shift cannot explain."""

import cv2
import numpy as np
import pytest

from app.core.motion import (MotionEstimator, box_shifts, changed_boxes, global_shift, grid_rectangles, to_flow_gray,
                             unchanged_in_place)


def scene(h=360, w=640, seed=0):
    """A textured picture (blurred noise plus blocks), larger than the view so it can pan."""
    import cv2

    rng = np.random.default_rng(seed)
    img = cv2.GaussianBlur(rng.integers(0, 255, (h, w, 3), dtype=np.uint8), (0, 0), 2)
    for _ in range(40):
        x, y = int(rng.integers(0, w - 40)), int(rng.integers(0, h - 30))
        img[y : y + 30, x : x + 40] = rng.integers(0, 255, 3)
    return img


def view(img, x, y, w=320, h=180):
    return np.ascontiguousarray(img[y : y + h, x : x + w])


@pytest.mark.parametrize("dx,dy", [(0, 0), (7, 0), (-12, 5), (0, -20), (31, 17)])
def test_global_shift_measures_a_pan(dx, dy):
    img = scene()
    a = to_flow_gray(view(img, 100, 80))
    b = to_flow_gray(view(img, 100 - dx, 80 - dy))  # camera moves left/up: content moves right/down
    s = global_shift(a[0], b[0], b[1])
    assert abs(s.dx - dx) < 1.0 and abs(s.dy - dy) < 1.0 and s.error_px < 1.0


def test_box_shifts_follow_an_object_moving_against_the_background():
    img = scene()
    patch = scene(40, 60, seed=5)
    f0, f1 = view(img, 50, 50).copy(), view(img, 50, 50).copy()
    f0[60:100, 100:160] = patch
    f1[64:104, 109:169] = patch  # object moved (+9, +4); background still
    a, b = to_flow_gray(f0), to_flow_gray(f1)
    g = global_shift(a[0], b[0], b[1])
    shifts, errors = box_shifts(a[0], b[0], b[1], np.array([[100, 60, 160, 100], [10, 120, 60, 170]], np.float32), g)
    assert np.allclose(shifts[0], [9, 4], atol=1.0)  # the object
    assert np.allclose(shifts[1], [0, 0], atol=1.0)  # the background
    assert errors.max() < 3.0


def test_a_box_over_unchanged_pixels_has_no_motion_and_no_error():
    img = view(scene(), 50, 50)
    a, b = to_flow_gray(img), to_flow_gray(img.copy())
    shifts, errors = box_shifts(a[0], b[0], b[1], np.array([[100, 60, 160, 100]], np.float32), global_shift(a[0], b[0], b[1]))
    assert np.array_equal(shifts[0], [0, 0]) and errors[0] == 0.0


def test_unchanged_in_place_needs_the_same_pixels_with_contrast_under_the_box():
    img = view(scene(), 50, 50).copy()
    img[120:170, 200:300] = 128  # a flat patch: it looks the same however the picture moved
    noisy = np.clip(img.astype(int) + np.random.default_rng(0).integers(-2, 3, img.shape), 0, 255).astype(np.uint8)
    boxes = np.array([[100, 60, 160, 100], [210, 130, 290, 160]], np.float32)
    g = lambda f: cv2.cvtColor(f, cv2.COLOR_BGR2GRAY)  # noqa: E731
    assert unchanged_in_place(g(img), g(noisy), boxes).tolist() == [True, False]
    assert unchanged_in_place(g(img), g(np.roll(img, 1, axis=1)), boxes).tolist() == [False, False]


def test_estimator_accumulates_offsets_between_frames():
    img = scene()
    est = MotionEstimator()
    for k in range(6):
        est.step(view(img, 200 - 5 * k, 100), seq=k)  # content moves 5 px right per frame
    (dx, dy), err = est.between(1, 5)
    assert abs(dx - 20) < 2 and abs(dy) < 2 and err < 4
    assert est.between(-3, 5) is None


@pytest.mark.parametrize("seed", range(6))
def test_grid_rectangles_cover_exactly_the_marked_cells(seed):
    rng = np.random.default_rng(seed)
    grid = (rng.random((12, 17)) < 0.3 + 0.1 * seed).astype(np.uint8)
    grid[:3] = 1  # a full band, as a scroll reveals
    rects = grid_rectangles(grid)
    cover = np.zeros(grid.shape, int)
    for x0, y0, x1, y1 in rects:
        cover[y0:y1, x0:x1] += 1
    assert np.array_equal(cover, grid.astype(int))  # every marked cell once, nothing else
    assert len(grid_rectangles(np.zeros((4, 5), np.uint8))) == 0


def test_exact_changed_regions_of_a_diagonal_pan_are_the_l_shaped_strip_not_the_frame():
    img = scene()
    a = to_flow_gray(view(img, 100, 80))
    b = to_flow_gray(view(img, 60, 40))  # panned 40 px right and 40 px down: strips along the top and left
    shift = np.array([40.0, 40.0])
    loose, exact = changed_boxes(a[0], b[0], b[1], shift), changed_boxes(a[0], b[0], b[1], shift, exact=True)
    area = lambda boxes: ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).sum()  # noqa: E731
    inside = lambda boxes, x, y: bool(np.any((boxes[:, 0] <= x) & (boxes[:, 2] >= x) & (boxes[:, 1] <= y) & (boxes[:, 3] >= y)))  # noqa: E731
    for x, y in ((5, 100), (200, 5), (5, 5)):  # revealed on the left, on top, in the corner
        assert inside(exact, x, y) and inside(loose, x, y)
    assert not inside(exact, 250, 150)  # content that only moved, inside the L's bounds
    assert area(exact) < 0.6 * area(loose) and area(loose) >= 0.9 * 320 * 180


def test_changed_boxes_find_new_content_not_the_pan():
    img = scene()
    a = to_flow_gray(view(img, 100, 80))
    f1 = view(img, 90, 80).copy()  # panned 10 px
    f1[100:140, 200:260] = 255  # and something new appeared
    b = to_flow_gray(f1)
    boxes = changed_boxes(a[0], b[0], b[1], np.array([10.0, 0.0]))
    inside = lambda x, y: bool(np.any((boxes[:, 0] <= x) & (boxes[:, 2] >= x) & (boxes[:, 1] <= y) & (boxes[:, 3] >= y)))  # noqa: E731
    assert inside(230, 120)  # the new thing
    assert inside(3, 90)  # the strip that scrolled in
    assert not inside(120, 40) and not inside(250, 30)  # content that only moved
    area = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).sum()
    assert area < 0.5 * 320 * 180


def test_a_strong_phase_peak_is_a_measured_shift_where_the_point_check_finds_no_texture(monkeypatch):
    import app.core.motion as motion

    # The grid points find nothing to track (as on a mostly flat screen being scrolled).
    monkeypatch.setattr(motion, "_lk", lambda prev, cur, pts, init: (np.zeros_like(pts), np.zeros(len(pts), bool)))
    img = scene()
    a, b = to_flow_gray(view(img, 100, 80)), to_flow_gray(view(img, 100, 60))
    s = global_shift(a[0], b[0], b[1])
    assert abs(s.dy - 20) < 2.0 and abs(s.dx) < 2.0
    assert 0 < s.error_px <= 4.0  # one phase-correlation pixel, not "unknown": held boxes stay tight
    cut = to_flow_gray(view(scene(seed=9), 100, 80))  # another picture: no peak, the error is unknown
    assert global_shift(a[0], cut[0], cut[1]).error_px == float("inf")


def flat_screen(h=1400, w=1280):
    """A mostly blank list screen: a few lines of dark text on white, far apart."""
    import cv2

    img = np.full((h, w, 3), 248, np.uint8)
    for k, y in enumerate(range(120, h - 60, 260)):
        cv2.putText(img, f"Name {k}", (140, y), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 30, 20), 2, cv2.LINE_AA)
    return img


def test_a_pan_over_a_mostly_flat_screen_is_checked_on_its_text_corners():
    img = flat_screen()
    a = to_flow_gray(view(img, 0, 300, 1280, 720))
    b = to_flow_gray(view(img, 0, 319, 1280, 720))  # scrolled 19 px: content moves up
    s = global_shift(a[0], b[0], b[1])
    assert abs(s.dy + 19) < 0.5 and abs(s.dx) < 0.5
    # Measured on the text, not assumed one phase pixel (≈ 4 source px here): held boxes stay tight.
    assert s.error_px < 1.0


def test_objects_moving_on_a_flat_background_are_not_taken_for_a_pan():
    import cv2

    def frame(t):
        img = np.full((720, 1280, 3), 248, np.uint8)
        for k, (x, y, vx, vy) in enumerate([(200, 150, 6, 0), (700, 400, -5, 3), (400, 560, 0, -7)]):
            cv2.putText(img, f"Card {k}", (x + vx * t, y + vy * t), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 30, 20), 2)
        return img

    a, b = to_flow_gray(frame(0)), to_flow_gray(frame(1))
    s = global_shift(a[0], b[0], b[1])
    # The corners disagree: no rigid shift is confirmed on them, so the error is not small.
    assert s.error_px >= 2.0
