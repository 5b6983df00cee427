"""The review step (issue 16): a calm canvas, adding boxes by dragging, scoped banners, saving
without friction, a window that fits the screen, and an honest Live tab."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QFontMetrics, QGuiApplication

from app.core.detections import Source
from app.media.image_io import read_image
from app.media.sources import camera_indices
from app.media.video_synthetic import SyntheticSource
from app.ui.document import DocStatus
from app.ui.live_view import live_sources, pause_text
from app.ui.live_worker import LiveConfig
from app.ui.main_window import fit_to_screen
from app.ui.messages import Level
from app.ui.policy_panel import LOADING_TEXT, NO_DETECTOR_TEXT, PolicyPanel
from app.ui.qt_image import bgr_to_qimage
from app.ui.settings import RedactionChoice

from conftest import CountingDetector, factory_for, write_png

# Two e-mails (hidden), one 0.3 phone number: a candidate once the threshold is 0.5.
ROWS = [(20, 20, 80, 60, 0.9, 0), (150, 90, 220, 140, 0.8, 0), (100, 20, 130, 40, 0.3, 1)]


@pytest.fixture
def image(tmp_path) -> Path:
    return write_png(tmp_path / "shot.png")


def ready(window, count=1):
    docs = window.controller.images.documents
    return len(docs) >= count and all(d.status in (DocStatus.READY, DocStatus.SAVED, DocStatus.ERROR) for d in docs)


def opened(make_window, qtbot, paths, rows=ROWS, conf=0.5):
    w = make_window(factory_for(CountingDetector(rows)))
    w.controller.images.set_choice(RedactionChoice(conf=conf, padding=0.0))
    w.controller.images.open_paths(paths)
    qtbot.waitUntil(lambda: ready(w, len(paths)))
    return w, w.controller.images, w.views["Images"]


def drag(qtbot, canvas, a: tuple[float, float], b: tuple[float, float], modifier=Qt.KeyboardModifier.NoModifier):
    start, end = canvas.mapFromScene(QPointF(*a)), canvas.mapFromScene(QPointF(*b))
    qtbot.mousePress(canvas.viewport(), Qt.MouseButton.LeftButton, modifier, start)
    qtbot.mouseMove(canvas.viewport(), QPoint((start.x() + end.x()) // 2, (start.y() + end.y()) // 2))
    qtbot.mouseMove(canvas.viewport(), end)
    qtbot.mouseRelease(canvas.viewport(), Qt.MouseButton.LeftButton, modifier, end)


# ----- 1. clutter ----------------------------------------------------------------------------------
def test_below_threshold_candidates_are_invisible_unless_asked_for(make_window, image, qtbot):
    w, c, view = opened(make_window, qtbot, [image])
    doc = c.current
    phone = doc.boxes[2]
    assert phone.id not in doc.hidden_ids(c.choice.policy())
    assert not view.canvas.box_item(phone.id).isVisible()
    assert view.canvas.box_item(doc.boxes[0].id).isVisible()
    assert view.canvas.label_rect_px(phone.id) is None
    assert "2 hidden" in view.summary.text() and "1 not hidden" in view.summary.text()
    view.act_candidates.setChecked(True)
    assert view.canvas.box_item(phone.id).isVisible()
    view.act_candidates.setChecked(False)
    assert not view.canvas.box_item(phone.id).isVisible()


def test_labels_never_overlap_and_stay_inside_the_image(make_window, tmp_path, qtbot):
    # 48 touching boxes in a 240×160 image (a contact list's A–Z index), some at the right and top edges.
    rows = [(x, y, x + 30, y + 12, 0.9, 0) for x, y in itertools.product(range(0, 240, 30), range(0, 160, 27))]
    w, c, view = opened(make_window, qtbot, [write_png(tmp_path / "dense.png")], rows=rows, conf=0.25)
    canvas = view.canvas
    for zoom in (1.0, 2.5, 0.6):
        canvas.set_zoom(zoom)
        image_px = canvas.image_rect_px().adjusted(-0.5, -0.5, 0.5, 0.5)
        shown = [r for r in (canvas.label_rect_px(b.id) for b in c.current.boxes) if r is not None]
        assert shown, "at least some tags are shown"
        for a, b in itertools.combinations(shown, 2):
            assert not a.intersected(b).adjusted(0.5, 0.5, -0.5, -0.5).isValid(), (zoom, a, b)
        assert all(image_px.contains(r) for r in shown), zoom
    view.act_labels.setChecked(False)
    assert all(canvas.label_rect_px(b.id) is None for b in c.current.boxes)


def test_a_tag_hidden_for_lack_of_room_shows_on_selection(make_window, tmp_path, qtbot):
    rows = [(10, 10 + 3 * i, 200, 12 + 3 * i, 0.9, 0) for i in range(5)]  # stacked lines
    w, c, view = opened(make_window, qtbot, [write_png(tmp_path / "s.png")], rows=rows, conf=0.25)
    view.canvas.set_zoom(1.0)
    missing = [b.id for b in c.current.boxes if view.canvas.label_rect_px(b.id) is None]
    assert missing
    view.canvas.select_boxes([missing[0]])
    view.canvas.layout_labels()
    assert view.canvas.label_rect_px(missing[0]) is not None


# ----- 2. adding a box is the obvious gesture ------------------------------------------------------
def test_drag_over_a_hidden_candidate_adds_a_box(make_window, image, qtbot):
    w, c, view = opened(make_window, qtbot, [image])
    doc, canvas = c.current, view.canvas
    canvas.set_zoom(1.0)
    phone = doc.boxes[2]
    drag(qtbot, canvas, (105, 25), (160, 75))  # starts inside the invisible 0.3 candidate
    manual = [b for b in doc.boxes if b.source is Source.MANUAL]
    assert len(manual) == 1 and abs(manual[0].xyxy[0] - 105) <= 2 and abs(manual[0].xyxy[3] - 75) <= 2
    assert doc.box(phone.id).xyxy == phone.xyxy


def test_drag_on_an_unselected_box_adds_click_selects_then_drag_moves(make_window, image, qtbot):
    w, c, view = opened(make_window, qtbot, [image])
    doc, canvas = c.current, view.canvas
    canvas.set_zoom(1.0)
    email = doc.boxes[0]  # (20, 20)–(80, 60), hidden
    drag(qtbot, canvas, (30, 30), (70, 55))
    assert doc.box(email.id).xyxy == email.xyxy
    assert [b.source for b in doc.boxes].count(Source.MANUAL) == 1
    view.act_undo.trigger()
    point = canvas.mapFromScene(QPointF(50, 50))
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert canvas.selected_ids() == [email.id]
    drag(qtbot, canvas, (50, 50), (60, 55))
    assert doc.box(email.id).xyxy == (30.0, 25.0, 90.0, 65.0)
    assert all(b.source is not Source.MANUAL for b in doc.boxes)


def test_shortcuts_dialog_text_is_not_cut_off(make_window, qtbot):
    w = make_window(factory_for(CountingDetector([])))
    dialog = w.show_shortcuts()
    qtbot.waitExposed(dialog)
    table = dialog.table
    metrics = QFontMetrics(table.font())
    for r in range(table.rowCount()):
        item = table.item(r, 1)
        cell = table.visualItemRect(item)
        needed = metrics.boundingRect(QRect(0, 0, cell.width() - 8, 10_000), Qt.TextFlag.TextWordWrap, item.text())
        assert cell.height() >= needed.height(), item.text()
    assert any("Drag anywhere" in table.item(r, 0).text() for r in range(table.rowCount()))
    dialog.close()


# ----- 3. banners ------------------------------------------------------------------------------------
def test_banner_belongs_to_its_image_and_tab(make_window, image, tmp_path, qtbot):
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    w, c, view = opened(make_window, qtbot, [bad, image])
    broken, good = c.documents
    c.set_current(broken)
    assert "broken.png" in view.message_bar.text
    c.set_current(good)
    assert view.message_bar.text == ""  # not carried over to another image
    c.set_current(broken)
    assert "broken.png" in view.message_bar.text
    w.show_view("Video")
    assert w.message_bar.text == ""  # nor to another tab
    w.show_view("Images")
    assert "broken.png" in w.message_bar.text
    view.message_bar.close_button.click()  # dismissed: it does not come back
    c.set_current(good)
    c.set_current(broken)
    assert view.message_bar.text == ""


def test_error_banner_clears_when_the_save_succeeds(make_window, image, tmp_path, qtbot):
    w, c, view = opened(make_window, qtbot, [image])
    doc = c.current
    (tmp_path / "file").write_text("x")
    with qtbot.waitSignal(c.notice, check_params_cb=lambda d, level, text: level == "error"):
        c.save(doc, folder=tmp_path / "file")  # a file, not a folder: the write fails
    assert view.message_bar.text and view.message_bar.level is Level.ERROR
    with qtbot.waitSignal(c.notice, check_params_cb=lambda d, level, text: level == "saved"):
        c.save(doc)
    assert view.message_bar.text == ""


def test_banner_floats_and_never_moves_the_controls(make_window, image, qtbot):
    w, c, view = opened(make_window, qtbot, [image])
    before = (view.canvas.mapTo(w, QPoint(0, 0)), view.canvas.size(), w.tabs.geometry())
    view.message_bar.show_message("something went wrong", Level.ERROR)
    w.model_banner.show_message("no model", Level.WARNING)
    qtbot.wait(1)  # let the layout run
    assert (view.canvas.mapTo(w, QPoint(0, 0)), view.canvas.size(), w.tabs.geometry()) == before
    view.message_bar.close_button.click()
    qtbot.wait(1)
    assert view.message_bar.text == ""
    assert (view.canvas.mapTo(w, QPoint(0, 0)), view.canvas.size(), w.tabs.geometry()) == before


# ----- 4. saving -----------------------------------------------------------------------------------
def test_ctrl_s_on_a_pasted_image_asks_where_to_save(make_window, tmp_path, qtbot, monkeypatch):
    import numpy as np

    w = make_window(factory_for(CountingDetector(ROWS)))
    frame = np.full((120, 200, 3), 200, np.uint8)
    QGuiApplication.clipboard().setImage(bgr_to_qimage(frame))
    w.views["Images"].act_paste.trigger()
    qtbot.waitUntil(lambda: ready(w))
    asked = []
    target = tmp_path / "chosen.png"

    def dialog(parent, caption, directory, filter_):
        asked.append(directory)
        return str(target), filter_

    monkeypatch.setattr("app.ui.images_view.QFileDialog.getSaveFileName", dialog)
    w.views["Images"].act_save.trigger()
    assert asked and asked[0].endswith("_redacted.png")
    qtbot.waitUntil(lambda: w.controller.images.current.status is DocStatus.SAVED)
    out = read_image(target).pixels
    assert out.shape == (120, 200, 3) and (out[25:55, 25:75] == 0).all()
    assert w.views["Images"].message_bar.text == ""


def test_saved_thumbnail_says_unsaved_after_an_edit(make_window, image, qtbot):
    w, c, view = opened(make_window, qtbot, [image])
    doc = c.current
    done = []
    c.save(doc, on_saved=done.append)
    qtbot.waitUntil(lambda: bool(done))
    assert "saved" in view.strip.status_text(doc.doc_id)
    doc.toggle([doc.boxes[0].id])
    assert doc.status is DocStatus.READY and "unsaved" in view.strip.status_text(doc.doc_id)
    c.save(doc, on_saved=done.append)
    qtbot.waitUntil(lambda: len(done) == 2)
    c.set_choice(RedactionChoice(conf=0.2))  # a new threshold changes what the copy would hide
    assert "unsaved" in view.strip.status_text(doc.doc_id)


def test_save_all_gives_one_summary(make_window, tmp_path, qtbot):
    folder = tmp_path / "batch"
    folder.mkdir()
    paths = [write_png(folder / f"img{i}.png") for i in range(3)]
    w, c, view = opened(make_window, qtbot, paths)
    out = tmp_path / "out"
    with qtbot.waitSignal(c.save_all_finished, timeout=10000) as blocker:
        assert c.save_all(out) == 3
    assert blocker.args == [3, 0]
    assert f"3 of 3 image(s) saved to {out}" in w.statusBar().currentMessage()


def test_save_destination_button_says_what_it_is(make_window, image, qtbot, tmp_path):
    w, c, view = opened(make_window, qtbot, [image])
    assert view.folder_button.text().startswith("Next to originals")
    assert "Save and Save all" in view.folder_button.toolTip()
    view._set_folder(tmp_path)
    assert view.folder_button.text().startswith(tmp_path.name) and c.output_folder == tmp_path


def test_thumbnail_status_lines_are_not_cut_off_when_the_strip_scrolls(make_window, tmp_path, qtbot):
    paths = [write_png(tmp_path / f"long-file-name-{i}.png") for i in range(14)]
    w, c, view = opened(make_window, qtbot, paths)
    strip = view.strip
    qtbot.waitUntil(lambda: strip.horizontalScrollBar().isVisible())
    item_h = strip.visualItemRect(strip.item(0)).height()
    assert strip.viewport().height() >= item_h + strip.spacing()


def test_undo_and_redo_keep_their_width_and_say_what_they_undo(make_window, image, qtbot):
    from PySide6.QtWidgets import QToolBar

    w, c, view = opened(make_window, qtbot, [image])
    bar = view.findChild(QToolBar)
    doc = c.current
    x_before = bar.widgetForAction(view.act_zoom_in).geometry()
    doc.set_enabled([doc.boxes[0].id], False)
    qtbot.wait(1)
    assert view.act_undo.text() == "&Undo" and view.act_undo.isEnabled()
    assert view.act_undo.toolTip() == "Undo: Leave Email box visible (not hidden)"
    assert bar.widgetForAction(view.act_zoom_in).geometry() == x_before  # nothing moved
    view.act_undo.trigger()
    assert doc.boxes[0].enabled and view.act_redo.toolTip().startswith("Redo: Leave Email box visible")
    assert view.act_redo.text() == "&Redo"


# ----- 5. start-up and fit ---------------------------------------------------------------------
def test_window_fits_a_1366x768_screen(make_window, qtbot):
    w = make_window(factory_for(CountingDetector([])))
    available = QRect(0, 0, 1366, 768 - 32)  # minus a panel
    w.resize(1280, 800)
    w.move(0, 0)
    fit_to_screen(w, available)
    assert available.contains(w.frameGeometry()), w.frameGeometry()  # status bar included
    # a restored geometry from a bigger monitor comes back on screen
    w.move(1800, 900)
    fit_to_screen(w, available)
    assert available.contains(w.frameGeometry().topLeft()) and w.frameGeometry().right() <= available.right()


def test_start_up_fits_the_screen_it_opens_on(make_window, qtbot):
    w = make_window(factory_for(CountingDetector([])))
    available = w.screen().availableGeometry()
    assert w.frameGeometry().height() <= available.height() and w.frameGeometry().width() <= available.width()


def test_zoom_is_refitted_after_a_resize_until_the_user_zooms(make_window, tmp_path, qtbot):
    w, c, view = opened(make_window, qtbot, [write_png(tmp_path / "big.png", 1600, 1000)])
    canvas = view.canvas
    w.resize(1280, 800)
    qtbot.waitUntil(lambda: canvas.fitted and canvas.zoom < 1.0)
    big = canvas.zoom
    w.resize(800, 520)  # the window shrinks: the whole image stays in view
    qtbot.waitUntil(lambda: canvas.zoom < big * 0.8)
    assert canvas.fitted
    rect = canvas.image_rect_px()
    assert rect.width() <= canvas.viewport().width() and rect.height() <= canvas.viewport().height()
    canvas.zoom_in()  # the user's zoom is kept from now on
    zoom = canvas.zoom
    w.resize(1100, 700)
    qtbot.wait(10)
    assert not canvas.fitted and canvas.zoom == zoom


def test_side_panel_says_loading_while_the_detectors_load(make_window, qtbot, prefs):
    from app.ui.app import build_window

    release = threading.Event()

    def slow_factory():
        release.wait(10)
        return factory_for(CountingDetector([]))()

    w = build_window(prefs, slow_factory)
    qtbot.addWidget(w)
    panel = w.views["Images"].panel
    assert panel.no_classes.text() == LOADING_TEXT
    release.set()
    qtbot.waitUntil(lambda: w.controller.images.detector_info.ok)
    w.close()
    fresh = PolicyPanel()
    assert fresh.no_classes.text() == LOADING_TEXT
    fresh.set_classes({})
    assert fresh.no_classes.text() == NO_DETECTOR_TEXT


# ----- 6. Live tab -----------------------------------------------------------------------------------
def test_live_says_ended_at_the_end_of_a_file(make_window, qtbot):
    w = make_window(factory_for(CountingDetector([])))
    c, view = w.controller.live, w.views["Live"]
    c.opener = lambda spec: SyntheticSource(160, 96, 30.0, n_frames=12, realtime=True)
    with qtbot.waitSignal(c.running_changed, timeout=10000, check_params_cb=lambda on: not on):
        c.start(LiveConfig("clip.mp4"))
    assert view.preview.placeholder.startswith("Ended")
    assert view.banner.isHidden()
    c.opener = lambda spec: SyntheticSource(160, 96, 30.0, n_frames=None, realtime=True)
    c.start(LiveConfig("synthetic"))
    view.toggle()  # the user stops
    assert view.preview.placeholder.startswith("Stopped")


def test_paused_banner_explains_a_stall_and_what_to_try():
    text = pause_text("stalled")
    assert "PROTECTION PAUSED" in text and "slower than this source" in text and "Try" in text
    assert "Loading the detector" in pause_text("starting")
    assert "Stop, then Start" in pause_text("error: RuntimeError: boom")
    assert pause_text(None).startswith("PROTECTION PAUSED")


def test_live_paused_banner_floats_over_the_preview_with_the_hint(make_window, qtbot):
    from PySide6.QtGui import QImage

    from app.ui.live_worker import LiveStatus

    w = make_window(factory_for(CountingDetector([])))
    view = w.views["Live"]
    w.show_view("Live")
    before = (view.preview.geometry(), view.telemetry.geometry())
    frame = QImage(160, 90, QImage.Format.Format_RGB888)
    frame.fill(0)
    view._on_preview(frame, LiveStatus(False, "stalled", 30.0, 1.2, "CPU", 40))
    qtbot.wait(1)
    assert not view.banner.isHidden() and "slower than this source" in view.banner.text()
    assert view.banner.parent() is view.preview and (view.preview.geometry(), view.telemetry.geometry()) == before
    view._on_preview(frame, LiveStatus(True, None, 30.0, 0.05, "CPU", 41))
    assert view.banner.isHidden()


def test_live_lists_only_sources_that_exist(tmp_path, monkeypatch):
    specs = [s for _, s in live_sources(1, [])]
    assert not [s for s in specs if s.startswith("camera:")]
    assert [s for s in specs if s.startswith("screen:")] == ["screen:1"]
    assert [s for _, s in live_sources(2, [0])][:3] == ["camera:0", "screen:1", "screen:2"]
    monkeypatch.setattr("sys.platform", "linux")
    dev, sysfs = tmp_path / "dev", tmp_path / "sys"
    dev.mkdir()
    for n, index in ((0, "0"), (1, "1"), (4, "0")):  # video1 is video0's metadata node
        (dev / f"video{n}").touch()
        (sysfs / f"video{n}").mkdir(parents=True)
        (sysfs / f"video{n}" / "index").write_text(index)
    (dev / "videodev").touch()
    assert camera_indices(dev, sysfs) == [0, 4]
    assert camera_indices(tmp_path / "empty", sysfs) == []
