import numpy as np

from app.core.tiling import Tile, merge_tiled, needs_tiling, plan_tiles, truncated_mask


def test_tiles_cover_frame_with_overlap():
    hw = (1080, 1920)
    tiles = plan_tiles(hw, (640, 640), 128)
    covered = np.zeros(hw, bool)
    for t in tiles:
        assert t.x1 - t.x0 == 640 and t.y1 - t.y0 == 640
        covered[t.y0 : t.y1, t.x0 : t.x1] = True
    assert covered.all()
    xs = sorted({t.x0 for t in tiles})
    assert all(b - a <= 640 - 128 for a, b in zip(xs, xs[1:]))


def test_small_frame_is_one_tile_and_not_tiled():
    assert plan_tiles((300, 500), (640, 640), 128) == [Tile(0, 0, 500, 300)]
    assert not needs_tiling((900, 900), (640, 640)) and needs_tiling((1080, 1920), (640, 640))


def test_box_split_across_two_tiles_merges_into_one():
    hw = (640, 1152)
    left, right = Tile(0, 0, 640, 640), Tile(512, 0, 1152, 640)
    # one object at x 500..800: the left tile sees 500..640, the right one 512..800
    pieces = np.array([[500, 100, 640, 130], [512, 101, 800, 130]], np.float32)
    truncated = np.concatenate([truncated_mask(pieces[:1], left, hw), truncated_mask(pieces[1:], right, hw)])
    assert truncated.tolist() == [True, True]
    xyxy, scores, cls = merge_tiled(pieces, np.array([0.8, 0.9], np.float32), np.array([1, 1]), truncated)
    assert len(xyxy) == 1 and xyxy[0].tolist() == [500, 100, 800, 130] and scores[0] == np.float32(0.9)


def test_neighbouring_objects_are_not_merged():
    pieces = np.array([[500, 100, 640, 130], [512, 140, 800, 170], [512, 101, 800, 130]], np.float32)
    xyxy, _, cls = merge_tiled(pieces, np.ones(3, np.float32), np.array([1, 1, 2]), np.array([True, False, False]))
    assert len(xyxy) == 3  # different rows, or different classes, stay apart


def test_duplicate_from_overlap_is_suppressed():
    boxes = np.array([[600, 100, 630, 120], [600, 100, 631, 121]], np.float32)
    xyxy, _, _ = merge_tiled(boxes, np.array([0.9, 0.8], np.float32), np.array([0, 0]), np.array([False, False]))
    assert len(xyxy) == 1
