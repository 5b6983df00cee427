"""The application controller: owns the per-view controllers, the detector factory and the
preferences; routes drops; reports every worker error through one ``ErrorHub``; stops all workers."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from app.inference.factory import FACE_MODELS, DetectorConfig
from app.ui.detectors import DetectorFactory, default_factory, detector_config, optional_detector_flags
from app.ui.image_controller import ImageController
from app.ui.messages import ErrorHub
from app.ui.settings import Preferences

VIDEO_SUFFIXES = {".mp4", ".mov", ".mkv", ".avi", ".webm", ".m4v", ".mpg", ".mpeg", ".wmv"}
FLAG_LABELS = {"use_detector": "VPD detector", "use_faces": "Face detector", "use_ocr": "OCR text detector (slower)",
               "use_codes": "QR/barcode decoder", "use_people": "Person detector (whole bodies)"}
FACE_MODEL_LABELS = {"centerface": "CenterFace (default)", "blazeface": "BlazeFace short range (faster, more false alarms)",
                     "blazeface-full": "BlazeFace full range"}  # fmt: skip


class AppController(QObject):
    """Everything behind the window. ``factory`` None = real detectors from the preferences;
    tests pass a factory returning fakes."""

    detector_changed = Signal(object)
    busy_changed = Signal(bool)
    view_requested = Signal(str)

    def __init__(self, prefs: Preferences, factory: DetectorFactory | None = None, parent=None) -> None:
        super().__init__(parent)
        self.prefs = prefs
        self._fixed_factory = factory
        self.hub: ErrorHub | None = None
        self.images = ImageController(self.detector_factory(), prefs, self.model_path, self)
        self.images.detector_changed.connect(self.detector_changed)
        self.images.busy_changed.connect(self.busy_changed)
        self.video = None
        self.live = None
        self._extra: list[QObject] = []

    # ----- detectors ---------------------------------------------------------------------------
    @property
    def model_path(self) -> Path | None:
        value = self.prefs.value("detector/model_path", "")
        return Path(value) if value else None

    def detector_flags(self) -> dict[str, bool]:
        defaults = {f.name: f.default for f in dataclasses.fields(DetectorConfig)}
        return {f: self.prefs.value(f"detector/{f}", bool(defaults.get(f, True)), bool) for f in optional_detector_flags()}

    @property
    def face_model(self) -> str:
        """The face model chosen in Settings (one of ``FACE_MODELS``)."""
        value = self.prefs.value("detector/face_model", FACE_MODELS[0])
        return value if value in FACE_MODELS else FACE_MODELS[0]

    def detector_config(self) -> DetectorConfig:
        """The detector configuration the preferences describe."""
        cpu_only = self.prefs.value("detector/cpu_only", False, bool)
        return detector_config(self.model_path, cpu_only, face_model=self.face_model, **self.detector_flags())

    def detector_factory(self) -> DetectorFactory:
        """Factory every worker calls in its own thread (one ONNX session per worker)."""
        if self._fixed_factory is not None:
            return self._fixed_factory
        return default_factory(self.detector_config())

    def set_face_model(self, name: str) -> None:
        """Remember ``name`` as the face model and reload the detectors."""
        if name in FACE_MODELS and name != self.face_model:
            self.prefs.set("detector/face_model", name)
            self.reload_detectors()

    def reload_detectors(self) -> None:
        self.images.load_detectors(self.detector_factory())

    def choose_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(None, "Choose a VPD detector model", str(self.model_path or ""), "ONNX models (*.onnx)")
        if path:
            self.prefs.set("detector/model_path", path)
            self.reload_detectors()

    def settings_actions(self, parent: QWidget) -> list[QAction]:
        """Settings menu: model file, CPU only, optional detectors, face model."""
        actions = []
        a = QAction("Choose detector &model…", parent)
        a.triggered.connect(self.choose_model)
        actions.append(a)
        a = QAction("Run on &CPU only", parent)
        a.setCheckable(True)
        a.setChecked(self.prefs.value("detector/cpu_only", False, bool))
        a.toggled.connect(lambda on: (self.prefs.set("detector/cpu_only", on), self.reload_detectors()))
        actions.append(a)
        for flag, on in self.detector_flags().items():
            a = QAction(FLAG_LABELS.get(flag, flag.replace("use_", "").title()), parent)
            a.setCheckable(True)
            a.setChecked(on)
            a.toggled.connect(lambda on, f=flag: (self.prefs.set(f"detector/{f}", on), self.reload_detectors()))
            actions.append(a)
        menu = QMenu("&Face model", parent)
        group = QActionGroup(menu)
        for name in FACE_MODELS:
            a = menu.addAction(FACE_MODEL_LABELS.get(name, name))
            a.setCheckable(True)
            a.setChecked(name == self.face_model)
            a.setData(name)
            group.addAction(a)
            a.triggered.connect(lambda _=False, n=name: self.set_face_model(n))
        actions.append(menu.menuAction())
        return actions

    # ----- routing -----------------------------------------------------------------------------
    def attach(self, hub: ErrorHub) -> None:
        """Send every controller's messages to ``hub``."""
        self.hub = hub
        for c in (self.images, self.video, self.live, *self._extra):
            if c is not None:
                c.info.connect(hub.info)
                c.error.connect(hub.error)
                if hasattr(c, "warning"):
                    c.warning.connect(hub.warning)

    def open_dropped(self, paths: Iterable[Path]) -> None:
        """Videos go to the Video view, everything else to Images."""
        paths = [Path(p) for p in paths]
        videos = [p for p in paths if p.suffix.lower() in VIDEO_SUFFIXES]
        others = [p for p in paths if p not in videos]
        if videos and self.video is not None:
            self.video.set_input(videos[0])
            self.view_requested.emit("Video")
        if others:
            self.images.open_paths(others)
            self.view_requested.emit("Images")

    def shutdown(self) -> None:
        """Stop and join every worker thread (window closing)."""
        for c in (self.live, self.video, self.images):
            if c is not None:
                c.shutdown()
