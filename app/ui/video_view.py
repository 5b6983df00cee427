"""The Video view: input, output and options; progress with ETA and cancel; before/after."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QPixmap
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFileDialog, QFormLayout, QGridLayout, QGroupBox, QHBoxLayout,
                               QLabel, QLineEdit, QProgressBar, QPushButton, QScrollArea, QSpinBox, QVBoxLayout,
                               QWidget)  # fmt: skip

from app.ui.messages import MessageBar
from app.ui.policy_panel import PolicyPanel
from app.ui.video_controller import VideoController

VIDEO_FILTER = "Videos (*.mp4 *.mov *.mkv *.avi *.webm *.m4v);;All files (*)"


def format_eta(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else f"{seconds // 60}:{seconds % 60:02d}"


class VideoView(QWidget):
    """Composes the export form; all work happens in ``VideoController``."""

    def __init__(self, controller: VideoController, parent=None) -> None:
        super().__init__(parent)
        self.c = controller
        self._t0 = 0.0
        self.message_bar = MessageBar(self, bottom=True)  # this tab's problems; floats, moves nothing
        self.input = QLineEdit()
        self.input.setReadOnly(True)
        self.input.setPlaceholderText("Drop a video on the window or choose one…")
        self.output = QLineEdit()
        self.output.setReadOnly(True)
        choose_in, choose_out = QPushButton("Choose…"), QPushButton("Change…")
        choose_in.clicked.connect(self._choose_input)
        choose_out.clicked.connect(self._choose_output)
        self.audio = QCheckBox("Keep audio")
        self.stride = QSpinBox()
        self.stride.setRange(1, 10)
        self.stride.setSuffix(" frame(s)")
        self.stride.setToolTip("Run the detector every N-th frame; tracking and gap filling cover the rest")
        self.quality = QComboBox()
        for key, text in (("high", "High (larger file)"), ("standard", "Standard"), ("small", "Small file")):
            self.quality.addItem(text, key)

        form = QFormLayout()
        form.addRow("Input", _row(self.input, choose_in))
        form.addRow("Output", _row(self.output, choose_out))
        form.addRow("Detect every", self.stride)
        form.addRow("Quality", self.quality)
        form.addRow("", self.audio)
        self.start_button = QPushButton("Export redacted video")
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.progress = QProgressBar()
        self.progress.setFormat("%p%")
        self.eta = QLabel("")
        self.open_folder = QPushButton("Open folder")
        self.open_folder.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.open_folder)
        buttons.addStretch(1)

        self.previews = QGridLayout()
        preview_box = QGroupBox("Before / after")
        preview_box.setLayout(self.previews)
        self.preview_box = preview_box
        preview_box.hide()

        left = QVBoxLayout()
        left.addLayout(form)
        left.addLayout(buttons)
        left.addWidget(self.progress)
        left.addWidget(self.eta)
        left.addWidget(preview_box)
        left.addStretch(1)
        body = QWidget()
        body.setLayout(left)
        scroll = QScrollArea()
        scroll.setWidget(body)
        scroll.setWidgetResizable(True)
        self.panel = PolicyPanel()
        self.panel.setMaximumWidth(320)
        layout = QHBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.panel)

        c = controller
        self.panel.set_choice(c.choice)
        self.audio.setChecked(c.keep_audio)
        self.stride.setValue(c.stride)
        self.quality.setCurrentIndex(max(0, self.quality.findData(c.quality)))
        self.panel.choice_changed.connect(c.set_choice)
        for w in (self.audio.toggled, self.stride.valueChanged, self.quality.currentIndexChanged):
            w.connect(self._options)
        self.start_button.clicked.connect(c.start)
        self.cancel_button.clicked.connect(c.cancel)
        self.open_folder.clicked.connect(self._open_folder)
        c.input_changed.connect(lambda p: self.input.setText(str(p) if p else ""))
        c.target_changed.connect(lambda p: self.output.setText(str(p) if p else ""))
        c.progress.connect(self._on_progress)
        c.running_changed.connect(self._on_running)
        c.finished.connect(self._on_finished)
        c.previews_ready.connect(self._show_previews)
        self._on_running(False)

    def _options(self, *_) -> None:
        self.c.set_options(self.audio.isChecked(), self.stride.value(), self.quality.currentData())

    def _choose_input(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a video", "", VIDEO_FILTER)
        if path:
            self.c.set_input(Path(path))

    def _choose_output(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save redacted video as", str(self.c.target or ""), "MP4 (*.mp4);;MKV (*.mkv);;MOV (*.mov)")
        if path:
            self.c.set_target(Path(path))

    def _on_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.panel.setEnabled(not running)
        if running:
            self.message_bar.clear()  # a new export: the last one's problem is history
            self._t0 = time.perf_counter()
            self.progress.setRange(0, 0)
            self.eta.setText("Starting (loading the detector)…")
            self.open_folder.hide()
            self.preview_box.hide()
        else:
            self.progress.setRange(0, 100)

    def _on_progress(self, done: int, total) -> None:
        elapsed = time.perf_counter() - self._t0
        if not total:
            self.progress.setRange(0, 0)
            self.eta.setText(f"{done} frames · {format_eta(elapsed)} elapsed")
            return
        self.progress.setRange(0, total)
        self.progress.setValue(min(done, total))
        rate = done / elapsed if elapsed > 0 else 0
        phase = "Analysing" if done < total / 2 else "Writing"
        eta = f" · about {format_eta((total - done) / rate)} left" if rate > 0 and done else ""
        self.eta.setText(f"{phase} · {done}/{total} steps{eta}")

    def _on_finished(self, report) -> None:
        self.progress.setValue(self.progress.maximum())
        self.eta.setText(f"Done: {report.target} — {report.frames} frames in {format_eta(report.seconds)}, audio {report.audio}.")
        self._last_folder = report.target.parent
        self.open_folder.show()

    def _show_previews(self, pairs: list) -> None:
        while self.previews.count():
            item = self.previews.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        for col, title in enumerate(("Original", "Redacted")):
            self.previews.addWidget(QLabel(f"<b>{title}</b>"), 0, col)
        for r, (before, after) in enumerate(pairs, start=1):
            for col, img in enumerate((before, after)):
                label = QLabel()
                label.setPixmap(QPixmap.fromImage(img).scaledToWidth(300, Qt.TransformationMode.SmoothTransformation))
                self.previews.addWidget(label, r, col)
        self.previews.setColumnStretch(2, 1)
        self.preview_box.setVisible(bool(pairs))

    def _open_folder(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self._last_folder)))


def _row(*widgets) -> QWidget:
    w = QWidget()
    row = QHBoxLayout(w)
    row.setContentsMargins(0, 0, 0, 0)
    for x in widgets:
        row.addWidget(x, 1 if isinstance(x, QLineEdit) else 0)
    return w


def build_video_view(app_controller) -> VideoView:
    """Create the controller, attach it to the app controller, return the view."""
    controller = VideoController(app_controller.detector_factory, app_controller.prefs, app_controller)
    app_controller.video = controller
    view = VideoView(controller)
    app_controller.detector_changed.connect(lambda info: view.panel.set_classes(info.domains))
    return view
