"""BlazeFace: anchors and decode on hand-made tensors, TFLite→ONNX conversion, real model on a
face photo, missing package / converter messages, factory choice."""

import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest

from app.core.detections import Source
from app.core.errors import DetectorUnavailable, ModelError
from app.inference import face_blazeface as bf
from app.inference.factory import DetectorConfig, build_detectors

ASTRONAUT = Path("/work/shared/data/real-dev/images/skimage_astronaut.png")
HAVE_MODEL = importlib.util.find_spec("mediapipe") is not None and all(
    importlib.util.find_spec(m) is not None for m in ("tflite", "onnx"))  # fmt: skip
NO_MODEL = "mediapipe wheel (pip install --no-deps mediapipe==0.10.21) or the tflite/onnx converter packages absent"


def test_anchor_order_short_range():
    a = bf.anchor_centres((128, 128), bf.VARIANTS["short"])
    assert a.shape == (896, 2)  # 16·16·2 + 8·8·6, as in the TFLite file
    assert a[0].tolist() == [4, 4] and a[1].tolist() == [4, 4] and a[2].tolist() == [12, 4]
    assert a[512].tolist() == [8, 8] and a[517].tolist() == [8, 8] and a[518].tolist() == [24, 8]
    full = bf.anchor_centres((96, 192), bf.VARIANTS["full"])
    assert full.shape == (24 * 48, 2) and full[48].tolist() == [2, 6]  # second row


def test_decode_one_anchor():
    anchors = bf.anchor_centres((32, 32), bf.VARIANTS["full"])  # 8×8 cells of 4 px
    reg = np.zeros((1, len(anchors), 16), np.float32)
    logits = np.full((1, len(anchors), 1), -10, np.float32)
    i = 3 * 8 + 5  # row 3, column 5: centre (22, 14)
    logits[0, i, 0] = 3.0
    reg[0, i, :4] = [1.0, -2.0, 10.0, 12.0]
    xyxy, scores = bf.decode_blazeface(reg, logits, anchors, (32, 32), threshold=0.5)
    assert scores.tolist() == pytest.approx([1 / (1 + np.exp(-3.0))])
    assert xyxy[0].tolist() == pytest.approx([23 - 5, 12 - 6, 23 + 5, 12 + 6])


def test_decode_nms_and_clip():
    anchors = bf.anchor_centres((32, 32), bf.VARIANTS["full"])
    reg = np.zeros((1, len(anchors), 16), np.float32)
    reg[0, :, 2:4] = 20.0
    logits = np.full((1, len(anchors), 1), -10, np.float32)
    logits[0, 0, 0], logits[0, 1, 0] = 2.0, 1.0  # neighbours, same size: one survives
    xyxy, scores = bf.decode_blazeface(reg, logits, anchors, (32, 32))
    assert len(xyxy) == 1 and xyxy[0, 0] == 0 and xyxy[0, 1] == 0  # clipped to the input
    with pytest.raises(ValueError):
        bf.decode_blazeface(reg[:, :5], logits, anchors, (32, 32))


def test_missing_package_is_clear_and_factory_keeps_others(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mediapipe" else real(name, *a))
    with pytest.raises(DetectorUnavailable, match=r"pip install --no-deps mediapipe==0\.10\.21"):
        bf.model_source_path()
    with pytest.raises(DetectorUnavailable, match="mediapipe"):
        build_detectors(DetectorConfig(use_detector=False, use_ocr=False, use_codes=False, face_model="blazeface"))


def test_missing_model_file_and_converter_are_clear(tmp_path, monkeypatch):
    pkg = tmp_path / "mediapipe"
    pkg.mkdir()
    spec = importlib.util.spec_from_file_location("mediapipe", pkg / "__init__.py", submodule_search_locations=[str(pkg)])
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: spec if name == "mediapipe" else real(name, *a))
    with pytest.raises(DetectorUnavailable, match="no longer ship"):
        bf.model_source_path()
    source = tmp_path / "face.tflite"
    source.write_bytes(b"x")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "tflite" else real(name, *a))
    with pytest.raises(DetectorUnavailable, match="pip install tflite"):
        bf.onnx_model_path(source, tmp_path / "cache")


def test_unknown_face_model_is_an_error():
    with pytest.raises(ModelError, match="centerface"):
        build_detectors(DetectorConfig(use_detector=False, use_ocr=False, use_codes=False, face_model="nope"))


@pytest.mark.skipif(not HAVE_MODEL, reason=NO_MODEL)
@pytest.mark.parametrize("variant", ["full", "short"])
def test_conversion_keeps_shapes_and_is_cached(tmp_path, variant):
    import onnxruntime as ort

    target = bf.onnx_model_path(bf.model_source_path(variant), tmp_path)
    assert bf.onnx_model_path(bf.model_source_path(variant), tmp_path) == target  # second call: cache hit
    session = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    v = bf.VARIANTS[variant]
    for hw in ((v.native_side, v.native_side), (96, 320)):
        reg, logits = session.run(None, {"image": np.zeros((1, 3, *hw), np.float32)})
        n = len(bf.anchor_centres(hw, v))
        assert reg.shape == (1, n, 16) and logits.shape == (1, n, 1)


@pytest.mark.skipif(not HAVE_MODEL or not ASTRONAUT.exists(), reason=NO_MODEL + ", or the test photo")
@pytest.mark.parametrize("model", ["blazeface", "blazeface-full"])
def test_finds_the_face_in_a_photo(tmp_path, monkeypatch, model):
    monkeypatch.setenv("VPD_CACHE_DIR", str(tmp_path))
    built = build_detectors(DetectorConfig(providers=("CPUExecutionProvider",), use_detector=False, use_ocr=False, use_codes=False, face_model=model))
    (det,) = built.detectors
    assert isinstance(det, bf.BlazeFaceDetector) and det.provider == "CPU"
    assert list(tmp_path.glob("blazeface-*.onnx"))  # converted into the shared user cache folder
    found = det.detect(cv2.imread(str(ASTRONAUT)))
    assert len(found) >= 1 and set(found.sources) == {Source.FACE} and found.class_names == ("face",)
    best = found.xyxy[int(found.scores.argmax())]
    assert found.scores.max() > 0.8
    assert 150 < (best[0] + best[2]) / 2 < 260 and 50 < (best[1] + best[3]) / 2 < 170  # her face
    assert len(det.detect(np.full((100, 100, 3), 255, np.uint8))) == 0
    assert len(det.detect(np.zeros((5, 5, 3), np.uint8))) == 0
