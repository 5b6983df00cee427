import numpy as np
import pytest

from app.core.detections import Detections, Source, concat
from app.core.pipeline import Pipeline
from app.core.policy import PRESETS, Policy

NAMES = ("face", "email", "person_name", "person")


def dets(rows, names=NAMES, source=Source.DETECTOR):
    rows = np.array(rows, np.float32).reshape(-1, 6)
    return Detections(rows[:, :4], rows[:, 4], rows[:, 5].astype(int), names, sources=np.full(len(rows), source))


@pytest.mark.parametrize(
    "policy, expected",
    [
        (Policy(classes=None, conf=0.5), ["face", "email", "person_name", "person"]),
        (Policy(classes=frozenset({"email"}), conf=0.5), ["email"]),
        (Policy(classes=None, conf=0.75), ["face", "person"]),
        (Policy(classes=None, conf=0.5, class_conf={"face": 0.95}), ["email", "person_name", "person"]),
        (Policy.preset("faces"), ["face"]),
        (Policy.preset("screenshots"), ["face", "email", "person_name"]),
    ],
)
def test_policy_selects_by_name_and_threshold(policy, expected):
    d = dets([[0, 0, 5, 5, 0.9, 0], [0, 0, 5, 5, 0.6, 1], [0, 0, 5, 5, 0.7, 2], [0, 0, 5, 5, 0.8, 3]])
    assert policy.select(d).labels == expected


def test_manual_boxes_survive_any_policy():
    d = dets([[0, 0, 5, 5, 0.01, 3]], source=Source.MANUAL)
    assert len(Policy.preset("faces").select(d)) == 1


def test_unknown_preset_lists_choices():
    with pytest.raises(KeyError, match="screenshots"):
        Policy.preset("nope")
    assert PRESETS["everything"] is None


@pytest.mark.parametrize("preset", ["screenshots", "streaming"])
def test_location_indicators_are_hidden_by_default(preset):
    """Signs and numbers that name a street are hidden in photos and streams; documents mode leaves them."""
    for name in ("street_sign", "house_number", "shop_sign", "map_view"):
        assert name in PRESETS[preset]
    assert "shop_sign" not in PRESETS["documents"]


def test_detections_validate_shapes_and_class_range():
    with pytest.raises(ValueError):
        Detections(np.zeros((2, 4)), np.zeros(1), np.zeros(2), NAMES)
    with pytest.raises(ValueError):
        Detections(np.zeros((1, 4)), np.zeros(1), np.array([7]), NAMES)


def test_detections_from_lists_fills_classes_and_source():
    none = Detections.from_lists(("a", "b"), Source.OCR, [], [])
    assert len(none) == 0 and none.class_names == ("a", "b")
    one = Detections.from_lists(("a", "b"), Source.OCR, [np.array([1, 2, 3, 4])], [0.5])
    assert one.labels == ["a"] and one.sources.tolist() == [Source.OCR] and one.xyxy.dtype == np.float32
    two = Detections.from_lists(("a", "b"), Source.FACE, [np.zeros(4), np.ones(4)], [0.1, 0.2], [1, 0])
    assert two.labels == ["b", "a"] and set(two.sources.tolist()) == {Source.FACE}


def test_concat_unifies_class_tables():
    a = dets([[0, 0, 5, 5, 0.9, 1]])
    b = Detections(np.array([[1, 1, 2, 2]]), [0.8], [0], ("license_plate",), sources=[Source.FACE])
    merged = concat([a, b])
    assert merged.labels == ["email", "license_plate"] and merged.sources.tolist() == [0, 1]


class FakeDetector:
    name = "fake"
    class_names = NAMES

    def __init__(self, rows):
        self.rows, self.calls = rows, 0

    def detect(self, frame):
        self.calls += 1
        return dets(self.rows)


def test_pipeline_detects_selects_pads_and_redacts():
    frame = np.full((50, 50, 3), 200, np.uint8)
    det = FakeDetector([[10, 10, 20, 20, 0.9, 1], [30, 30, 40, 40, 0.9, 3]])
    pipe = Pipeline([det], Policy(classes=frozenset({"email"})))
    result = pipe.process(frame)
    assert result.hidden.labels == ["email"] and len(result.raw) == 2
    assert (result.frame[9:21, 9:21] == 0).all()  # padded by ≥ 1 px
    assert (result.frame[30:40, 30:40] == 200).all()
    assert det.calls == 1
    # Re-rendering with another policy reuses the raw detections.
    again = pipe.with_settings(policy=Policy(classes=None)).process(frame, raw=result.raw)
    assert (again.frame[30:40, 30:40] == 0).all() and det.calls == 1


def test_codes_get_a_thin_margin_and_other_boxes_the_full_padding():
    from app.core.redact import RedactionSettings

    names = ("qr_code", "barcode", "email", "face")
    boxes = Detections(np.array([[100, 100, 300, 300]] * 4, np.float32), np.ones(4), np.arange(4), names)
    pipe = Pipeline([], Policy(classes=None))
    grown = pipe.padded(boxes, (1000, 1000)).xyxy[:, 0] - 100  # margin added on the left, px
    assert grown[0] == grown[1] == pytest.approx(-0.15 * 0.2 * 200)  # codes: a fifth of the 15 % (6 px, not 30)
    assert grown[2] == grown[3] == pytest.approx(-0.15 * 200)
    # a user's larger padding grows codes too, in proportion
    wide = pipe.with_settings(redaction=RedactionSettings(padding=0.5)).padded(boxes, (1000, 1000)).xyxy[:, 0] - 100
    assert wide[0] == pytest.approx(-0.5 * 0.2 * 200) and wide[2] == pytest.approx(-0.5 * 200)


class _Named:
    """A fake detector with a name and one box; records the order of calls in ``log``."""

    def __init__(self, name, cls, log):
        self.name, self.class_names, self.log = name, (cls,), log

    def detect(self, frame):
        self.log.append(self.name)
        return Detections(np.array([[1, 1, 5, 5]], np.float32), [0.9], [0], self.class_names)


def test_fast_detectors_answer_first_and_their_boxes_are_offered_before_ocr_runs():
    log, firsts = [], []
    dets = [_Named("ocr", "email", log), _Named("detector", "face", log), _Named("codes", "qr_code", log)]
    pipe = Pipeline(dets)
    found = pipe.detect(np.zeros((8, 8, 3), np.uint8), lambda d: firsts.append((list(log), d.labels)))
    assert log == ["detector", "codes", "ocr"]  # the slow one last
    assert firsts == [(["detector", "codes"], ["face", "qr_code"])]  # offered once, before OCR ran
    assert found.class_names == ("email", "face", "qr_code") and sorted(found.labels) == ["email", "face", "qr_code"]
    firsts.clear()
    Pipeline(dets[1:]).detect(np.zeros((8, 8, 3), np.uint8), firsts.append)
    assert firsts == []  # nothing slow: no preliminary look
