"""The Live view: source, output, start/stop, a large masked preview, telemetry and a red
banner whenever protection is paused (the engine failed closed)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QKeySequence, QPainter, QPixmap
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QRadioButton, QSizePolicy, QVBoxLayout, QWidget)  # fmt: skip

from app.ui.document import pretty
from app.ui.live_controller import LiveController
from app.ui.live_worker import LiveConfig, LiveStatus
from app.ui.messages import MessageBar
from app.ui.policy_panel import PolicyPanel
from app.ui.settings import RedactionChoice

FIXED_SOURCES = (("Window by title…", "window:"), ("Video file (test source)…", "file:"),
                 ("Test pattern", "synthetic:1280x720"))  # fmt: skip
TEST_PATTERN = "synthetic:1280x720"
# Why protection is paused, and what to try; the output stays fully masked meanwhile.
PAUSE_HINTS = {
    "starting": "Loading the detector and waiting for its first result.",
    "stalled": "The detector has not answered in time: it is slower than this source on this computer. "
               "Try a smaller window or screen, turn off the OCR text detector (Settings), or run on a GPU.",
    "error": "The detector failed. Press Stop, then Start; if it repeats, try Settings → Run on CPU only.",
}  # fmt: skip


def live_sources(screens: int, cameras: list[int] | None) -> list[tuple[str, str]]:
    """(label, spec) for the sources that exist: each camera, each screen, then a window, a video
    file and the test pattern. ``cameras`` None = cannot be listed here: offer camera 0."""
    found = [(f"Camera {i}", f"camera:{i}") for i in (cameras if cameras is not None else [0])]
    found += [(f"Screen {i}" if screens > 1 else "Screen", f"screen:{i}") for i in range(1, screens + 1)]
    return found + list(FIXED_SOURCES)


def available_sources() -> list[tuple[str, str]]:
    """The sources of this machine (screens from Qt, cameras from the device list)."""
    from app.media.sources import camera_indices

    return live_sources(len(QGuiApplication.screens()), camera_indices())


def pause_text(reason: str | None) -> str:
    """Banner text: what happened and what to try."""
    key = (reason or "").split(":", 1)[0]
    hint = PAUSE_HINTS.get(key, "")
    return f"PROTECTION PAUSED — output fully masked ({reason})" + (f"\n{hint}" if hint else "")


class PreviewWidget(QWidget):
    """Draws the newest masked frame, letterboxed; the frame is already sized by the worker."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(320, 180)
        self._pixmap = QPixmap()
        self.placeholder = "Choose a source and press Start"
        # Floats over the top of the picture, so showing it never moves the controls.
        self.banner = QLabel(self)
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("background: #d1242f; color: white; font-weight: bold; padding: 8px; border-radius: 4px;")
        self.banner.hide()

    def show_banner(self, text: str) -> None:
        """Show the paused banner with ``text``."""
        self.banner.setText(text)
        self.banner.show()
        self._place_banner()

    def resizeEvent(self, event) -> None:
        self._place_banner()
        super().resizeEvent(event)

    def _place_banner(self) -> None:
        width = max(100, self.width() - 16)
        self.banner.setGeometry(8, 8, width, self.banner.heightForWidth(width))

    def set_image(self, image: QImage | None) -> None:
        self._pixmap = QPixmap.fromImage(image) if image is not None else QPixmap()
        self.update()

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#111418"))
        if self._pixmap.isNull():
            p.setPen(QColor("#8b949e"))
            p.drawText(self.rect().adjusted(16, 16, -16, -16), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                       self.placeholder)  # fmt: skip
            return
        size = self._pixmap.size().scaled(self.size(), Qt.AspectRatioMode.KeepAspectRatio)
        target = QRect((self.width() - size.width()) // 2, (self.height() - size.height()) // 2, size.width(), size.height())
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        p.drawPixmap(target, self._pixmap)


def shown_summary(choice: RedactionChoice, class_names: tuple[str, ...]) -> tuple[str, str, bool]:
    """(chip text, tooltip, faces shown) describing what live masking leaves visible."""
    policy = choice.policy()
    faces_shown = not policy.hides("face") or (bool(class_names) and "face" not in class_names)
    why = " (no face detector)" if policy.hides("face") and faces_shown else ""
    text = f"Faces: {'SHOWN' if faces_shown else 'hidden'}{why}"
    others = [pretty(n) for n in policy.shown(class_names) if n != "face"]
    if others:
        text += f" · also not hidden: {', '.join(others[:3])}{f' +{len(others) - 3}' if len(others) > 3 else ''}"
    tip = "Not hidden in the live output: " + (", ".join(["Face"] * faces_shown + others) or "nothing")
    return text, tip + ". Change this under “What to hide”.", faces_shown


class LiveView(QWidget):
    """Composes the live controls; all work is in ``LiveController``'s worker."""

    def __init__(self, controller: LiveController, parent=None, sources: list[tuple[str, str]] | None = None) -> None:
        super().__init__(parent)
        self.c = controller
        self.source = QComboBox()
        for text, spec in sources if sources is not None else available_sources():
            self.source.addItem(text, spec)
        self.source_detail = QLineEdit()
        self.source_detail.setPlaceholderText("window title or video file")
        self.browse = QPushButton("Browse…")
        self.browse.clicked.connect(self._browse)
        self.preview_only = QRadioButton("Preview only (capture this window in OBS)")
        self.virtual_camera = QRadioButton("Virtual camera")
        self.preview_only.setChecked(True)
        self.camera_note = QLabel("Checking for a virtual camera…")
        self.camera_note.setWordWrap(True)
        self.camera_note.setStyleSheet("color: palette(mid);")
        self.record = QCheckBox("Record the masked output to")
        self.record_path = QLineEdit(str(Path.home() / "Videos" / "vpd-live.mp4"))
        self.record_path.setMinimumWidth(200)
        self.start_button = QPushButton("Start")
        self.start_button.setShortcut(QKeySequence("F6"))
        self.start_button.setToolTip("Start / stop live masking (F6)")
        self.start_button.setMinimumWidth(120)
        self._style_start(False)
        self.shown_chip = QLabel()  # what is NOT hidden, on screen at all times
        self._class_names: tuple[str, ...] = ()
        self.preview = PreviewWidget()
        self.banner = self.preview.banner
        self.message_bar = MessageBar(self.preview, bottom=True)  # this tab's errors
        self._stopping = self._failed = False
        self.telemetry = QLabel("Not running")
        self.telemetry.setStyleSheet("font-family: monospace;")
        self.panel = PolicyPanel()
        self.panel.setMaximumWidth(300)

        self.source.setMinimumWidth(200)
        self.source_detail.setMinimumWidth(240)
        top = QHBoxLayout()
        top.addWidget(QLabel("Source"))
        top.addWidget(self.source)
        top.addWidget(self.source_detail)
        top.addWidget(self.browse)
        top.addStretch(1)
        top.addWidget(self.start_button)
        out = QHBoxLayout()
        out.addWidget(QLabel("Output"))
        out.addWidget(self.preview_only)
        out.addWidget(self.virtual_camera)
        out.addSpacing(16)
        out.addWidget(self.record)
        out.addWidget(self.record_path, 1)
        left = QVBoxLayout()
        left.addLayout(top)
        left.addLayout(out)
        left.addWidget(self.camera_note)
        left.addWidget(self.shown_chip, 0, Qt.AlignmentFlag.AlignLeft)
        left.addWidget(self.preview, 1)
        left.addWidget(self.telemetry)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addWidget(self.panel)

        c = controller
        self.panel.set_choice(c.choice.get())
        self.panel.choice_changed.connect(c.set_choice)
        self.panel.choice_changed.connect(lambda _=None: self._update_chip())
        self._update_chip()
        self.start_button.clicked.connect(self.toggle)
        self.source.currentIndexChanged.connect(self._source_changed)
        c.preview.connect(self._on_preview)
        c.running_changed.connect(self._on_running)
        c.virtual_camera_checked.connect(self._on_camera_checked)
        c.error.connect(self._on_error)
        saved = c.prefs.value("live/source", "", str)
        specs = [self.source.itemData(i) for i in range(self.source.count())]
        index = next((i for i, s in enumerate(specs) if saved and s not in ("window:", "file:") and saved == s), -1)
        if index < 0 and saved.startswith("window:"):
            index = specs.index("window:")
        elif index < 0 and saved and not saved.startswith(("camera:", "screen:", "synthetic")):
            index = specs.index("file:")  # a video file path
        if index < 0:
            index = specs.index(TEST_PATTERN)
        self.source.setCurrentIndex(index)
        self._source_changed(index)
        if specs[index] in ("window:", "file:"):
            self.source_detail.setText(saved.split(":", 1)[1] if saved.startswith("window:") else saved)
        self._fps_t = 0.0

    def set_class_names(self, names: tuple[str, ...]) -> None:
        """Classes the loaded detectors can find (for the not-hidden chip)."""
        self._class_names = tuple(names)
        self._update_chip()

    def _update_chip(self) -> None:
        text, tip, faces_shown = shown_summary(self.c.choice.get(), self._class_names)
        self.shown_chip.setText(text)
        self.shown_chip.setToolTip(tip)
        colour = "#9a6700; color: white" if faces_shown else "#d8f3dc; color: #1a4d2e"
        self.shown_chip.setStyleSheet(f"background: {colour}; padding: 3px 10px; border-radius: 10px; font-weight: bold;")

    def config(self) -> LiveConfig:
        spec = self.source.currentData()
        detail = self.source_detail.text().strip()
        if spec == "window:":
            spec = f"window:{detail}"
        elif spec == "file:":
            spec = detail
        record = Path(self.record_path.text()) if self.record.isChecked() and self.record_path.text().strip() else None
        return LiveConfig(spec, self.virtual_camera.isChecked(), record)

    def toggle(self) -> None:
        if self.c.running:
            self._stopping = True
            self.c.stop()
        else:
            self.c.start(self.config())

    def showEvent(self, event) -> None:
        self.c.check_virtual_camera()
        super().showEvent(event)

    def resizeEvent(self, event) -> None:
        ratio = self.devicePixelRatioF()
        self.c.preview_side.set(int(max(self.preview.width(), self.preview.height()) * ratio))
        super().resizeEvent(event)

    def _source_changed(self, index: int) -> None:
        spec = self.source.itemData(index)
        needs_detail = spec in ("window:", "file:")
        self.source_detail.setVisible(needs_detail)
        self.browse.setVisible(spec == "file:")
        self.source_detail.setPlaceholderText("part of the window title" if spec == "window:" else "video file")

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Video file as a test source", "", "Videos (*.mp4 *.mov *.mkv *.avi *.webm)")
        if path:
            self.source_detail.setText(path)

    def _on_camera_checked(self, problem: str) -> None:
        self.virtual_camera.setEnabled(not problem)
        if problem:
            self.preview_only.setChecked(True)
            self.camera_note.setText(f"No virtual camera available — {problem}. Use “Preview only” and capture this window in OBS.")
        else:
            self.camera_note.setText("A virtual camera is available: video apps can pick it as their camera.")

    def _style_start(self, running: bool) -> None:
        colour = "#cf222e" if running else "#1f883d"
        self.start_button.setText("■  Stop" if running else "▶  Start")
        self.start_button.setStyleSheet(f"QPushButton {{ background: {colour}; color: white; font-weight: bold;"
                                        " padding: 6px 14px; border-radius: 5px; }")  # fmt: skip

    def _on_running(self, running: bool) -> None:
        self._style_start(running)
        for w in (self.source, self.source_detail, self.browse, self.preview_only, self.virtual_camera, self.record, self.record_path):
            w.setEnabled(not running and (w is not self.virtual_camera or not self.c.virtual_camera_problem))
        if running:
            self._stopping = self._failed = False
            self.message_bar.clear()
            self.preview.placeholder = "Starting… (the output stays fully masked until the detector is ready)"
            self.preview.set_image(None)
        else:
            self.banner.hide()
            self.telemetry.setText("Not running")
            # The last frame may carry a stamped "paused" banner: say how the session ended instead.
            self.preview.set_image(None)
            if self._stopping:
                self.preview.placeholder = "Stopped. Press Start to mask again."
            elif self._failed:
                self.preview.placeholder = "Stopped by a problem (see the message below). Press Start to try again."
            else:
                self.preview.placeholder = "Ended: the source has no more frames (end of the video file). Press Start to play it again."

    def _on_error(self, _text: str) -> None:
        self._failed = True

    def _on_preview(self, image: QImage, status: LiveStatus) -> None:
        self.preview.set_image(image)
        if status.protected:
            self.banner.hide()
        else:
            self.preview.show_banner(pause_text(status.reason))
        rec = f" · ● REC {status.recording}" if status.recording else ""
        self.telemetry.setText(f"{status.fps:5.1f} fps · latency {status.latency_s * 1000:4.0f} ms · {status.provider}"
                               f" · {status.frames} frames{rec}")  # fmt: skip


def build_live_view(app_controller) -> LiveView:
    controller = LiveController(app_controller.detector_factory, app_controller.prefs, parent=app_controller)
    app_controller.live = controller
    view = LiveView(controller)
    app_controller.detector_changed.connect(lambda info: view.panel.set_classes(info.domains))
    app_controller.detector_changed.connect(lambda info: view.set_class_names(info.class_names))
    return view
