"""Side panel: what to hide (presets, domains, classes) and how (style, colour, padding, threshold).
Data in: ``set_classes``, ``set_choice``. Intent out: ``choice_changed``."""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QColorDialog, QComboBox, QFormLayout, QHBoxLayout, QLabel, QPushButton, QSlider,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)  # fmt: skip

from app.core.policy import PRESETS
from app.ui.document import pretty
from app.ui.settings import CUSTOM, STYLE_LABELS, RedactionChoice, StyleChoice

LOADING_TEXT = "Loading detectors…"
NO_DETECTOR_TEXT = "No detector loaded — only boxes you draw are hidden."
PRESET_LABELS = {"screenshots": "Screenshots", "streaming": "Streaming", "documents": "Documents",
                 "faces": "Faces only", "everything": "Everything", CUSTOM: "Custom"}  # fmt: skip


class PolicyPanel(QWidget):
    """Edits a ``RedactionChoice``."""

    choice_changed = Signal(object)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._choice = RedactionChoice()
        self._domains: dict[str, tuple[str, ...]] = {}
        self._updating = False
        self._tree_pending = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)

        form = QFormLayout()
        self.preset = QComboBox()
        for key in (*PRESETS, CUSTOM):
            self.preset.addItem(PRESET_LABELS.get(key, pretty(key)), key)
        self.preset.setToolTip("A starting set of classes; tick classes below to customise")
        form.addRow("Preset", self.preset)
        layout.addLayout(form)

        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        layout.addWidget(self.tree, 1)
        self.no_classes = QLabel(LOADING_TEXT)
        self.no_classes.setWordWrap(True)
        self.no_classes.setStyleSheet("color: palette(mid); padding: 6px;")
        layout.addWidget(self.no_classes)

        form = QFormLayout()
        self.style = QComboBox()
        for s in StyleChoice:
            self.style.addItem(STYLE_LABELS[s], s.value)
        self.colour = QPushButton("Colour…")
        self.colour.setToolTip("Fill colour for 'Solid colour'")
        style_row = QHBoxLayout()
        style_row.addWidget(self.style, 1)
        style_row.addWidget(self.colour)
        form.addRow("Style", style_row)
        self.padding, self.padding_label = _slider(0, 50, "Extra margin around each box, % of its height")
        form.addRow("Padding", _with_label(self.padding, self.padding_label))
        self.conf, self.conf_label = _slider(5, 95, "Hide detections at least this confident; lower hides more")
        form.addRow("Threshold", _with_label(self.conf, self.conf_label))
        layout.addLayout(form)

        self.preset.activated.connect(self._on_preset)
        self.tree.itemChanged.connect(self._on_item_changed)
        self.style.activated.connect(lambda _: self._emit(style=StyleChoice(self.style.currentData())))
        self.colour.clicked.connect(self._pick_colour)
        self.padding.valueChanged.connect(lambda v: self._emit(padding=v / 100))
        self.conf.valueChanged.connect(lambda v: self._emit(conf=v / 100))
        self.set_classes({}, loading=True)

    # ----- data in -----------------------------------------------------------------------------
    def set_classes(self, domains: Mapping[str, tuple[str, ...]], loading: bool = False) -> None:
        """Classes the loaded detectors know, grouped by domain; ``loading`` while they load."""
        self._domains = dict(domains)
        self.no_classes.setText(LOADING_TEXT if loading else NO_DETECTOR_TEXT)
        self._updating = True
        self.tree.clear()
        for domain, names in self._domains.items():
            parent = QTreeWidgetItem(self.tree, [pretty(domain)])
            parent.setFlags(parent.flags() | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsAutoTristate)
            parent.setData(0, Qt.ItemDataRole.UserRole, None)
            for n in names:
                child = QTreeWidgetItem(parent, [pretty(n)])
                child.setFlags(child.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                child.setData(0, Qt.ItemDataRole.UserRole, n)
                child.setCheckState(0, Qt.CheckState.Unchecked)
            parent.setExpanded(True)
        self._updating = False
        self.tree.setVisible(bool(self._domains))
        self.no_classes.setVisible(not self._domains)
        self.set_choice(self._choice)

    def set_choice(self, choice: RedactionChoice) -> None:
        """Show ``choice`` without emitting."""
        self._choice = choice
        self._updating = True
        self.preset.setCurrentIndex(max(0, self.preset.findData(choice.preset)))
        for item in self._class_items():
            name = item.data(0, Qt.ItemDataRole.UserRole)
            on = choice.classes is None or name in choice.classes
            item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        self.style.setCurrentIndex(self.style.findData(choice.style.value))
        self.colour.setVisible(choice.style is StyleChoice.COLOUR)
        b, g, r = choice.colour_bgr
        self.colour.setStyleSheet(f"QPushButton {{ border-left: 14px solid rgb({r},{g},{b}); padding: 3px 8px; }}")
        self.padding.setValue(round(choice.padding * 100))
        self.padding_label.setText(f"{choice.padding:.0%}")
        self.conf.setValue(round(choice.conf * 100))
        self.conf_label.setText(f"{choice.conf:.2f}")
        self._updating = False

    @property
    def choice(self) -> RedactionChoice:
        return self._choice

    def class_item(self, name: str) -> QTreeWidgetItem | None:
        """Tree item of a class (tests)."""
        return next((i for i in self._class_items() if i.data(0, Qt.ItemDataRole.UserRole) == name), None)

    # ----- intent out --------------------------------------------------------------------------
    def _class_items(self) -> list[QTreeWidgetItem]:
        items = []
        for i in range(self.tree.topLevelItemCount()):
            parent = self.tree.topLevelItem(i)
            items += [parent.child(j) for j in range(parent.childCount())]
        return items

    def _on_preset(self, index: int) -> None:
        key = self.preset.itemData(index)
        if key == CUSTOM:
            return
        self._emit_choice(RedactionChoice.from_preset(key, self._choice))

    def _on_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        # A domain click changes many children; collect them once the batch is done.
        if not self._updating and item.data(0, Qt.ItemDataRole.UserRole) is not None and not self._tree_pending:
            self._tree_pending = True
            QTimer.singleShot(0, self._collect_tree)

    def _collect_tree(self) -> None:
        self._tree_pending = False
        checked = {i.data(0, Qt.ItemDataRole.UserRole) for i in self._class_items() if i.checkState(0) == Qt.CheckState.Checked}
        # Classes not shown here (another model's) keep their state from the previous choice.
        shown = {i.data(0, Qt.ItemDataRole.UserRole) for i in self._class_items()}
        previous = self._choice.classes if self._choice.classes is not None else shown
        classes = frozenset((set(previous) - shown) | checked)
        preset = next((k for k, v in PRESETS.items() if v is not None and v == classes), CUSTOM)
        self._emit_choice(replace(self._choice, classes=classes, preset=preset))

    def _pick_colour(self) -> None:
        b, g, r = self._choice.colour_bgr
        colour = QColorDialog.getColor(QColor(r, g, b), self, "Fill colour")
        if colour.isValid():
            self._emit(colour_bgr=(colour.blue(), colour.green(), colour.red()))

    def _emit(self, **changes) -> None:
        if not self._updating:
            self._emit_choice(replace(self._choice, **changes))

    def _emit_choice(self, choice: RedactionChoice) -> None:
        if choice != self._choice:
            self.set_choice(choice)
            self.choice_changed.emit(choice)


def _slider(lo: int, hi: int, tip: str) -> tuple[QSlider, QLabel]:
    s = QSlider(Qt.Orientation.Horizontal)
    s.setRange(lo, hi)
    s.setToolTip(tip)
    label = QLabel()
    label.setMinimumWidth(34)
    label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return s, label


def _with_label(slider: QSlider, label: QLabel) -> QWidget:
    w = QWidget()
    row = QHBoxLayout(w)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(slider, 1)
    row.addWidget(label)
    return w
