"""Model metadata read from the ONNX file: class names, input size, stride, domains, schema.

Keys written by ``python -m training export``:

* ``vpd_schema_version`` — integer as string; the app accepts ``SUPPORTED_SCHEMA_VERSIONS``;
* ``vpd_class_names`` — JSON list of class names in index order;
* ``vpd_domains`` — JSON object ``{domain: [class names]}`` (optional);
* ``imgsz`` — JSON ``[height, width]`` (ultralytics' ``[640, 640]`` form parses the same);
* ``stride`` — integer as string;
* ``vpd_tile_size`` — side in source pixels of the native-scale crops the model was trained on
  (optional; defaults to the input size). Tiles of this size are letterboxed to the input.
* ``vpd_class_conf`` — JSON ``{class: raw score}`` from ``python -m training calibrate``
  (optional): the score each class needs to count at the default confidence.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

import onnxruntime as ort

from app.core.calibration import parse_class_conf
from app.core.errors import ModelError

SUPPORTED_SCHEMA_VERSIONS = (1,)


@dataclass(frozen=True)
class ModelMetadata:
    """What the app needs to know about a detector model."""

    class_names: tuple[str, ...]
    input_hw: tuple[int, int]
    stride: int
    schema_version: int
    domains: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    tile_size: int | None = None
    class_conf: Mapping[str, float] = field(default_factory=dict)

    @property
    def tile_hw(self) -> tuple[int, int]:
        """Native-pixel tile size for tiled inference (training crop size)."""
        return (self.tile_size, self.tile_size) if self.tile_size else self.input_hw

    def domain_of(self, class_name: str) -> str | None:
        """Domain a class belongs to, if the model says."""
        for domain, names in self.domains.items():
            if class_name in names:
                return domain
        return None


def _parse(value: str):
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return ast.literal_eval(value)  # ultralytics writes Python reprs


def read_metadata(session: ort.InferenceSession, path: str | Path) -> ModelMetadata:
    """Parse and validate the metadata of an open session; ``ModelError`` names what is missing."""
    meta = session.get_modelmeta().custom_metadata_map
    if "vpd_schema_version" not in meta or "vpd_class_names" not in meta:
        raise ModelError(
            f"{path} is not a VPD detector: its ONNX metadata lacks vpd_schema_version/vpd_class_names "
            "(export models with `python -m training export`)"
        )
    try:
        version = int(meta["vpd_schema_version"])
        names = tuple(str(n) for n in _parse(meta["vpd_class_names"]))
        imgsz = _parse(meta.get("imgsz", "[640, 640]"))
        input_hw = (int(imgsz[0]), int(imgsz[1])) if isinstance(imgsz, (list, tuple)) else (int(imgsz), int(imgsz))
        stride = int(float(meta.get("stride", "32")))
        domains = {k: tuple(v) for k, v in _parse(meta.get("vpd_domains", "{}")).items()}
        tile_size = int(meta["vpd_tile_size"]) if "vpd_tile_size" in meta else None
        class_conf = parse_class_conf(meta.get("vpd_class_conf"), names)
    except (ValueError, SyntaxError, TypeError, IndexError) as exc:
        raise ModelError(f"{path} has malformed VPD metadata: {exc}") from exc
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        raise ModelError(f"{path} uses metadata schema {version}; this app reads {SUPPORTED_SCHEMA_VERSIONS}")
    if not names:
        raise ModelError(f"{path} declares no classes")
    _check_io(session, path, len(names), input_hw)
    return ModelMetadata(names, input_hw, stride, version, MappingProxyType(domains), tile_size, class_conf)


def _check_io(session: ort.InferenceSession, path, num_classes: int, input_hw: tuple[int, int]) -> None:
    inputs, outputs = session.get_inputs(), session.get_outputs()
    if len(inputs) != 1 or len(inputs[0].shape) != 4:
        raise ModelError(f"{path} is not an image detector: expected one NCHW input, got {[i.shape for i in inputs]}")
    if "float" not in inputs[0].type:
        raise ModelError(f"{path}: input type {inputs[0].type} is not supported (float32 expected)")
    shape = outputs[0].shape
    if len(shape) != 3:
        raise ModelError(f"{path}: output shape {shape} is not a YOLO detection output")
    channels = [d for d in shape[1:] if isinstance(d, int)]
    if channels and 4 + num_classes not in channels and 6 not in channels:
        raise ModelError(f"{path}: output shape {shape} does not match {num_classes} classes")
