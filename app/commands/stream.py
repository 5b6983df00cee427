"""``vpd-redact stream --source SPEC``: mask a live source as it plays.

SPEC is ``camera:N``, ``screen`` / ``screen:N``, ``window:TITLE`` (X11, needs xdotool or
wmctrl), ``synthetic`` (a test pattern) or a video FILE. Masked frames go to ``--record FILE``,
``--virtual-camera`` and/or ``--preview``. Protection fails closed: when the newest detection is
older than ``--deadline``, what changed since its frame is hidden; until the detector has
answered, when it stalls or errors, the whole frame is masked with a PROTECTION PAUSED banner.
OCR runs beside the frame loop at most every ``--ocr-every`` seconds; its boxes are held between
results and moved with the picture. Text drawn on a screen where no OCR read has looked yet
(scrolled in, typed, opened since) is covered line by line until a read judges it. When OCR fails
or its newest read is older than 4 s (or 2.5 OCR cycles, if longer), text is unprotected where
the picture changed since: those regions are filled and the status says so.
Recordings keep the source's timing (a 5 s file records as 5 s).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from app.commands.common import add_detection_args, check_class_names, policy_from_args, redaction_from_args
from app.commands.video import DetectorList, add_video_args, build_detector_list
from app.core.errors import VpdError
from app.core.live import LiveFrame, LiveMasker, LiveOptions, run_live
from app.core.pipeline import Pipeline
from app.media.sinks import MS, VideoFileSink, VirtualCameraSink, source_timed_writer
from app.media.sources import open_source


def add_parser(sub) -> argparse.ArgumentParser:
    """Register the ``stream`` sub-command; returns its parser."""
    p = sub.add_parser("stream", help="mask a camera, screen, window or file live", description=__doc__)
    p.add_argument("--source", required=True, help="camera:N | screen[:N] | window:TITLE | synthetic | FILE")
    p.add_argument("--record", type=Path, default=None, metavar="FILE", help="also write the masked stream to FILE (.mp4)")
    p.add_argument("--virtual-camera", action="store_true", help="send masked frames to a virtual camera (pyvirtualcam)")
    p.add_argument("--preview", action="store_true", help="show an OpenCV preview window (needs a non-headless OpenCV)")
    p.add_argument("--deadline", type=float, default=1.0, metavar="S",
                   help="when the newest detection is older than S seconds, hide what changed since its frame; "
                        "everything after 5 s or 2.5 detector ticks (default: %(default)s)")  # fmt: skip
    p.add_argument("--duration", type=float, default=None, metavar="S", help="stop after S seconds")
    p.add_argument("--max-frames", type=int, default=None, help="stop after N frames")
    p.add_argument("--telemetry-every", type=float, default=2.0, metavar="S", help="print FPS/latency every S seconds")
    p.add_argument("--full-look-every", type=int, default=LiveOptions.full_look_every, metavar="N",
                   help="face detection at its full input size on every N-th detector tick, at half the size "
                        "(4x cheaper, misses faces under ~32 px at 720p; the full looks' hits are held) on the "
                        "others (default: %(default)s; 1 = always full)")  # fmt: skip
    add_video_args(p)
    add_detection_args(p, "live")
    p.set_defaults(run=run)
    return p


class _Preview:
    def __init__(self) -> None:
        import cv2

        self.cv2 = cv2
        try:
            cv2.namedWindow("vpd-redact (masked)", cv2.WINDOW_NORMAL)
        except cv2.error as exc:
            raise VpdError(f"no preview window in this OpenCV build ({exc.err or exc}); use the GUI or --record") from None

    def __call__(self, out: LiveFrame) -> None:
        self.cv2.imshow("vpd-redact (masked)", out.frame)
        self.cv2.waitKey(1)

    def close(self) -> None:
        self.cv2.destroyAllWindows()


def run(args: argparse.Namespace, build: Callable[[argparse.Namespace], DetectorList] = build_detector_list) -> int:
    """Stream until the source ends, --duration/--max-frames, or Ctrl-C; 0 ok, 1 source failed, 2 usage.
    ``build`` makes the detectors (the developer entry point ``app.dev`` passes an oracle)."""
    if not (args.record or args.virtual_camera or args.preview):
        print("error: nothing to show the masked stream on: add --record FILE, --virtual-camera or --preview",
              file=sys.stderr)  # fmt: skip
        return 2
    closers: list = []
    try:
        if args.ocr_every < 0:
            raise ValueError(f"--ocr-every must be ≥ 0, got {args.ocr_every}")
        if args.full_look_every < 1:
            raise ValueError(f"--full-look-every must be ≥ 1, got {args.full_look_every}")
        policy, redaction = policy_from_args(args), redaction_from_args(args)
        detectors, providers, warnings = build(args)
        pipeline = Pipeline(detectors, policy, redaction)
        check_class_names(args, pipeline.class_names)
        source = open_source(args.source)
        closers.append(source)
        w, h = source.size
        sinks = []
        if args.record:
            rec = VideoFileSink(args.record, source.fps, (w, h), time_base=MS)
            closers.append(rec)
            write = source_timed_writer(rec, source)
            sinks.append(lambda out: write(out.frame))
        if args.virtual_camera:
            cam = VirtualCameraSink(w, h, source.fps)
            closers.append(cam)
            sinks.append(lambda out: cam.write(out.frame))
            print(f"virtual camera: {cam.device}", file=sys.stderr)
        if args.preview:
            preview = _Preview()
            closers.append(preview)
            sinks.append(preview)
    except (VpdError, ValueError) as exc:
        for c in reversed(closers):
            getattr(c, "abort", c.close)()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for warn in warnings:
        print(f"warning: {warn}", file=sys.stderr)
    hold = 0.5 if args.hold is None else args.hold
    options = LiveOptions(hold_s=hold, deadline_s=args.deadline, fps=source.fps or 30.0, ocr_interval_s=args.ocr_every,
                          full_look_every=args.full_look_every)  # fmt: skip
    stop = threading.Event()
    print(f"streaming {args.source} ({w}x{h} @ {source.fps:.0f} fps), providers: {providers}; Ctrl-C stops",
          file=sys.stderr)  # fmt: skip
    shown = policy.shown(pipeline.class_names)
    print(f"not hidden (preset {args.preset}{', --classes' if args.classes else ''}): {', '.join(shown) or 'nothing'}",
          file=sys.stderr)  # fmt: skip
    masker = LiveMasker(pipeline, options)
    sinks.append(_telemetry_printer(masker, args.telemetry_every))
    timer = None
    if args.duration:
        timer = threading.Timer(args.duration, stop.set)
        timer.daemon = True
        timer.start()
    try:
        summary = run_live(source, masker, sinks, stop, args.max_frames)
    except KeyboardInterrupt:
        summary = None
    finally:
        if timer:
            timer.cancel()
        masker.close()
        for c in reversed(closers):
            try:
                c.close()
            except VpdError as exc:
                print(f"error: {exc}", file=sys.stderr)
    t = masker.telemetry()
    ended = summary.ended if summary else "stopped by Ctrl-C"
    print(f"{ended}: {t.frames} frames, {t.paused_frames} fully masked (protection paused), "
          f"last fps {t.fps:.1f}, latency {1000 * t.latency_s:.0f} ms", file=sys.stderr)  # fmt: skip
    if args.record:
        print(f"recorded to {args.record}", file=sys.stderr)
    return 1 if summary and summary.ended.startswith("source failed") else 0


def _telemetry_printer(masker: LiveMasker, every: float):
    last = [time.perf_counter()]

    def show(out: LiveFrame) -> None:
        now = time.perf_counter()
        if now - last[0] >= every:
            last[0] = now
            t = masker.telemetry()
            state = "protected" if out.protected else f"PAUSED ({out.reason})"
            for note in (out.stale, out.text_paused) if out.protected else ():
                state += f"; {note}" if note else ""
            ocr = ""
            if t.ocr_results or t.ocr_error:
                ocr = f"  ocr {1000 * t.ocr_s:5.0f} ms age {1000 * t.ocr_age_s:5.0f} ms"
                ocr += f" (OCR FAILED: {t.ocr_error})" if t.ocr_error else ""
            print(f"fps {t.fps:5.1f}  latency {1000 * t.latency_s:5.1f} ms  detector {1000 * t.detect_s:5.1f} ms  "
                  f"age {1000 * t.detection_age_s:5.0f} ms{ocr}  provider {t.provider}  {state}",
                  file=sys.stderr)  # fmt: skip

    return show
