"""Per-class box-size sanity: a weak box far too large for its class is dropped; strong, small,
unlisted-class and manual boxes are kept."""

import numpy as np
import pytest

from app.core.box_sanity import EDGE_ASPECTS, BoxSanity, complete_edge_cut
from app.core.detections import Detections, Source
from app.core.pipeline import Pipeline
from app.core.policy import Policy

NAMES = ("email", "face", "house_number", "paper_document", "shop_sign")
HW = (720, 1280)


def one(box, cls, score, source=Source.DETECTOR):
    return Detections(np.array([box], np.float32), [score], [NAMES.index(cls)], NAMES, sources=[source])


@pytest.mark.parametrize(
    "box,cls,score,kept",
    [
        ([100, 100, 400, 130], "email", 0.3, True),  # a line of text
        ([0, 0, 1280, 500], "email", 0.3, False),  # an "e-mail" as tall as most of the frame
        ([0, 0, 1280, 500], "email", 0.8, True),  # …unless the detector is sure
        ([0, 0, 1100, 700], "house_number", 0.4, False),  # the false whole-frame house number
        ([0, 300, 1280, 720], "shop_sign", 0.3, False),  # text layout's "sign" over the lower 60 % of a frame
        ([200, 100, 900, 260], "shop_sign", 0.3, True),  # a board across a façade
        ([300, 100, 700, 600], "face", 0.3, True),  # a close face (area 0.22)
        ([0, 0, 1280, 720], "face", 0.3, False),
        ([0, 0, 1280, 720], "paper_document", 0.3, True),  # a document may fill the frame
    ],
)
def test_size_rule(box, cls, score, kept):
    out = BoxSanity().apply(one(box, cls, score), HW)
    assert (len(out) == 1) == kept


def test_manual_boxes_always_kept():
    assert len(BoxSanity().apply(one([0, 0, 1280, 720], "email", 0.0, Source.MANUAL), HW)) == 1


def test_pipeline_applies_it_only_when_given_the_frame_size():
    p = Pipeline([], Policy(classes=None))
    weak = one([0, 0, 1280, 500], "email", 0.3)
    assert len(p.select(weak)) == 1  # still images: the user reviews every box
    assert len(p.select(weak, HW)) == 0  # video and live
    assert len(Pipeline([], Policy(classes=None), sanity=None).select(weak, HW)) == 1


@pytest.mark.parametrize(
    "box,cls,expected",
    [
        ([0, 100, 40, 220], "face", [0, 100, 90, 220]),  # half a face at the left border: 0.75 × 120 wide
        ([1250, 100, 1280, 220], "face", [1190, 100, 1280, 220]),  # at the right border
        ([300, 0, 390, 40], "face", [300, 0, 390, 120]),  # a chin at the top border: 90 / 0.75 tall
        ([300, 690, 390, 720], "face", [300, 600, 390, 720]),  # a forehead at the bottom border
        ([0, 100, 100, 220], "face", [0, 100, 100, 220]),  # already face-shaped: unchanged
        ([300, 100, 340, 220], "face", [300, 100, 340, 220]),  # thin but not at a border: unchanged
        ([0, 100, 40, 130], "email", [0, 100, 40, 130]),  # no whole-box shape for text
    ],
)
def test_boxes_cut_by_the_frame_border_are_completed_inward(box, cls, expected):
    out = complete_edge_cut(one(box, cls, 0.9), HW, EDGE_ASPECTS)
    np.testing.assert_allclose(out.xyxy[0], expected)
    np.testing.assert_allclose(BoxSanity().apply(one(box, cls, 0.9), HW).xyxy[0], box)  # the detectors complete, not select
