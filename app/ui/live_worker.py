"""The live loop in its own QThread: source → LiveMasker (fail-closed) → sinks, and at most one
preview frame in flight to the GUI. Dropping a preview never skips masking or recording a frame."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QImage

from app.core.errors import VpdError
from app.core.live import LiveMasker, LiveOptions
from app.core.live_run import capture_time
from app.core.pipeline import Pipeline
from app.ui.detectors import DetectorFactory, first_provider_name
from app.ui.qt_image import bgr_to_qimage
from app.ui.settings import RedactionChoice, SettingsHolder

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LiveConfig:
    """Where frames come from and where masked frames go."""

    source: str
    virtual_camera: bool = False
    record_to: Path | None = None


@dataclass(frozen=True)
class LiveStatus:
    """Shown with each preview: protection state and telemetry."""

    protected: bool
    reason: str | None
    fps: float
    latency_s: float
    provider: str
    frames: int
    recording: str = ""
    text_paused: str = ""  # why parts of the frame are filled: detector behind, OCR behind/failed ('' = none)


class LiveWorker(QObject):
    """``run()`` loops until ``stop`` is set or the source ends; emits ``preview`` (throttled by
    ``preview_free``), then ``ended`` with a reason; ``failed`` when it cannot start."""

    preview = Signal(QImage, object)
    ended = Signal(object, str)  # this worker, why it ended (a stale worker's signal is ignored)
    failed = Signal(str)
    info = Signal(str)

    def __init__(self, config: LiveConfig, factory: DetectorFactory, choice: SettingsHolder[RedactionChoice],
                 preview_side: SettingsHolder[int], source_opener) -> None:  # fmt: skip
        super().__init__()
        self.config = config
        self.factory = factory
        self.choice = choice
        self.preview_side = preview_side
        self.open_source = source_opener
        self.stop = threading.Event()
        self.preview_free = threading.Event()
        self.preview_free.set()

    @Slot()
    def run(self) -> None:
        source = masker = camera = recorder = None
        ended = "stopped"
        try:
            source = self.open_source(self.config.source)
            built = self.factory()
            built.require_complete("install it, or switch it off in Settings to stream without it")
            choice = self.choice.get()
            pipeline = Pipeline(built.detectors, choice.policy(), choice.redaction())
            fps = float(getattr(source, "fps", 30.0) or 30.0)
            masker = LiveMasker(pipeline, LiveOptions(fps=fps))
            provider = first_provider_name(built.detectors)
            w, h = source.size
            camera = self._open_camera(w, h, fps)
            write, recorder = self._open_recorder(source, w, h, fps)
            ended = self._loop(source, masker, pipeline, choice, provider, camera, write)
        except VpdError as exc:
            self.failed.emit(str(exc))
            ended = ""
        except Exception as exc:  # noqa: BLE001 - report, never crash the GUI
            log.exception("live loop failed")
            self.failed.emit(f"Live masking stopped: {exc!r}")
            ended = ""
        finally:
            ended = self._close(source, masker, camera, recorder) or ended
            self.ended.emit(self, ended)

    def _open_camera(self, w: int, h: int, fps: float):
        if not self.config.virtual_camera:
            return None
        from app.media.sinks import VirtualCameraSink

        camera = VirtualCameraSink(w, h, fps)  # SourceError says clearly when there is no device
        self.info.emit(f"Sending the masked video to {camera.device}")
        return camera

    def _open_recorder(self, source, w: int, h: int, fps: float):
        """(sink, file) writing masked frames at the source's own timestamps, or (None, None)."""
        if self.config.record_to is None:
            return None, None
        from app.media.sinks import MS, VideoFileSink, source_timed_writer

        sink = VideoFileSink(self.config.record_to, fps, (w, h), time_base=MS)
        return source_timed_writer(sink, source), sink

    def _loop(self, source, masker, pipeline, choice, provider, camera, write) -> str:
        while not self.stop.is_set():
            current = self.choice.get()  # read once per frame
            if current != choice:
                choice = current
                masker.set_settings(choice.policy(), choice.redaction())
            frame = source.read()
            if frame is None:
                return "the source ended"
            out = masker.process(frame, capture_time(source, masker))
            if camera is not None:
                camera.write(out.frame)
            if write is not None:
                write(out.frame)
            if self.preview_free.is_set():  # GUI has shown the previous one
                self.preview_free.clear()
                t = masker.telemetry()
                status = LiveStatus(out.protected, out.reason, out.fps, out.latency_s, provider, t.frames,
                                    str(self.config.record_to.name) if write is not None else "",
                                    "; ".join(n for n in (out.stale, out.text_paused) if n))  # fmt: skip
                self.preview.emit(bgr_to_qimage(_fit(out.frame, self.preview_side.get())), status)
        return "stopped"

    def _close(self, source, masker, camera, recorder) -> str:
        message = ""
        if masker is not None:
            masker.close()
        for closer in (camera, source):
            if closer is not None:
                try:
                    closer.close()
                except Exception as exc:  # noqa: BLE001
                    log.warning("closing %s failed: %s", closer, exc)
        if recorder is not None:
            try:
                path = recorder.close()
                message = f"stopped; recording saved to {path}"
            except VpdError as exc:
                self.failed.emit(str(exc))
        return message


def _fit(frame: np.ndarray, side: int) -> np.ndarray:
    h, w = frame.shape[:2]
    s = min(1.0, side / max(h, w)) if side > 0 else 1.0
    if s >= 1.0:
        return frame
    return cv2.resize(frame, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)


