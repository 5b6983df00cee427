"""One place for errors and notices: logged, shown in the status bar, and (for problems) in an
in-window message bar that never blocks. Workers never talk to the user directly."""

from __future__ import annotations

import logging
from enum import Enum

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QStatusBar

log = logging.getLogger("app.ui")


class Level(str, Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


STYLES = {
    Level.INFO: ("#0c2d6b", "#cae8ff", "#54aeff"),
    Level.WARNING: ("#4d2d00", "#fff8c5", "#d4a72c"),
    Level.ERROR: ("#67060c", "#ffebe9", "#ff8182"),
}


class MessageBar(QFrame):
    """A dismissable banner at the top of a view; optional action button."""

    action_clicked = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.action = QPushButton()
        self.action.clicked.connect(self.action_clicked)
        close = QPushButton("✕")
        close.setFlat(True)
        close.setFixedWidth(28)
        close.setToolTip("Dismiss")
        close.clicked.connect(self.hide)
        row.addWidget(self.label, 1)
        row.addWidget(self.action)
        row.addWidget(close)
        self.level = Level.INFO
        self.hide()

    def show_message(self, text: str, level: Level = Level.ERROR, action: str = "") -> None:
        fg, bg, border = STYLES[level]
        self.level = level
        self.setStyleSheet(f"MessageBar {{ background: {bg}; border: 1px solid {border}; border-radius: 6px; }}"
                           f" QLabel {{ color: {fg}; }}")  # fmt: skip
        self.label.setText(text)
        self.action.setText(action)
        self.action.setVisible(bool(action))
        self.show()

    @property
    def text(self) -> str:
        return self.label.text() if self.isVisible() else ""


class ErrorHub(QObject):
    """Routes messages: everything to the log and status bar; warnings/errors to the message bar."""

    def __init__(self, status_bar: QStatusBar, bar: MessageBar, parent=None) -> None:
        super().__init__(parent)
        self.status_bar, self.bar = status_bar, bar
        self.last_error = ""

    def info(self, text: str) -> None:
        log.info(text)
        self.status_bar.showMessage(text, 8000)

    def warning(self, text: str, action: str = "") -> None:
        log.warning(text)
        self.status_bar.showMessage(text, 8000)
        self.bar.show_message(text, Level.WARNING, action)

    def error(self, text: str) -> None:
        log.error(text)
        self.last_error = text
        self.status_bar.showMessage(text, 12000)
        self.bar.show_message(text, Level.ERROR)
