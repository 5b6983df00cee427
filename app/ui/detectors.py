"""How the GUI gets detectors: a factory called inside each worker thread (one ONNX session per
worker), and a plain description of what loaded for the window to show."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from app.core.errors import ModelError
from app.core.pipeline import Detector
from app.inference.factory import BuiltDetectors, DetectorConfig, build_detectors, first_provider

DetectorFactory = Callable[[], BuiltDetectors]
OTHER_DOMAIN = "other"


@dataclass(frozen=True)
class DetectorInfo:
    """What the status bar and side panel need: can we detect, on what, which classes."""

    ok: bool
    provider: str = "none"
    class_names: tuple[str, ...] = ()
    domains: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    message: str = ""  # a warning (some detector missing) or why none loaded
    complete: bool = True  # False: a configured detector is missing, so images are "detection incomplete"


def detector_config(model_path: Path | None = None, cpu_only: bool = False, **flags: object) -> DetectorConfig:
    """A DetectorConfig with only the fields this version of it has (faces/OCR arrive later)."""
    known = {f.name for f in dataclasses.fields(DetectorConfig)}  # faces/OCR flags arrived later
    kwargs = {k: v for k, v in flags.items() if k in known}
    return DetectorConfig(
        model_path=model_path, providers=("CPUExecutionProvider",) if cpu_only else None, **kwargs
    )


def optional_detector_flags() -> tuple[str, ...]:
    """Switches DetectorConfig offers besides the main detector, e.g. ('use_faces', 'use_ocr')."""
    return tuple(f.name for f in dataclasses.fields(DetectorConfig) if f.name.startswith("use_") and f.name != "use_detector")


def default_factory(config: DetectorConfig) -> DetectorFactory:
    """Factory building real detectors from ``config``."""
    return lambda: build_detectors(config)


def domains_of(detectors: Sequence[Detector]) -> dict[str, tuple[str, ...]]:
    """Domain → classes from the models' metadata; classes no model places go to 'other'."""
    domains: dict[str, list[str]] = {}
    placed: set[str] = set()
    for det in detectors:
        meta_domains = getattr(getattr(det, "metadata", None), "domains", None) or getattr(det, "domains", None) or {}
        for domain, names in meta_domains.items():
            for n in names:
                if n in det.class_names and n not in placed:
                    domains.setdefault(domain, []).append(n)
                    placed.add(n)
    for det in detectors:
        for n in det.class_names:
            if n not in placed:
                domains.setdefault(OTHER_DOMAIN, []).append(n)
                placed.add(n)
    return {k: tuple(v) for k, v in domains.items()}


def describe(built: BuiltDetectors, model_path: Path | None = None) -> DetectorInfo:
    """DetectorInfo for detectors that loaded; the message says what is missing."""
    names: list[str] = []
    for d in built.detectors:
        names += [n for n in d.class_names if n not in names]
    warnings = list(built.warnings)
    missing = [w for w in warnings if "model file not found" in w]
    if missing:
        from app.inference.vpd_detector import DEFAULT_MODEL_PATH

        others = ", ".join(sorted({_pretty_name(d) for d in built.detectors}))
        warnings = [w for w in warnings if w not in missing]
        warnings.insert(0, f"No detector model found at {model_path or DEFAULT_MODEL_PATH} — screenshot detection "
                           f"unavailable ({others} still run).")  # fmt: skip
    message = "  ·  ".join(warnings)
    if not built.complete:
        message = f"Detection incomplete — {message} Images are not saved or copied until this is fixed, the " \
                  "detector is switched off in Settings, or you mark an image as checked by hand."
    return DetectorInfo(True, first_provider(built.detectors), tuple(names), domains_of(built.detectors),
                        message, built.complete)  # fmt: skip


def _pretty_name(detector: Detector) -> str:
    return {"detector": "VPD detector", "faces": "face detection", "ocr": "OCR"}.get(detector.name, detector.name)


def describe_failure(exc: Exception, model_path: Path | None) -> DetectorInfo:
    """DetectorInfo when nothing loaded, with the message the banner shows."""
    from app.inference.vpd_detector import DEFAULT_MODEL_PATH

    path = model_path or DEFAULT_MODEL_PATH
    tail = "detection unavailable; draw boxes by hand, then mark the image as checked by hand to save it"
    if isinstance(exc, ModelError) and "not found" in str(exc):
        message = f"No detector model found at {path} — {tail}."
    else:
        message = f"The detector could not be loaded ({exc}) — {tail}."
    return DetectorInfo(False, "none", (), {}, message, complete=False)


def first_provider_name(detectors: Sequence[Detector]) -> str:
    """'CUDA' / 'CPU' of the first ONNX detector; 'CPU' for plain-Python detectors; 'none' if empty."""
    return first_provider(detectors) if detectors else "none"
