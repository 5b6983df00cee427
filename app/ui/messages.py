"""One place for errors and notices: logged and shown in the status bar; problems also go to the
banner of the view they are about (an overlay that never blocks and never moves the controls).
Workers never talk to the user directly."""

from __future__ import annotations

import logging
from enum import Enum

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QStatusBar, QWidget

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
    """A dismissable banner floating over the top (or bottom) edge of ``host``: showing or closing
    it never moves the host's controls. ``scope`` says what it is about (e.g. an image); the owner
    clears it when that goes away. Optional action button."""

    action_clicked = Signal()
    dismissed = Signal(object)  # the scope of a message the user closed

    def __init__(self, host: QWidget, bottom: bool = False) -> None:
        super().__init__(host)
        self.host, self.bottom = host, bottom
        self.scope: object = None
        self.setAutoFillBackground(True)
        host.installEventFilter(self)
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
        close.clicked.connect(self._dismiss)
        self.close_button = close
        row.addWidget(self.label, 1)
        row.addWidget(self.action)
        row.addWidget(close)
        self.level = Level.INFO
        self.hide()

    def show_message(self, text: str, level: Level = Level.ERROR, action: str = "", scope: object = None) -> None:
        """Show ``text`` (replacing any earlier message) about ``scope``."""
        fg, bg, border = STYLES[level]
        self.level, self.scope = level, scope
        self.setStyleSheet(f"MessageBar {{ background: {bg}; border: 1px solid {border}; border-radius: 6px; }}"
                           f" QLabel {{ color: {fg}; }}")  # fmt: skip
        self.label.setText(text)
        self.action.setText(action)
        self.action.setVisible(bool(action))
        self.show()
        self.raise_()
        self._place()

    def clear(self, scope: object = None) -> None:
        """Hide the banner (only if it is about ``scope``, when one is given)."""
        if scope is None or scope == self.scope:
            self.hide()
            self.scope = None

    def _dismiss(self) -> None:
        scope = self.scope
        self.clear()
        self.dismissed.emit(scope)

    @property
    def text(self) -> str:
        """The text shown (when its view is shown), '' when dismissed or cleared."""
        return self.label.text() if not self.isHidden() else ""

    def eventFilter(self, watched, event) -> bool:
        if watched is self.host and event.type() == QEvent.Type.Resize and not self.isHidden():
            self._place()
        return False

    def _place(self) -> None:
        margin = 8
        width = max(120, self.host.width() - 2 * margin)
        height = self.heightForWidth(width) if self.hasHeightForWidth() else self.sizeHint().height()
        height = max(height, self.sizeHint().height())
        y = self.host.height() - height - margin if self.bottom else margin
        self.setGeometry(margin, max(0, y), width, height)


class ErrorHub(QObject):
    """Routes messages: everything to the log and status bar; warnings and errors also to the
    banner of the view the sending controller belongs to (``route``). A controller without a
    banner here (the Images view scopes its own per image) only logs and uses the status bar."""

    def __init__(self, status_bar: QStatusBar, parent=None) -> None:
        super().__init__(parent)
        self.status_bar = status_bar
        self.bars: dict[int, MessageBar] = {}
        self.last_error = ""

    def route(self, controller: QObject, bar: MessageBar) -> None:
        """Send ``controller``'s warnings and errors to ``bar`` as well."""
        self.bars[id(controller)] = bar

    def _bar(self) -> MessageBar | None:
        sender = self.sender()
        return self.bars.get(id(sender)) if sender is not None else None

    def info(self, text: str) -> None:
        log.info(text)
        self.status_bar.showMessage(text, 8000)

    def warning(self, text: str, action: str = "") -> None:
        log.warning(text)
        self.status_bar.showMessage(text, 8000)
        if (bar := self._bar()) is not None:
            bar.show_message(text, Level.WARNING, action)

    def error(self, text: str) -> None:
        log.error(text)
        self.last_error = text
        self.status_bar.showMessage(text, 12000)
        if (bar := self._bar()) is not None:
            bar.show_message(text, Level.ERROR)
