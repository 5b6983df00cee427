"""The classifier inside the real pipeline: the OCR plug-in reads with it by default, and the
pipeline lets the reading revise the visual detector's text boxes (``refine``)."""

import importlib.util

import cv2
import numpy as np
import pytest

from app.core.detections import Detections, Source
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from app.inference.ocr_rapid import OcrPiiDetector
from app.text.classifier import TextPiiClassifier
from app.text.model import load_model
from vpd_testkit import FakeOcrEngine as FakeEngine, quad


class FakeVisual:
    """A visual detector that boxes the given rectangles as ``person_name``."""

    name = "detector"
    class_names = ("person_name", "face")

    def __init__(self, boxes):
        self.boxes = np.array(boxes, np.float32)

    def detect(self, frame):
        n = len(self.boxes)
        return Detections(self.boxes, np.full(n, 0.6, np.float32), np.zeros(n, np.int32), self.class_names,
                          sources=np.full(n, Source.DETECTOR, np.int8))  # fmt: skip


HEADLINE = ("Scientists Discover Rare Species Deep In The Amazon Rainforest", quad(40, 40, 1100, 88))
NAME = ("Liam Becker", quad(160, 300, 360, 334))
LINES = [HEADLINE, ("The team spent three months mapping the river basin before the find.", quad(40, 120, 900, 144)),
         ("Contacts", quad(40, 220, 200, 264)), NAME, ("Mobile", quad(160, 344, 240, 368)),
         ("Priya Sharma", quad(160, 420, 340, 454)), ("Work", quad(160, 464, 220, 488))]


def test_pipeline_drops_a_detector_name_box_on_a_headline_and_keeps_the_real_name():
    ocr = OcrPiiDetector(FakeEngine(LINES), "CPU", classifier=TextPiiClassifier(load_model()))
    visual = FakeVisual([[40, 40, 1100, 88], [160, 300, 360, 334]])
    raw = Pipeline([visual, ocr], Policy(classes=None)).detect(np.full((600, 1200, 3), 255, np.uint8))
    from_detector = raw.take(raw.sources == Source.DETECTOR)
    assert len(from_detector) == 1 and from_detector.xyxy[0][1] == 300  # the headline box is gone
    names = raw.take((raw.sources == Source.OCR) & (np.array(raw.labels) == "person_name"))
    assert len(names) >= 2  # both names in the list rows, read by the classifier


def test_rules_only_ocr_leaves_detector_boxes_alone():
    ocr = OcrPiiDetector(FakeEngine(LINES), "CPU")  # no classifier: nothing to contradict with
    raw = Pipeline([FakeVisual([[40, 40, 1100, 88]]), ocr], Policy(classes=None)).detect(np.full((600, 1200, 3), 255, np.uint8))
    assert (raw.sources == Source.DETECTOR).sum() == 1


@pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None, reason="rapidocr not installed")
def test_real_ocr_hides_names_in_a_rendered_list_but_not_its_title():
    frame = np.full((420, 640, 3), 255, np.uint8)
    cv2.putText(frame, "Contacts", (20, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (0, 0, 0), 3, cv2.LINE_AA)
    rows = ["Maria Gonzalez", "Thomas Becker", "Sophie Martin"]
    for i, name in enumerate(rows):
        y = 130 + 100 * i
        cv2.putText(frame, name, (90, y), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 20), 2, cv2.LINE_AA)
        cv2.putText(frame, "Mobile", (90, y + 32), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (110, 110, 110), 1, cv2.LINE_AA)
    det = OcrPiiDetector.from_package(["CPUExecutionProvider"])
    assert det.classifier is not None and not det.warning  # the shipped model loads by default
    found = det.detect(frame)
    names = found.xyxy[np.array(found.labels) == "person_name"] if len(found) else np.zeros((0, 4))
    for i in range(len(rows)):
        y = 130 + 100 * i
        assert any(b[1] < y and b[3] > y - 20 and b[0] < 100 and b[2] > 250 for b in names), (rows[i], found.to_records())
    assert not any(b[1] < 45 and b[3] > 20 for b in found.xyxy)  # the "Contacts" title stays
