"""UI test fixtures: fake detectors, a window on a temporary QSettings file, no leftover threads."""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np
import pytest
from PySide6.QtCore import QSettings

from app.core.detections import Detections, Source
from app.inference.factory import BuiltDetectors
from app.ui.settings import Preferences
from app.ui.tasks import running_threads

NAMES = ("email", "phone_number", "face")


class CountingDetector:
    """Fake detector: fixed boxes (x0, y0, x1, y1, score, class id), counts ``detect`` calls."""

    name = "detector"
    class_names = NAMES

    def __init__(self, rows=(), fail: bool = False, domains=None) -> None:
        self.rows = np.array(rows, np.float32).reshape(-1, 6)
        self.fail = fail
        self.calls = 0
        self.lock = threading.Lock()
        self.domains = domains or {"onscreen_pii": ("email", "phone_number"), "human_presence": ("face",)}

    def detect(self, frame: np.ndarray) -> Detections:
        with self.lock:
            self.calls += 1
        if self.fail:
            raise RuntimeError("fake detector exploded")
        r = self.rows
        return Detections(r[:, :4], r[:, 4], r[:, 5].astype(int), NAMES, sources=np.full(len(r), Source.DETECTOR))


def factory_for(*detectors):
    return lambda: BuiltDetectors(tuple(detectors), ())


@pytest.fixture
def prefs(tmp_path) -> Preferences:
    return Preferences(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def make_window(qtbot, prefs):
    """Build windows with a given factory; closes them and checks no UI thread survives."""
    from app.ui.app import build_window

    windows = []

    def make(factory, prefs_=None):
        w = build_window(prefs_ or prefs, factory)
        qtbot.addWidget(w)
        w.show()
        windows.append(w)
        qtbot.waitUntil(lambda: w.controller.images.detector_info.message != "Loading the detector…" or w.controller.images.detector_info.ok)
        return w

    yield make
    for w in windows:
        w.close()
    assert running_threads() == []


def write_png(path: Path, w: int = 240, h: int = 160) -> Path:
    """A white image with a grey gradient band, so redaction changes are visible."""
    img = np.full((h, w, 3), 255, np.uint8)
    img[:, :, 1] = np.linspace(120, 250, w, dtype=np.uint8)[None, :]
    cv2.putText(img, "a@b.io", (20, 50), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2)
    cv2.imwrite(str(path), img)
    return path
