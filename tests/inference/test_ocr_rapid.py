"""OCR recogniser: spans become boxes over just the span, not-read lines are counted,
missing package gives a clear message and the factory keeps the other detectors."""

import importlib.util
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from app.core.detections import Source
from app.core.errors import DetectorUnavailable
from app.inference import ocr_rapid
from app.inference.factory import DetectorConfig, build_detectors
from app.inference.ocr_rapid import OcrPiiDetector
from vpd_testkit import FakeOcrEngine as FakeEngine, quad


def test_detect_boxes_only_the_pii_words():
    engine = FakeEngine([
        ("Contact: mail bob@example.com today", quad(10, 10, 360, 30), 0.99,
         (("Contact:", 0.99, quad(10, 10, 80, 30)), ("mail", 0.99, quad(90, 10, 130, 30)),
          ("bob@example.com", 0.99, quad(140, 10, 290, 30)), ("today", 0.99, quad(300, 10, 360, 30)))),
        ("你好世界", quad(10, 50, 90, 70), 0.9, ()),
        ("blurry line", quad(10, 90, 90, 110), 0.4, ()),
    ])
    det = OcrPiiDetector(engine, "CPU")
    found = det.detect(np.zeros((120, 400, 3), np.uint8))
    assert found.labels == ["email"] and set(found.sources) == {Source.OCR}
    x0, y0, x1, y1 = found.xyxy[0]
    assert 130 <= x0 <= 140 and 290 <= x1 <= 300 and (y0, y1) == (10, 30)
    assert det.last_run.lines == 3 and det.last_run.non_latin == 1 and det.last_run.not_read == 2
    (note,) = det.last_notes
    assert "could not read 2 of 3" in note and "1 in a script" in note and "1 too unclear" in note
    det.detect(np.zeros((4, 4, 3), np.uint8))  # too small to hold text: nothing read, nothing missed
    assert det.last_notes == ()  # notes describe the last call only


def test_no_text_and_tiny_frames():
    det = OcrPiiDetector(FakeEngine([]), "CPU")
    assert len(det.detect(np.zeros((50, 50, 3), np.uint8))) == 0
    assert len(det.detect(np.zeros((4, 4, 3), np.uint8))) == 0


def test_missing_package_is_clear_and_factory_warns(monkeypatch, tmp_path):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "rapidocr" else real(name, *a))
    with pytest.raises(DetectorUnavailable, match="pip install rapidocr"):
        ocr_rapid.rapidocr_model_dir()
    monkeypatch.setattr("app.inference.factory._load_faces", lambda config: SimpleNamespace(name="faces", class_names=("face",)))
    built = build_detectors(DetectorConfig(model_path=None, use_detector=False, use_codes=False))
    assert [d.name for d in built.detectors] == ["faces"]
    assert any("rapidocr" in w for w in built.warnings)


@pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None, reason="rapidocr not installed")
def test_real_ocr_reads_an_email_and_its_box():
    frame = np.full((60, 420, 3), 255, np.uint8)
    cv2.putText(frame, "mail: jane.doe@example.org", (8, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2, cv2.LINE_AA)
    det = OcrPiiDetector.from_package(["CPUExecutionProvider"])
    found = det.detect(frame)
    assert "email" in found.labels
    box = found.xyxy[found.labels.index("email")]
    assert box[0] > 60  # "mail:" stays visible
    rotated = cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE)
    det.detect(rotated)  # must not crash


class _ShapeEcho:
    """An OCR engine whose one line spans the image it is given, with one word over its left half."""

    def __init__(self):
        self.seen = []

    def __call__(self, img, return_word_box=True):
        h, w = img.shape[:2]
        self.seen.append((h, w))
        return SimpleNamespace(boxes=np.array([quad(0, 0, w, h)], np.float32), txts=("jane@example.com",), scores=(0.99,),
                               word_results=((("jane@example.com", 0.99, quad(0, 0, w / 2, h)),),))


@pytest.mark.parametrize("hw, factor", [((300, 400), 1024 / 400), ((100, 200), 3.0), ((720, 1280), 1.0), ((1024, 600), 1.0)])
def test_small_frames_are_read_upscaled_and_boxes_come_back_in_frame_pixels(hw, factor):
    echo = _ShapeEcho()
    det = OcrPiiDetector(ocr_rapid.SmallFrameUpscaler(echo, 1024), "CPU")
    (line,) = det.read_lines(np.zeros((*hw, 3), np.uint8))
    assert echo.seen == [(round(hw[0] * factor), round(hw[1] * factor))]
    assert np.allclose(line.quad, quad(0, 0, hw[1], hw[0]), atol=0.5 * factor)
    (word, word_quad), = line.words
    assert np.allclose(word_quad, quad(0, 0, hw[1] / 2, hw[0]), atol=0.5 * factor)


def test_text_detector_input_is_normalised_in_float32_to_the_same_values():
    pytest.importorskip("rapidocr")
    from rapidocr.ch_ppocr_det.utils import DetPreProcess

    from app.inference.ocr_rapid import normalise_in_float32

    stage = SimpleNamespace(get_preprocess=lambda: DetPreProcess(2560, "max", [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]))
    img = np.random.default_rng(0).integers(0, 255, (64, 96, 3), dtype=np.uint8)
    before = stage.get_preprocess()
    normalise_in_float32(stage)
    after = stage.get_preprocess()
    assert before.normalize(img).dtype == np.float64  # RapidOCR's own: the whole image in float64
    assert after.normalize(img).dtype == np.float32
    assert np.allclose(after(img), before(img), atol=1e-6) and after(img).dtype == np.float32
