import numpy as np
import pytest

from app.core.errors import ModelError
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from app.inference.vpd_detector import TilingSettings, VpdDetector
from vpd_testkit import CLASS_NAMES, make_detector_onnx, text_frame


@pytest.mark.parametrize("layout", ["head", "e2e"])
def test_tiny_model_end_to_end(tmp_path, layout):
    # Model input 64×64; a 128×128 frame is letterboxed at scale 0.5.
    path = make_detector_onnx(tmp_path / "m.onnx", [(1, 2, 10, 30, 22, 0.9), (0, 40, 40, 50, 50, 0.1)], layout=layout)
    det = VpdDetector.from_path(path, tiling=False)
    assert det.class_names == CLASS_NAMES and det.metadata.input_hw == (64, 64)
    assert det.provider in ("CPU", "CUDA")
    frame = text_frame(128, 128, "x@y.z", (4, 20, 60, 44))
    d = det.detect(frame)
    assert d.labels == ["email", "face"]
    assert np.allclose(d.xyxy[0], [4, 20, 60, 44], atol=0.5)
    out = Pipeline([det], Policy(classes=None, conf=0.5)).process(frame)
    assert out.hidden.labels == ["email"]
    assert (out.frame[20:44, 4:60] == 0).all()
    assert (out.frame[80:, 80:] == frame[80:, 80:]).all()


def test_tiled_detection_maps_tiles_to_frame_pixels(tmp_path):
    # The fixed output puts one box in every tile's own pixels; tiling must offset them.
    path = make_detector_onnx(tmp_path / "m.onnx", [(2, 10, 10, 20, 20, 0.9)])
    det = VpdDetector.from_path(path, tiling=TilingSettings(min_long_side=0))
    d = det.detect(np.zeros((64, 200, 3), np.uint8))  # wider than 1.5×64 → tiles
    assert len(d) >= 3
    assert d.xyxy[:, 0].max() > 100  # boxes from the right-hand tiles land on the right


def test_read_plan_enlarges_small_frames_and_tiles_large_ones_only():
    """One plan for the detector and the training tiles: a 400x300 photo is enlarged 2.56x and cut
    into 2x2 640-px tiles of the 1024x768 copy; a 320-px frame with enlarging off is one view."""
    factor, tiles = TilingSettings().read_plan((300, 400), (640, 640))
    assert factor == pytest.approx(2.56)
    assert [(t.x0, t.y0, t.x1, t.y1) for t in tiles] == [(0, 0, 640, 640), (384, 0, 1024, 640),
                                                          (0, 128, 640, 768), (384, 128, 1024, 768)]
    assert TilingSettings(min_long_side=0).read_plan((320, 320), (640, 640)) == (1.0, [])
    assert TilingSettings(enabled=False).read_plan((300, 400), (640, 640)) == (1.0, [])
    factor, tiles = TilingSettings().read_plan((1080, 1920), (640, 640))
    assert factor == 1.0 and len(tiles) == 2 * 4  # native-scale tiles, overlap at least 128 px


def test_small_frame_is_read_enlarged_and_boxes_come_back_in_its_pixels(tmp_path):
    # Input 64 px on 128-px tiles; a 200×100 frame's tiles are cut from a 2× copy (towards a
    # 400-px long side), so each tile's fixed box (input 10..20 → tile 20..40) is 10 px wide in
    # the frame, not 20; the full view is the frame itself.
    path = make_detector_onnx(tmp_path / "m.onnx", [(2, 10, 10, 20, 20, 0.9)], metadata={"vpd_tile_size": "128"})
    det = VpdDetector.from_path(path, tiling=TilingSettings(min_long_side=400))
    seen = []
    det.infer = lambda image, orig=det.infer: (seen.append(image.shape[:2]), orig(image))[1]
    d = det.detect(np.zeros((100, 200, 3), np.uint8))
    assert seen.count((100, 200)) == 1 and seen.count((128, 128)) >= 4  # the full view, the 2× copy's tiles
    assert np.isclose(d.xyxy[:, 2] - d.xyxy[:, 0], 10, atol=1).any()
    assert (d.xyxy[:, 2] <= 200).all() and (d.xyxy[:, 3] <= 100).all()
    plain = VpdDetector.from_path(path, tiling=TilingSettings(min_long_side=0)).detect(np.zeros((100, 200, 3), np.uint8))
    assert not np.isclose(plain.xyxy[:, 2] - plain.xyxy[:, 0], 10, atol=1).any()  # read as it is: 20 px boxes


def test_enlarged_tiles_of_a_small_frame_add_only_small_boxes(tmp_path):
    # A box over most of each tile (input 4..60 → 112 px of a 128-px tile) is more than half a
    # tile: only the full view's copy of it (the frame itself) may come back, not one per tile.
    path = make_detector_onnx(tmp_path / "m.onnx", [(2, 4, 4, 60, 60, 0.9)], metadata={"vpd_tile_size": "128"})
    d = VpdDetector.from_path(path, tiling=TilingSettings(min_long_side=400)).detect(np.zeros((100, 200, 3), np.uint8))
    assert len(d) == 1
    plain = VpdDetector.from_path(path, tiling=TilingSettings(min_long_side=0)).detect(np.zeros((100, 200, 3), np.uint8))
    assert len(plain) > 1  # unenlarged tiles keep theirs


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "not found"),
        (b"", "empty"),
        (b"\x08\x01\x12\x04junk" * 3, "not a valid ONNX model"),
    ],
)
def test_bad_model_files_give_clear_errors(tmp_path, content, message):
    path = tmp_path / "bad.onnx"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ModelError, match=message) as info:
        VpdDetector.from_path(path)
    assert str(path) in str(info.value)


def test_truncated_model_is_reported(tmp_path):
    good = make_detector_onnx(tmp_path / "good.onnx", [(0, 1, 1, 5, 5, 0.9)])
    bad = tmp_path / "truncated.onnx"
    bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(ModelError, match="truncated.onnx"):
        VpdDetector.from_path(bad)


def test_model_without_our_metadata_is_not_a_detector(tmp_path):
    path = make_detector_onnx(tmp_path / "plain.onnx", [], metadata={"vpd_schema_version": None, "vpd_class_names": None})
    with pytest.raises(ModelError, match="not a VPD detector"):
        VpdDetector.from_path(path)


def test_metadata_class_count_must_match_output(tmp_path):
    path = make_detector_onnx(tmp_path / "m.onnx", [], metadata={"vpd_class_names": '["a", "b", "c", "d", "e"]'})
    with pytest.raises(ModelError, match="does not match"):
        VpdDetector.from_path(path)


def test_tile_size_from_metadata_sets_native_tile(tmp_path):
    # Input 64 px, trained on 128-px native crops: a 256-px frame → tiles of 128 letterboxed to 64.
    path = make_detector_onnx(tmp_path / "m.onnx", [(2, 10, 10, 20, 20, 0.9)], metadata={"vpd_tile_size": "128"})
    det = VpdDetector.from_path(path, tiling=TilingSettings(min_long_side=0))
    assert det.metadata.tile_hw == (128, 128)
    d = det.detect(np.zeros((256, 256, 3), np.uint8))
    # each 128-px tile maps input box (10..20) to tile pixels (20..40)
    widths = d.xyxy[:, 2] - d.xyxy[:, 0]
    assert np.isclose(widths, 20, atol=1).any()


def test_unchanged_tiles_keep_their_boxes_and_changed_ones_are_detected_again(tmp_path):
    path = make_detector_onnx(tmp_path / "m.onnx", [(2, 10, 10, 20, 20, 0.9)])
    det = VpdDetector.from_path(path, tiling=TilingSettings(min_long_side=0))
    frame = np.random.default_rng(0).integers(0, 255, (64, 200, 3), dtype=np.uint8)
    first = det.detect(frame)
    calls = []
    det.infer = lambda image, orig=det.infer: (calls.append(image.shape), orig(image))[1]
    again = det.detect(frame.copy())  # same pixels: nothing is run again, same boxes
    assert calls == [] and det.tiles_reused >= 3 and np.allclose(again.xyxy, first.xyxy)
    changed = frame.copy()
    changed[5:20, 150:170] = 255 - changed[5:20, 150:170]  # something new on the right
    det.detect(changed)
    assert 1 <= len(calls) < len(det._tile_cache)  # the right-hand tile(s) and the full view only


def test_class_thresholds_from_metadata_calibrate_scores(tmp_path):
    # email needs a raw 0.6 to count at the default 0.25; face keeps its raw score (no threshold).
    boxes = [(1, 2, 10, 30, 22, 0.5), (0, 40, 40, 50, 50, 0.3)]
    path = make_detector_onnx(tmp_path / "m.onnx", boxes, metadata={"vpd_class_conf": '{"email": 0.6}'})
    det = VpdDetector.from_path(path, tiling=False)
    assert dict(det.metadata.class_conf) == {"email": 0.6}
    frame = np.zeros((64, 64, 3), np.uint8)
    raw = det.detect_raw(frame)
    cal = det.detect(frame)
    by_label = dict(zip(cal.labels, cal.scores))
    assert dict(zip(raw.labels, raw.scores))["email"] == pytest.approx(0.5, abs=1e-3)
    assert by_label["email"] < 0.25 and by_label["face"] == pytest.approx(0.3, abs=1e-3)
    hidden = Pipeline([det], Policy(classes=None, conf=0.25)).process(frame).hidden
    assert hidden.labels == ["face"]


def test_malformed_class_thresholds_are_a_model_error(tmp_path):
    path = make_detector_onnx(tmp_path / "m.onnx", [(1, 2, 10, 30, 22, 0.5)], metadata={"vpd_class_conf": "[0.3]"})
    with pytest.raises(ModelError, match="malformed"):
        VpdDetector.from_path(path, tiling=False)


def test_mirrored_reading_adds_the_mirror_pass_boxes_in_frame_pixels(tmp_path):
    # The fixed output puts a box at input x 10..20 whatever the pixels, so the mirrored pass's box
    # lands at 44..54 of the 64-px frame once mapped back; a box centred in the view (22..42) is
    # the same box both ways and stays one.
    path = make_detector_onnx(tmp_path / "m.onnx", [(2, 10, 10, 20, 20, 0.9), (1, 22, 30, 42, 50, 0.8)])
    frame = np.zeros((64, 64, 3), np.uint8)
    plain = VpdDetector.from_path(path, tiling=TilingSettings(min_long_side=0)).detect(frame)
    both = VpdDetector.from_path(path, tiling=TilingSettings(min_long_side=0, mirrored=True)).detect(frame)
    assert sorted(plain.xyxy[:, 0].round().tolist()) == [10, 22]
    assert sorted(both.xyxy[:, 0].round().tolist()) == [10, 22, 44]
    mirrored_box = both.xyxy[np.isclose(both.xyxy[:, 0], 44, atol=0.5)][0]
    assert np.allclose(mirrored_box, [44, 10, 54, 20], atol=0.5)


def test_mirror_xyxy_is_its_own_inverse():
    from app.core.geometry import mirror_xyxy

    boxes = np.array([[1, 2, 11, 12], [50, 0, 100, 5]], np.float32)
    assert np.allclose(mirror_xyxy(boxes, 100), [[89, 2, 99, 12], [0, 0, 50, 5]])
    assert np.allclose(mirror_xyxy(mirror_xyxy(boxes, 100), 100), boxes)
