"""Tests for the synthetic data engine (training/synth): determinism, label fidelity, CLI errors."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from training.synth import cli  # noqa: E402
from training.synth.dataset import _clip, render_sample, split_of, yolo_lines  # noqa: E402
from training.synth.generators import GENERATORS  # noqa: E402
from training.synth.qtkit import Canvas, ensure_app, make_font  # noqa: E402
from training.taxonomy import CLASS_NAMES, TEXT_CLASSES  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def qt_app():
    return ensure_app()


def _digest(seed: int, i: int):
    name, img, labels = render_sample(seed, i)
    return name, hashlib.sha1(img.tobytes()).hexdigest(), yolo_lines(labels, img.shape[1], img.shape[0])


@pytest.mark.parametrize("i", [0, 3, 7])
def test_same_seed_gives_identical_image_and_labels(i):
    assert _digest(5, i) == _digest(5, i)


def test_different_seed_changes_output():
    assert _digest(1, 0)[1] != _digest(2, 0)[1]


def test_split_is_deterministic_and_roughly_85_10_5():
    splits = [split_of(0, i) for i in range(2000)]
    assert splits == [split_of(0, i) for i in range(2000)]
    frac = splits.count("train") / len(splits)
    assert 0.8 < frac < 0.9 and splits.count("test") > 0


def test_canvas_span_box_covers_only_the_pii_ink():
    c = Canvas(400, 60, "#ffffff")
    c.spans(10, 10, [("Email: ", None), ("bob@example.com", "email")], make_font("DejaVu Sans", 16), "#000000")
    img, labels = c.finish()
    (cls, (x0, y0, x1, y1)), = labels
    assert cls == "email"
    ink_cols = np.nonzero((img[:, :, 0] < 128).any(0))[0]
    # "Email: " lies left of the box; the box ends at the last ink column.
    assert x0 > ink_cols.min() + 30 and abs(x1 - (ink_cols.max() + 1)) <= 2


@pytest.mark.parametrize("name", ["mobile_chat", "mobile_contacts", "browser", "terminal", "password_manager", "widget_form"])
def test_text_labels_lie_on_drawn_ink(name):
    gen = GENERATORS[name]
    checked = 0
    for seed in range(2):
        img, labels = gen.fn(np.random.default_rng(seed))
        for cls, (x0, y0, x1, y1) in labels:
            if cls not in TEXT_CLASSES or cls == "chat_message" or cls == "notification":
                continue
            xi0, yi0, xi1, yi1 = int(x0), int(y0), int(np.ceil(x1)), int(np.ceil(y1))
            patch = img[yi0:yi1, xi0:xi1].astype(int)
            ring = np.concatenate([img[max(0, yi0 - 2), xi0:xi1], img[min(img.shape[0] - 1, yi1 + 1), xi0:xi1]]).astype(int)
            bg = np.median(ring, axis=0)
            ink = np.abs(patch - bg).max(2) > 40
            assert ink.any(), (name, cls)
            ys, xs = np.nonzero(ink)
            ink_area = (xs.max() - xs.min() + 1) * (ys.max() - ys.min() + 1)
            assert (xi1 - xi0) * (yi1 - yi0) <= 1.6 * ink_area + 40, (name, cls, (x0, y0, x1, y1))
            checked += 1
    assert checked > 0


def test_each_generator_labels_what_it_claims():
    for g in GENERATORS.values():
        seen: set[str] = set()
        for seed in range(32):  # at least 12 scenes; rare classes (an ID card among table documents) may need more
            _, labels = g.fn(np.random.default_rng(seed))
            seen |= {c for c, _ in labels}
            if seed >= 11 and g.classes <= seen:
                break
        assert g.classes <= seen, (g.name, sorted(g.classes - seen))
        assert seen <= set(CLASS_NAMES)


def test_generators_render_no_faces_or_people():
    claimed = set().union(*(g.classes for g in GENERATORS.values()))
    assert not claimed & {"face", "person"}


def test_clip_drops_mostly_cut_boxes():
    labels = [("email", (-70.0, 0.0, 30.0, 10.0)), ("email", (-10.0, 0.0, 90.0, 10.0)), ("email", (0.0, 0.0, 2.0, 2.0))]
    assert _clip(labels, 640, 640, 0, 0) == [("email", (0.0, 0.0, 90.0, 10.0))]


@pytest.mark.parametrize("args, msg", [
    (["--images", "0"], "--images must be > 0"),
    (["--images", "-3"], "--images must be > 0"),
    (["--images", "2", "--classes", "email,not_a_class"], "unknown class name"),
    (["--images", "2", "--generators", "browser,no_such_scene"], "unknown generator"),
])
def test_bad_arguments_fail_clearly(tmp_path, capsys, args, msg):
    assert cli.main(["--out", str(tmp_path / "o"), *args]) != 0
    assert msg in capsys.readouterr().err


def test_a_tiles_only_top_up_needs_no_synthetic_crops(tmp_path):
    a = cli.parse(["--out", str(tmp_path / "o"), "--images", "0", "--no-real", "--real-tiles"])
    assert a.images == 0 and a.real_tiles and a.no_real


def test_unwritable_output_folder_fails_clearly(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert cli.main(["--out", str(blocker / "sub"), "--images", "2"]) != 0
    assert "cannot write" in capsys.readouterr().err


def test_generator_filter_renders_only_the_named_scenes():
    from training.synth.dataset import generator_of

    only = frozenset({"terminal", "mobile_2fa"})
    assert {generator_of(5, i, None) for i in range(40)} - only, "unfiltered draws should include other scenes"
    from training.synth.dataset import pick_generator

    drawn = {pick_generator(np.random.default_rng([5, i]), None, only).name for i in range(40)}
    assert drawn == only


def test_end_to_end_tiny_dataset(tmp_path):
    out = tmp_path / "ds"
    assert cli.main(["--out", str(out), "--images", "4", "--seed", "3", "--workers", "1", "--no-real", "--classes", "email,phone_number"]) == 0
    yaml = (out / "data.yaml").read_text()
    assert f"path: {out.resolve()}" in yaml and "real_test: images/real_test" in yaml
    assert all(f"{i}: {n}" in yaml for i, n in enumerate(CLASS_NAMES))
    files = list((out / "labels").rglob("*.txt"))
    assert len(files) == 4
    for f in files:
        for ln in f.read_text().splitlines():
            k, *v = ln.split()
            assert CLASS_NAMES[int(k)] in ("email", "phone_number")
            assert all(0.0 <= float(x) <= 1.0 for x in v)
    assert (out / "README.md").exists() and (out / "contact_sheet.png").exists()


def test_real_pack_holds_out_about_a_fifth_per_source():
    from training.synth import real

    items = real.load_items()
    if not items:
        pytest.skip("real pack not present")
    for src in {i.source for i in items}:
        mine = [i for i in items if i.source == src]
        held = sum(i.split == "real_test" for i in mine)
        assert 0.15 <= held / len(mine) <= 0.25, src
    assert real.load_items() == items
    rng = np.random.default_rng(0)
    assert all(real.random_train_item(rng).split == "train" for _ in range(50))


def test_worker_count_does_not_change_output(tmp_path):
    def files(out):
        return {p.relative_to(out).as_posix(): hashlib.sha1(p.read_bytes()).hexdigest()
                for p in sorted(out.rglob("s*")) if p.is_file()}

    common = ["--images", "3", "--seed", "11", "--no-real"]
    assert cli.main(["--out", str(tmp_path / "a"), "--workers", "1", *common]) == 0
    assert cli.main(["--out", str(tmp_path / "b"), "--workers", "2", *common]) == 0
    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert len(a) == 6 and a == b


def test_fake_card_numbers_pass_the_luhn_check():
    from app.core.pii_validators import luhn_valid
    from training.synth.fakedata import card_number

    rng = np.random.default_rng(1)
    numbers = [card_number(rng) for _ in range(100)]
    assert all(luhn_valid(n) and len(n.replace(" ", "")) == 16 for n in numbers)


def _fake_real_pack(tmp_path, monkeypatch, names, hw, plate) -> None:
    """A real pack of grey photos ``names`` (train, real_test), each with one labelled plate."""
    import cv2

    from training.synth import real

    photo = tmp_path / "src"
    photo.mkdir()
    items = []
    for name, split in zip(names, ("train", "real_test")):
        path = photo / f"{name}.jpg"
        cv2.imwrite(str(path), np.full((*hw, 3), 128, np.uint8))
        items.append(real.RealItem(path, "plates_src", (("license_plate", plate),), split, frozenset({"license_plate"})))
    monkeypatch.setattr(real, "load_items", lambda: tuple(items))


def test_real_train_photos_are_repeated_and_real_test_is_not(tmp_path, monkeypatch):
    from training.synth import dataset

    _fake_real_pack(tmp_path, monkeypatch, ("plate1", "plate2"), (40, 80), (10.0, 10.0, 50.0, 30.0))
    out = tmp_path / "ds"
    for kind in ("images", "labels"):
        for split in ("train", "real_test"):
            (out / kind / split).mkdir(parents=True)
    stats = dataset.Stats()
    assert dataset.add_real(out, stats, None, repeat=3) == 2
    train = sorted(p.stem for p in (out / "images" / "train").iterdir())
    assert train == ["real_plate1", "real_plate1_x1", "real_plate1_x2"]
    assert [p.stem for p in (out / "images" / "real_test").iterdir()] == ["real_plate2"]
    labels = {(out / "labels" / "train" / f"{s}.txt").read_text() for s in train}
    assert len(labels) == 1 and labels.pop().startswith(f"{dataset.class_id('license_plate')} ")
    assert stats.real_images == {"train": 3, "real_test": 1} and stats.real_boxes["license_plate"] == 3
    assert {"real_plate1_x1", "real_plate1_x2"} <= set(stats.unknown)  # copies keep their partial labels


def test_real_train_photos_are_also_tiled_as_the_app_reads_them(tmp_path, monkeypatch):
    """A 400x300 photo is read enlarged 2.56x (to 1024 px) and cut into 640-px tiles: the tiles
    hold its plate at that scale, labelled in tile pixels; real_test photos are never tiled."""
    import cv2

    from training.synth import dataset

    _fake_real_pack(tmp_path, monkeypatch, ("street1", "street2"), (300, 400), (20.0, 30.0, 60.0, 42.0))
    out = tmp_path / "ds"
    for kind in ("images", "labels"):
        (out / kind / "train").mkdir(parents=True)
    stats = dataset.Stats()
    written = dataset.add_real_tiles(out, stats, None, imgsz=640)
    tiles = sorted((out / "images" / "train").iterdir())
    assert written == len(tiles) == stats.real_tiles == 4  # 1024x768: 2x2 tiles
    assert all(p.stem.startswith("realtile_street1_t") for p in tiles)
    first = cv2.imread(str(tiles[0]))
    assert first.shape == (640, 640, 3)
    rows = (out / "labels" / "train" / "realtile_street1_t0.txt").read_text().split()
    cls, cx, cy, w, h = int(rows[0]), *map(float, rows[1:5])
    assert cls == dataset.class_id("license_plate")
    assert (cx * 640, cy * 640, w * 640, h * 640) == pytest.approx((40 * 2.56, 36 * 2.56, 40 * 2.56, 12 * 2.56), abs=0.5)
    assert stats.real_boxes["license_plate"] == 1  # the other tiles do not hold it
    assert "realtile_street1_t3" in stats.unknown  # tiles keep the photo's partial labels


def test_synthetic_signatures_loop_like_handwriting():
    """Most rendered signatures are joined-up loops: in many of their columns the stroke is met
    more than once, as in real handwriting (a wave or a chart's line is met once)."""
    from training.synth.objects import signature

    looped = 0
    for seed in range(10):
        c = Canvas(320, 110, "#f4f4f0")
        signature(c, 20, 20, 280, 70, np.random.default_rng(seed))
        img, labels = c.finish()
        assert [name for name, _ in labels] == ["signature"]
        ink = img[..., :3].mean(2) < 150
        starts = (np.diff(ink.astype(np.int8), axis=0) == 1).sum(0)
        looped += float((starts[starts > 0] >= 2).mean()) >= 0.4
    assert looped >= 5
