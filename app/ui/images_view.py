"""The Images view: canvas + side panel + thumbnail strip, wired to an ``ImageController``."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoGroup
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QMenu, QPushButton, QSizePolicy, QSplitter,
                               QTabWidget, QToolBar, QToolButton, QVBoxLayout, QWidget)  # fmt: skip

from app.media.image_io import SUPPORTED_SUFFIXES
from app.ui.box_list import BoxList
from app.ui.canvas import ImageCanvas
from app.ui.document import DocStatus, ImageDocument
from app.ui.image_controller import ImageController
from app.ui.messages import Level, MessageBar
from app.ui.policy_panel import PolicyPanel
from app.ui.thumb_strip import ThumbStrip

IMAGE_FILTER = "Images (" + " ".join(f"*{s}" for s in SUPPORTED_SUFFIXES) + ")"
HINT = ("Drag anywhere on the image to add a box · click a box to select it, then drag to move it · "
        "click its tag to keep it visible · hold Space for the original")  # fmt: skip


def _action(parent, text: str, shortcut=None, tip: str = "", slot=None) -> QAction:
    a = QAction(text, parent)
    if shortcut is not None:
        a.setShortcut(QKeySequence(shortcut))
    a.setToolTip(f"{tip or text} ({a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)})" if shortcut else tip or text)
    a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    if slot is not None:
        a.triggered.connect(slot)
    return a


class ImagesView(QWidget):
    """Composes the review widgets; holds no image state of its own."""

    status_message = Signal(str)

    def __init__(self, controller: ImageController, parent=None) -> None:
        super().__init__(parent)
        self.c = controller
        self.undo_group = QUndoGroup(self)
        self.canvas = ImageCanvas()
        self.message_bar = MessageBar(self.canvas)  # about the image shown (or the last thing tried)
        self._notices: dict[int, tuple[Level, str]] = {}  # doc id → its unresolved problem
        self.panel = PolicyPanel()
        self.box_list = BoxList()
        self.strip = ThumbStrip()
        self._build_actions()
        self._build_layout()
        self._connect()
        self.panel.set_choice(controller.choice)
        self._on_current(None)

    # ----- construction ------------------------------------------------------------------------
    def _build_actions(self) -> None:
        A = _action
        self.act_open = A(self, "&Open…", QKeySequence.StandardKey.Open, "Open images or a folder", self.open_dialog)
        self.act_paste = A(self, "&Paste screenshot", QKeySequence.StandardKey.Paste, "Paste an image from the clipboard", lambda: self.c.paste())
        self.act_save = A(self, "&Save", QKeySequence.StandardKey.Save, "Save a redacted copy (the original is never overwritten)", self.save_current)
        self.act_save_to = A(self, "Save to &folder…", "Ctrl+Shift+S", "Save a redacted copy into a chosen folder", self.save_to_dialog)
        self.act_save_all = A(self, "Save &all", "Ctrl+Alt+S", "Save every analysed image", lambda: self.c.save_all())
        self.act_copy = A(self, "&Copy redacted", "Ctrl+Shift+C", "Copy the redacted image to the clipboard", lambda: self.c.copy_to_clipboard())
        self.act_close = A(self, "Close image", QKeySequence.StandardKey.Close, "Close the current image", self._close_current)
        self.act_redetect = A(self, "&Detect again", "F5", "Run the detectors again (manual boxes stay)", self._redetect)
        self.act_checked = A(self, "&Mark as checked by hand", None, "Detection is incomplete for this image: allow "
                             "saving and copying it with the boxes it has, after checking it yourself",
                             lambda: self.c.mark_checked_by_hand())  # fmt: skip
        # Fixed texts, so the toolbar never changes width; what would be undone is in the tooltip.
        self.act_undo = A(self, "&Undo", QKeySequence.StandardKey.Undo, slot=self.undo_group.undo)
        self.act_redo = A(self, "&Redo", QKeySequence.StandardKey.Redo, slot=self.undo_group.redo)
        self.act_redo.setShortcuts([QKeySequence.StandardKey.Redo, QKeySequence("Ctrl+Y")])
        for act, can, text, verb in ((self.act_undo, self.undo_group.canUndoChanged, self.undo_group.undoTextChanged, "Undo"),
                                     (self.act_redo, self.undo_group.canRedoChanged, self.undo_group.redoTextChanged, "Redo")):  # fmt: skip
            act.setEnabled(False)
            can.connect(act.setEnabled)
            text.connect(lambda t, act=act, verb=verb: act.setToolTip(f"{verb}: {t}" if t else verb))
        self.act_delete = A(self, "&Delete box", QKeySequence.StandardKey.Delete, "Delete the selected boxes", self._delete_selected)
        self.act_toggle = A(self, "&Toggle box", "T", "Hide/show the selected boxes in the output", self._toggle_selected)
        self.act_zoom_in = A(self, "Zoom &in", QKeySequence.StandardKey.ZoomIn, slot=self.canvas.zoom_in)
        self.act_zoom_in.setIconText("+")
        self.act_zoom_out = A(self, "Zoom &out", QKeySequence.StandardKey.ZoomOut, slot=self.canvas.zoom_out)
        self.act_zoom_out.setIconText("−")
        self.act_fit = A(self, "&Fit to window", "Ctrl+0", slot=self.canvas.fit)
        self.act_fit.setIconText("Fit")
        self.act_actual = A(self, "&Actual size", "Ctrl+1", slot=lambda: self.canvas.set_zoom(1.0))
        self.act_before = A(self, "Before / after", None, "Show the original (or hold Space)")
        self.act_before.setCheckable(True)
        self.act_before.toggled.connect(self.canvas.set_show_original)
        self.act_labels = A(self, "Box &labels", "L", "Show the class and source of each box")
        self.act_labels.setCheckable(True)
        self.act_labels.setChecked(True)
        self.act_labels.toggled.connect(self.canvas.set_labels_visible)
        self.act_candidates = A(self, "Show &candidates", "C", "Also draw boxes that are NOT hidden: below the threshold or class off")
        self.act_candidates.setCheckable(True)
        self.act_candidates.toggled.connect(self.canvas.set_candidates_visible)
        for a in (self.act_delete, self.act_toggle, self.act_labels, self.act_candidates):
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.addActions([self.act_delete, self.act_toggle, self.act_labels, self.act_candidates])

    def _build_layout(self) -> None:
        bar = QToolBar()
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.zoom_label = QLabel()
        self.zoom_label.setMinimumWidth(44)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        for a in (self.act_open, self.act_paste, None, self.act_save, self.act_copy, None, self.act_undo,
                  self.act_redo, None, self.act_zoom_out, self.zoom_label, self.act_zoom_in, self.act_fit, None,
                  self.act_before, self.act_labels, self.act_candidates):  # fmt: skip
            if a is None:
                bar.addSeparator()
            elif isinstance(a, QLabel):
                bar.addWidget(a)
            else:
                bar.addAction(a)
        self.summary = QLabel()  # what is hidden and what is not, at a glance
        self.summary.setContentsMargins(12, 0, 8, 0)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        bar.addWidget(spacer)
        bar.addWidget(self.summary)
        self.hint = HINT

        self.side = QTabWidget()
        self.side.addTab(self.panel, "What to hide")
        self.side.addTab(self.box_list, "Boxes")
        self.side.setMinimumWidth(250)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.canvas)
        split.addWidget(self.side)
        split.setStretchFactor(0, 1)
        split.setSizes([900, 300])
        split.setChildrenCollapsible(False)

        self.save_all_button = QPushButton("Save all")
        self.save_all_button.setToolTip("Save a redacted copy of every analysed image")
        self.save_all_button.clicked.connect(self.act_save_all.trigger)
        self.folder_button = QToolButton()  # where Save and Save all write
        self.folder_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.folder_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        folder_menu = QMenu(self.folder_button)
        folder_menu.addAction("Next to each original", lambda: self._set_folder(None))
        folder_menu.addAction("Choose a folder…", self._choose_folder)
        self.folder_button.setMenu(folder_menu)
        self._update_folder_button()
        side = QVBoxLayout()
        side.addWidget(self.save_all_button)
        side.addWidget(QLabel("Save into:"))
        side.addWidget(self.folder_button)
        side.addStretch(1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.strip, 1)
        bottom.addLayout(side)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(bar)
        layout.addWidget(split, 1)
        layout.addLayout(bottom)

    def _connect(self) -> None:
        c = self.c
        c.current_changed.connect(self._on_current)
        c.preview_ready.connect(lambda doc, img: self.canvas.set_preview(img))
        c.document_updated.connect(self._on_updated)
        c.documents_changed.connect(lambda: self.strip.set_documents(c.documents))
        c.detector_changed.connect(lambda info: self.panel.set_classes(info.domains))
        c.notice.connect(self._on_notice)
        self.message_bar.dismissed.connect(lambda doc_id: self._notices.pop(doc_id, None))
        c.detector_changed.connect(lambda info: setattr(self.box_list, "class_names", tuple(info.class_names)))
        c.choice_changed.connect(self.panel.set_choice)
        c.choice_changed.connect(lambda _: self.strip.refresh(c.documents))
        self.strip.hidden_boxes = self._hidden_boxes
        self.panel.choice_changed.connect(c.set_choice)
        self.strip.activated.connect(self._activate)
        self.strip.close_requested.connect(lambda i: self._doc(i) and c.close_document(self._doc(i)))
        self.canvas.box_drawn.connect(lambda xyxy: c.current and c.current.add_manual_box(xyxy))
        self.canvas.box_edited.connect(lambda i, xyxy: c.current and c.current.set_geometry(i, xyxy))
        self.canvas.box_toggled.connect(lambda i: c.current and c.current.toggle([i]))
        self.canvas.delete_requested.connect(lambda ids: c.current and c.current.delete_boxes(ids))
        self.canvas.selection_changed.connect(self.box_list.select_ids)
        self.canvas.zoom_changed.connect(lambda z: self.zoom_label.setText(f"{z:.0%}"))
        self.canvas.before_after_changed.connect(self._on_before_after)
        self.box_list.enabled_changed.connect(lambda i, on: c.current and c.current.set_enabled([i], on))
        self.box_list.selection_changed.connect(self.canvas.select_boxes)
        self.box_list.class_chosen.connect(lambda ids, name: c.current and c.current.set_class(ids, name))
        self.canvas.context_menu_requested.connect(self._box_menu)

    # ----- slots -------------------------------------------------------------------------------
    def _on_current(self, doc: ImageDocument | None) -> None:
        self.canvas.show_image(doc.original if doc is not None else None)
        self._show_notice(doc)
        if doc is not None:
            if doc.undo_stack not in self.undo_group.stacks():
                self.undo_group.addStack(doc.undo_stack)
            self.undo_group.setActiveStack(doc.undo_stack)
            if doc.status is DocStatus.ERROR:
                self.canvas.empty_hint = f"Cannot open {doc.name}\n{doc.error}"
        else:
            self.undo_group.setActiveStack(None)
            self.canvas.empty_hint = "Drop images or folders here\nCtrl+O to open  ·  Ctrl+V to paste a screenshot"
        self.strip.set_current(doc)
        self._refresh_boxes()
        if doc is not None and doc.pixels is not None:
            self.status_message.emit(self.hint)
        has_pixels = doc is not None and doc.pixels is not None
        for a in (self.act_save, self.act_save_to, self.act_copy, self.act_redetect, self.act_close):
            a.setEnabled(has_pixels or (a is self.act_close and doc is not None))

    def _on_notice(self, doc: ImageDocument | None, level: str, text: str) -> None:
        """A problem goes to the banner only while its image is shown; a save clears it."""
        if level == "saved":
            self._notices.pop(doc.doc_id, None)
            self.message_bar.clear(doc.doc_id)
            return
        lvl = Level.WARNING if level == "warning" else Level.ERROR
        if doc is not None:
            self._notices[doc.doc_id] = (lvl, text)
        if doc is None or doc is self.c.current:
            self.message_bar.show_message(text, lvl, scope=doc.doc_id if doc is not None else None)

    def _show_notice(self, doc: ImageDocument | None) -> None:
        notice = self._notices.get(doc.doc_id) if doc is not None else None
        if notice is not None:
            self.message_bar.show_message(notice[1], notice[0], scope=doc.doc_id)
        else:
            self.message_bar.clear()

    def _on_updated(self, doc: ImageDocument) -> None:
        self.strip.update_document(doc)
        if doc is self.c.current:
            self._refresh_boxes()

    def _box_menu(self, global_pos) -> None:
        menu = self.box_list.context_menu()  # the canvas selection is mirrored into the list
        if menu is not None:
            menu.exec(global_pos)

    def _hidden_boxes(self, doc: ImageDocument) -> list[tuple[float, float, float, float]]:
        if doc.pixels is None or doc.status not in (DocStatus.READY, DocStatus.SAVED, DocStatus.INCOMPLETE):
            return []
        hidden = doc.hidden_ids(self.c.choice.policy())
        return [b.xyxy for b in doc.boxes if b.id in hidden]

    def _refresh_boxes(self) -> None:
        doc = self.c.current
        if doc is None or doc.pixels is None:
            self.canvas.clear_boxes()
            self.box_list.set_boxes([], set())
            self.side.setTabText(1, "Boxes")
            self.summary.setText("")
            return
        hidden = doc.hidden_ids(self.c.choice.policy())
        self.canvas.set_boxes(doc.boxes, hidden)
        self.box_list.set_boxes(doc.boxes, hidden)
        self.side.setTabText(1, f"Boxes ({len(hidden)}/{len(doc.boxes)})")
        self.summary.setText(box_summary(doc, hidden))

    def _on_before_after(self, on: bool) -> None:
        self.act_before.blockSignals(True)
        self.act_before.setChecked(on)
        self.act_before.blockSignals(False)
        self.status_message.emit("Showing the ORIGINAL (unredacted)" if on else "Showing the redacted preview")

    def _doc(self, doc_id: int) -> ImageDocument | None:
        return next((d for d in self.c.documents if d.doc_id == doc_id), None)

    def _activate(self, doc_id: int) -> None:
        doc = self._doc(doc_id)
        if doc is not None:
            self.c.set_current(doc)

    def _close_current(self) -> None:
        if self.c.current is not None:
            self.c.close_document(self.c.current)

    def _redetect(self) -> None:
        if self.c.current is not None:
            self.c.detect(self.c.current)

    def _delete_selected(self) -> None:
        ids = self.canvas.selected_ids() or self.box_list.selected_ids()
        if self.c.current is not None and ids:
            self.c.current.delete_boxes(ids)

    def _toggle_selected(self) -> None:
        ids = self.canvas.selected_ids() or self.box_list.selected_ids()
        if self.c.current is not None and ids:
            self.c.current.toggle(ids)

    # ----- dialogs -----------------------------------------------------------------------------
    def open_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Open images", "", f"{IMAGE_FILTER};;All files (*)")
        if files:
            self.c.open_paths(files)

    def save_current(self) -> None:
        """Save the shown image; one with no file or folder (pasted) asks where."""
        doc = self.c.current
        if doc is not None and doc.path is None and self.c.output_folder is None and doc.pixels is not None:
            name = str(Path.home() / f"{doc.name.replace(' ', '_')}_redacted.png")
            path, _ = QFileDialog.getSaveFileName(self, "Save redacted copy", name, IMAGE_FILTER)
            if path:
                target = Path(path)
                self.c.save(doc, target=target if target.suffix.lower() in SUPPORTED_SUFFIXES else target.with_suffix(".png"))
            return
        self.c.save()

    def save_to_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Save redacted copy to folder", str(self.c.output_folder or ""))
        if folder:
            self.c.save(folder=Path(folder))

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder for redacted copies", str(self.c.output_folder or ""))
        if folder:
            self._set_folder(Path(folder))

    def _set_folder(self, folder: Path | None) -> None:
        self.c.set_output_folder(folder)
        self._update_folder_button()

    def _update_folder_button(self) -> None:
        f = self.c.output_folder
        self.folder_button.setText(f"{f.name}/ ▾" if f else "Next to originals ▾")
        self.folder_button.setToolTip(f"Save and Save all write into {f}" if f
                                      else "Save and Save all write next to each original, named …_redacted")  # fmt: skip

    def actions_for_menus(self) -> dict[str, list[QAction | None]]:
        """Actions grouped by menu, for the main window's menu bar."""
        return {
            "file": [self.act_open, self.act_paste, None, self.act_save, self.act_save_to, self.act_save_all,
                     self.act_copy, None, self.act_close],
            "edit": [self.act_undo, self.act_redo, None, self.act_delete, self.act_toggle, self.act_redetect,
                     self.act_checked],
            "view": [self.act_zoom_in, self.act_zoom_out, self.act_fit, self.act_actual, self.act_before, self.act_labels,
                     self.act_candidates],
        }  # fmt: skip


def box_summary(doc: ImageDocument, hidden: set[int]) -> str:
    """'12 hidden · 1 left visible · 40 below threshold' for the toolbar."""
    kept = sum(1 for b in doc.boxes if not b.enabled)
    candidates = len(doc.boxes) - len(hidden) - kept
    parts = [f"{len(hidden)} hidden"]
    if kept:
        parts.append(f"{kept} left visible by you")
    if candidates:
        parts.append(f"{candidates} not hidden (below threshold or class off; C shows them)")
    return "  ·  ".join(parts)
