"""Photo scenes (training/synth/scenes_*): boxes after warps, camera-look measurement, unknown classes, determinism."""

from __future__ import annotations

import hashlib
import os

import cv2
import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from training.synth import lookmatch, real  # noqa: E402
from training.synth import objects as ob  # noqa: E402
from training.synth import scenes_objects as so  # noqa: E402
from training.synth import scenes_screen as sc  # noqa: E402
from training.synth import scenes_street as ss  # noqa: E402
from training.synth.composite import paste_layer  # noqa: E402
from training.synth.placement import Placed, box_polygon, boxes_of, pose_quad  # noqa: E402
from training.synth.qtkit import ensure_app  # noqa: E402
from training.taxonomy import CLASS_NAMES  # noqa: E402

SCENES = {"street_plates": ss.street_plates, "wall_signs": ss.wall_signs, "blade_signs": ss.blade_signs,
          "distant_cars": ss.distant_cars,
          "table_documents": so.table_documents,
          "held_document": so.held_document, "parcel": so.parcel, "screen_filmed": sc.screen_filmed}
CLEAN = lookmatch.Look(0.4, 0.0, 95, 255.0, 0.0, (1.0, 1.0, 1.0))  # no blur, noise or tint: pixels stay exact
HAS_PACK = bool(real.load_items())


@pytest.fixture(scope="module", autouse=True)
def qt_app():
    return ensure_app()


def _white_bbox(img: np.ndarray):
    ys, xs = np.nonzero(img.max(2) > 127)
    return xs.min(), ys.min(), xs.max() + 1, ys.max() + 1


@pytest.mark.parametrize("yaw, pitch, roll", [(0, 0, 0), (0.7, 0, 0), (0, -0.6, 0.4), (0.5, 0.5, -1.2), (-0.9, 0.3, 2.5)])
def test_label_boxes_follow_the_warped_object(yaw, pitch, roll):
    # a black object with one white field; after a perspective warp the field's box must hold all
    # of the field's pixels and little else, and the object's box must match the object's outline
    obj = np.zeros((200, 400, 3), np.uint8)
    obj[60:100, 150:330] = 255
    labels = [("id_card", (0.0, 0.0, 400.0, 200.0)), ("id_number", (150.0, 60.0, 330.0, 100.0))]
    bg = np.zeros((600, 800, 3), np.uint8)
    quad = pose_quad(400, 200, (400, 300), 420, yaw=yaw, pitch=pitch, roll=roll, distance=2.0)
    img, layer = paste_layer(bg, obj, quad, labels, CLEAN, np.random.default_rng(0))
    boxes = dict(boxes_of([layer], 800, 600))
    ox0, oy0, ox1, oy1 = boxes["id_card"]
    ys, xs = np.nonzero(layer.mask > 127)
    assert abs(ox0 - xs.min()) <= 2 and abs(oy0 - ys.min()) <= 2 and abs(ox1 - xs.max() - 1) <= 2 and abs(oy1 - ys.max() - 1) <= 2
    fx0, fy0, fx1, fy1 = boxes["id_number"]
    wx0, wy0, wx1, wy1 = _white_bbox(img)
    assert fx0 <= wx0 + 1.5 and fy0 <= wy0 + 1.5 and fx1 >= wx1 - 1.5 and fy1 >= wy1 - 1.5  # holds the field
    assert (fx1 - fx0) * (fy1 - fy0) <= 1.1 * (wx1 - wx0) * (wy1 - wy0) + 60  # and is tight around it


def test_boxes_are_clipped_to_the_frame_and_dropped_when_mostly_outside():
    layer = Placed([("receipt", box_polygon((-50, 10, 150, 90))), ("receipt", box_polygon((-150, 10, 20, 90)))],
                   np.zeros((100, 200), np.uint8))
    assert boxes_of([layer], 200, 100) == [("receipt", (0.0, 10.0, 150.0, 90.0))]


def test_labels_under_a_later_layer_are_dropped():
    bottom = Placed([("person_name", box_polygon((10, 10, 60, 30))), ("email", box_polygon((100, 10, 180, 30)))],
                    np.zeros((100, 200), np.uint8))
    thumb = np.zeros((100, 200), np.uint8)
    thumb[0:50, 0:70] = 255  # covers the name entirely
    assert [c for c, _ in boxes_of([bottom, Placed([], thumb)], 200, 100)] == ["email"]


def test_blur_estimate_recovers_a_known_blur():
    img = np.zeros((200, 200), np.float32)
    img[:, 100:] = 200
    img[100:, :] += 40  # two edges
    for sigma in (1.0, 2.0, 3.0):
        got = lookmatch.blur_sigma(cv2.GaussianBlur(img, (0, 0), sigma))
        assert abs(got - sigma) < 0.35 * sigma, (sigma, got)


def test_noise_estimate_recovers_a_known_noise():
    rng = np.random.default_rng(1)
    base = np.tile(np.linspace(40, 200, 300, dtype=np.float32), (300, 1))
    for sigma in (2.0, 6.0):
        got = lookmatch.noise_sigma(base + rng.normal(0, sigma, base.shape).astype(np.float32))
        assert abs(got - sigma) < 0.25 * sigma, (sigma, got)


def test_jpeg_estimate_sees_heavier_compression():
    rng = np.random.default_rng(2)
    img = cv2.GaussianBlur(rng.integers(0, 255, (256, 256, 3), dtype=np.uint8), (0, 0), 2)
    def quality_after(q):
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        return lookmatch.jpeg_quality(cv2.cvtColor(cv2.imdecode(enc, cv2.IMREAD_COLOR), cv2.COLOR_BGR2GRAY).astype(np.float32))
    assert quality_after(10) < quality_after(95)


@pytest.mark.parametrize("name", sorted(SCENES))
def test_scene_is_deterministic_for_a_seed(name):
    def digest(seed):
        img, labels = SCENES[name](np.random.default_rng(seed))
        return hashlib.sha1(img.tobytes()).hexdigest(), labels
    first = digest(4)
    assert digest(4) == first
    if name == "street_plates":
        assert digest(5)[0] != first[0]


@pytest.mark.parametrize("name", sorted(SCENES))
def test_scene_boxes_lie_inside_the_frame(name):
    for seed in range(2):
        img, labels = SCENES[name](np.random.default_rng(seed))
        H, W = img.shape[:2]
        assert labels, (name, seed)
        for cls, (x0, y0, x1, y1) in labels:
            assert cls in CLASS_NAMES
            assert 0 <= x0 < x1 <= W and 0 <= y0 < y1 <= H, (name, cls, (x0, y0, x1, y1))


@pytest.mark.skipif(not HAS_PACK, reason="real pack not present")
def test_new_plates_sit_on_the_real_plates():
    for seed in range(4):
        real.used_backgrounds.clear()
        img, labels = ss.street_plates(np.random.default_rng(seed))
        item, = real.used_backgrounds
        assert item.source == "oi_plates"
        sx, sy = img.shape[1] / 416, img.shape[0] / 416  # the pack stores these photos at 416x416
        for _, b in item.boxes:
            real_box = (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy)
            assert any(c == "license_plate" and min(r[2], real_box[2]) > max(r[0], real_box[0])
                       and min(r[3], real_box[3]) > max(r[1], real_box[1]) for c, r in labels), seed


@pytest.mark.skipif(not HAS_PACK, reason="real pack not present")
def test_distant_cars_put_small_real_plates_at_street_level():
    small = 0
    for seed in range(4):
        real.used_backgrounds.clear()
        img, labels = ss.distant_cars(np.random.default_rng(seed))
        H = img.shape[0]
        sources = [item.source for item in real.used_backgrounds]
        assert sources[0] in ss.STREET_FRONT_SOURCES and set(sources[1:]) <= ss.PLATE_SOURCES, sources
        plates = [b for c, b in labels if c == "license_plate"]
        assert plates and len(sources) > 1, seed  # cars were cut from plate photos, their plates labelled
        for x0, y0, x1, y1 in plates:
            assert y1 > 0.5 * H, (seed, y1, H)  # on the lower half, where the pavement is
        small += sum(x1 - x0 <= ss.FAR_PLATE_PX[1] * 1.1 for x0, _, x1, _ in plates)
    assert small >= 4


@pytest.mark.skipif(not HAS_PACK, reason="real pack not present")
@pytest.mark.parametrize("name, sources", [("street_plates", ss.PLATE_SOURCES), ("wall_signs", ss.WALL_SOURCES)])
def test_composites_record_their_backgrounds_unknown_classes(name, sources):
    from training.synth.dataset import generator_of, render_sample_with_unknown

    real.used_backgrounds.clear()
    SCENES[name](np.random.default_rng(0))
    item, = real.used_backgrounds
    assert item.source in sources and item.split == "train"
    unknown = item.unknown_classes(CLASS_NAMES)
    assert "face" in unknown and not unknown & item.annotated
    # through the dataset writer: a street sample carries its background's unknown classes
    i = next(i for i in range(500) if generator_of(0, i) == "photo_street")
    g, _, _, unk = render_sample_with_unknown(0, i)
    assert g == "photo_street" and real.used_backgrounds
    assert unk == frozenset().union(*(it.unknown_classes(CLASS_NAMES) for it in real.used_backgrounds))
    assert "face" in unk


@pytest.mark.parametrize("seed", range(3))
def test_road_signs_are_drawn_unlabelled_and_clear_of_labelled_boxes(seed):
    from training.synth.composite import Background

    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), 90, np.uint8)
    plate = (300.0, 380.0, 380.0, 410.0)
    bg = Background(img.copy(), [("license_plate", plate)], CLEAN, "test")
    taken = [plate]
    layers = ss.road_signs(bg, taken, rng, 2)
    assert layers and all(not layer.polys for layer in layers)  # nothing labelled
    changed = np.any(bg.img != img, axis=2)
    assert changed.mean() > 0.005  # a pole and a sign were painted
    x0, y0, x1, y1 = (int(v) for v in plate)
    assert not changed[y0:y1, x0:x1].any()  # the labelled plate is untouched
    assert len(taken) == 1 + len(layers) // 2


def test_blade_signs_are_labelled_shop_signs_seen_turned():
    """Projecting signs stand out of the wall, so the photo sees them narrow: tall shop-sign boxes
    (a fascia sign lying on the wall is wide)."""
    from training.synth.generators import GENERATORS

    assert GENERATORS["street_blade_signs"].classes >= {"shop_sign"}
    tall = 0
    for seed in range(6):
        img, labels = ss.blade_signs(np.random.default_rng(seed))
        h, w = img.shape[:2]
        assert labels and all(0 <= b[0] < b[2] <= w and 0 <= b[1] < b[3] <= h for _, b in labels)
        tall += sum(c == "shop_sign" and (b[3] - b[1]) > 1.5 * (b[2] - b[0]) for c, b in labels)
    assert tall >= 3


def test_sign_closeups_are_unlabelled_negatives_filled_by_the_sign():
    from training.synth.dataset import render_sample_with_unknown
    from training.synth.generators import GENERATORS

    assert "sign_closeup" in GENERATORS and not GENERATORS["sign_closeup"].classes
    a, labels = ss.sign_closeup(np.random.default_rng(2))
    b, _ = ss.sign_closeup(np.random.default_rng(2))
    assert labels == [] and np.array_equal(a, b)
    real.used_backgrounds.clear()
    name, img, labels, unknown = render_sample_with_unknown(0, 0, only=frozenset({"sign_closeup"}))
    assert name == "sign_closeup" and labels == [] and unknown == frozenset()  # every class is a known negative


def test_every_road_sign_kind_has_an_outline():
    from training.synth.traffic_signs import KINDS, traffic_sign

    rng, seen = np.random.default_rng(0), set()
    for _ in range(200):
        img, alpha, kind = traffic_sign(rng, 120)
        assert img.shape == (120, 120, 3) and alpha.shape == (120, 120)
        assert 0.25 < (alpha > 0).mean() < 0.98, kind
        seen.add(kind)
    assert seen == set(KINDS)


def test_fully_synthetic_scenes_use_no_real_background():
    for fn in (so.table_documents, so.parcel):
        real.used_backgrounds.clear()
        fn(np.random.default_rng(3))
        assert real.used_backgrounds == []


def test_handwritten_pages_label_only_a_signature_set_apart_from_unlabelled_rows():
    from training.synth.generators import GENERATORS

    assert GENERATORS["handwritten_scan"].classes == frozenset({"signature"})
    signed = unsigned = 0
    for seed in range(12):
        page, labels = ob.obj_handwritten_note(np.random.default_rng(seed))
        assert [c for c, _ in labels] in ([], ["signature"])
        ink = page.min(axis=2) < 140  # pen strokes on paper (ruled lines are lighter)
        outside = ink.copy()
        for _, (x0, y0, x1, y1) in labels:
            outside[int(y0) : int(y1) + 1, int(x0) : int(x1) + 1] = False
            assert ink[: int(y0)].sum() > 5 * ink[int(y0) : int(y1) + 1, int(x0) : int(x1) + 1].sum()  # rows above it
        assert outside.sum() > 2000  # the rows of writing are there, unlabelled
        signed, unsigned = signed + bool(labels), unsigned + (not labels)
    assert signed and unsigned
    img, labels = so.handwritten_scan(np.random.default_rng(3))
    H, W = img.shape[:2]
    assert all(0 <= b[0] < b[2] <= W and 0 <= b[1] < b[3] <= H for _, b in labels)
