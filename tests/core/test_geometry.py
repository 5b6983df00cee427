import numpy as np
import pytest

from app.core.geometry import iou_matrix, letterbox, letterbox_xyxy, nms, pad_xyxy, unletterbox_xyxy, upscale_factor, upscaled


@pytest.mark.parametrize("hw", [(480, 640), (1080, 1920), (640, 640), (100, 37), (2160, 3840), (333, 2000)])
def test_letterbox_round_trip_within_one_pixel(hw):
    image = np.zeros((*hw, 3), np.uint8)
    padded, tf = letterbox(image, (640, 640))
    assert padded.shape == (640, 640, 3)
    boxes = np.array([[0, 0, hw[1], hw[0]], [hw[1] * 0.2, hw[0] * 0.3, hw[1] * 0.7, hw[0] * 0.9]], np.float32)
    back = unletterbox_xyxy(letterbox_xyxy(boxes, tf), tf)
    assert np.abs(back - boxes).max() <= 1.0


def test_letterbox_content_is_centered_with_grey_padding():
    image = np.full((100, 200, 3), 255, np.uint8)
    padded, tf = letterbox(image, (64, 64))
    assert tf.pad_x == 0 and tf.pad_y == 16
    assert (padded[:16] == 114).all() and (padded[48:] == 114).all() and (padded[16:48] == 255).all()


NMS_CASES = [
    # boxes, scores, classes, expected kept indices
    ([[0, 0, 10, 10], [1, 1, 11, 11]], [0.9, 0.8], [0, 0], [0]),
    ([[0, 0, 10, 10], [1, 1, 11, 11]], [0.7, 0.8], [0, 0], [1]),
    ([[0, 0, 10, 10], [1, 1, 11, 11]], [0.9, 0.8], [0, 1], [0, 1]),  # other class survives
    ([[0, 0, 10, 10], [20, 20, 30, 30]], [0.5, 0.9], [0, 0], [1, 0]),  # disjoint, sorted by score
    ([[0, 0, 10, 10], [5, 0, 15, 10]], [0.9, 0.8], [0, 0], [0, 1]),  # IoU 1/3 < 0.5
]


@pytest.mark.parametrize("boxes, scores, classes, expected", NMS_CASES)
def test_nms(boxes, scores, classes, expected):
    kept = nms(np.array(boxes, np.float32), np.array(scores, np.float32), np.array(classes), 0.5)
    assert kept.tolist() == expected


def test_iou_matrix_known_values():
    a = np.array([[0, 0, 10, 10]], np.float32)
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]], np.float32)
    assert np.allclose(iou_matrix(a, b), [[1.0, 1 / 3, 0.0]])


def test_pad_grows_by_fraction_of_short_side_and_clips():
    boxes = np.array([[10, 10, 50, 20], [0, 0, 4, 4]], np.float32)
    out = pad_xyxy(boxes, 0.5, 1.0, (100, 100))
    assert out[0].tolist() == [5, 5, 55, 25]
    assert out[1].tolist() == [0, 0, 6, 6]


def test_connected_groups_follow_chains_and_keep_singletons():
    from app.core.geometry import connected_groups

    linked = np.zeros((5, 5), bool)
    linked[0, 3] = linked[3, 4] = True  # a chain 0-3-4; 1 and 2 alone
    assert connected_groups(linked) == [[0, 3, 4], [1], [2]]
    assert connected_groups(np.zeros((0, 0), bool)) == []


def test_centres_inside_tells_which_box_holds_each_centre_edges_included():
    from app.core.geometry import centres_inside

    a = np.array([[0, 0, 10, 10], [20, 20, 40, 30], [100, 100, 110, 110]], np.float32)  # centres (5,5), (30,25), (105,105)
    b = np.array([[0, 0, 5, 5], [25, 20, 60, 60]], np.float32)
    assert centres_inside(a, b).tolist() == [[True, False], [False, True], [False, False]]
    assert centres_inside(np.zeros((0, 4)), b).shape == (0, 2)


def test_small_frames_are_enlarged_towards_the_long_side_by_at_most_the_cap():
    assert upscale_factor((300, 512)) == 2.0  # 512 → 1024
    assert upscale_factor((100, 200)) == 3.0  # capped
    assert upscale_factor((720, 1280)) == 1.0 and upscale_factor((0, 0)) == 1.0
    image = np.zeros((10, 20, 3), np.uint8)
    assert upscaled(image, 1.0) is image and upscaled(image, 2.5).shape == (25, 50, 3)
