"""QApplication start-up: ``run_gui(files)`` is what ``vpd-redact`` / ``vpd-redact gui`` call."""

from __future__ import annotations

import logging
import sys

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from app.ui.app_controller import AppController
from app.ui.detectors import DetectorFactory
from app.ui.settings import Preferences

log = logging.getLogger(__name__)


def build_window(prefs: Preferences, factory: DetectorFactory | None = None):
    """Controller + views + window, not yet shown (tests and ``run_gui`` share this)."""
    from app.ui.images_view import ImagesView
    from app.ui.main_window import MainWindow

    controller = AppController(prefs, factory)
    views = {"Images": ImagesView(controller.images)}
    for title, builder in _optional_views():
        view = builder(controller)
        if view is not None:
            views[title] = view
    window = MainWindow(controller, views)
    controller.view_requested.connect(window.show_view)
    return window


def _optional_views():
    """Video and Live views (each attaches its controller to the app controller)."""
    try:
        from app.ui.video_view import build_video_view

        yield "Video", build_video_view
    except ImportError as exc:  # the engine is optional at start-up; the app still runs
        log.warning("video view unavailable: %s", exc)
    try:
        from app.ui.live_view import build_live_view

        yield "Live", build_live_view
    except ImportError as exc:
        log.warning("live view unavailable: %s", exc)


def make_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication with names (for QSettings) and HiDPI rounding set."""
    app = QApplication.instance()
    if app is None:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(argv or sys.argv[:1])
    app.setApplicationName("VPD Redactor")
    app.setOrganizationName("VPD Redactor")
    app.setApplicationDisplayName("VPD Redactor")
    return app  # type: ignore[return-value]


def run_gui(files: list[str], factory: DetectorFactory | None = None, smoke: tuple[str, str] | None = None) -> int:
    """Open the main window (with ``files`` loaded) and run the event loop; returns the exit code.
    ``smoke`` = (image, output): the scripted open → redact → save → quit run (``app.ui.smoke``),
    with settings in a throw-away file so the user's are neither read nor changed."""
    app = make_application()
    if smoke is not None:
        import tempfile

        from app.ui.smoke import SmokeRun

        settings_dir = tempfile.TemporaryDirectory(prefix="vpd-smoke-")
        prefs = Preferences(QSettings(f"{settings_dir.name}/settings.ini", QSettings.Format.IniFormat))
        window = build_window(prefs, factory)
        run = SmokeRun(window, *smoke)
        window.show()
        QTimer.singleShot(0, run.start)
        code = app.exec()
        settings_dir.cleanup()
        return code if run.exit_code is None else run.exit_code
    window = build_window(Preferences(QSettings()), factory)
    window.show()
    if files:
        window.controller.open_dropped(files)
    return app.exec()
