"""``vpd-redact video IN -o OUT``: redact a video file into a new H.264 file, audio kept.

The detector runs every ``--stride``-th frame; a second pass fills every gap between detections
of the same object in both directions and holds boxes ``--hold`` seconds before/after, so
nothing flashes through a missed frame. The OCR text-PII recogniser is slow, so it reads one frame
every ``--ocr-every`` seconds (frame 0 always); its boxes are held and gap-filled in between.
Container metadata (GPS, device, dates) is not copied.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Callable

import numpy as np
from tqdm import tqdm

from app.commands.common import (
    add_detection_args,
    check_class_names,
    load_detectors,
    policy_from_args,
    redaction_from_args,
)
from app.core.errors import Cancelled, VpdError
from app.core.pipeline import Detector, Pipeline
from app.media.video_export import ExportOptions, ExportReport, export_video

DEFAULT_STRIDE = 2
DEFAULT_FULL_LOOK_EVERY = ExportOptions.full_look_every
DEFAULT_OCR_EVERY_S = 1.0  # OCR costs 1.7–5 s a 1080p frame on a CPU; text rarely changes faster


DetectorList = tuple[tuple[Detector, ...], str, tuple[str, ...]]  # detectors, provider text, warnings


def add_video_args(p: argparse.ArgumentParser) -> None:
    """Options shared by video and stream: hold and OCR rate."""
    g = p.add_argument_group("tracking")
    g.add_argument("--hold", type=float, default=None, metavar="S",
                   help="seconds a lost box stays masked (default: 1.0 for video, 0.5 live)")  # fmt: skip
    g.add_argument("--ocr-every", type=float, default=DEFAULT_OCR_EVERY_S, metavar="S",
                   help="run OCR on one frame every S seconds (video: at least every --stride frames; live: "
                        "at most this often, beside the frame loop) (default: %(default)s)")  # fmt: skip


def add_parser(sub) -> argparse.ArgumentParser:
    """Register the ``video`` sub-command; returns its parser."""
    p = sub.add_parser("video", help="redact a video file (H.264 out, audio kept)", description=__doc__)
    p.add_argument("input", type=Path, metavar="IN", help="video file (mp4, mov, mkv, webm, avi…)")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="OUT",
                   help="output .mp4/.mov/.mkv file, or a folder (then IN's name + _redacted.mp4)")  # fmt: skip
    p.add_argument("--stride", type=int, default=DEFAULT_STRIDE,
                   help="run the detector every N-th frame (default: %(default)s; 1 = every frame)")  # fmt: skip
    p.add_argument("--full-look-every", type=int, default=DEFAULT_FULL_LOOK_EVERY, metavar="N",
                   help="face detection at its full input size on every N-th detector frame, at half the "
                        "size (4x cheaper, misses faces under ~32 px at 720p; the full looks' hits are carried "
                        "across) on the others (default: %(default)s; 1 = always full)")  # fmt: skip
    p.add_argument("--no-audio", action="store_true", help="drop the audio track")
    p.add_argument("--crf", type=int, default=20, help="x264 quality, lower is better (default: %(default)s)")
    p.add_argument("--single-pass", action="store_true",
                   help="one pass with the live tracker instead of two-pass gap filling (less safe)")  # fmt: skip
    p.add_argument("--report", type=Path, default=None, help="write a JSON summary of the export here")
    p.add_argument("--boxes-json", type=Path, default=None, metavar="PATH",
                   help="write the boxes drawn on each frame (padded, with class and source) as JSON lines, "
                        "e.g. for bench-video's over-masking breakdown")  # fmt: skip
    add_video_args(p)
    add_detection_args(p, "video")
    p.set_defaults(run=run)
    return p


def build_detector_list(args: argparse.Namespace) -> DetectorList:
    """(detectors, provider text, warnings) from the arguments. A configured detector that is
    missing raises ``DetectionIncomplete`` unless ``--allow-missing-detector``."""
    built = load_detectors(args)
    return built.detectors, built.providers, built.warnings


def output_path(args: argparse.Namespace) -> Path:
    """-o as given, or ``OUT/<stem>_redacted.mp4`` when it is a folder."""
    out = args.output
    if out.is_dir() or (not out.suffix and not out.exists()):
        return out / f"{args.input.stem}_redacted.mp4"
    return out


def run(args: argparse.Namespace, build: Callable[[argparse.Namespace], DetectorList] = build_detector_list) -> int:
    """Export; 0 on success, 1 on a failed export, 2 on a usage or model error, 130 on cancel.
    ``build`` makes the detectors (the developer entry point ``app.dev`` passes an oracle)."""
    try:
        policy = policy_from_args(args)
        redaction = redaction_from_args(args)
        hold = 1.0 if args.hold is None else args.hold
        options = ExportOptions(keep_audio=not args.no_audio, stride=args.stride, hold_s=hold, crf=args.crf,
                                bidirectional=not args.single_pass, ocr_every_s=args.ocr_every,
                                full_look_every=args.full_look_every)  # fmt: skip
        detectors, providers, warnings = build(args)
        pipeline = Pipeline(detectors, policy, redaction)
        check_class_names(args, pipeline.class_names)
    except (VpdError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    if args.verbose:
        print(f"providers: {providers}", file=sys.stderr)
    target = output_path(args)
    bar = tqdm(desc="redacting", unit="frame", file=sys.stderr, disable=None, dynamic_ncols=True)

    def progress(done: int, total: int | None) -> None:
        if total is not None and bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    boxes = _BoxesWriter(args.boxes_json) if args.boxes_json else None
    try:
        report = export_video(args.input, target, pipeline, options, progress, on_frame=boxes)
        if boxes is not None:
            boxes.commit()
    except Cancelled as exc:
        bar.close()
        print(f"cancelled: {exc}", file=sys.stderr)
        return 130
    except VpdError as exc:
        bar.close()
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - boundary: a detector crash; export_video removed the partial file
        bar.close()
        print(f"error: export failed, no file written ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        bar.close()
        print("cancelled; no file written", file=sys.stderr)
        return 130
    finally:
        if boxes is not None:
            boxes.discard()
    bar.close()
    print(
        f"{report.frames} frames → {report.target} ({report.width}x{report.height}, audio {report.audio}); "
        f"detector on {report.detected_frames} frames, OCR on {report.ocr_frames}, "
        f"{report.filled} boxes added by tracking; "
        f"{report.throughput_fps:.1f} fps; metadata stripped",
        file=sys.stderr,
    )
    if args.report:
        _write_report(args.report, report, providers, options)
    return 0


class _BoxesWriter:
    """``on_frame`` hook of ``export_video``: one JSON line per frame with its drawn boxes, written
    to a part file that ``commit`` renames into place (``discard`` removes an uncommitted one)."""

    def __init__(self, path: Path) -> None:
        self.path, self.tmp = path, path.with_name(f".{path.name}.part")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file = self.tmp.open("w")

    def __call__(self, index: int, drawn) -> None:
        row = {"frame": index, "xyxy": np.round(drawn.xyxy, 1).tolist(), "class_ids": drawn.class_ids.tolist(),
               "sources": drawn.sources.tolist(), "class_names": list(drawn.class_names)}  # fmt: skip
        self.file.write(json.dumps(row) + "\n")

    def commit(self) -> None:
        self.file.close()
        os.replace(self.tmp, self.path)

    def discard(self) -> None:
        self.file.close()
        self.tmp.unlink(missing_ok=True)


def _write_report(path: Path, report: ExportReport, providers: str, options: ExportOptions) -> None:
    data = {
        "input": str(report.source), "output": str(report.target), "frames": report.frames,
        "detected_frames": report.detected_frames, "detector_hits": report.hits, "tracker_boxes": report.filled,
        "width": report.width, "height": report.height, "fps": report.fps, "rotation_applied": report.rotation,
        "audio": report.audio, "seconds": round(report.seconds, 3), "throughput_fps": round(report.throughput_fps, 2),
        "providers": providers, "stride": options.stride, "hold_s": options.hold_s,
        "bidirectional": options.bidirectional, "ocr_frames": report.ocr_frames, "ocr_every_s": options.ocr_every_s,
        "full_look_every": options.full_look_every,
    }  # fmt: skip
    tmp = path.with_name(f".{path.name}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        print(f"error: cannot write report {path}: {exc.strerror}", file=sys.stderr)
