"""Tests for the card-like UI scene (training/synth/screens_cards.py): negatives for payment cards & co."""

from __future__ import annotations

import hashlib
import json
import os
import re

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from training.synth import cli  # noqa: E402
from training.synth import screens_cards as sc  # noqa: E402
from training.synth.dataset import render_sample_with_unknown  # noqa: E402
from training.synth.generators import GENERATORS  # noqa: E402
from training.synth.qtkit import Canvas, ensure_app  # noqa: E402
from training.synth.ui import theme  # noqa: E402
from training.taxonomy import CLASS_NAMES, class_id  # noqa: E402

ONLY = frozenset({"screens_cards"})
# Look-alikes drawn on these pages that must train as background, never as positives.
ABSENT = {"payment_card", "id_card", "passport", "verification_code", "house_number", "license_plate", "qr_code",
          "barcode", "receipt", "ticket", "shipping_label", "street_sign", "shop_sign", "card_number", "face", "person"}


@pytest.fixture(scope="module", autouse=True)
def qt_app():
    return ensure_app()


@pytest.fixture(scope="module")
def pages():
    return [sc.render_cards_page(np.random.default_rng(seed)) for seed in range(6)]


def test_registered_with_the_classes_it_labels():
    g = GENERATORS["screens_cards"]
    assert g.fn is sc.render_cards_page and g.classes == sc.CARDS_CLASSES
    assert not g.classes & ABSENT


def test_pages_label_no_payment_card_and_nothing_outside_their_classes(pages):
    labelled = {c for _, labels in pages for c, _ in labels}
    assert labelled, "the pages should hold some labelled PII (names, avatars)"
    assert labelled <= sc.CARDS_CLASSES
    assert "payment_card" not in labelled


def test_name_and_email_boxes_lie_on_text_ink(pages):
    checked = 0
    for img, labels in pages:
        for cls, (x0, y0, x1, y1) in labels:
            if cls not in {"person_name", "username", "email"}:
                continue
            patch = img[int(y0):int(np.ceil(y1)), int(x0):int(np.ceil(x1))].astype(int)
            assert patch.size and (np.abs(patch - np.median(patch.reshape(-1, 3), 0)).max(2) > 40).any(), cls
            assert y1 - y0 < 60, (cls, y1 - y0)  # a text line, not a card
            checked += 1
    assert checked > 3


def test_same_seed_gives_identical_scene_and_different_seed_does_not():
    def digest(seed):
        img, labels = sc.render_cards_page(np.random.default_rng(seed))
        return hashlib.sha1(img.tobytes()).hexdigest(), labels

    assert digest(11) == digest(11)
    assert digest(11)[0] != digest(12)[0]


def test_sample_is_deterministic_and_all_classes_are_known():
    a = render_sample_with_unknown(4, 2, 640, None, ONLY)
    b = render_sample_with_unknown(4, 2, 640, None, ONLY)
    assert a[0] == "screens_cards" and a[2] == b[2] and a[1].tobytes() == b[1].tobytes()
    assert a[3] == frozenset(), "no real background: every class is known, so absent ones train as negatives"


def test_rendered_dataset_marks_payment_card_known_absent(tmp_path):
    out = tmp_path / "ui"
    assert cli.main(["--out", str(out), "--images", "6", "--seed", "2", "--workers", "1", "--no-real",
                     "--generators", "screens_cards"]) == 0
    partial = json.loads((out / "partial_labels.json").read_text())
    stems = [p.stem for p in (out / "images").rglob("*.jpg")]
    assert len(stems) == 6
    # An image missing from partial_labels.json has every class known: its unlabelled classes are negatives.
    assert not any(s in partial for s in stems)
    ids = {int(line.split()[0]) for p in (out / "labels").rglob("*.txt") for line in p.read_text().splitlines()}
    assert class_id("payment_card") not in ids
    assert ids <= {class_id(c) for c in sc.CARDS_CLASSES}


def test_loyalty_card_is_card_shaped_artwork_without_a_label():
    th = theme(np.random.default_rng(0), dark=False)
    c = Canvas(500, 300, th.bg)
    sc.loyalty_card(c, 20, 20, 460, 260, th, np.random.default_rng(1))
    img, labels = c.finish()
    assert labels == []
    ys, xs = np.nonzero((np.abs(img.astype(int) - img[0, 0].astype(int)).max(2) > 30))
    w, h = xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
    assert abs(w / h - 1.586) < 0.05, (w, h)


def test_big_numbers_never_look_like_codes():
    rng = np.random.default_rng(0)
    for _ in range(300):
        s = sc.big_number(rng)
        assert not re.search(r"\d{4,}", s), s  # no run that could pass for a one-time code or PIN


def test_every_absent_class_is_a_taxonomy_class():
    assert ABSENT <= set(CLASS_NAMES)


@pytest.mark.parametrize("seed", range(4))
def test_keyboard_covers_the_bottom_and_forgets_the_labels_under_it(seed):
    from training.synth.ui import keyboard

    c = Canvas(390, 844, "#ffffff")
    c.label("person_name", (20, 780, 200, 800))  # under the keyboard: hidden, so no longer a positive
    c.label("username", (20, 100, 200, 120))  # above it: kept
    top = keyboard(c, 390, 844, theme(np.random.default_rng(seed)), np.random.default_rng(seed))
    img, labels = c.finish()
    assert 844 * 0.6 <= top <= 844 * 0.72
    assert [cls for cls, _ in labels] == ["username"]
    under = img[int(top) + 4:, :]
    assert (np.abs(under.astype(int) - 255).sum(axis=2) > 30).mean() > 0.2  # keys and panel were drawn
    assert (img[: int(top) - 1] == 255).all()  # nothing is drawn above the keyboard
