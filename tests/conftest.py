"""Test-wide setup: headless Qt, offline ultralytics settings inside the repo."""

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "0")
os.environ.setdefault("YOLO_CONFIG_DIR", str(Path(__file__).resolve().parents[1] / ".yolo"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pytest  # noqa: E402


def _restore_pil_open() -> None:
    # ultralytics monkey-patches PIL.Image.open on import (to lazily install a HEIF plugin). The app
    # never imports ultralytics, but training tests share this process; undo it for app tests.
    patches = sys.modules.get("ultralytics.utils.patches")
    if patches is not None and hasattr(patches, "_image_open"):
        from PIL import Image

        Image.open = patches._image_open


@pytest.fixture(autouse=True)
def _no_ultralytics_pil_patch():
    _restore_pil_open()
    yield
    _restore_pil_open()
