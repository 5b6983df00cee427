"""Offline video export: decode → detect every ``stride``-th frame → fill gaps → redact → H.264.

Two passes over the file (``bidirectional``, the default): the first collects detections, the
second decodes again and writes each frame with every box its track needs on it — interpolated
between hits and held before the first and after the last hit — so a box missed on some frames
cannot flash through. Single-pass mode uses the live tracker instead (hold forward only).

OCR (slow: seconds per 1080p frame on a CPU) runs only on every ``ocr_stride``-th frame (≈ 1 s,
frame 0 always), synchronously in pass 1. Its hits are linked and gap-filled like the others but
with a hold of at least one OCR stride and a max gap of two, so between OCR frames text that stays
put stays masked, text that moves is covered by the gap-fill corridor, and text that appears
between two OCR frames is back-filled from the next one.

Faces (detectors with a quick look, ``detect_quick``) take their full look on every
``full_look_every``-th detector frame and a cheaper quick look on the others; their hits are
gap-filled on their own, with the holds of the full looks' interval, so what only the full look
finds (small faces) is carried across the quick frames.

Audio packets are remuxed unchanged (AAC re-encode when the container refuses the codec), in
sync by keeping source timestamps; no container or stream metadata is copied. Display-matrix
rotation is applied to the pixels, so output is upright with no rotation tag. The output is
written to a temp file beside the target and renamed on success; failure or cancel removes it.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from app.core.async_detector import split_slow_detectors
from app.core.detections import Detections, Source, concat
from app.core.errors import Cancelled, OutputError, SourceError
from app.core.face_context import FaceContext
from app.core.gapfill import ClipMotion, GapFillSettings, fill_gaps
from app.core.motion import MotionEstimator
from app.core.pipeline import Detector, Pipeline
from app.core.tracking import PrivacyTracker, TrackerSettings
from app.media.sinks import VideoFileSink
from app.text.screen import judge_by_reading, whole_lines

log = logging.getLogger(__name__)

# A reading judges the detector's text boxes on nearby frames only where the motion between them
# is measured to within this (3 sigma): the line overlap tests allow a few pixels, not a line.
MAX_CARRY_ERROR_PX = 4.0

Progress = Callable[[int, "int | None"], None]
FrameHook = Callable[[int, Detections], None]


@dataclass(frozen=True)
class ExportOptions:
    """``stride``: run the detector every N-th frame. ``hold_s``: seconds a track stays masked
    before its first / after its last hit. ``crf``: x264 quality (lower = better, 18–28 usual).
    ``bidirectional``: two passes with gap filling (off: one pass, live tracker).
    ``ocr_stride``: run OCR every N-th frame; None: every ``ocr_every_s`` seconds of frames.
    Either way at least ``stride``. ``full_look_every``: a detector that offers a quick look
    (``detect_quick``; CenterFace at half its input side) takes its full look on every N-th
    detector frame and the quick one on the others (1: always the full look); the gap filling
    carries what only the full look finds (small faces) across the quick frames."""

    keep_audio: bool = True
    stride: int = 2
    hold_s: float = 1.0
    crf: int = 20
    preset: str = "veryfast"
    bidirectional: bool = True
    max_gap_s: float = 3.0
    ocr_stride: int | None = None
    ocr_every_s: float = 1.0
    full_look_every: int = 2

    def __post_init__(self) -> None:
        if self.stride < 1:
            raise ValueError(f"stride must be ≥ 1, got {self.stride}")
        if self.full_look_every < 1:
            raise ValueError(f"full look interval must be ≥ 1 detector frame, got {self.full_look_every}")
        if self.ocr_stride is not None and self.ocr_stride < 1:
            raise ValueError(f"OCR stride must be ≥ 1, got {self.ocr_stride}")
        if self.ocr_every_s < 0:
            raise ValueError(f"OCR interval must be ≥ 0 s, got {self.ocr_every_s}")
        if self.hold_s < 0:
            raise ValueError(f"hold must be ≥ 0 s, got {self.hold_s}")
        if not 0 <= self.crf <= 51:
            raise ValueError(f"crf must be 0–51, got {self.crf}")

    def ocr_frames(self, fps: float) -> int:
        """OCR stride in frames at ``fps``: ``ocr_stride`` or ``ocr_every_s`` × fps, ≥ ``stride``."""
        n = self.ocr_stride if self.ocr_stride is not None else int(round(self.ocr_every_s * (fps or 30.0)))
        return max(self.stride, n)

    def quick_look(self, frame_index: int) -> bool:
        """Whether detector frame ``frame_index`` (a multiple of ``stride``) takes quick looks."""
        return (frame_index // self.stride) % self.full_look_every != 0

    def split_quick(self, detectors: tuple[Detector, ...]) -> tuple[tuple[Detector, ...], tuple[Detector, ...]]:
        """(detectors that always take the full look, detectors that take quick looks between)."""
        quick = tuple(d for d in detectors if self.full_look_every > 1 and hasattr(d, "detect_quick"))
        return tuple(d for d in detectors if d not in quick), quick


@dataclass(frozen=True)
class ExportReport:
    """What an export did: frame counts, detector hits, gap-filled boxes, audio handling, time."""

    source: Path
    target: Path
    frames: int
    detected_frames: int
    hits: int
    filled: int
    width: int
    height: int
    fps: float
    rotation: int
    audio: str  # 'copied', 're-encoded (aac)', 'dropped', 'none'
    seconds: float
    ocr_frames: int = 0  # frames OCR ran on

    @property
    def throughput_fps(self) -> float:
        """Frames written per wall-clock second, both passes included."""
        return self.frames / self.seconds if self.seconds else 0.0


@dataclass
class VideoInput:
    """An opened video file: PyAV container, its first video (and audio) stream, rate, frame estimate."""

    container: object
    video: object
    audio: object | None
    fps: float
    est_frames: int | None


def open_video_input(path: Path, want_audio: bool) -> VideoInput:
    import av

    if not path.exists():
        raise SourceError(f"{path}: file not found")
    if path.is_dir():
        raise SourceError(f"{path}: is a folder")
    try:
        container = av.open(str(path), "r")
    except (av.FFmpegError, OSError, ValueError) as exc:
        raise SourceError(f"{path}: not a readable video (truncated or corrupt? {exc})") from None
    if not container.streams.video:
        container.close()
        raise SourceError(f"{path}: has no video stream")
    video = container.streams.video[0]
    video.thread_type = "AUTO"
    audio = container.streams.audio[0] if (want_audio and container.streams.audio) else None
    rate = video.average_rate or video.guessed_rate or video.base_rate or 30
    fps = float(rate)
    est = video.frames or None
    if not est and video.duration and video.time_base:
        est = int(float(video.duration * video.time_base) * fps) or None
    return VideoInput(container, video, audio, fps, est)


def decoded_frames(inp: VideoInput, path: Path, on_audio: Callable | None = None) -> Iterator:
    """Video frames in decode order; audio packets go to ``on_audio``. Decode errors → SourceError."""
    import av

    streams = [inp.video] + ([inp.audio] if (on_audio and inp.audio is not None) else [])
    index = 0
    try:
        for packet in inp.container.demux(*streams):
            if packet.stream.type == "audio":
                on_audio(packet)
                continue
            for frame in packet.decode():
                yield frame
                index += 1
    except av.FFmpegError as exc:
        raise SourceError(f"{path}: video data is truncated or corrupt after frame {index} ({exc})") from None


def upright(frame) -> tuple[np.ndarray, int]:
    """(H, W, 3) uint8 BGR pixels of a PyAV frame with its display-matrix rotation applied."""
    arr = frame.to_ndarray(format="bgr24")
    rot = int(round((getattr(frame, "rotation", 0) or 0) / 90.0)) % 4
    if rot:  # rotation is counter-clockwise in degrees; np.rot90 turns counter-clockwise too
        arr = np.ascontiguousarray(np.rot90(arr, k=rot))
    return arr, rot * 90


def _check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled("export cancelled; no file written")


def export_video(
    source: Path,
    target: Path,
    pipeline: Pipeline,
    options: ExportOptions = ExportOptions(),
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    on_frame: FrameHook | None = None,
) -> ExportReport:
    """Redact ``source`` into ``target`` (.mp4/.mov/.mkv). ``progress(done, total)`` counts frame
    steps over both passes (total None when unknown); ``on_frame(i, boxes)`` sees the padded boxes
    drawn on frame ``i``. Raises ``Cancelled``, ``SourceError`` or ``OutputError``; on any of
    them no output file remains. ``pipeline.tracker`` is not used: each export builds its own."""
    source, target = Path(source), Path(target)
    if target.exists():
        raise OutputError(f"{target}: already exists; not overwriting")
    if target.resolve() == source.resolve():
        raise OutputError(f"{target}: output would overwrite the input")
    t0 = time.perf_counter()
    if options.bidirectional:
        plan, info = _collect(source, pipeline, options, progress, cancel)
        boxes_for = lambda i, frame: plan[i] if i < len(plan) else None  # noqa: E731
        total = 2 * len(plan)
        offset = len(plan)
    else:
        plan, info, offset, total = [], None, 0, None
    inp = open_video_input(source, options.keep_audio)
    try:
        if not options.bidirectional:
            boxes_for, info = _single_pass_boxes(pipeline, options, inp.fps)
            total = inp.est_frames
        return _write(inp, source, target, pipeline, options, boxes_for, offset, total, progress, cancel, on_frame, t0,
                      plan, info)  # fmt: skip
    finally:
        inp.container.close()


def _hidden(pipeline: Pipeline, detectors: tuple[Detector, ...], pixels: np.ndarray, quick: bool = False) -> Detections:
    """Boxes ``detectors`` find on ``pixels`` that the policy hides, over the pipeline's class table.
    ``quick``: detectors that offer ``detect_quick`` take that cheaper look."""
    found = [d.detect_quick(pixels) if quick and hasattr(d, "detect_quick") else d.detect(pixels) for d in detectors]
    return pipeline.select(concat(found, pipeline.class_names), pixels.shape[:2])


def _single_pass_boxes(pipeline: Pipeline, options: ExportOptions, fps: float):
    """``boxes_for(i, frame)`` for one-pass export: the live tracker over the fast detectors, and
    a second one holding OCR boxes (OCR every ``ocr_frames``) until the next OCR frame and beyond."""
    fast, slow = split_slow_detectors(pipeline.detectors)
    names = pipeline.class_names
    full_every = options.stride * (options.full_look_every if options.split_quick(fast)[1] else 1)
    hold = max(int(round(options.hold_s * fps)), 2 * full_every)
    tracker = PrivacyTracker(TrackerSettings(hold=hold), names)
    ocr_every = options.ocr_frames(fps)
    ocr_tracker = PrivacyTracker(TrackerSettings(hold=hold + ocr_every), names)
    motion = MotionEstimator(history=2)
    counts = {"detected_frames": 0, "ocr_frames": 0}

    def boxes_for(i: int, frame: np.ndarray) -> Detections:
        raw = None
        if fast and i % options.stride == 0:
            raw = FaceContext().apply(_hidden(pipeline, fast, frame, options.quick_look(i)))
            counts["detected_frames"] += 1
        step = motion.step(frame)  # measured once, used by both trackers
        out = tracker.update(raw, frame, motion=step)
        if raw is not None:
            out = FaceContext().release_held(tracker, out, raw)
        if not slow:
            return out
        ocr = None
        if i % ocr_every == 0:
            ocr = FaceContext().apply(_hidden(pipeline, slow, frame), raw)  # judged by this frame's faces too
            counts["ocr_frames"] += 1
        return concat([out, ocr_tracker.update(ocr, frame, motion=step)], names)

    return boxes_for, counts


@dataclass(frozen=True)
class FirstPass:
    """What pass 1 measured on a clip: the fast tier's and OCR's policy-selected ``hits`` and
    ``ocr_hits`` (frame → Detections), the measured ``motion`` of every frame, the frame count
    ``n``, frame size ``hw`` and ``fps``; ``quick_hits``: those of the fast detectors that take
    quick looks between full ones (faces), kept apart; ``readings``: per OCR frame, the text
    reading's line verdicts and weak-evidence level (``ScreenReading.readings``, ``.weak``).
    ``plan_boxes`` turns it into the plan."""

    hits: dict[int, Detections]
    ocr_hits: dict[int, Detections]
    motion: ClipMotion
    n: int
    hw: tuple[int, int]
    fps: float
    quick_hits: dict[int, Detections] = field(default_factory=dict)
    readings: dict[int, tuple[list, float]] = field(default_factory=dict)


def collect_first_pass(source: Path, pipeline: Pipeline, options: ExportOptions, progress: Progress | None = None,
                       cancel: threading.Event | None = None) -> FirstPass:  # fmt: skip
    """Pass 1: detections on every stride-th frame, OCR on every OCR-stride-th frame and on the
    last frame (text that came into view after the last scheduled read is read there, and its
    boxes are held back over the frames before), and the measured motion of every frame."""
    fast, slow = split_slow_detectors(pipeline.detectors)
    fast, quickable = options.split_quick(fast)
    inp = open_video_input(source, want_audio=False)
    ocr_every = options.ocr_frames(inp.fps)
    hits: dict[int, Detections] = {}
    ocr_hits: dict[int, Detections] = {}
    quick_hits: dict[int, Detections] = {}
    readings: dict[int, tuple[list, float]] = {}
    n, hw, last = 0, None, None
    est = 2 * inp.est_frames if inp.est_frames else None
    motion = MotionEstimator(history=2)
    offsets: list[np.ndarray] = []
    variance: list[float] = []

    def read_text(i: int, pixels: np.ndarray) -> None:
        ocr_hits[i] = _hidden(pipeline, slow, pixels)
        readings.update({i: r for r in map(_reading_of, slow) if r is not None})

    try:
        for frame in decoded_frames(inp, source):
            _check_cancel(cancel)
            run_fast = bool(fast or quickable) and n % options.stride == 0
            run_ocr = bool(slow) and n % ocr_every == 0
            pixels, _ = upright(frame)
            hw = pixels.shape[:2]
            step = motion.step(pixels)  # a pan or scroll moves every held box with the picture
            offsets.append(step.offset)
            variance.append(step.variance)
            if run_fast:
                hits[n] = _hidden(pipeline, fast, pixels)
                if quickable:
                    quick_hits[n] = _hidden(pipeline, quickable, pixels, options.quick_look(n))
            if run_ocr:
                read_text(n, pixels)
            last = pixels
            n += 1
            if progress:
                progress(n, est)
        if slow and last is not None and (n - 1) not in ocr_hits:
            read_text(n - 1, last)
    finally:
        inp.container.close()
    if n == 0 or hw is None:
        raise SourceError(f"{source}: no video frames could be decoded")
    clip_motion = ClipMotion(np.array(offsets, np.float32).reshape(-1, 2), np.array(variance, np.float64))
    return FirstPass(hits, ocr_hits, clip_motion, n, hw, inp.fps, quick_hits, readings)


def _reading_of(detector: Detector) -> tuple[list, float] | None:
    """The line verdicts and weak-evidence level of a text detector's last ``detect``, if it reads."""
    reading = getattr(detector, "last_reading", None)
    return (list(reading.readings), float(reading.weak)) if reading is not None and reading.readings else None


def _collect(source: Path, pipeline: Pipeline, options: ExportOptions, progress: Progress | None,
             cancel: threading.Event | None) -> tuple[list[Detections], dict]:  # fmt: skip
    """Pass 1 (``collect_first_pass``) and gap filling of its hits into one per-frame plan."""
    first = collect_first_pass(source, pipeline, options, progress, cancel)
    plan = plan_boxes(first.hits, first.ocr_hits, first.n, first.hw, first.fps, pipeline.class_names, options,
                      first.motion, first.quick_hits, first.readings)  # fmt: skip
    info = {"detected_frames": len(first.hits), "ocr_frames": len(first.ocr_hits),
            "hits": sum(len(d) for part in (first.hits, first.ocr_hits, first.quick_hits) for d in part.values())}  # fmt: skip
    return plan, info


def _fast_settings(every: int, hold: int, max_gap: int, baseline: int) -> GapFillSettings:
    """Gap filling of hits made every ``every`` frames (the fast tier's stride, or the full looks'
    interval of detectors with quick looks)."""
    # A box seen once is held two detector frames per hit, one the detector kept seeing the full hold.
    # Links are made in scene coordinates (the measured pan/scroll taken out), where only objects
    # that move on their own move: the gate widens by 0.1 box short sides per frame unseen (3 a
    # second), not the live tracker's 0.25, which linked neighbouring text lines into one slab.
    return GapFillSettings(max_gap_frames=max(max_gap, 2 * every), hold_frames=max(hold, every),
                           hold_per_hit=2 * every, link_growth=0.1, speed_baseline=baseline)  # fmt: skip


def plan_boxes(hits: dict[int, Detections], ocr_hits: dict[int, Detections], n: int, hw: tuple[int, int], fps: float,
               class_names: tuple[str, ...], options: ExportOptions, clip_motion: ClipMotion,
               quick_hits: dict[int, Detections] | None = None,
               readings: dict[int, tuple[list, float]] | None = None) -> list[Detections]:  # fmt: skip
    """The boxes to hide on each of ``n`` frames: the fast tier's ``hits``, OCR's ``ocr_hits`` and
    the quick-look detectors' ``quick_hits`` (frame → policy-selected detections), each gap-filled
    and held in the measured ``clip_motion``. With the OCR frames' ``readings``, the detector's
    text boxes are first judged by the nearest reading (``judged_hits``)."""
    ocr_every = options.ocr_frames(fps)
    # Object boxes that the same frame's confident faces contradict (a shirt number boxed as a
    # house number, a sponsor's name read as a shop sign) would be held for seconds: they go
    # before gap filling.
    quick_hits = quick_hits or {}
    # What the fast tier saw on each of its frames, faces included (quick and full looks together).
    looks = {f: concat([x for x in (hits.get(f), quick_hits.get(f)) if x is not None], class_names)
             for f in set(hits) | set(quick_hits)}  # fmt: skip
    ocr_hits = {f: FaceContext().apply(d, looks.get(f)) for f, d in ocr_hits.items()}
    hits = {f: FaceContext().apply(d, quick_hits.get(f)) for f, d in hits.items()}
    if readings:
        readings = {f: (whole_lines(lines, hw), weak) for f, (lines, weak) in readings.items()}
        hits = judged_hits(hits, readings, clip_motion, ocr_every // 2 + 1)
    hold = int(round(options.hold_s * fps))
    max_gap = int(round(options.max_gap_s * fps))
    # Speeds are measured over ≥ 1/4 s: a box that jitters between two detector frames is not moving.
    baseline = max(1, int(round(0.25 * fps)))
    plan = fill_gaps(hits, n, hw, class_names, _fast_settings(options.stride, hold, max_gap, baseline), clip_motion)
    if readings:
        # Held boxes too: a false box held over text that a nearby reading shows is not private
        # (it was boxed before that text was read, e.g. as it scrolled in) goes like a detected one.
        judged = judged_hits(dict(enumerate(plan)), readings, clip_motion, ocr_every // 2 + 1,
                             (Source.DETECTOR, Source.TRACKER))  # fmt: skip
        plan = [judged[f] for f in range(n)]
    if quick_hits:
        # Held and bridged as hits of the full looks alone would be: what only they find (a small
        # face) is seen every ``full_look_every`` detector frames; the quick looks' hits add to it.
        every = options.stride * options.full_look_every
        quick_plan = fill_gaps(quick_hits, n, hw, class_names, _fast_settings(every, hold, max_gap, baseline), clip_motion)
        plan = _merge_plans(plan, quick_plan, class_names)
    if ocr_hits:
        # Held for at least one OCR stride both ways (text that appears between two OCR frames is
        # back-filled from the later one) and linked across one OCR frame that missed it. Reads
        # are a second apart: a line read at another scene position (the pan or scroll is
        # measured and taken out) is another line, so the link gate does not widen with time.
        ocr_settings = GapFillSettings(max_gap_frames=max(max_gap, 2 * ocr_every + 1),
                                       hold_frames=max(hold, ocr_every), link_growth=0.0,
                                       speed_baseline=baseline)  # fmt: skip
        ocr_plan = fill_gaps(ocr_hits, n, hw, class_names, ocr_settings, clip_motion)
        plan = _merge_plans(plan, ocr_plan, class_names)
    # A box held over frames where a face is now seen is judged by that face like a hit on its
    # own frame: a shirt number held as a house number, a "plate" held over the face it boxed.
    return face_judged(plan, looks, clip_motion, options.stride * options.full_look_every)


def face_judged(plan: list[Detections], faces: dict[int, Detections], motion: ClipMotion, reach: int) -> list[Detections]:
    """``plan`` (the boxes of every frame) with each frame's object boxes judged (``FaceContext``)
    by the faces found on the nearest detector frame of ``faces`` (frame → detections) within
    ``reach`` frames, moved there by the measured motion. Frames whose motion to it is not measured
    to within ``MAX_CARRY_ERROR_PX`` keep their boxes."""
    seen = np.array(sorted(faces))
    if not len(seen):
        return plan
    # the nearest detector frame of each frame (the earlier one on a tie), found in one sorted pass
    after = np.clip(np.searchsorted(seen, np.arange(len(plan))), 0, len(seen) - 1)
    before = np.clip(after - 1, 0, len(seen) - 1)
    frames = np.arange(len(plan))
    nearest = np.where(np.abs(seen[before] - frames) <= np.abs(seen[after] - frames), seen[before], seen[after])
    out = []
    for f, dets in enumerate(plan):
        g = int(nearest[f])
        if not len(dets) or abs(g - f) > reach or motion.error(f, g, 3.0) > MAX_CARRY_ERROR_PX:
            out.append(dets)
            continue
        evidence = faces[g]
        out.append(FaceContext().apply(dets, evidence.with_boxes(evidence.xyxy + motion.shift4(f) - motion.shift4(g))))
    return out


def judged_hits(hits: dict[int, Detections], readings: dict[int, tuple[list, float]], motion: ClipMotion,
                reach: int, sources: tuple[Source, ...] = (Source.DETECTOR,)) -> dict[int, Detections]:  # fmt: skip
    """``hits`` with each frame's text boxes from ``sources`` (the detector's) judged by the reading
    of the nearest OCR frame within ``reach`` frames (``app.text.screen.judge_by_reading``), moved
    there by the measured motion, as a still image's are by its own reading: a headline or an
    app's name that the detector boxed as a name goes. Frames whose motion to that reading is not
    measured to within ``MAX_CARRY_ERROR_PX`` (a cut, a flat frame) keep their boxes."""
    read_at = np.array(sorted(readings))
    out = {}
    for f, dets in hits.items():
        g = int(read_at[np.argmin(np.abs(read_at - f))])
        if abs(g - f) > reach or motion.error(f, g, 3.0) > MAX_CARRY_ERROR_PX:
            out[f] = dets
            continue
        lines, weak = readings[g]
        out[f] = judge_by_reading(dets, lines, weak, (motion.shift4(g) - motion.shift4(f))[:2], sources)
    return out


def _merge_plans(plan: list[Detections], extra: list[Detections], class_names: tuple[str, ...]) -> list[Detections]:
    """Per-frame union of two plans; ``extra``'s track ids are shifted past ``plan``'s."""
    shift = 1 + max((int(d.track_ids.max()) for d in plan if len(d)), default=-1)
    out = []
    for a, b in zip(plan, extra):
        if len(b):
            b = replace(b, track_ids=np.where(b.track_ids >= 0, b.track_ids + shift, -1))
        out.append(concat([a, b], class_names))
    return out


def _write(inp: VideoInput, source: Path, target: Path, pipeline: Pipeline, options: ExportOptions, boxes_for,
           offset: int, total: int | None, progress, cancel, on_frame, t0: float, plan, info) -> ExportReport:  # fmt: skip
    """Pass 2: decode again, redact each frame, encode; audio packets remuxed as they come."""
    sink: VideoFileSink | None = None
    pending_audio: list = []
    n = filled = hits = 0
    last_pts = None
    rotation, size = 0, (0, 0)

    def on_audio(packet) -> None:
        if sink is None:
            pending_audio.append(packet)  # audio before the first video frame
        else:
            sink.write_audio(packet)

    try:
        for frame in decoded_frames(inp, source, on_audio if inp.audio is not None else None):
            _check_cancel(cancel)
            pixels, rotation = upright(frame)
            h, w = pixels.shape[:2]
            if sink is None:
                size = (w, h)
                sink = VideoFileSink(target, inp.fps, size, crf=options.crf, preset=options.preset,
                                     time_base=inp.video.time_base, audio_template=inp.audio)  # fmt: skip
                for p in pending_audio:
                    sink.write_audio(p)
                pending_audio.clear()
            elif (w, h) != size:
                raise SourceError(f"{source}: frame size changes mid-stream ({size} → {(w, h)}); not supported")
            hidden = boxes_for(n, pixels)
            if hidden is None:
                raise SourceError(f"{source}: second pass decoded more frames than the first; file changed?")
            out = pipeline.render(pixels, hidden)
            if on_frame is not None:
                on_frame(n, pipeline.padded(hidden, (h, w)))
            pts = frame.pts
            if pts is None or (last_pts is not None and pts <= last_pts):
                pts = (last_pts + 1) if last_pts is not None else 0
            last_pts = pts
            sink.write(out, pts)
            tracked = hidden.sources == Source.TRACKER
            filled += int(tracked.sum())
            hits += int((~tracked).sum())
            n += 1
            if progress:
                progress(offset + n, total)
        if sink is None:
            raise SourceError(f"{source}: no video frames could be decoded")
        if plan and n != len(plan):
            raise SourceError(f"{source}: second pass decoded {n} frames, the first {len(plan)}; file changed?")
        audio = "none" if inp.audio is None else ("copied" if sink.copies_audio else "re-encoded (aac)")
        if not options.keep_audio:
            audio = "dropped"
        sink.close()
    except BaseException:
        if sink is not None:
            sink.abort()
        raise
    seconds = time.perf_counter() - t0
    return ExportReport(
        source=source, target=target, frames=n,
        detected_frames=(info or {}).get("detected_frames", (n + options.stride - 1) // options.stride),
        hits=(info or {}).get("hits", hits), filled=filled, width=size[0], height=size[1], fps=inp.fps,
        rotation=rotation, audio=audio, seconds=seconds, ocr_frames=(info or {}).get("ocr_frames", 0),
    )  # fmt: skip
