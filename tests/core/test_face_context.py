"""Object boxes that a confident face contradicts: prints worn on the torso, objects holding a face;
and the three paths (stills, live's fast tier, export planning) that apply the rule."""

import numpy as np
import pytest

from app.core.detections import Detections, Source, concat
from app.core.face_context import FaceContext, FaceCoverRule, TorsoRule
from app.core.gapfill import ClipMotion
from app.core.pipeline import detect_all
from app.media.video_export import ExportOptions, plan_boxes

NAMES = ("face", "house_number", "shop_sign", "license_plate", "qr_code", "id_card", "payment_card", "barcode")
FACE = [100, 100, 140, 150]  # 40 × 50 px: torso x 60–180, y 137.5–325
ON_TORSO = [95, 200, 145, 240]
AWAY = [400, 200, 450, 240]


def box(cls, xyxy, score=0.6, source=Source.DETECTOR):
    """One detection of class ``cls``."""
    return Detections(np.array([xyxy], np.float32), np.array([score], np.float32),
                      np.array([NAMES.index(cls)], np.int32), NAMES, sources=np.array([source], np.int8))  # fmt: skip


def face(score=0.9, xyxy=FACE):
    """A face detector's face."""
    return box("face", xyxy, score, Source.FACE)


def kept_classes(dets):
    """Class names left, in order."""
    return [NAMES[c] for c in dets.class_ids]


@pytest.mark.parametrize("cls", ["house_number", "shop_sign"])
def test_sign_classes_on_the_torso_under_a_confident_face_are_worn_prints(cls):
    out = FaceContext().apply(concat([face(), box(cls, ON_TORSO)], NAMES))
    assert kept_classes(out) == ["face"]


@pytest.mark.parametrize("cls", ["qr_code", "payment_card", "id_card"])
def test_codes_cards_and_ids_on_the_torso_stay(cls):
    # A badge or a held card is private.
    out = FaceContext().apply(concat([face(), box(cls, ON_TORSO)], NAMES))
    assert kept_classes(out) == ["face", cls]


def test_an_undecoded_code_as_wide_as_the_chest_is_a_print_but_a_badge_sized_or_decoded_one_stays():
    chest_wide = [55, 160, 175, 300]  # 3 face widths: a print on the shirt
    for cls in ("qr_code", "barcode"):
        assert kept_classes(FaceContext().apply(concat([face(), box(cls, chest_wide)], NAMES))) == ["face"], cls
    decoded = box("qr_code", chest_wide, 1.0)  # a code meant to be scanned there decodes
    assert kept_classes(FaceContext().apply(concat([face(), decoded], NAMES))) == ["face", "qr_code"]
    badge = box("qr_code", [105, 200, 135, 230])  # under one face width
    assert kept_classes(FaceContext().apply(concat([face(), badge], NAMES))) == ["face", "qr_code"]
    assert len(FaceContext(codes=None).apply(concat([face(), box("qr_code", chest_wide)], NAMES))) == 2


def test_a_plate_narrower_than_two_faces_on_the_chest_is_a_worn_print_but_not_at_the_hip_or_wider():
    # 1–1.8 face heights below the chin, 1.25 face widths wide: a shirt's print, not a car's plate.
    assert kept_classes(FaceContext().apply(concat([face(), box("license_plate", ON_TORSO)], NAMES))) == ["face"]
    hip = [95, 260, 145, 300]  # 2.2–3 face heights below the chin: a car behind which the person stands
    wide = [50, 190, 170, 240]  # 3 face widths: as wide as a real plate at the person's depth, or nearer
    for xyxy in (hip, wide):
        out = FaceContext().apply(concat([face(), box("license_plate", xyxy)], NAMES))
        assert kept_classes(out) == ["face", "license_plate"], xyxy
    assert len(FaceContext(chest=None).apply(concat([face(), box("license_plate", ON_TORSO)], NAMES))) == 2


def test_weak_faces_manual_boxes_and_boxes_off_the_torso_are_not_judged():
    assert kept_classes(FaceContext().apply(concat([face(0.3), box("house_number", ON_TORSO)], NAMES))) == \
        ["face", "house_number"]  # fmt: skip
    manual = box("house_number", ON_TORSO, source=Source.MANUAL)
    assert len(FaceContext().apply(concat([face(), manual], NAMES))) == 2
    ocr = box("shop_sign", ON_TORSO, source=Source.OCR)  # a sponsor's name read as a shop sign
    assert kept_classes(FaceContext().apply(concat([face(), ocr], NAMES))) == ["face"]
    beside = concat([face(), box("house_number", AWAY), box("house_number", [95, 20, 145, 60])], NAMES)
    assert len(FaceContext().apply(beside)) == 3  # beside the person; above the head


def test_a_faceless_class_holding_most_of_a_face_is_dropped_but_an_id_card_is_not():
    around = [80, 80, 200, 220]
    out = FaceContext().apply(concat([face(), box("qr_code", around), box("id_card", around)], NAMES))
    assert kept_classes(out) == ["face", "id_card"]
    # A decoded code (the decoder's score 1) is a code, whatever fires on its pattern.
    assert kept_classes(FaceContext().apply(concat([face(), box("qr_code", around, 1.0)], NAMES))) == ["face", "qr_code"]
    # A code held in front of the chin covers a third of the face box: kept.
    assert len(FaceContext().apply(concat([face(), box("qr_code", [90, 135, 150, 200])], NAMES))) == 2


def test_rules_can_be_switched_off_and_faces_can_come_from_another_table():
    dets = concat([box("shop_sign", ON_TORSO), box("qr_code", [80, 80, 200, 220])], NAMES)
    assert len(FaceContext().apply(dets)) == 2  # no face in this table
    assert len(FaceContext().apply(dets, face())) == 0
    assert kept_classes(FaceContext(torso=None).apply(dets, face())) == ["shop_sign"]
    assert kept_classes(FaceContext(cover=None).apply(dets, face())) == ["qr_code"]


def test_torso_scales_with_the_face():
    rule = TorsoRule()
    small, large = rule.torsos(np.array([[0, 0, 10, 10], [0, 0, 100, 100]], np.float32))
    assert np.allclose(large[[0, 2]] - 50, 10 * (small[[0, 2]] - 5))
    assert small[1] < 10 < small[3] and large[3] == pytest.approx(100 + 350)
    assert FaceCoverRule().judged(np.array([[0, 0, 10, 10]], np.float32), np.zeros((0, 4), np.float32)).tolist() == [False]


class Fixed:
    """A detector returning fixed detections."""

    def __init__(self, name, dets):
        self.name, self.dets = name, dets

    @property
    def class_names(self):
        return NAMES

    def detect(self, frame):
        return self.dets


def test_still_image_fusion_drops_what_the_face_detector_contradicts():
    frame = np.zeros((400, 600, 3), np.uint8)
    fused = detect_all([Fixed("detector", box("house_number", ON_TORSO)), Fixed("faces", face())], frame)
    assert kept_classes(fused) == ["face"]


def test_export_planning_judges_the_fast_tier_by_the_quick_looks_faces():
    hw, n = (400, 600), 12
    hits = {f: box("shop_sign", ON_TORSO) for f in range(0, n, 2)}
    faces = {f: face() for f in range(0, n, 2)}
    options = ExportOptions(stride=2, full_look_every=2)
    plan = plan_boxes(hits, {}, n, hw, 30.0, NAMES, options, ClipMotion.still(n), faces)
    assert all(kept_classes(p) == ["face"] for p in plan)
    without_faces = plan_boxes(hits, {}, n, hw, 30.0, NAMES, options, ClipMotion.still(n), {})
    assert all("shop_sign" in kept_classes(p) for p in without_faces)
    # OCR's shop signs (read every 6th frame here) are judged by the faces of their frame too.
    read = {f: box("shop_sign", ON_TORSO, 0.9, Source.OCR) for f in range(0, n, 6)}
    plan = plan_boxes({}, read, n, hw, 30.0, NAMES, options, ClipMotion.still(n), faces)
    assert all(kept_classes(p) == ["face"] for p in plan)


def test_export_planning_judges_held_boxes_by_the_faces_of_the_frames_they_are_held_on():
    # A "house number" seen on the first two detector frames, before the face was found, is held
    # for a second afterwards; from frame 4 on the face is seen and the held box sits on its torso.
    hw, n, pan = (400, 600), 30, 3.0  # the picture pans 3 px a frame to the right
    motion = ClipMotion(np.array([[pan * f, 0.0] for f in range(n)], np.float32), np.zeros(n))
    moved = lambda xyxy, f: [xyxy[0] + pan * f, xyxy[1], xyxy[2] + pan * f, xyxy[3]]  # noqa: E731
    hits = {f: box("house_number", moved(ON_TORSO, f), 0.3) for f in (0, 2)}
    hits.update({f: box("face", moved(FACE, f), 0.9, Source.FACE) for f in range(4, n, 2)})
    options = ExportOptions(stride=2, full_look_every=1)
    plan = plan_boxes(hits, {}, n, hw, 30.0, NAMES, options, motion)
    assert all("house_number" in kept_classes(plan[f]) for f in (0, 1, 2, 3))
    assert all("house_number" not in kept_classes(plan[f]) for f in range(4, n))
    # without the face the box is held as before
    blind = plan_boxes({f: hits[f] for f in (0, 2)}, {}, n, hw, 30.0, NAMES, options, motion)
    assert all("house_number" in kept_classes(blind[f]) for f in range(4, 10))  # two hits: held 8 frames


def test_live_fast_tier_drops_a_worn_print_and_keeps_the_face():
    from app.core.live import LiveMasker, LiveOptions
    from app.core.pipeline import Pipeline
    from app.core.policy import Policy

    det = Fixed("detector", concat([face(), box("shop_sign", ON_TORSO)], NAMES))
    opts = LiveOptions(deadline_s=1.0, optical_flow=False, banner=False)
    with LiveMasker(Pipeline([det], Policy(classes=None)), opts) as m:
        m.process(np.full((400, 600, 3), 200, np.uint8))
        assert m.wait_ready(10.0)
        out = m.process(np.full((400, 600, 3), 200, np.uint8))
    assert out.protected
    assert out.frame[125, 120].max() == 0  # the face is hidden
    assert out.frame[225, 100].min() == 200  # the shirt print is not


def test_a_held_box_that_a_new_look_contradicts_ends_its_track():
    from app.core.tracking import PrivacyTracker, TrackerSettings

    frame = np.full((400, 600, 3), 200, np.uint8)
    for release in (False, True):
        tracker = PrivacyTracker(TrackerSettings(hold=30, optical_flow=False), NAMES)
        for _ in range(2):  # a "house number" seen while the player looked away
            tracker.update(box("house_number", ON_TORSO, 0.3), frame)
        look = face()  # then the face is found, and the house number no longer
        out = tracker.update(look, frame)
        if release:
            out = FaceContext().release_held(tracker, out, look)
        after = tracker.update(None, frame)
        assert ("house_number" in kept_classes(out)) is not release
        assert ("house_number" in kept_classes(after)) is not release  # the track ended, not just hidden once
        assert "face" in kept_classes(out)


class Looks:
    """A detector whose ``detect`` returns ``looks[k]`` on its k-th call (the last one after)."""

    name = "detector"

    def __init__(self, looks):
        self.looks, self.calls = looks, 0

    @property
    def class_names(self):
        return NAMES

    def detect(self, frame):
        self.calls += 1
        return self.looks[min(self.calls, len(self.looks)) - 1]


def test_live_drops_a_held_worn_print_once_the_face_is_found():
    from app.core.live import LiveMasker, LiveOptions
    from app.core.pipeline import Pipeline
    from app.core.policy import Policy

    det = Looks([box("shop_sign", ON_TORSO), face()])  # the face is found on the second look only
    opts = LiveOptions(deadline_s=5.0, optical_flow=False, banner=False, hold_s=30.0)
    frame = np.full((400, 600, 3), 200, np.uint8)
    with LiveMasker(Pipeline([det], Policy(classes=frozenset({"shop_sign"}))), opts) as m:  # faces shown
        m.process(frame)
        assert m.wait_results(1, 10.0)
        first = m.process(frame)
        assert m.wait_results(2, 10.0)
        m.process(frame)
        out = m.process(frame)
    assert first.frame[225, 100].max() == 0  # held from the first look
    assert out.protected and out.frame[225, 100].min() == 200  # the face's look released it
