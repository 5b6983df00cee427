"""The boxes of the current image as a checklist: tick = hidden in the output."""

from __future__ import annotations

from typing import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem, QMenu, QWidget

from app.ui.box_item import MUTED, SOURCE_COLOURS
from app.ui.document import MANUAL_CLASS, Box, pretty


def class_menu(parent: QWidget, class_names: Sequence[str], choose: Callable[[str], None]) -> QMenu:
    """A "Set class" menu: 'Manual' plus every class the detectors know; ``choose(name)`` on pick."""
    menu = QMenu("Set &class", parent)
    for name in (MANUAL_CLASS, *class_names):
        menu.addAction(pretty(name), lambda n=name: choose(n)).setData(name)
    return menu


def _swatch(colour: QColor) -> QIcon:
    pm = QPixmap(12, 12)
    pm.fill(colour)
    return QIcon(pm)


class BoxList(QListWidget):
    """Data in: ``set_boxes``, ``select_ids``. Intent out: ``enabled_changed``, ``selection_changed``."""

    enabled_changed = Signal(int, bool)
    selection_changed = Signal(list)
    class_chosen = Signal(list, str)  # box ids, class name (right-click → Set class)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setUniformItemSizes(True)
        self._updating = False
        self.itemChanged.connect(self._on_item_changed)
        self.itemSelectionChanged.connect(self._on_selection)
        self.class_names: tuple[str, ...] = ()  # offered by the right-click "Set class" menu
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)

    def set_boxes(self, boxes: list[Box], hidden_ids: set[int]) -> None:
        """Rebuild the list (boxes are few; rebuilding keeps it simple and exact)."""
        self._updating = True
        selected = set(self.selected_ids())
        self.clear()
        for b in boxes:
            note = "" if (b.id in hidden_ids or not b.enabled) else "  — not hidden (class off / below threshold)"
            item = QListWidgetItem(_swatch(SOURCE_COLOURS.get(b.source, MUTED)), b.label + note)
            item.setData(Qt.ItemDataRole.UserRole, b.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if b.enabled else Qt.CheckState.Unchecked)
            if b.id not in hidden_ids:
                item.setForeground(QColor(MUTED))
            self.addItem(item)
            item.setSelected(b.id in selected)
        self._updating = False

    def selected_ids(self) -> list[int]:
        return [int(i.data(Qt.ItemDataRole.UserRole)) for i in self.selectedItems()]

    def select_ids(self, ids: list[int]) -> None:
        """Mirror the canvas selection without echoing it back."""
        self._updating = True
        wanted = set(ids)
        for row in range(self.count()):
            item = self.item(row)
            item.setSelected(int(item.data(Qt.ItemDataRole.UserRole)) in wanted)
        self._updating = False

    def item_for(self, box_id: int) -> QListWidgetItem | None:
        for row in range(self.count()):
            if int(self.item(row).data(Qt.ItemDataRole.UserRole)) == box_id:
                return self.item(row)
        return None

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        if not self._updating:
            self.enabled_changed.emit(int(item.data(Qt.ItemDataRole.UserRole)), item.checkState() == Qt.CheckState.Checked)

    def _on_selection(self) -> None:
        if not self._updating:
            self.selection_changed.emit(self.selected_ids())

    def context_menu(self) -> QMenu | None:
        """The right-click menu for the selected boxes (None when nothing is selected)."""
        ids = self.selected_ids()
        if not ids:
            return None
        menu = QMenu(self)
        menu.addMenu(class_menu(menu, self.class_names, lambda name: self.class_chosen.emit(ids, name)))
        return menu

    def _menu(self, pos) -> None:
        item = self.itemAt(pos)
        if item is not None and not item.isSelected():
            self.clearSelection()
            item.setSelected(True)
        menu = self.context_menu()
        if menu is not None:
            menu.exec(self.viewport().mapToGlobal(pos))
