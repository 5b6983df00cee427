"""Pan-clip benchmark: 720p clips that pan across real annotated pictures, exported with the
default detectors and with deface in the same run (alternating), and streamed live.

What is measured, per clip (truth = the picture's annotated PII boxes, moved with the pan):
* export: wall-clock FPS and peak RSS of each tool's process (model loading included);
* leaked frames (a true box not fully hidden), share of box-frames hidden;
* median share of each frame changed outside the true boxes (over-masking), frames > 50 % changed;
* live: output FPS, capture→output latency, share of paused frames after the first 2 s, and how
  long PII that pans into view stays visible before its first mask (first-visible time).

A true box counts as hidden when ≥ 95 % of its pixels are near black (the solid default fill)
or changed by more than ``CHANGE_GREY`` grey levels. A pixel counts as changed outside the truth
when its grey level moved by more than ``CHANGE_GREY`` (H.264 noise stays well below).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from app.commands.bench_breakdown import OutsideBreakdown, Region, region_labels

CHANGE_GREY = 24
HIDDEN_SHARE = 0.95
VIEW_W, VIEW_H = 1280, 720
# Containers whose content is annotated separately; not PII boxes themselves.
NOT_PII = frozenset({"person", "shop_sign", "id_document", "receipt_or_label", "payment_card"})


@dataclass(frozen=True)
class PanClip:
    """A rendered clip and, per frame, its true PII boxes (K, 4) xyxy in clip pixels and their
    annotation indices (K,) and the share of each box in view (K,)."""

    path: Path
    truth: list[np.ndarray]
    ids: list[np.ndarray]
    in_view: list[np.ndarray]
    fps: float


def make_pan_clip(image_path: Path, boxes: np.ndarray, out: Path, frames: int = 150, fps: float = 30.0) -> PanClip:
    """Render a 1280×720 H.264 clip panning across ``image_path`` (scaled to cover the view with
    room to move), along its longer free axis at constant speed; ``boxes`` (K, 4) xyxy in image px."""
    import av

    img = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError(f"{image_path}: not a readable image")
    h, w = img.shape[:2]
    s = max(VIEW_W / w, VIEW_H / h) * 1.25
    img = cv2.resize(img, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4) * s
    free_x, free_y = img.shape[1] - VIEW_W, img.shape[0] - VIEW_H
    truth, ids, shares = [], [], []
    area = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-6)
    with av.open(str(out), "w") as container:
        stream = container.add_stream("libx264", rate=Fraction(fps).limit_denominator(1001))
        stream.width, stream.height, stream.pix_fmt = VIEW_W, VIEW_H, "yuv420p"
        stream.options = {"crf": "18", "preset": "veryfast"}
        for i in range(frames):
            t = i / max(1, frames - 1)
            x = int(round(free_x * t)) if free_x >= free_y else free_x // 2
            y = int(round(free_y * t)) if free_y > free_x else free_y // 2
            view = np.ascontiguousarray(img[y : y + VIEW_H, x : x + VIEW_W])
            for packet in stream.encode(av.VideoFrame.from_ndarray(view, format="bgr24")):
                container.mux(packet)
            b = boxes - np.array([x, y, x, y], np.float32)
            b = np.clip(b, 0, [VIEW_W, VIEW_H, VIEW_W, VIEW_H])
            in_view = (b[:, 2] - b[:, 0] >= 2) & (b[:, 3] - b[:, 1] >= 2)
            truth.append(b[in_view])
            ids.append(np.nonzero(in_view)[0])
            shares.append(((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]) / area)[in_view])
        for packet in stream.encode():
            container.mux(packet)
    return PanClip(out, truth, ids, shares, fps)


def load_truth(annotations: Path, name: str) -> np.ndarray:
    """PII boxes (K, 4) of image ``name`` from a real/real-dev style ``annotations.json``."""
    for entry in json.loads(annotations.read_text()):
        if Path(entry["file"]).name == name:
            return np.array([b["box"] for b in entry["boxes"] if b["category"] not in NOT_PII], np.float32).reshape(-1, 4)
    raise ValueError(f"{name}: not in {annotations}")


def read_frames(path: Path):
    """(H, W, 3) BGR frames of a video file, in order."""
    import av

    with av.open(str(path)) as container:
        for frame in container.decode(container.streams.video[0]):
            yield frame.to_ndarray(format="bgr24")


@dataclass
class FrameScore:
    """Running privacy figures over frames of one run."""

    boxes: int = 0
    hidden: int = 0
    leaked_frames: int = 0
    frames: int = 0
    over_50: int = 0
    ink_hidden: int = 0  # the same with only each true box's ink counted (``ink_flags``), when sources were given
    ink_leaked_frames: int = 0

    def __post_init__(self) -> None:
        self.outside: list[float] = []
        self.breakdown = OutsideBreakdown()  # fed by frames scored with their drawn regions

    def add(self, src: np.ndarray, out: np.ndarray, truth: np.ndarray,
            regions: list[Region] | None = None) -> np.ndarray:  # fmt: skip
        """Score one output frame against its source and true boxes; returns (K,) hidden flags.
        With ``regions`` (what was drawn), the changed area outside the truth is broken down by kind."""
        return self.add_maps(*pixel_maps(src, out), truth, regions, source_grey=_grey(src))

    def add_maps(self, masked: np.ndarray, changed: np.ndarray, truth: np.ndarray,
                 regions: list[Region] | None = None, source_grey: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        """``add`` from the (H, W) bool maps of ``pixel_maps``; with the source's ``source_grey``
        also the ink figures (``ink_flags``)."""
        if source_grey is not None:
            ink = ink_flags(masked, source_grey, truth)
            self.ink_hidden += int(ink.sum())
            self.ink_leaked_frames += int(not ink.all())
        inside = np.zeros(changed.shape, bool)
        flags = np.zeros(len(truth), bool)
        for k, (x0, y0, x1, y1) in enumerate(np.round(truth).astype(int)):
            inside[y0:y1, x0:x1] = True
            region = masked[y0:y1, x0:x1]
            flags[k] = region.size > 0 and region.mean() >= HIDDEN_SHARE
        self.boxes += len(truth)
        self.hidden += int(flags.sum())
        self.leaked_frames += int(not flags.all())
        self.frames += 1
        outside = ~inside
        self.outside.append(float(changed[outside].mean()) if outside.any() else 0.0)
        self.over_50 += int(changed.mean() > 0.5)
        if regions is not None:
            self.breakdown.add(changed, inside, regions)
        return flags

    def summary(self) -> str:
        share = self.hidden / self.boxes if self.boxes else 1.0
        ink = (f" (ink: {self.ink_leaked_frames} leaked, {self.ink_hidden / self.boxes if self.boxes else 1.0:.1%} hidden)"
               if self.ink_hidden or self.ink_leaked_frames else "")  # fmt: skip
        return (f"leaked frames {self.leaked_frames}/{self.frames}, box-frames hidden {share:.1%}{ink}, "
                f"changed outside truth median {np.median(self.outside or [0]):.1%}, "
                f"frames >50 % changed {self.over_50}")  # fmt: skip


def _grey(img: np.ndarray) -> np.ndarray:
    return img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def ink_flags(masked: np.ndarray, source_grey: np.ndarray, truth: np.ndarray, ring: int = 3) -> np.ndarray:
    """(K,) True where at least ``HIDDEN_SHARE`` of a true box's *ink* is masked: its pixels more
    than ``CHANGE_GREY`` from the colour round it (the most common grey level in a ``ring`` px
    band outside the box), e.g. the letters of a name and not the flat colour between them inside
    its annotated box, which shows nothing. A box with no ink, or no band, counts its area."""
    h, w = source_grey.shape[:2]
    flags = np.zeros(len(truth), bool)
    for k, (x0, y0, x1, y1) in enumerate(np.round(truth).astype(int)):
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            continue
        ax, ay, bx, by = max(0, x0 - ring), max(0, y0 - ring), min(w, x1 + ring), min(h, y1 + ring)
        band = np.ones((by - ay, bx - ax), bool)
        band[y0 - ay:y1 - ay, x0 - ax:x1 - ax] = False
        seen = masked[y0:y1, x0:x1]
        if band.any():
            round_it = int(np.bincount(source_grey[ay:by, ax:bx][band].ravel(), minlength=256).argmax())
            ink = np.abs(source_grey[y0:y1, x0:x1].astype(np.int16) - round_it) > CHANGE_GREY
            if ink.any():
                seen = seen[ink]
        flags[k] = seen.mean() >= HIDDEN_SHARE
    return flags


def pixel_maps(src: np.ndarray, out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(masked, changed) (H, W) bool maps of an output frame against its source (BGR, or both
    already grey): changed = grey level moved by more than ``CHANGE_GREY``; masked = changed or
    near black (the solid fill)."""
    gs, go = _grey(src), _grey(out)
    changed = cv2.absdiff(gs, go) > CHANGE_GREY
    return changed | (go <= CHANGE_GREY), changed


@dataclass(frozen=True)
class RunCost:
    """What one tool's process cost: wall seconds, CPU seconds (user + system, all threads; on a
    shared machine the fairer comparison), peak RSS in MB, exit code and the end of its stderr."""

    wall: float
    cpu: float
    peak_mb: float
    returncode: int
    stderr_tail: str


def run_measured(cmd: list[str]) -> RunCost:
    """Run ``cmd`` and measure it with ``os.wait4``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    return RunCost(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode, err[-600:])


def read_drawn_boxes(path: Path) -> dict[int, list[Region]]:
    """Frame → drawn (label, xyxy) regions from a ``vpd-redact video --boxes-json`` file."""
    from app.core.detections import Source

    out: dict[int, list[Region]] = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        out[int(row["frame"])] = region_labels(np.array(row["xyxy"], np.float32).reshape(-1, 4), row["class_ids"],
                                               row["sources"], row["class_names"], int(Source.TRACKER))  # fmt: skip
    return out


def score_file(clip: PanClip, output: Path, drawn: dict[int, list[Region]] | None = None) -> FrameScore:
    """Privacy figures of an exported ``output`` against ``clip``; with ``drawn`` (frame → drawn
    regions) also the breakdown of the changed area outside the truth."""
    score = FrameScore()
    for i, (src, out) in enumerate(zip(read_frames(clip.path), read_frames(output))):
        if out.shape != src.shape:
            out = cv2.resize(out, (src.shape[1], src.shape[0]))
        score.add(src, out, clip.truth[i], None if drawn is None else drawn.get(i, []))
    return score


def bench_pan_export(clips: list[PanClip], work: Path, deface: str | None, repeats: int = 1,
                     variants: Sequence[str] = (), base_args: Sequence[str] = ()) -> None:  # fmt: skip
    """Export each clip with ``vpd-redact video`` (defaults, plus ``base_args`` such as
    ``--model``), with each of ``variants`` (extra ``vpd-redact video`` arguments, e.g.
    ``"--stride 4"``) and with deface, alternating; print figures."""
    for clip in clips:
        for rep in range(repeats):
            tools = []
            for k, extra in enumerate(["", *variants]):
                boxes = work / f"{clip.path.stem}_ours{k}_{rep}_boxes.jsonl"
                label = f"ours [{extra}]" if extra else "ours"
                tools.append((label, f"ours{k}", boxes, [sys.executable, "-m", "app", "video", str(clip.path), *base_args,
                                                         *shlex.split(extra), "--boxes-json", str(boxes), "-o"]))  # fmt: skip
            if deface:
                tools.append(("deface", "deface", None, [deface, str(clip.path), "--replacewith", "solid", "-o"]))
            for name, key, boxes, cmd in tools:
                out = work / f"{clip.path.stem}_{key}_{rep}.mp4"
                out.unlink(missing_ok=True)
                cost = run_measured(cmd + [str(out)])
                if cost.returncode != 0 or not out.exists():
                    print(f"pan export {clip.path.stem} {name}: FAILED (exit {cost.returncode}): {cost.stderr_tail.strip()[-300:]}")
                    continue
                score = score_file(clip, out, read_drawn_boxes(boxes) if boxes is not None else None)
                print(f"pan export {clip.path.stem} {name}: {score.frames / cost.wall:.2f} fps ({score.frames} frames in "
                      f"{cost.wall:.1f} s wall, model loading included), {score.frames / cost.cpu:.2f} frames per CPU "
                      f"second ({cost.cpu:.1f} s CPU), peak RSS {cost.peak_mb:.0f} MB; {score.summary()}")  # fmt: skip
                if score.breakdown.frames:
                    print(f"  {score.breakdown.summary()}")


def bench_pan_live(clips: list[PanClip], pipeline, options) -> None:
    """Stream each clip in real time through ``LiveMasker``, read as a camera is (``LatestFrameSource``:
    frames the loop has no time for are dropped); print FPS, latency, pauses, leaks and the
    first-visible time of PII panning into view. The loop keeps only each output frame's grey copy
    and what it drew; the source frames are read again and everything is scored after it, so the
    benchmark takes little CPU from the live loop. Pauses count from 2 s of source time."""
    from app.core.live import LiveMasker, run_live
    from app.media.sources import LatestFrameSource, VideoFileSource

    for clip in clips:
        src = LatestFrameSource(VideoFileSource(clip.path, realtime=True))
        kept, lat = [], []

        def sink(out, src=src) -> None:
            grey = cv2.cvtColor(out.frame, cv2.COLOR_BGR2GRAY)
            kept.append((src.index, grey, out.protected, live_regions(out, pipeline, grey.shape)))
            lat.append(out.latency_s)

        with LiveMasker(pipeline, options) as masker:
            t0 = time.perf_counter()
            summary = run_live(src, masker, [sink])
            wall = time.perf_counter() - t0
            telemetry = masker.telemetry()
        src.close()
        score, first_seen, first_hidden = FrameScore(), {}, {}
        leaks: dict[int, list[float]] = {}
        sources = source_greys(clip.path)
        for i, grey, protected, regions in kept:
            masked_map, changed = pixel_maps(sources[i], grey)
            if not protected:  # fully masked by construction; the banner drawn over it shows no source pixel
                masked_map[:] = True
            flags = score.add_maps(masked_map, changed, clip.truth[i], regions, source_grey=sources[i])
            for key, ok, box in zip(clip.ids[i], flags, np.round(clip.truth[i]).astype(int)):
                if not ok:
                    leaks.setdefault(int(key), []).append(float(masked_map[box[1]:box[3], box[0]:box[2]].mean()))
            for key, ok, share in zip(clip.ids[i], flags, clip.in_view[i]):
                if share >= 0.5:  # readable: at least half of it in view
                    first_seen.setdefault(int(key), i)
                if ok and protected and int(key) in first_seen:
                    first_hidden.setdefault(int(key), i)
        paused = [(i, not protected) for i, _, protected, _ in kept]
        after = [p for i, p in paused if i >= 2 * clip.fps] or [p for _, p in paused]
        waits = [(first_hidden.get(k, len(sources)) - f) / clip.fps for k, f in first_seen.items() if f >= 2 * clip.fps]
        vis = (f"median {np.median(waits):.2f} s, max {max(waits):.2f} s over {len(waits)} objects" if waits
               else "none entered after 2 s")  # fmt: skip
        print(f"pan live {clip.path.stem}: {summary.frames / wall:.1f} fps out ({summary.frames} of "
              f"{summary.frames + src.dropped} source frames shown), latency median "
              f"{1000 * np.median(lat):.0f} ms, paused after 2 s {np.mean(after):.1%}, first-visible time of PII "
              f"entering after 2 s: {vis}; {score.summary()}")  # fmt: skip
        # What drives "unseen (detector behind)": how far apart the fast tier's results come.
        print(f"  fast tier: {telemetry.detections} results, one per {wall / max(1, telemetry.detections):.2f} s; "
              f"OCR: {telemetry.ocr_results} reads")  # fmt: skip
        print(f"  {score.breakdown.summary()}")
        worst = sorted(leaks.items(), key=lambda kv: -len(kv[1]))[:6]
        if worst:
            print("  leaking true boxes (index: frames, median share hidden): "
                  + ", ".join(f"#{k}: {len(v)}, {np.median(v):.0%}" for k, v in worst))  # fmt: skip


def source_greys(path: Path) -> list[np.ndarray]:
    """Grey (H, W) uint8 copies of a clip's frames, in order."""
    return [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in read_frames(path)]


def live_regions(out, pipeline, hw: tuple[int, int]) -> list[Region]:
    """What a ``LiveFrame`` drew, as labelled regions: the whole frame when paused, else the padded
    boxes, the regions filled because the fast tier is behind, and those filled because OCR is."""
    from app.core.detections import Source

    if not out.protected:
        return [("paused (whole frame)", (0.0, 0.0, float(hw[1]), float(hw[0])))]
    regions: list[Region] = []
    if out.hidden is not None and len(out.hidden):
        drawn = pipeline.padded(out.hidden, hw)
        regions += region_labels(drawn.xyxy, drawn.class_ids, drawn.sources, drawn.class_names, int(Source.TRACKER))
    for label, boxes in (("unseen (detector behind)", out.stale_regions), ("text unseen (OCR behind)", out.text_regions),
                         ("text unread (OCR pending)", out.unread_text),
                         ("unseen content (detector behind)", out.unseen_content)):
        if boxes is not None:
            regions += [(label, b) for b in np.asarray(boxes).reshape(-1, 4)]
    return regions
