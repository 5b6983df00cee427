"""Person detector: MediaPipe's BlazePose detector (Apache-2.0) from the ``mediapipe`` wheel.

Only ``mediapipe/modules/pose_detection/pose_detection.tflite`` is used; it is converted once to
an ONNX copy with free batch/height/width (``app.inference.tflite_onnx``), cached and checked by
content hash like the BlazeFace copy, and opened through ``create_session``. Opt-in
(``DetectorConfig.use_people``): the default presets do not hide whole people.

The network finds a person by the head and predicts four key points: 0 the mid-hip centre,
1 a point whose distance from it is the radius of a circle around the whole body, 2 the
mid-shoulder centre, 3 the upper-body radius point (MediaPipe's pose ROI is that circle). The
``person`` box spans the circle vertically, half its radius to each side horizontally (a standing
body is about a third as wide as it is tall), and always contains the detected head box.

Pre-processing as BlazeFace: BGR -> RGB in [-1, 1], longest side ``view`` px, multiples of 32.
Anchors: 2 per stride-8 and stride-16 cell, 6 per stride-32 cell (three 32-px layers).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from app.core.detections import Detections, Source
from app.inference.face_blazeface import (BlazeVariant, anchor_centres, clipped_nms, confident_anchors, convert_tflite,
                                          merge_views)
from app.inference.face_centerface import preprocess
from app.inference.packaged_models import cached_derivative, packaged_file
from app.inference.session import active_provider, create_session

log = logging.getLogger(__name__)

PERSON_CLASSES = ("person",)
INSTALL_HINT = "pip install --no-deps mediapipe==0.10.21  (only its bundled pose_detection.tflite is used)"
POSE_LAYOUT = BlazeVariant("pose_detection.tflite", 224, (8, 16, 32), (2, 2, 6), (224, 448))
HALF_WIDTH = 0.5  # of the body radius


@dataclass(frozen=True)
class PersonSettings:
    """``threshold``: MediaPipe's default minimum detection confidence; ``views``: longest input
    sides (the native 224 and twice it, for people further away)."""

    threshold: float = 0.5
    nms_iou: float = 0.3
    views: tuple[int, ...] = POSE_LAYOUT.views


def model_source_path() -> Path:
    """``pose_detection.tflite`` in the installed mediapipe wheel; ``DetectorUnavailable`` if absent."""
    return packaged_file("mediapipe", "modules/pose_detection/pose_detection.tflite", "person detection",
                         INSTALL_HINT, "; mediapipe 0.10.30 and later no longer ship the model files")


def _convert(source: Path, target: Path) -> None:
    convert_tflite(source, target, "person detection")


def onnx_model_path(source: Path, folder: Path | None = None) -> Path:
    """ONNX copy of ``source`` in the user cache (converted once, checked by content hash)."""
    return cached_derivative(source, "blazepose-detector", lambda tmp: _convert(source, tmp), "person detection", folder)


def decode_pose(regressors: np.ndarray, logits: np.ndarray, anchors: np.ndarray, input_hw: tuple[int, int],
                threshold: float = 0.5, nms_iou: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Person boxes (N, 4) float32 xyxy in input pixels and scores (N,).

    ``regressors`` (1, A, 12): head box dx, dy, w, h, then key points 0-3 as (dx, dy) from the
    anchor centre, in input pixels; ``logits`` (1, A, 1); ``anchors`` (A, 2) centres.
    """
    reg, scores, centres = confident_anchors(regressors, logits, anchors, 12, threshold)
    head_c = centres + reg[:, 0:2]
    head_half = np.abs(reg[:, 2:4]) / 2
    hip = centres + reg[:, 4:6]
    radius = np.linalg.norm(reg[:, 6:8] - reg[:, 4:6], axis=1)
    body = np.stack([hip[:, 0] - HALF_WIDTH * radius, hip[:, 1] - radius,
                     hip[:, 0] + HALF_WIDTH * radius, hip[:, 1] + radius], 1)
    head = np.concatenate([head_c - head_half, head_c + head_half], 1)
    xyxy = np.concatenate([np.minimum(body[:, :2], head[:, :2]), np.maximum(body[:, 2:], head[:, 2:])], 1)
    return clipped_nms(xyxy, scores, input_hw, nms_iou)


class PersonDetector:
    """``Detector`` plug-in for whole people (class ``person``)."""

    name = "people"

    def __init__(self, session, settings: PersonSettings = PersonSettings()) -> None:
        self.session = session
        self.settings = settings
        self._input_name = session.get_inputs()[0].name
        self._anchors: dict[tuple[int, int], np.ndarray] = {}

    @classmethod
    def from_package(cls, providers: Sequence[str] | None = None, settings: PersonSettings = PersonSettings()) -> "PersonDetector":
        """Load from the installed mediapipe wheel; ``DetectorUnavailable`` when it is absent."""
        return cls(create_session(onnx_model_path(model_source_path()), providers), settings)

    @property
    def class_names(self) -> tuple[str, ...]:
        """``("person",)``."""
        return PERSON_CLASSES

    @property
    def provider(self) -> str:
        """Execution provider in use."""
        return active_provider(self.session)

    def _detect_view(self, frame: np.ndarray, max_side: int) -> tuple[np.ndarray, np.ndarray]:
        tensor, (sx, sy) = preprocess(frame, max_side, scale=1 / 127.5, shift=-1.0)
        hw = tensor.shape[2:]
        if hw not in self._anchors:
            self._anchors[hw] = anchor_centres(hw, POSE_LAYOUT)
        regressors, logits = self.session.run(None, {self._input_name: tensor})[:2]
        if regressors.shape[-1] != 12:
            regressors, logits = logits, regressors
        xyxy, scores = decode_pose(regressors, logits, self._anchors[hw], hw, self.settings.threshold, self.settings.nms_iou)
        return xyxy / np.array([sx, sy, sx, sy], np.float32), scores

    def detect(self, frame: np.ndarray) -> Detections:
        """Person boxes for a (H, W, 3) uint8 BGR frame, in frame pixels."""
        if min(frame.shape[:2]) < 32:
            return Detections.empty(PERSON_CLASSES)
        xyxy, conf = merge_views([self._detect_view(frame, side) for side in self.settings.views], self.settings.nms_iou)
        n = len(xyxy)
        return Detections(xyxy, conf, np.zeros(n, np.int32), PERSON_CLASSES, sources=np.full(n, int(Source.DETECTOR), np.int8))
