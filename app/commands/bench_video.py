"""``vpd-redact bench-video``: export and live figures with the default detectors, against deface.

Parts (``--parts``):
* ``pan-export`` / ``pan-live``: 720p clips panning across real annotated pictures
  (``--pan-dir`` holds ``annotations.json`` and ``images/``; ``--pan-images`` picks them),
  exported with ``vpd-redact video`` and with deface alternately in one run, and streamed live;
  FPS, peak memory, leaks, over-masking and first-visible time (see ``bench_pan``); the
  over-masking is also broken down by what drew it (``bench_breakdown``).
* ``pan-replay``: the export's gap filling and masking re-run on its first pass's detections,
  kept in the work folder: changes to tracking and masking measured on identical detections
  (``bench_video_replay``).
* ``pan-looks``: live mode's changed-region looks against whole-frame looks on the same clips,
  stepped frame by frame: CPU a look, share looked at, true boxes hidden (``bench_looks``).
* ``export`` / ``live``: speed on a rendered synthetic clip (moving text cards and a plate).
* ``leak``: the tracker's and gap filler's ability to cover missed frames. This part always uses
  the colour-key oracle of the synthetic clip behind a detector that drops calls at random and in
  bursts, because it measures tracking, not a model; it writes only into its work folder.
A configured detector that is missing is an error: the benchmark never swaps in a fake one.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from app.commands.common import add_detection_args, policy_from_args, redaction_from_args
from app.commands.bench_live_leak import coverage_leaks, live_leak_check
from app.commands.bench_looks import bench_pan_looks
from app.commands.bench_video_replay import bench_pan_replay
from app.commands.bench_pan import PanClip, bench_pan_export, bench_pan_live, load_truth, make_pan_clip
from app.commands.video import DEFAULT_STRIDE, build_detector_list
from app.core.detections import Detections
from app.core.errors import VpdError
from app.core.live import LiveMasker, LiveOptions, run_live
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from app.media.video_export import ExportOptions, export_video
from app.media.video_synthetic import ColourKeyDetector, DropoutDetector, SyntheticSource, write_synthetic_clip


def add_parser(sub) -> None:
    """Register the ``bench-video`` sub-command."""
    p = sub.add_parser("bench-video", help="measure video export/live speed and run the leak check", description=__doc__)
    p.add_argument("--parts", default="export,live,leak",
                   help="comma list of pan-export, pan-live, pan-replay, pan-looks, export, live, leak (default: %(default)s)")  # fmt: skip
    p.add_argument("--pan-dir", type=Path, default=None, help="folder with annotations.json and images/ for pan clips")
    p.add_argument("--pan-images", default="", help="comma list of image file names in --pan-dir to pan across")
    p.add_argument("--pan-frames", type=int, default=150, help="frames per pan clip (default: %(default)s)")
    p.add_argument("--deface", default="deface", help="deface command to compare with ('' skips it)")
    p.add_argument("--repeats", type=int, default=1, help="pan export repeats per tool (default: %(default)s)")
    p.add_argument("--export-variant", action="append", default=[], metavar="ARGS",
                   help="pan-export: also export with these extra 'vpd-redact video' arguments, alternating with "
                        "the defaults (repeatable; e.g. --export-variant='--full-look-every 1')")  # fmt: skip
    p.add_argument("--frames", type=int, default=90, help="frames per export clip (default: %(default)s)")
    p.add_argument("--sizes", default="1280x720,1920x1080", help="export clip sizes (default: %(default)s)")
    p.add_argument("--strides", default=f"1,{DEFAULT_STRIDE}", help="detector strides to time (default: %(default)s)")
    p.add_argument("--live-seconds", type=float, default=10.0, help="length of the live run (default: %(default)s)")
    p.add_argument("--hold", type=float, default=0.5, help="live hold in seconds for the leak check (default: %(default)s)")
    p.add_argument("--live-latency", default="0",
                   help="comma list of seconds added per detector call in the live leak check (default: %(default)s)")
    p.add_argument("--live-full-look-every", type=int, default=LiveOptions.full_look_every, metavar="N",
                   help="pan-live: full face look on every N-th tick, quick looks between (default: %(default)s)")
    p.add_argument("--live-ocr-nice", type=int, default=LiveOptions.ocr_priority_step, metavar="N",
                   help="pan-live: raise the OCR worker's nice value by N (default: %(default)s)")
    p.add_argument("--live-ab", action="store_true",
                   help="live leak check also without the moving-object sweep, alternating (before/after)")
    p.add_argument("--drop", type=float, default=0.3, help="fraction of detector calls dropped at random (default: %(default)s)")
    p.add_argument("--workdir", type=Path, default=None, help="keep rendered clips here (default: a temp folder)")
    add_detection_args(p, "video")  # live figures too: truth includes faces, so hide them
    p.set_defaults(run=run)


def _detectors(args):
    detectors, providers, _ = build_detector_list(args)  # a missing configured model raises: no fake fallback
    return detectors, providers, policy_from_args(args)


def run(args: argparse.Namespace) -> int:
    """Print the figures; 0 when the leak check finds no leaked export frame, else 1; 2 on bad input."""
    parts = set(args.parts.split(","))
    unknown = parts - {"pan-export", "pan-live", "pan-replay", "pan-looks", "export", "live", "leak"}
    try:
        if unknown:
            raise ValueError(f"unknown part(s): {', '.join(sorted(unknown))}")
        needs_model = bool(parts & {"pan-live", "pan-replay", "pan-looks", "export", "live"})
        detectors, providers, policy = _detectors(args) if needs_model else ((), "", Policy(classes=None))
        redaction = redaction_from_args(args)
        sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",") if s]
        strides = [int(s) for s in args.strides.split(",") if s]
        if parts & {"pan-export", "pan-live", "pan-replay", "pan-looks"} and (args.pan_dir is None or not args.pan_images):
            raise ValueError("pan parts need --pan-dir and --pan-images")
    except (VpdError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if providers:
        print(f"detectors: {', '.join(d.name for d in detectors)}; providers: {providers}")
    with tempfile.TemporaryDirectory(prefix="vpd-bench-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        pipeline = Pipeline(detectors, policy, redaction)
        if parts & {"pan-export", "pan-live", "pan-replay", "pan-looks"}:
            clips = _pan_clips(args, work)
            if "pan-export" in parts:
                deface = shutil.which(args.deface) if args.deface else None
                if args.deface and deface is None:
                    print(f"note: {args.deface!r} not found; deface not compared")
                model = ["--model", str(args.model)] if args.model else []  # the model the other parts measure
                bench_pan_export(clips, work, deface, args.repeats, args.export_variant, model)
            if "pan-live" in parts:
                bench_pan_live(clips, pipeline, LiveOptions(hold_s=args.hold, fps=30.0,
                                                            full_look_every=args.live_full_look_every,
                                                            ocr_priority_step=args.live_ocr_nice))
            if "pan-replay" in parts:
                bench_pan_replay(clips, pipeline, work)
            if "pan-looks" in parts:
                bench_pan_looks(clips, pipeline)
        if "export" in parts:
            bench_export(pipeline, work, sizes, strides, args.frames)
        if "live" in parts:
            bench_live(pipeline, args.live_seconds, args.hold)
        rc = 0
        if "leak" in parts:
            print("leak check: colour-key oracle on the synthetic clip (measures tracking, not a model)")
            rc = leak_check(ColourKeyDetector(), Policy(classes=None), redaction, work, args)
    return rc


def _pan_clips(args, work: Path) -> list[PanClip]:
    clips = []
    for name in [n for n in args.pan_images.split(",") if n]:
        out = work / f"pan_{Path(name).stem}.mp4"
        out.unlink(missing_ok=True)
        truth = load_truth(args.pan_dir / "annotations.json", name)
        clips.append(make_pan_clip(args.pan_dir / "images" / name, truth, out, args.pan_frames))
        print(f"pan clip {out.name}: {args.pan_frames} frames 1280x720 across {name} ({len(truth)} PII boxes)")
    return clips


def bench_export(pipeline: Pipeline, work: Path, sizes, strides, n: int) -> None:
    """Export throughput (both passes, decode+detect+fill+redact+encode) per size and stride."""
    for w, h in sizes:
        clip = work / f"clip_{w}x{h}.mp4"
        if not clip.exists():
            t0 = time.perf_counter()
            write_synthetic_clip(clip, SyntheticSource(w, h, 30, None), n, tone_hz=440)
            print(f"rendered {n}-frame {w}x{h} clip with audio in {time.perf_counter() - t0:.1f} s")
        for stride in strides:
            out = work / f"out_{w}x{h}_s{stride}.mp4"
            out.unlink(missing_ok=True)
            rep = export_video(clip, out, pipeline, ExportOptions(stride=stride))
            print(f"export {w}x{h} stride {stride}: {rep.throughput_fps:.1f} fps ({rep.frames} frames in "
                  f"{rep.seconds:.2f} s, two passes, audio {rep.audio})")  # fmt: skip


def bench_live(pipeline: Pipeline, seconds: float, hold: float) -> None:
    """Sustained output FPS and capture→masked latency from a 30 fps 720p synthetic source."""
    src = SyntheticSource(1280, 720, 30.0, n_frames=int(seconds * 30), realtime=True)
    lat: list[float] = []
    with LiveMasker(pipeline, LiveOptions(hold_s=hold, fps=30.0)) as m:
        t0 = time.perf_counter()
        summary = run_live(src, m, [lambda out: lat.append(out.latency_s)])
        wall = time.perf_counter() - t0
        tel = m.telemetry()
    arr = np.array(lat[30:] or lat)
    print(f"live 1280x720 @30 fps source, {seconds:.0f} s: {summary.frames / wall:.1f} fps sustained, "
          f"capture→masked latency median {1000 * np.median(arr):.1f} ms, p95 {1000 * np.percentile(arr, 95):.1f} ms, "
          f"detector {1000 * tel.detect_s:.1f} ms/call, {tel.detections} detections, "
          f"{summary.paused_frames} frames fully masked (starting/stalled), provider {tel.provider}")  # fmt: skip


class BlindQuickLook:
    """Wraps a detector and offers a quick look that finds nothing: the worst a quick look (a
    cheaper pass between full ones, e.g. CenterFace at half its input) can do."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.quick_calls = inner, f"{inner.name}+blind-quick", 0

    @property
    def class_names(self) -> tuple[str, ...]:
        """The wrapped detector's classes."""
        return self.inner.class_names

    def detect(self, frame: np.ndarray) -> Detections:
        """The full look: the wrapped detector's."""
        return self.inner.detect(frame)

    def detect_quick(self, frame: np.ndarray) -> Detections:
        """No boxes."""
        self.quick_calls += 1
        return Detections.empty(self.inner.class_names)


def leak_check(detector, policy, redaction, work: Path, args) -> int:
    """Frames where any GT pixel is unmasked, with a detector that misses frames at random and in
    bursts: export mode (must be 0) and live mode (reported with the chosen hold, per
    ``--live-latency``; ``app.commands.bench_live_leak``)."""
    w, h, n = 640, 360, 300
    src = SyntheticSource(w, h, 30, None, seed=3)
    clip = work / "leak.mp4"
    clip.unlink(missing_ok=True)
    write_synthetic_clip(clip, src, n)
    rc = 0
    for stride in (1, DEFAULT_STRIDE, 4):
        drop = DropoutDetector(detector, rate=args.drop, burst_every=40, burst_len=6, seed=stride)
        pipe = Pipeline([drop], policy, redaction)
        leaked: set[int] = set()

        def check(i, hidden):
            if coverage_leaks((h, w), hidden.xyxy, src.gt(i)[0]):
                leaked.add(i)

        out = work / f"leak_out_s{stride}.mp4"
        out.unlink(missing_ok=True)
        export_video(clip, out, pipe, ExportOptions(stride=stride, hold_s=1.0), on_frame=check)
        print(f"leak check export {w}x{h} {n} frames, stride {stride}, {drop.dropped} of {drop.calls} detector calls "
              f"dropped (random {args.drop:.0%} + bursts of 6): {len(leaked)} leaked frames")  # fmt: skip
        rc |= bool(leaked)
        if stride == DEFAULT_STRIDE:  # the export's default: quick looks between full ones
            blind = BlindQuickLook(DropoutDetector(detector, rate=args.drop, burst_every=40, burst_len=6, seed=stride))
            leaked = set()
            out.unlink(missing_ok=True)
            options = ExportOptions(stride=stride, hold_s=1.0)
            export_video(clip, out, Pipeline([blind], policy, redaction), options, on_frame=check)
            print(f"leak check export {w}x{h} {n} frames, stride {stride}, full look every {options.full_look_every} "
                  f"detector frames and quick looks that find nothing ({blind.quick_calls} calls), the full looks "
                  f"dropped as above: {len(leaked)} leaked frames (a stress beyond the export's guarantee, reported "
                  f"only: what only the full look finds is then seen as at stride {stride * options.full_look_every})")  # fmt: skip
    # Live: the source runs in real time; the detector thread sees only the frames it has time for.
    live_leak_check(detector, policy, redaction, args)
    return rc
