"""Video export behind the Video view: one export at a time in its own thread, progress and
cancel, then a before/after sample of a few frames (decoded in the worker)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal

from app.core.errors import Cancelled, VpdError
from app.core.pipeline import Pipeline
from app.media.video_export import ExportOptions, ExportReport, export_video, upright
from app.ui.detectors import DetectorFactory
from app.ui.qt_image import bgr_to_qimage
from app.ui.settings import Preferences, RedactionChoice
from app.ui.tasks import TaskRunner

log = logging.getLogger(__name__)
QUALITY_CRF = {"high": 18, "standard": 20, "small": 26}
PROGRESS_INTERVAL_S = 0.1


@dataclass(frozen=True)
class VideoJob:
    """What to export and how."""

    source: Path
    target: Path
    keep_audio: bool = True
    stride: int = 2
    quality: str = "standard"

    def options(self) -> ExportOptions:
        return ExportOptions(keep_audio=self.keep_audio, stride=self.stride, crf=QUALITY_CRF.get(self.quality, 20))


def default_target(source: Path) -> Path:
    """``name_redacted.mp4`` beside the source, or ``…-2``, ``…-3`` if taken."""
    for n in range(1, 10_000):
        target = source.with_name(f"{source.stem}_redacted{'' if n == 1 else f'-{n}'}.mp4")
        if not target.exists():
            return target
    return source.with_name(f"{source.stem}_redacted-{int(time.time())}.mp4")


def sample_frames(path: Path, count: int = 3, max_side: int = 360) -> list[np.ndarray]:
    """``count`` frames spread over a video (seek to keyframe, decode up to the time), downscaled."""
    import av
    import cv2

    out: list[np.ndarray] = []
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        duration = float(container.duration or 0) / av.time_base
        for k in range(count):
            t = duration * (k + 1) / (count + 1)
            container.seek(int(t * av.time_base), backward=True, any_frame=False)
            frame = None
            for f in container.decode(stream):
                frame = f
                if f.time is not None and f.time >= t - 1e-3:
                    break
            if frame is None:
                continue
            pixels = upright(frame)[0]
            h, w = pixels.shape[:2]
            s = min(1.0, max_side / max(h, w))
            out.append(cv2.resize(pixels, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA))
    return out


class VideoController(QObject):
    """Start/cancel exports; signals report progress, the result and a before/after sample."""

    input_changed = Signal(object)  # Path | None
    target_changed = Signal(object)
    progress = Signal(int, object)  # done, total (None = unknown); emitted from the worker thread
    running_changed = Signal(bool)
    finished = Signal(object)  # ExportReport
    previews_ready = Signal(list)  # [(before QImage, after QImage)]
    info = Signal(str)
    error = Signal(str)

    def __init__(self, factory_getter, prefs: Preferences, parent=None) -> None:
        super().__init__(parent)
        self._factory_getter = factory_getter  # () -> DetectorFactory, so model changes apply
        self.prefs = prefs
        self.choice = prefs.choice("video")
        self.source: Path | None = None
        self.target: Path | None = None
        self.keep_audio = prefs.value("video/keep_audio", True, bool)
        self.stride = prefs.value("video/stride", 2, int)
        self.quality = prefs.value("video/quality", "standard", str)
        self.runner = TaskRunner("vpd-video", self)
        self._cancel: threading.Event | None = None
        self.running = False

    def set_input(self, path: Path) -> None:
        self.source = Path(path)
        self.target = default_target(self.source)
        self.input_changed.emit(self.source)
        self.target_changed.emit(self.target)

    def set_target(self, path: Path) -> None:
        self.target = Path(path)
        self.target_changed.emit(self.target)

    def set_options(self, keep_audio: bool, stride: int, quality: str) -> None:
        self.keep_audio, self.stride, self.quality = keep_audio, stride, quality
        for k, v in (("keep_audio", keep_audio), ("stride", stride), ("quality", quality)):
            self.prefs.set(f"video/{k}", v)

    def set_choice(self, choice: RedactionChoice) -> None:
        self.choice = choice
        self.prefs.set_choice(choice, "video")

    def start(self) -> bool:
        """Begin exporting; False (with a message) when inputs are missing or a job runs."""
        if self.running:
            return False
        if self.source is None or self.target is None:
            self.error.emit("Choose a video to redact first (or drop one on the window).")
            return False
        if self.target.exists():
            self.error.emit(f"{self.target} already exists; choose another output name.")
            return False
        job = VideoJob(self.source, self.target, self.keep_audio, self.stride, self.quality)
        factory: DetectorFactory = self._factory_getter()
        choice, cancel = self.choice, threading.Event()
        self._cancel = cancel
        last = [0.0]

        def report(done: int, total: int | None) -> None:  # worker thread; throttled
            now = time.perf_counter()
            if now - last[0] >= PROGRESS_INTERVAL_S or (total and done >= total):
                last[0] = now
                self.progress.emit(done, total)

        def work() -> tuple[ExportReport, list]:
            built = factory()
            built.require_complete("install it, or switch it off in Settings to export without it")
            pipeline = Pipeline(built.detectors, choice.policy(), choice.redaction())
            result = export_video(job.source, job.target, pipeline, job.options(), report, cancel)
            try:
                pairs = [(bgr_to_qimage(a), bgr_to_qimage(b)) for a, b in zip(sample_frames(job.source), sample_frames(job.target))]
            except Exception as exc:  # noqa: BLE001 - a preview is a nicety; the export succeeded
                log.warning("before/after preview failed: %s", exc)
                pairs = []
            return result, pairs

        self._set_running(True)
        self.runner.submit(work, self._on_done, self._on_failed)
        return True

    def cancel(self) -> None:
        """Ask the running export to stop; it removes its partial file."""
        if self._cancel is not None:
            self._cancel.set()

    def _on_done(self, result: tuple[ExportReport, list]) -> None:
        report, pairs = result
        self._set_running(False)
        self.finished.emit(report)
        self.previews_ready.emit(pairs)
        self.info.emit(f"Exported {report.target.name}: {report.frames} frames, {report.hits} detections, audio "
                       f"{report.audio}; metadata stripped.")  # fmt: skip
        if self.target == report.target:
            self.set_target(default_target(report.source))

    def _on_failed(self, exc: Exception) -> None:
        self._set_running(False)
        if isinstance(exc, Cancelled):
            self.info.emit("Export cancelled; no file was written.")
        else:
            self.error.emit(str(exc) if isinstance(exc, VpdError) else f"Export failed: {exc!r}")

    def _set_running(self, on: bool) -> None:
        self.running = on
        self.running_changed.emit(on)

    def shutdown(self) -> None:
        self.cancel()
        self.runner.stop()
