"""Baseline face detector: OpenCV's Haar cascade (frontal faces only; BSD-3 / Intel licence).

Kept for comparison and as a fallback. OpenCV 5 wheels no longer ship the cascade XML files in
``cv2.data`` and OpenCV 5 dropped ``CascadeClassifier`` from the main module; Debian's ``opencv-data`` package has them in /usr/share/opencv4/haarcascades.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from app.core.detections import Detections, Source
from app.core.errors import DetectorUnavailable

CASCADE = "haarcascade_frontalface_default.xml"
FACE_CLASSES = ("face",)


def cascade_path() -> Path:
    """First existing copy of the frontal-face cascade; ``DetectorUnavailable`` if none."""
    folders = [Path(getattr(getattr(cv2, "data", None), "haarcascades", "") or "."),
               Path("/usr/share/opencv4/haarcascades"), Path("/usr/share/opencv/haarcascades")]  # fmt: skip
    for folder in folders:
        if (folder / CASCADE).is_file():
            return folder / CASCADE
    raise DetectorUnavailable(f"Haar face detection is off: {CASCADE} not found (apt-get install opencv-data)")


class HaarFaceDetector:
    """``Detector`` plug-in running the Haar cascade on a downscaled grey frame."""

    name = "faces"
    provider = "CPU (OpenCV)"

    def __init__(self, path: Path | None = None, max_side: int = 1280) -> None:
        if not hasattr(cv2, "CascadeClassifier"):
            raise DetectorUnavailable(f"Haar face detection is off: OpenCV {cv2.__version__} has no CascadeClassifier")
        self.cascade = cv2.CascadeClassifier(str(path or cascade_path()))
        if self.cascade.empty():
            raise DetectorUnavailable(f"cannot load Haar cascade {path}")
        self.max_side = max_side

    @property
    def class_names(self) -> tuple[str, ...]:
        return FACE_CLASSES

    def detect(self, frame: np.ndarray) -> Detections:
        """Face boxes for a (H, W, 3) uint8 BGR frame, frame pixels; score fixed at 0.6."""
        h, w = frame.shape[:2]
        s = min(1.0, self.max_side / max(h, w))
        grey = cv2.cvtColor(cv2.resize(frame, (max(1, round(w * s)), max(1, round(h * s)))), cv2.COLOR_BGR2GRAY)
        found = self.cascade.detectMultiScale(grey, scaleFactor=1.1, minNeighbors=5, minSize=(20, 20))
        boxes = np.array([[x, y, x + bw, y + bh] for x, y, bw, bh in found], np.float32).reshape(-1, 4) / s
        n = len(boxes)
        return Detections(boxes, np.full(n, 0.6, np.float32), np.zeros(n, np.int32), FACE_CLASSES,
                          sources=np.full(n, Source.FACE, np.int8))  # fmt: skip
