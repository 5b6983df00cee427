"""The VPD detector: letterbox → ONNX Runtime → decode → NMS, tiled for large frames."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np
import onnxruntime as ort

from app.core.box_sanity import EDGE_ASPECTS, complete_edge_cut
from app.core.calibration import ScoreCalibration
from app.core.decode import DecodeSettings, decode_yolo
from app.core.detections import Detections, Source
from app.core.geometry import SMALL_FRAME_LONG_SIDE, letterbox, mirror_xyxy, nms, unletterbox_xyxy, upscale_factor, upscaled
from app.core.tiling import Tile, merge_tiled, needs_tiling, plan_tiles, truncated_mask
from app.inference.box_evidence import CodeEvidence, RenderedCardEvidence, CameraObjectEvidence
from app.inference.box_plausibility import SizePlausibility
from app.inference.metadata import ModelMetadata, read_metadata
from app.inference.picture_bounds import picture_in_box
from app.model_files import model_path
from app.inference.session import active_provider, create_session, pool_threads

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MODEL_PATH = model_path("vpd-n.onnx")  # models/ of a checkout, or the copy in the wheel/bundle


@dataclass(frozen=True)
class TilingSettings:
    """Tiles have the model's training-crop size in native pixels; ``overlap`` px shared by neighbours."""

    enabled: bool = True
    overlap: int = 128
    trigger_ratio: float = 1.5
    reuse_unchanged: bool = True  # a tile whose pixels did not change since the last call keeps its boxes
    # Frames whose longest side is shorter are read upscaled towards it (at most 3×), like the OCR
    # and code readers do; 0 switches this off.
    min_long_side: int = SMALL_FRAME_LONG_SIDE
    # Each view is read a second time mirrored left-right, and the boxes of both are merged (NMS):
    # twice the detector's time. Opt-in (``--mirrored``): it finds more, and hides more outside
    # the true boxes on real photos (README, thirty-first session).
    mirrored: bool = False

    def read_plan(self, hw: tuple[int, int], tile_hw: tuple[int, int]) -> tuple[float, list[Tile]]:
        """How a frame of height/width ``hw`` is read: the factor its tiled copy is enlarged by and
        that copy's tiles (neighbours share ``overlap`` px, at most a quarter of a tile); no tiles
        when it is read as one view. Training cuts the real photos' tiles with it too."""
        f = upscale_factor(hw, self.min_long_side) if self.enabled and self.min_long_side else 1.0
        if f == 1.0 and not (self.enabled and needs_tiling(hw, tile_hw, self.trigger_ratio)):
            return 1.0, []
        enlarged = (round(hw[0] * f), round(hw[1] * f))  # as ``upscaled``
        return f, plan_tiles(enlarged, tile_hw, min(self.overlap, min(tile_hw) // 4))


# A small frame's enlarged tiles add only boxes up to this share of a tile's side: larger objects
# are the full view's, and an enlarged tile's large boxes were mostly false (synthetic val
# negatives redacted 0.37 → 1.09 % with them, 0.73 % without; real_test recall kept).
ENLARGED_MAX_SIDE = 0.5
THUMB_SIDE = 64  # unchanged-tile check: grey thumbnail, ~10 px cells on a 640-px tile
THUMB_TOLERANCE = 2  # grey levels; one changed glyph moves its cell by far more


def _thumb(image_bgr: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, (THUMB_SIDE, THUMB_SIDE), interpolation=cv2.INTER_AREA)


def preprocess(image_bgr: np.ndarray, input_hw: tuple[int, int]):
    """(H, W, 3) uint8 BGR → (1, 3, h, w) float32 RGB in [0, 1], plus the letterbox transform."""
    padded, tf = letterbox(image_bgr, input_hw)
    rgb = cv2.cvtColor(padded, cv2.COLOR_BGR2RGB)
    tensor = np.ascontiguousarray(rgb.transpose(2, 0, 1)[None], dtype=np.float32) / 255.0
    return tensor, tf


def complete_cut_boxes(found: Detections, frame: np.ndarray) -> Detections:
    """Face and avatar boxes cut by the frame's border completed inward to their whole shape
    (``box_sanity.complete_edge_cut``), except an avatar whose picture is seen on flat colour
    (``picture_bounds.picture_in_box``): its visible part is the box (an avatar half out of a
    panned list), where the detector's own box is loose and completing it covers the row beside."""
    if not len(found):
        return found
    hw = frame.shape[:2]
    completed = complete_edge_cut(found, hw, EDGE_ASPECTS).xyxy.copy()
    moved = np.flatnonzero(np.any(completed != found.xyxy, axis=1))
    if not len(moved):
        return found
    names = found.class_names
    for i in moved:
        if names[found.class_ids[i]] == "avatar":
            picture = picture_in_box(frame, found.xyxy[i])
            if picture is not None:
                completed[i] = picture
    return found.with_boxes(completed.astype(np.float32))


class VpdDetector:
    """Runs a VPD ONNX model on BGR frames. One instance per worker thread; reuses its session."""

    name = "detector"

    def __init__(
        self,
        session: ort.InferenceSession,
        metadata: ModelMetadata,
        decode: DecodeSettings = DecodeSettings(),
        tiling: TilingSettings = TilingSettings(),
        model_path: Path | None = None,
        size_check: SizePlausibility | None = SizePlausibility(),
        code_check: CodeEvidence | None = CodeEvidence(),
        card_check: RenderedCardEvidence | None = RenderedCardEvidence(),
        camera_check: CameraObjectEvidence | None = CameraObjectEvidence(),
    ) -> None:
        self.session = session
        self.metadata = metadata
        self.decode_settings = decode
        self.tiling = tiling
        self.model_path = model_path
        self._input_name = session.get_inputs()[0].name
        # (frame size, tile) → (thumbnail, boxes, scores, class ids) of the last call: reused while
        # the tile's pixels are unchanged (a still screen, a paused video), so only what changed
        # is detected again.
        self._tile_cache: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self.tiles_reused = 0
        self.calibration = ScoreCalibration(metadata.class_conf)
        self.size_check = size_check  # None: keep boxes of any size
        self.code_check = code_check  # None: keep weak code boxes that do not decode
        self.card_check = card_check  # None: keep weak payment cards on flat colour with no number
        self.camera_check = camera_check  # None: keep house numbers, shop signs and avatars drawn on a screen

    @classmethod
    def from_path(
        cls,
        path: str | Path | None = None,
        providers: Sequence[str] | None = None,
        decode: DecodeSettings = DecodeSettings(),
        tiling: TilingSettings | bool = True,
    ) -> "VpdDetector":
        """Load a model file (default ``models/vpd-n.onnx``); ``ModelError`` if it is unusable."""
        path = Path(path) if path is not None else DEFAULT_MODEL_PATH
        # The VPD model's input size is fixed, so its arena stays small (+20 MB) and saves
        # allocating and page-faulting the activations of every tile: measured on a 1080p frame
        # (9 calls) 0.42 -> 0.32 s CPU, 28,700 -> 7,500 page faults.
        session = create_session(path, providers, memory_arena=True)
        if isinstance(tiling, bool):
            tiling = TilingSettings(enabled=tiling)
        return cls(session, read_metadata(session, path), decode, tiling, path)

    @property
    def class_names(self) -> tuple[str, ...]:
        """Class table from the model's metadata."""
        return self.metadata.class_names

    @property
    def provider(self) -> str:
        """Execution provider actually in use ('CUDA' or 'CPU')."""
        return active_provider(self.session)

    def compute_threads(self) -> tuple[int, ...]:
        """Native ids of the ORT pool threads that run part of this detector's inference (``session.pool_threads``)."""
        return pool_threads(self.session)

    def infer(self, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One view: boxes in ``image_bgr`` pixels, scores, class ids (after NMS); with
        ``TilingSettings.mirrored`` the view is also read mirrored and both passes' boxes merged."""
        xyxy, scores, class_ids = self._infer_once(image_bgr)
        if not self.tiling.mirrored:
            return xyxy, scores, class_ids
        m_xyxy, m_scores, m_class_ids = self._infer_once(np.ascontiguousarray(image_bgr[:, ::-1]))
        xyxy = np.concatenate([xyxy, mirror_xyxy(m_xyxy, image_bgr.shape[1])])
        scores, class_ids = np.concatenate([scores, m_scores]), np.concatenate([class_ids, m_class_ids])
        keep = nms(xyxy, scores, class_ids, self.decode_settings.iou)
        return xyxy[keep], scores[keep], class_ids[keep]

    def _infer_once(self, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One letterboxed pass: boxes in ``image_bgr`` pixels, scores, class ids (after NMS)."""
        tensor, tf = preprocess(image_bgr, self.metadata.input_hw)
        output = self.session.run(None, {self._input_name: tensor})[0]
        xyxy, scores, class_ids = decode_yolo(output, len(self.class_names), self.decode_settings)
        return unletterbox_xyxy(xyxy, tf), scores, class_ids

    def detect(self, frame: np.ndarray) -> Detections:
        """Detections for a (H, W, 3) uint8 BGR frame in frame pixels; tiled when the frame is large.
        Scores are calibrated per class (``ScoreCalibration``, from the model's metadata); weak boxes
        far larger than their class ever was in training are dropped (``SizePlausibility``), and so
        are weak ones that the pixels under them contradict on a rendered screen (``box_evidence``:
        a code that should decode and does not, a card with no number, a house number, shop
        sign or avatar drawn by an app). Face and avatar boxes cut by the frame's border are
        completed (``complete_cut_boxes``)."""
        found = self.calibration.apply(self.detect_raw(frame), frame.shape[:2])
        if self.size_check is not None:
            found = self.size_check.apply(found, frame.shape[:2])
        for evidence in (self.code_check, self.card_check, self.camera_check):
            found = evidence.apply(found, frame) if evidence is not None else found
        return complete_cut_boxes(found, frame)

    def detect_raw(self, frame: np.ndarray) -> Detections:
        """``detect`` with the model's own, uncalibrated scores (used to calibrate them). A small
        frame's tiles are cut from a copy enlarged towards ``TilingSettings.min_long_side``, so that
        they show a small plate or code at the size the model learnt it; its full view stays the
        frame itself, for the objects that fill it."""
        factor, tiles = self.tiling.read_plan(frame.shape[:2], self.metadata.tile_hw)
        if not tiles:
            xyxy, scores, class_ids = self.infer(frame)
            return Detections(xyxy, scores, class_ids, self.class_names, sources=np.full(len(xyxy), Source.DETECTOR))
        return self._detect_tiled(frame, factor, tiles)

    def _infer_cached(self, key: tuple, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``infer``, or the last result for ``key`` when its pixels are unchanged."""
        if not self.tiling.reuse_unchanged:
            return self.infer(image_bgr)
        thumb = _thumb(image_bgr)
        hit = self._tile_cache.get(key)
        if hit is not None and int(cv2.absdiff(hit[0], thumb).max()) <= THUMB_TOLERANCE:
            self.tiles_reused += 1
            return hit[1], hit[2], hit[3]
        xyxy, scores, class_ids = self.infer(image_bgr)
        if len(self._tile_cache) > 64:  # frame size changed many times: start over
            self._tile_cache.clear()
        self._tile_cache[key] = (thumb, xyxy, scores, class_ids)
        return xyxy, scores, class_ids

    def _detect_tiled(self, frame: np.ndarray, factor: float, tiles: list[Tile]) -> Detections:
        """``tiles`` of ``frame`` enlarged by ``factor`` (``TilingSettings.read_plan``) plus the
        frame's own full view, merged."""
        hw = frame.shape[:2]
        tiled = upscaled(frame, factor)
        boxes, scores, classes, truncated = [], [], [], []
        tile_hw = self.metadata.tile_hw
        for tile in tiles:
            xyxy, s, c = self._infer_cached((tiled.shape[:2], tile), tiled[tile.y0 : tile.y1, tile.x0 : tile.x1])
            xyxy = xyxy + np.array([tile.x0, tile.y0, tile.x0, tile.y0], np.float32)
            cut = truncated_mask(xyxy, tile, tiled.shape[:2])
            if factor > 1.0:  # the enlarged copy adds small things, whole; the full view has the rest
                side = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
                keep = ~cut & (side <= ENLARGED_MAX_SIDE * min(tile_hw))
                xyxy, s, c, cut = xyxy[keep], s[keep], c[keep], cut[keep]
            boxes.append(xyxy / factor), scores.append(s), classes.append(c), truncated.append(cut)
        xyxy, s, c = self._infer_cached((hw, None), frame)  # downscaled full view, for objects larger than a tile
        boxes.append(xyxy), scores.append(s), classes.append(c), truncated.append(np.zeros(len(xyxy), bool))
        xyxy, s, c = merge_tiled(
            np.concatenate(boxes), np.concatenate(scores), np.concatenate(classes), np.concatenate(truncated),
            self.decode_settings.iou,
        )
        return Detections(xyxy, s, c, self.class_names, sources=np.full(len(xyxy), Source.DETECTOR))
