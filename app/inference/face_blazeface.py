"""Face detector: MediaPipe BlazeFace (Apache-2.0) from the ``mediapipe`` wheel, on our ONNX session.

Only a ``.tflite`` file under ``mediapipe/modules/face_detection/`` is used, located with
``importlib.util.find_spec`` (mediapipe's code is never imported; install the last wheel that ships
the files with ``pip install --no-deps mediapipe==0.10.21``; its dependencies would add a second
OpenCV). Once per user it is converted to an ONNX copy with free batch/height/width
(``app.inference.tflite_onnx``, needs the ``tflite`` and ``onnx`` packages) in the same cache
folder as CenterFace, then opened through ``create_session``.

Two variants: ``short`` (face_detection_short_range, 128×128 native, 2 anchors per stride-8 cell
and 6 per stride-16 cell; selfie distance; the better one on real-dev) and ``full``
(face_detection_full_range_sparse, 192×192 native, one anchor per stride-4 cell; faces up to ~5 m).

Pre-processing: BGR → RGB float32 in [-1, 1], resized so the longer side is ``max_side`` (both
sides multiples of 32, as for CenterFace). The network is fully convolutional, so a larger input
finds smaller faces; ``views`` runs it at several sizes and merges the boxes with NMS.
Post-processing (``decode_blazeface``): anchor centres at ((x + 0.5)·stride, (y + 0.5)·stride),
box = centre + (dx, dy), size (w, h) in input pixels, score = sigmoid(logit), NMS.
"""

from __future__ import annotations

import importlib.util
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from app.core.detections import Detections
from app.core.errors import DetectorUnavailable
from app.core.geometry import nms
from app.inference.face_centerface import FACE_CLASSES, FaceDetectorBase, preprocess
from app.inference.packaged_models import cached_derivative, packaged_file
from app.inference.session import create_session

log = logging.getLogger(__name__)

INSTALL_HINT = "pip install --no-deps mediapipe==0.10.21  (only its bundled BlazeFace .tflite files are used)"
CONVERTER_HINT = "pip install tflite onnx"


@dataclass(frozen=True)
class BlazeVariant:
    """One BlazeFace model file: its native input side and anchor layout."""

    file: str
    native_side: int
    strides: tuple[int, ...]
    anchors_per_cell: tuple[int, ...]
    views: tuple[int, ...]  # default longest input sides (see BlazeSettings.views)


VARIANTS = {
    # Views measured on real-dev (faces ≥ 90 % covered): short 192+640 → 64.8 % (640 alone 62.9 %,
    # 128 or 192 alone ≤ 13 %); full 192+1280 → 42.9 % (192+640: 29.5 %).
    "short": BlazeVariant("face_detection_short_range.tflite", 128, (8, 16), (2, 6), (192, 640)),
    "full": BlazeVariant("face_detection_full_range_sparse.tflite", 192, (4,), (1,), (192, 1280)),
}


@dataclass(frozen=True)
class BlazeSettings:
    """``threshold``: score floor kept (policy thresholds apply later); ``views``: longest input
    sides to run, each finds faces of a different size range (None: the variant's default);
    ``box_scale`` as for CenterFace (same value, not tuned separately)."""

    variant: str = "short"
    threshold: float = 0.5  # MediaPipe uses 0.5 (short range) / 0.6 (full range)
    nms_iou: float = 0.3
    views: tuple[int, ...] | None = None
    box_scale: float = 1.25


def model_source_path(variant: str = "short") -> Path:
    """The variant's ``.tflite`` inside the installed mediapipe package; ``DetectorUnavailable`` if absent."""
    return packaged_file("mediapipe", f"modules/face_detection/{VARIANTS[variant].file}", "face detection (BlazeFace)",
                         INSTALL_HINT, "; mediapipe 0.10.30 and later no longer ship the model files")


def onnx_model_path(source: Path, folder: Path | None = None) -> Path:
    """ONNX copy of ``source`` (NCHW, free N/H/W) in the user cache, converted once, checked by
    content hash (``cached_derivative``)."""
    return cached_derivative(source, f"blazeface-{source.stem}", lambda tmp: _convert(source, tmp),
                             "face detection (BlazeFace)", folder)  # fmt: skip


def _convert(source: Path, target: Path) -> None:
    convert_tflite(source, target, "face detection (BlazeFace)")


def convert_tflite(source: Path, target: Path, what: str) -> None:
    """Convert a MediaPipe ``.tflite`` to ONNX at ``target``; ``DetectorUnavailable`` saying "``what``
    is off" when the converter's packages are missing or the graph has an unsupported operator."""
    missing = [name for name in ("tflite", "onnx") if importlib.util.find_spec(name) is None]
    if missing:
        raise DetectorUnavailable(
            f"{what} is off: converting {source.name} to ONNX needs the "
            f"{' and '.join(missing)} package(s): {CONVERTER_HINT}")  # fmt: skip
    from app.inference.tflite_onnx import convert

    try:
        convert(source, target)
    except (NotImplementedError, ValueError, KeyError) as exc:
        raise DetectorUnavailable(f"{what} is off: cannot convert {source}: {exc}") from exc
    log.info("converted %s to ONNX", source.name)


def merge_views(views: list[tuple[np.ndarray, np.ndarray]], nms_iou: float) -> tuple[np.ndarray, np.ndarray]:
    """Boxes and scores found at several input sizes, merged by class-free NMS when more than one."""
    boxes, scores = zip(*views)
    xyxy, conf = np.concatenate(boxes).astype(np.float32), np.concatenate(scores).astype(np.float32)
    if len(views) > 1 and len(xyxy):
        keep = nms(xyxy, conf, np.zeros(len(conf), np.int32), nms_iou)
        xyxy, conf = xyxy[keep], conf[keep]
    return xyxy, conf


def anchor_centres(input_hw: tuple[int, int], variant: BlazeVariant) -> np.ndarray:
    """(N, 2) anchor centres (x, y) in input pixels, in the network's output order."""
    parts = []
    for stride, per_cell in zip(variant.strides, variant.anchors_per_cell):
        gh, gw = input_hw[0] // stride, input_hw[1] // stride
        ys, xs = np.mgrid[0:gh, 0:gw]
        centres = np.stack([(xs + 0.5) * stride, (ys + 0.5) * stride], axis=-1).reshape(-1, 1, 2)
        parts.append(np.repeat(centres, per_cell, axis=1).reshape(-1, 2))
    return np.concatenate(parts).astype(np.float32)


def decode_blazeface(
    regressors: np.ndarray, logits: np.ndarray, anchors: np.ndarray, input_hw: tuple[int, int],
    threshold: float = 0.5, nms_iou: float = 0.3,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Boxes (N, 4) float32 xyxy in input pixels and scores (N,) from BlazeFace outputs.

    regressors (1, A, 16): dx, dy, w, h, then 6 key points; logits (1, A, 1); anchors (A, 2).
    """
    reg, scores, centres = confident_anchors(regressors, logits, anchors, 16, threshold)
    c = centres + reg[:, :2]
    half = np.abs(reg[:, 2:4]) / 2
    return clipped_nms(np.concatenate([c - half, c + half], axis=1), scores, input_hw, nms_iou)


def confident_anchors(regressors: np.ndarray, logits: np.ndarray, anchors: np.ndarray, width: int, threshold: float):
    """BlazeFace-family outputs above ``threshold``: (regressors (K, width), scores (K,), anchor centres (K, 2))."""
    reg = np.asarray(regressors, np.float32).reshape(-1, width)
    if len(reg) != len(anchors):
        raise ValueError(f"{len(reg)} regressors for {len(anchors)} anchors")
    scores = 1.0 / (1.0 + np.exp(-np.clip(np.asarray(logits, np.float32).reshape(-1), -50, 50)))
    keep = scores > threshold
    return reg[keep], scores[keep].astype(np.float32), anchors[keep]


def clipped_nms(xyxy: np.ndarray, scores: np.ndarray, input_hw: tuple[int, int], nms_iou: float):
    """Boxes clipped to the input, then class-free NMS: (xyxy (N, 4) float32, scores (N,) float32)."""
    H, W = input_hw
    xyxy = np.asarray(xyxy, np.float32).reshape(-1, 4).copy()
    xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, W)
    xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, H)
    order = nms(xyxy, scores.astype(np.float32), np.zeros(len(scores), np.int32), nms_iou)
    return xyxy[order], scores[order].astype(np.float32)


class BlazeFaceDetector(FaceDetectorBase):
    """``Detector`` plug-in for faces (class ``face``, ``Source.FACE``)."""

    def __init__(self, session, settings: BlazeSettings = BlazeSettings()) -> None:
        if settings.variant not in VARIANTS:
            raise ValueError(f"unknown BlazeFace variant {settings.variant!r}; known: {', '.join(VARIANTS)}")
        self.session = session
        self.settings = settings
        self.variant = VARIANTS[settings.variant]
        self.views = settings.views or self.variant.views
        self._input_name = session.get_inputs()[0].name
        self._anchors: dict[tuple[int, int], np.ndarray] = {}
        self.last_seconds = 0.0

    @classmethod
    def from_package(cls, providers: Sequence[str] | None = None, settings: BlazeSettings = BlazeSettings()) -> "BlazeFaceDetector":
        """Load BlazeFace from the installed mediapipe wheel; ``DetectorUnavailable`` when absent."""
        path = onnx_model_path(model_source_path(settings.variant))
        return cls(create_session(path, providers), settings)

    def _detect_view(self, frame: np.ndarray, max_side: int) -> tuple[np.ndarray, np.ndarray]:
        tensor, (sx, sy) = preprocess(frame, max_side, scale=1 / 127.5, shift=-1.0)  # RGB in [-1, 1]
        hw = tensor.shape[2:]
        if hw not in self._anchors:
            self._anchors[hw] = anchor_centres(hw, self.variant)
        regressors, logits = self.session.run(None, {self._input_name: tensor})[:2]
        if regressors.shape[-1] != 16:  # outputs are (boxes, scores) in both files; accept either order
            regressors, logits = logits, regressors
        xyxy, scores = decode_blazeface(regressors, logits, self._anchors[hw], hw, self.settings.threshold, self.settings.nms_iou)
        return xyxy / np.array([sx, sy, sx, sy], np.float32), scores

    def detect(self, frame: np.ndarray) -> Detections:
        """Face boxes for a (H, W, 3) uint8 BGR frame, in frame pixels."""
        t0 = time.perf_counter()
        if min(frame.shape[:2]) < 16:
            return Detections.empty(FACE_CLASSES)
        xyxy, conf = merge_views([self._detect_view(frame, side) for side in self.views], self.settings.nms_iou)
        found = self.head_masks(frame, xyxy, conf)
        self.last_seconds = time.perf_counter() - t0
        return found
