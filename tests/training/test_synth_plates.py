"""Licence-plate styles (training/synth/plates.py): shapes, labels, fitted registrations, blurred plates, determinism."""

from __future__ import annotations

import os

import cv2
import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from training.synth import plates  # noqa: E402
from training.synth.qtkit import ensure_app  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def qt_app():
    return ensure_app()


def _aspect(canvas) -> float:
    img, _ = canvas.finish()
    return img.shape[1] / img.shape[0]


@pytest.mark.parametrize("style, low, high", [(plates.european, 4.0, 5.0), (plates.north_american, 1.9, 2.1),
                                              (plates.two_row, 1.1, 1.5)])  # fmt: skip
def test_styles_have_their_plate_shape(style, low, high):
    assert low <= _aspect(style(np.random.default_rng(3))) <= high


@pytest.mark.parametrize("seed", range(12))
def test_label_covers_the_whole_plate(seed):
    img, labels = plates.license_plate(np.random.default_rng(seed))
    h, w = img.shape[:2]
    assert labels == [("license_plate", (0.0, 0.0, float(w), float(h)))]


def test_registration_stays_inside_the_plate():
    """The characters are fitted to the plate: the rim's inner strip (past the border) holds no dark ink."""
    for seed in range(20):
        img, _ = plates.european(np.random.default_rng(seed)).finish()
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        assert (grey[12:-12, -11:-7] > 100).all(), seed


def test_eu_flag_picks_the_long_plate():
    rng = np.random.default_rng(0)
    for _ in range(6):
        img, _ = plates.license_plate(rng, eu=True)
        assert img.shape[1] / img.shape[0] > 4
        img, _ = plates.license_plate(rng, eu=False)
        assert img.shape[1] / img.shape[0] < 2.2


def test_some_plates_come_blurred():
    sharpness = []
    for seed in range(60):
        img, _ = plates.license_plate(np.random.default_rng(seed), eu=True)
        sharpness.append(cv2.Laplacian(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())
    sharp = np.median(sharpness)
    assert 1 <= sum(s < 0.2 * sharp for s in sharpness) <= 15


def test_same_seed_same_plate():
    a, _ = plates.license_plate(np.random.default_rng(7))
    b, _ = plates.license_plate(np.random.default_rng(7))
    assert np.array_equal(a, b)
