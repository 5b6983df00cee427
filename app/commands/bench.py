"""``vpd-redact bench``: print latency and throughput figures for the current model and provider."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Callable

import cv2
import numpy as np

from app.commands.bench_timing import SessionClock, Timing, detector_sessions, measure, without_tile_reuse
from app.commands.common import add_detection_args, load_detectors, policy_from_args, redaction_from_args
from app.core.detections import concat
from app.core.errors import VpdError
from app.core.pipeline import Pipeline
from app.inference.name_pictures import NAME_CLASSES, name_pictures
from app.inference.ocr_rapid import SPECIALISTS
from app.inference.vpd_detector import VpdDetector
from app.text.screen import read_screen


# How each text specialist's bench row describes it (keys: OcrSettings switches, ``SPECIALISTS``).
SPECIALIST_ROWS = {"plates": "plates (plate rules", "documents": "documents (layout cues",
                   "signs": "street signs (street-name rules", "shop_signs": "shop signs and house numbers (line size and layout",
                   "signatures": "signatures (tall badly read lines and handwriting ink on a page"}  # fmt: skip


def add_parser(sub) -> None:
    """Register the ``bench`` sub-command."""
    p = sub.add_parser("bench", help="measure inference latency and seconds per screenshot")
    p.add_argument("--repeat", type=int, default=10, help="timed runs per figure (median is printed)")
    p.add_argument("--size", default="1920x1080", metavar="WxH",
                   help="frame size for the per-detector and first end-to-end figures (default: %(default)s)")  # fmt: skip
    add_detection_args(p)
    p.set_defaults(run=run)


def synthetic_screenshot(width: int, height: int, seed: int = 0) -> np.ndarray:
    """A (height, width, 3) BGR screen-like frame: panels and lines of small text."""
    rng = np.random.default_rng(seed)
    frame = np.full((height, width, 3), 245, np.uint8)
    for _ in range(12):
        x0, y0 = int(rng.integers(0, max(1, width - 200))), int(rng.integers(0, max(1, height - 100)))
        cv2.rectangle(frame, (x0, y0), (x0 + int(rng.integers(150, 600)), y0 + int(rng.integers(60, 300))),
                      tuple(int(v) for v in rng.integers(200, 255, 3)), -1)  # fmt: skip
    for y in range(30, height - 10, 28):
        text = f"user{int(rng.integers(1000, 9999))}@example.com  +1 555 {int(rng.integers(100, 999))} 0199"
        cv2.putText(frame, text, (int(rng.integers(10, max(11, min(200, width // 2)))), y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (30, 30, 30), 1, cv2.LINE_AA)
    return frame


def median_seconds(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``fn`` over ``repeat`` runs after one warm-up run."""
    return measure(fn, repeat).wall


def _per_detector_seconds(detectors, frame: np.ndarray, repeat: int):
    """Print wall and CPU seconds per frame for each detector alone, and the time inside each of
    its ONNX Runtime sessions; return their fused raw detections."""
    parts = []
    for det in detectors:
        reps = min(repeat, 3) if det.name == "ocr" else repeat
        last = []
        clock = SessionClock(detector_sessions(det))
        try:
            last.append(det.detect(frame))  # warm-up, not counted
            clock.reset()
            timing = measure(lambda: last.append(det.detect(frame)), reps, warmup=False)
            inside = clock.summary(per=reps)
        finally:
            clock.close()
        parts.append(last[-1])
        print(f"{det.name} ({getattr(det, 'provider', '?')}) per {frame.shape[1]}x{frame.shape[0]} screenshot: "
              f"{timing.text()} (median of {reps}){'; inside ORT: ' + inside if inside else ''}")  # fmt: skip
    return concat(parts)


def run(args: argparse.Namespace) -> int:
    """Print the figures; exit 2 if the model cannot be loaded or an option is malformed."""
    try:
        frame_size(args.size)
        built = load_detectors(args)  # figures for an incomplete detector set only with --allow-missing-detector
        pipeline = Pipeline(built.detectors, policy_from_args(args), redaction_from_args(args))
    except (VpdError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"providers: {built.providers}; {os.cpu_count()} CPU cores; wall = elapsed time, CPU = this process's "
          "CPU time over all threads (wall far above CPU / cores means the process waited for a busy CPU); "
          "the detector's unchanged-tile reuse is off while timing")  # fmt: skip
    with without_tile_reuse(built.detectors):
        _figures(args, built, pipeline)
    return 0


def frame_size(text: str) -> tuple[int, int]:
    """'1280x720' → (1280, 720); ``ValueError`` with the expected form otherwise."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size must look like 1280x720, got {text!r}") from None
    if w < 64 or h < 64:
        raise ValueError(f"--size must be at least 64x64, got {text!r}")
    return w, h


def _figures(args: argparse.Namespace, built, pipeline: Pipeline) -> None:
    for det in built.detectors:
        if isinstance(det, VpdDetector):
            h, w = det.metadata.input_hw
            tile = synthetic_screenshot(w, h)
            print(f"detector single inference {w}x{h}: {measure(lambda: det.infer(tile), args.repeat).text('ms')} (median of {args.repeat})")
    sw, sh = frame_size(args.size)
    shot = synthetic_screenshot(sw, sh)
    raw = _per_detector_seconds(built.detectors, shot, args.repeat).remap(pipeline.class_names)
    fusion = measure(lambda: pipeline.process(shot, raw=raw), args.repeat)
    print(f"fusion per {sw}x{sh} screenshot (merge + policy + pad + redact): {fusion.text('ms')} (median of {args.repeat})")
    for flag, find in SPECIALISTS:
        for ocr in (d for d in built.detectors if getattr(getattr(d, "settings", None), flag, False)):
            lines = ocr.specialist_lines(flag)
            took = measure(lambda: find(lines, shot), args.repeat)
            print(f"text {SPECIALIST_ROWS[flag]} on the OCR's {len(lines)} lines, inside ocr) per {sw}x{sh} screenshot: "
                  f"{took.text('ms')} (median of {args.repeat})")  # fmt: skip
    for ocr in (d for d in built.detectors if d.name == "ocr"):
        row = text_reading_row(ocr, shot, args.repeat)
        if row:
            print(row)
        if getattr(ocr.settings, "name_pictures", False):
            print(name_pictures_row(ocr, shot, args.repeat))
    slow = any(d.name == "ocr" for d in built.detectors)  # OCR takes seconds per frame on CPU
    for w, h in ((sw, sh), (3840, 2160)):
        frame = synthetic_screenshot(w, h)
        reps = max(1 if slow else 3, args.repeat // (2 if w > 2000 else 1) // (5 if slow else 1))
        firsts: list[float] = []  # wall seconds to the fast detectors' boxes, per run

        def run_once() -> None:
            t0 = time.perf_counter()
            pipeline.process(frame, raw=pipeline.detect(frame, lambda _: firsts.append(time.perf_counter() - t0)))

        timing = measure(run_once, reps)
        first = (f"; the fast detectors' boxes (shown by the Images view while OCR reads) after "
                 f"{statistics.median(firsts[1:] or firsts):.2f} s wall" if firsts else "")  # fmt: skip
        print(f"end-to-end {w}x{h} screenshot (detect{'' if args.no_tiling else ' with tiling'} + redact): "
              f"{timing.text()} (median of {reps}){first}")  # fmt: skip


def name_pictures_row(ocr, frame: np.ndarray, repeat: int) -> str:
    """The bench row of ``name_pictures`` (the picture before each name read) on the names that
    ``ocr``'s last ``detect`` read in ``frame``."""
    found = read_screen(list(ocr.last_lines), frame, getattr(ocr, "classifier", None)).detections()
    took = measure(lambda: name_pictures(found, frame, ocr.class_names), repeat)
    names = sum(label in NAME_CLASSES for label in found.labels)
    return (f"text names' pictures (the picture before each of {names} names read; inside ocr) per "
            f"{frame.shape[1]}x{frame.shape[0]} screenshot: {took.text('ms')} (median of {took.runs})")  # fmt: skip


def text_reading_row(ocr, frame: np.ndarray, repeat: int) -> str | None:
    """The bench row of the text reading that follows OCR (``app.text.screen.read_screen``: the
    text-PII classifier with the rule-based validators, document and address regions) on the lines
    ``ocr`` read from ``frame`` in its last ``detect``: cost per OCR line and per frame, wall and
    CPU. None when that call read no line."""
    lines = list(getattr(ocr, "last_lines", ()))
    if not lines:
        return None
    classifier = getattr(ocr, "classifier", None)
    timing = measure(lambda: read_screen(lines, frame, classifier), repeat)
    per_line = Timing(timing.wall / len(lines), timing.cpu / len(lines), timing.runs)
    per_line_text = f"{1000 * per_line.wall:.3f} ms wall, {1000 * per_line.cpu:.3f} ms CPU"  # well under 1 ms: 3 digits
    what = "text-PII classifier + rules" if classifier is not None else "rules only, no classifier"
    return (f"text reading ({what}; inside ocr) per OCR line: {per_line_text}; "
            f"per {frame.shape[1]}x{frame.shape[0]} screenshot ({len(lines)} lines): {timing.text('ms')} (median of {timing.runs})")  # fmt: skip
