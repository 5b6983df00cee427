"""Images view end to end: drop, detect, review, edit, save, paste, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication

from app.core.errors import ModelError
from app.media.image_io import read_image
from app.ui.document import DocStatus
from app.ui.qt_image import bgr_to_qimage
from app.ui.settings import RedactionChoice, StyleChoice

from conftest import NAMES as NAMES_OF_FAKE, CountingDetector, factory_for, write_png

# Two email boxes far apart, one low-score phone number.
ROWS = [(20, 20, 80, 60, 0.9, 0), (150, 90, 220, 140, 0.8, 0), (100, 20, 130, 40, 0.3, 1)]


def drop(window, paths):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPointF(window.rect().center())
    # QDragEnterEvent takes an integer QPoint, QDropEvent a QPointF.
    enter = QDragEnterEvent(window.rect().center(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    event = QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, event)


def ready(window, count=1):
    docs = window.controller.images.documents
    return len(docs) >= count and all(d.status in (DocStatus.READY, DocStatus.SAVED, DocStatus.ERROR) for d in docs)


def idle(window):
    return not window.controller.images.busy


def saved(window, doc, qtbot):
    done = []
    assert window.controller.images.save(doc, on_saved=done.append)
    qtbot.waitUntil(lambda: bool(done))
    return done[0]


@pytest.fixture
def image(tmp_path) -> Path:
    return write_png(tmp_path / "shot.png")


def test_drop_file_shows_boxes(make_window, image, qtbot):
    det = CountingDetector(ROWS)
    w = make_window(factory_for(det))
    drop(w, [image])
    qtbot.waitUntil(lambda: ready(w))
    images = w.views["Images"]
    doc = w.controller.images.current
    assert len(doc.boxes) == 3 and det.calls == 1
    assert images.canvas.box_item(doc.boxes[0].id) is not None
    # the low-score phone box is shown but not hidden under the default 0.25 threshold? (0.3 ≥ 0.25 → hidden)
    assert images.box_list.count() == 3
    assert "3 boxes" in images.strip.status_text(doc.doc_id)
    assert "CPU" in w.provider_label.text()


def test_toggle_box_changes_saved_output_exactly_there(make_window, image, qtbot, tmp_path):
    w = make_window(factory_for(CountingDetector(ROWS)))
    c = w.controller.images
    c.set_choice(RedactionChoice(padding=0.0))
    c.open_paths([image])
    qtbot.waitUntil(lambda: ready(w))
    doc = c.current
    first = saved(w, doc, qtbot)
    assert first == tmp_path / "shot_redacted.png"
    a = read_image(first).pixels
    box = doc.boxes[1]
    w.views["Images"].box_list.item_for(box.id).setCheckState(Qt.CheckState.Unchecked)
    assert not doc.box(box.id).enabled
    second = saved(w, doc, qtbot)
    assert second == first  # saving again updates this image's own copy, no _redacted-2
    assert "Updated" in w.statusBar().currentMessage()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.ini", "shot.png", "shot_redacted.png"]
    b, src = read_image(second).pixels, read_image(image).pixels
    changed = np.argwhere((a != b).any(axis=2))
    x0, y0, x1, y1 = box.xyxy
    pad = 2  # RedactionSettings.min_padding_px
    assert len(changed)
    assert changed[:, 1].min() >= x0 - pad and changed[:, 1].max() < x1 + pad
    assert changed[:, 0].min() >= y0 - pad and changed[:, 0].max() < y1 + pad
    assert np.array_equal(b[int(y0) + 2 : int(y1) - 2, int(x0) + 2 : int(x1) - 2],
                          src[int(y0) + 2 : int(y1) - 2, int(x0) + 2 : int(x1) - 2])  # fmt: skip
    assert "metadata stripped" in w.statusBar().currentMessage()


def test_manual_box_drawn_with_mouse_is_redacted(make_window, image, qtbot):
    w = make_window(factory_for(CountingDetector([])))
    c = w.controller.images
    c.open_paths([image])
    qtbot.waitUntil(lambda: ready(w))
    canvas = w.views["Images"].canvas
    canvas.set_zoom(1.0)
    start, end = canvas.mapFromScene(QPointF(100, 60)), canvas.mapFromScene(QPointF(180, 120))
    qtbot.mousePress(canvas.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(canvas.viewport(), pos=QPoint((start.x() + end.x()) // 2, (start.y() + end.y()) // 2))
    qtbot.mouseMove(canvas.viewport(), pos=end)
    qtbot.mouseRelease(canvas.viewport(), Qt.MouseButton.LeftButton, pos=end)
    doc = c.current
    assert len(doc.boxes) == 1 and doc.boxes[0].class_name == "manual"
    x0, y0, x1, y1 = doc.boxes[0].xyxy
    assert abs(x0 - 100) <= 2 and abs(y1 - 120) <= 2
    out = read_image(saved(w, doc, qtbot)).pixels
    assert (out[62:118, 102:178] == 0).all()
    assert (out[5:15, 5:15] != 0).any()
    # undo removes it, redo brings it back
    w.views["Images"].act_undo.trigger()
    assert doc.boxes == []
    w.views["Images"].act_redo.trigger()
    assert len(doc.boxes) == 1


def test_delete_and_resize_are_undoable(make_window, image, qtbot):
    w = make_window(factory_for(CountingDetector(ROWS)))
    c = w.controller.images
    c.open_paths([image])
    qtbot.waitUntil(lambda: ready(w))
    view, doc = w.views["Images"], c.current
    first = doc.boxes[0]
    view.canvas.select_boxes([first.id])
    view.canvas.setFocus()
    qtbot.keyClick(view.canvas, Qt.Key.Key_Delete)
    assert doc.box(first.id) is None
    view.act_undo.trigger()
    assert doc.box(first.id) is not None
    item = view.canvas.box_item(first.id)
    item.begin_drag("br", QPointF(80, 60))
    item.drag_to(QPointF(100, 70))
    item.end_drag()
    assert doc.box(first.id).xyxy == (20.0, 20.0, 100.0, 70.0)
    view.act_undo.trigger()
    assert doc.box(first.id).xyxy == (20.0, 20.0, 80.0, 60.0)


def test_paste_screenshot_from_clipboard(make_window, qtbot):
    det = CountingDetector(ROWS)
    w = make_window(factory_for(det))
    frame = np.full((120, 200, 3), 200, np.uint8)
    QGuiApplication.clipboard().setImage(bgr_to_qimage(frame))
    w.views["Images"].act_paste.trigger()
    qtbot.waitUntil(lambda: ready(w))
    doc = w.controller.images.current
    assert doc.path is None and doc.size == (200, 120) and len(doc.boxes) == 3


def test_style_and_threshold_change_without_rerunning_the_model(make_window, image, qtbot):
    det = CountingDetector(ROWS)
    w = make_window(factory_for(det))
    c, view = w.controller.images, w.views["Images"]
    c.open_paths([image])
    qtbot.waitUntil(lambda: ready(w) and idle(w))
    doc = c.current
    assert doc.hidden_ids(c.choice.policy()) == {b.id for b in doc.boxes}
    with qtbot.waitSignal(c.preview_ready):
        view.panel.conf.setValue(50)  # 0.50: the 0.3 phone box is no longer hidden
    assert c.choice.conf == 0.5
    assert doc.hidden_ids(c.choice.policy()) == {b.id for b in doc.boxes[:2]}
    assert view.side.tabText(1) == "Boxes (2/3)"
    with qtbot.waitSignal(c.preview_ready):
        view.panel.style.setCurrentIndex(view.panel.style.findData("pixelate"))
        view.panel.style.activated.emit(view.panel.style.currentIndex())
    assert c.choice.style is StyleChoice.PIXELATE
    with qtbot.waitSignal(c.preview_ready):
        view.panel.class_item("email").setCheckState(0, Qt.CheckState.Unchecked)
    assert "email" not in c.choice.classes and c.choice.preset == "custom"
    assert doc.hidden_ids(c.choice.policy()) == set()
    assert det.calls == 1


def test_settings_persist_across_windows(make_window, prefs, qtbot):
    w = make_window(factory_for(CountingDetector([])))
    w.controller.images.set_choice(RedactionChoice(style=StyleChoice.BLUR, conf=0.6))
    w.close()
    w2 = make_window(factory_for(CountingDetector([])))
    assert w2.controller.images.choice.style is StyleChoice.BLUR
    assert w2.views["Images"].panel.conf.value() == 60


def test_face_model_menu_choice_reaches_detector_config_and_persists(make_window, qtbot):
    w = make_window(factory_for(CountingDetector([])))
    assert w.controller.detector_config().face_model == "centerface"
    settings = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Settings")
    face_menu = next(a.menu() for a in settings.actions() if a.menu() and "Face model" in a.text())
    blaze = next(a for a in face_menu.actions() if a.data() == "blazeface")
    blaze.trigger()
    assert blaze.isChecked() and sum(a.isChecked() for a in face_menu.actions()) == 1
    assert w.controller.detector_config().face_model == "blazeface"
    w.close()
    assert make_window(factory_for(CountingDetector([]))).controller.face_model == "blazeface"


def test_corrupt_file_shows_error_and_app_keeps_running(make_window, image, tmp_path, qtbot):
    w = make_window(factory_for(CountingDetector(ROWS)))
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    drop(w, [bad])
    qtbot.waitUntil(lambda: ready(w))
    assert "broken.png" in w.message_bar.text and w.message_bar.isVisible()
    assert w.controller.images.documents[0].status is DocStatus.ERROR
    assert not w.controller.images.save()  # nothing is written
    drop(w, [image])
    qtbot.waitUntil(lambda: ready(w, 2))
    assert list(tmp_path.glob("*_redacted*")) == []


def test_no_model_banner_and_manual_boxes_still_work(make_window, image, qtbot):
    def missing():
        raise ModelError("model file not found: /nowhere/vpd-n.onnx")

    w = make_window(missing)
    assert "No detector model found" in w.model_banner.text
    assert "draw boxes by hand" in w.model_banner.text
    assert "none" in w.provider_label.text()
    c = w.controller.images
    c.open_paths([image])
    qtbot.waitUntil(lambda: c.documents and c.current.status is DocStatus.INCOMPLETE)
    c.current.add_manual_box((10, 10, 50, 50))
    assert not c.save(c.current)  # no detector ran: saving needs the user's explicit opt-in
    assert c.mark_checked_by_hand(c.current)
    out = read_image(saved(w, c.current, qtbot)).pixels
    assert (out[15:45, 15:45] == 0).all()


def test_batch_folder_and_save_all(make_window, tmp_path, qtbot):
    folder = tmp_path / "batch"
    folder.mkdir()
    for i in range(3):
        write_png(folder / f"img{i}.png")
    w = make_window(factory_for(CountingDetector(ROWS)))
    out = tmp_path / "out"
    drop(w, [folder])
    qtbot.waitUntil(lambda: ready(w, 3))
    assert w.views["Images"].strip.count() == 3
    assert w.controller.images.save_all(out) == 3
    qtbot.waitUntil(lambda: all(d.status is DocStatus.SAVED for d in w.controller.images.documents))
    assert sorted(p.name for p in out.iterdir()) == ["img0_redacted.png", "img1_redacted.png", "img2_redacted.png"]


def test_before_after_with_space(make_window, image, qtbot):
    w = make_window(factory_for(CountingDetector(ROWS)))
    w.controller.images.open_paths([image])
    qtbot.waitUntil(lambda: ready(w))
    canvas = w.views["Images"].canvas
    canvas.setFocus()
    qtbot.keyPress(canvas, Qt.Key.Key_Space)
    assert canvas.showing_original and w.views["Images"].act_before.isChecked()
    qtbot.keyRelease(canvas, Qt.Key.Key_Space)
    assert not canvas.showing_original


def test_copy_to_clipboard(make_window, image, qtbot):
    w = make_window(factory_for(CountingDetector(ROWS)))
    c = w.controller.images
    c.open_paths([image])
    qtbot.waitUntil(lambda: ready(w))
    QGuiApplication.clipboard().clear()
    with qtbot.waitSignal(c.info):
        w.views["Images"].act_copy.trigger()
    img: QImage = QGuiApplication.clipboard().image()
    assert img.width() == 240 and QColorAt(img, 50, 40) == (0, 0, 0)


def QColorAt(img: QImage, x: int, y: int):
    c = img.pixelColor(x, y)
    return (c.red(), c.green(), c.blue())


def test_shortcuts_dialog_lists_actions(make_window, qtbot):
    w = make_window(factory_for(CountingDetector([])))
    dialog = w.show_shortcuts()
    texts = [dialog.table.item(r, 0).text() + " " + dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())]
    assert any("Ctrl+S" in t and "Save" in t for t in texts)
    assert any("Space" in t for t in texts)
    dialog.close()


class NotingDetector(CountingDetector):
    """Finds the usual boxes and, like the OCR plug-in, says it could not read some text."""

    last_notes = ("OCR could not read 2 of 5 text line(s) (2 in a script it does not cover)",)


def test_unread_text_is_reported_not_silently_ignored(make_window, image, qtbot):
    w = make_window(factory_for(NotingDetector(ROWS)))
    drop(w, [image])
    qtbot.waitUntil(lambda: ready(w))
    assert "could not read 2 of 5" in w.message_bar.text and image.name in w.message_bar.text
    assert len(w.controller.images.documents[0].boxes) == len(ROWS)  # the boxes still arrive


def test_thumbnail_blacks_out_what_will_be_hidden(make_window, image, qtbot):
    from app.ui.thumb_strip import ICON

    w = make_window(factory_for(CountingDetector(ROWS)))
    c, strip = w.controller.images, w.views["Images"].strip
    c.open_paths([image])
    qtbot.waitUntil(lambda: ready(w))
    doc = c.current
    box = doc.boxes[1]  # e-mail at (150, 90)-(220, 140) of a 240×160 image

    def centre_of_box_in_thumb():
        icon = strip.item(0).icon().pixmap(ICON).toImage()
        k = ICON.height() / 160  # the 3:2 image fills the icon's height
        x = (ICON.width() - 240 * k) / 2 + 185 * k
        return icon.pixelColor(int(x), int(115 * k))

    assert centre_of_box_in_thumb().lightness() < 10
    w.views["Images"].box_list.item_for(box.id).setCheckState(Qt.CheckState.Unchecked)
    assert centre_of_box_in_thumb().lightness() > 100  # the image shows through again


def test_right_click_sets_the_class_of_a_box_undoably(make_window, image, qtbot):
    w = make_window(factory_for(CountingDetector([])))
    c, view = w.controller.images, w.views["Images"]
    c.open_paths([image])
    qtbot.waitUntil(lambda: ready(w))
    doc = c.current
    box_id = doc.add_manual_box((100, 60, 180, 120))
    view.canvas.select_boxes([box_id])
    qtbot.waitUntil(lambda: view.box_list.selected_ids() == [box_id])
    menu = view.box_list.context_menu()
    classes = next(a.menu() for a in menu.actions() if a.menu() and "class" in a.text().lower())
    assert [a.data() for a in classes.actions()] == ["manual", *NAMES_OF_FAKE]
    next(a for a in classes.actions() if a.data() == "phone_number").trigger()
    assert doc.box(box_id).class_name == "phone_number"
    assert view.box_list.item_for(box_id).text().startswith("Phone number · manual")
    view.act_undo.trigger()
    assert doc.box(box_id).class_name == "manual"
    assert view.box_list.context_menu() is not None  # the list was rebuilt with the selection kept


class GatedOcr(CountingDetector):
    """A slow fake OCR: named like the real one, it answers only when ``gate`` opens."""

    name = "ocr"

    def __init__(self, rows):
        super().__init__(rows)
        import threading

        self.gate = threading.Event()

    def detect(self, frame):
        self.gate.wait(10.0)
        return super().detect(frame)


def test_fast_boxes_show_while_ocr_reads_and_the_users_changes_to_them_survive(make_window, image, qtbot):
    ocr = GatedOcr([(150, 90, 220, 140, 0.8, 1)])  # OCR's phone number, found last
    w = make_window(factory_for(CountingDetector(ROWS[:2]), ocr))
    c = w.controller.images
    drop(w, [image])
    qtbot.waitUntil(lambda: c.current is not None and len(c.current.boxes) == 2)  # the detector's two emails
    doc = c.current
    assert doc.status is DocStatus.DETECTING and not ocr.gate.is_set()
    assert not c.save(doc)  # nothing is written until every detector has answered
    first, second = doc.boxes
    doc.set_enabled([first.id], False)  # the user leaves one email visible...
    doc.delete_boxes([second.id])  # ...and deletes the other while OCR still reads
    ocr.gate.set()
    qtbot.waitUntil(lambda: ready(w))
    boxes = sorted(doc.boxes, key=lambda b: b.class_name)
    assert [(b.class_name, b.enabled) for b in boxes] == [("email", False), ("phone_number", True)]
    assert boxes[0].xyxy == first.xyxy
