"""The main window: composes the views, menus, status bar and banners. No logic of its own beyond
routing user intent (drops, menu actions) to the ``AppController``."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QProgressBar, QTabWidget, QVBoxLayout, QWidget

from app import __version__
from app.ui.app_controller import AppController
from app.ui.detectors import DetectorInfo
from app.ui.messages import ErrorHub, Level, MessageBar
from app.ui.shortcuts import ShortcutsDialog


class MainWindow(QMainWindow):
    """Images / Video / Live tabs over one controller."""

    files_dropped = Signal(list)

    def __init__(self, controller: AppController, views: dict[str, QWidget]) -> None:
        super().__init__()
        self.controller = controller
        self.views = views
        self.setWindowTitle("VPD Redactor")
        self.setAcceptDrops(True)
        self.setMinimumSize(720, 480)
        # Banners float over the view they are about (see MessageBar), so none moves the controls.
        images = views["Images"]
        self.model_banner = MessageBar(getattr(images, "canvas", images), bottom=True)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        for title, view in views.items():
            self.tabs.addTab(view, title)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 4, 6, 0)
        layout.setSpacing(4)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.provider_label = QLabel()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(90)
        self.busy.setMaximumHeight(12)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.statusBar().addPermanentWidget(self.busy)
        self.statusBar().addPermanentWidget(self.provider_label)
        self.hub = ErrorHub(self.statusBar(), self)
        for name in ("video", "live"):  # the Images view scopes its own banner per image
            c, view = getattr(controller, name, None), views.get(name.title())
            if c is not None and isinstance(getattr(view, "message_bar", None), MessageBar):
                self.hub.route(c, view.message_bar)
        controller.attach(self.hub)
        self._build_menus()

        controller.detector_changed.connect(self.show_detector)
        controller.busy_changed.connect(self.busy.setVisible)
        self.files_dropped.connect(controller.open_dropped)
        if hasattr(views["Images"], "status_message"):
            views["Images"].status_message.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.model_banner.action_clicked.connect(controller.choose_model)
        self.show_detector(controller.images.detector_info)
        self._restore()

    def _build_menus(self) -> None:
        images = self.views["Images"]
        groups = images.actions_for_menus()
        menus = {"file": self.menuBar().addMenu("&File"), "edit": self.menuBar().addMenu("&Edit"),
                 "view": self.menuBar().addMenu("&View")}  # fmt: skip
        for key, actions in groups.items():
            for a in actions:
                menus[key].addSeparator() if a is None else menus[key].addAction(a)
                if a is not None:
                    self.addAction(a)  # shortcuts work on every tab's widgets
        menus["file"].addSeparator()
        quit_action = menus["file"].addAction("&Quit", QKeySequence.StandardKey.Quit, self.close)
        menus["view"].addSeparator()
        self._tab_actions = []
        for i, title in enumerate(self.views):
            a = menus["view"].addAction(f"{title}", QKeySequence(f"Alt+{i + 1}"), lambda i=i: self.tabs.setCurrentIndex(i))
            self._tab_actions.append(a)
        settings = self.menuBar().addMenu("&Settings")
        for a in self.controller.settings_actions(self):
            settings.addAction(a)
        help_menu = self.menuBar().addMenu("&Help")
        self.act_shortcuts = help_menu.addAction("&Keyboard shortcuts", QKeySequence("F1"), self.show_shortcuts)
        help_menu.addAction("&About", self._about)
        self._all_actions = [a for acts in groups.values() for a in acts if a is not None] + [quit_action, *self._tab_actions, self.act_shortcuts]

    @property
    def message_bar(self) -> MessageBar:
        """The banner of the tab shown now."""
        return self.tabs.currentWidget().message_bar

    # ----- slots -------------------------------------------------------------------------------
    def show_detector(self, info: DetectorInfo) -> None:
        """Provider in the status bar; a banner when detection is unavailable or partial."""
        if info.ok:
            self.provider_label.setText(f"  Detector: {info.provider}  ·  {len(info.class_names)} classes  ")
            self.provider_label.setToolTip(info.message or "All detectors loaded")
            if info.message:
                self.model_banner.show_message(info.message, Level.WARNING)
            else:
                self.model_banner.hide()
        else:
            self.provider_label.setText("  Detector: none (manual boxes only)  " if info.message != "Loading the detector…"
                                        else "  Detector: loading…  ")  # fmt: skip
            if info.message and info.message != "Loading the detector…":
                self.model_banner.show_message(info.message, Level.WARNING, "Choose model…")

    def show_shortcuts(self) -> ShortcutsDialog:
        dialog = ShortcutsDialog(self._all_actions, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def _about(self) -> None:
        QMessageBox.about(self, "About VPD Redactor", f"<b>VPD Redactor</b> {__version__}<br>Finds and hides personal "
                          "information in screenshots and video, entirely on this computer.")  # fmt: skip

    # ----- drops -------------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() or event.mimeData().hasImage():
            event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:
        event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        mime = event.mimeData()
        paths = [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()]
        if paths:
            self.files_dropped.emit(paths)
        elif mime.hasImage():
            self.controller.images.paste(mime)
            self.tabs.setCurrentIndex(0)
        event.acceptProposedAction()

    def show_view(self, title: str) -> None:
        """Bring a tab to the front."""
        self.tabs.setCurrentWidget(self.views[title])

    # ----- lifetime ----------------------------------------------------------------------------
    def _restore(self) -> None:
        prefs = self.controller.prefs
        geometry = prefs.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 800)
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is not None:
            fit_to_screen(self, screen.availableGeometry())
        self.tabs.setCurrentIndex(prefs.value("window/tab", 0, int) or 0)

    def closeEvent(self, event: QCloseEvent) -> None:
        prefs = self.controller.prefs
        prefs.set("window/geometry", self.saveGeometry())
        prefs.set("window/tab", self.tabs.currentIndex())
        self.controller.shutdown()
        prefs.sync()
        super().closeEvent(event)


def fit_to_screen(window: QMainWindow, available: QRect) -> None:
    """Keep the whole window, frame and status bar included, inside ``available`` (the screen
    minus panels): a 1366×768 laptop gets a window that fits, a restored geometry from a larger
    monitor is shrunk and moved back on screen."""
    # Title bar and borders; before the first show the frame is unknown, so assume a usual one.
    frame = window.frameGeometry().size() - window.geometry().size() if window.isVisible() else QSize(16, 40)
    room = QSize(available.width() - frame.width(), available.height() - frame.height())
    window.setMinimumSize(window.minimumSize().boundedTo(room))
    size = window.size().boundedTo(room)
    if size != window.size():
        window.resize(size)
    g = window.frameGeometry()
    x = min(max(g.x(), available.left()), available.right() + 1 - g.width())
    y = min(max(g.y(), available.top()), available.bottom() + 1 - g.height())
    if (x, y) != (g.x(), g.y()):
        window.move(x, y)
