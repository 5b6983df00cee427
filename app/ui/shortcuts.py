"""Help → Shortcuts: every action with a shortcut, plus the mouse and held-key gestures."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout

GESTURES = (
    ("Hold Space", "Show the original (before) while held"),
    ("Drag anywhere on the image", "Add a box by hand (also over other boxes)"),
    ("Click a box", "Select it (Ctrl+click adds to the selection)"),
    ("Drag a selected box / its handles", "Move / resize it"),
    ("Click a box's tag, double-click a box", "Hide it / leave it visible"),
    ("Ctrl + mouse wheel", "Zoom around the cursor"),
    ("Middle-button drag", "Pan"),
)


def shortcut_rows(actions: list[QAction]) -> list[tuple[str, str]]:
    """(keys, what) for actions that have shortcuts, then the gestures."""
    rows = []
    for a in actions:
        keys = ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in a.shortcuts())
        if keys:
            rows.append((keys, a.text().replace("&", "")))
    return rows + list(GESTURES)


class ShortcutsDialog(QDialog):
    """A read-only table of shortcuts."""

    def __init__(self, actions: list[QAction], parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        rows = shortcut_rows(actions)
        table = QTableWidget(len(rows), 2)
        table.setHorizontalHeaderLabels(["Keys", "Action"])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, (keys, what) in enumerate(rows):
            table.setItem(r, 0, QTableWidgetItem(keys))
            table.setItem(r, 1, QTableWidgetItem(what))
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        table.setWordWrap(True)  # long descriptions wrap instead of being cut off
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table = table
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(table)
        layout.addWidget(buttons)
        self.resize(640, 600)
