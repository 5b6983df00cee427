"""QApplication start-up."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication, QLabel, QMainWindow


def run_gui(files: list[str]) -> int:
    """Open the main window and run the event loop; returns the exit code."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("VPD Redactor")
    app.setOrganizationName("VPD Redactor")
    window = QMainWindow()
    window.setWindowTitle("VPD Redactor")
    window.setCentralWidget(QLabel("Drop images here (the full app is coming)."))
    window.resize(1200, 800)
    window.show()
    return app.exec()
