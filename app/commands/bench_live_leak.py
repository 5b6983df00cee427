"""The live part of ``bench-video --parts leak``: the synthetic clip streamed in real time through
``LiveMasker`` behind a colour-key oracle that drops calls, at one or more detector latencies, with
the moving-object sweep (``LiveOptions.lead``) on and, with ``--live-ab``, off, alternating in one
run. Per run: leaked frames (a true box not wholly inside the hidden boxes), the median share of
the frame changed outside the true boxes (over-masking) and what drew it (``bench_breakdown``:
held boxes, detected boxes, the sweep — boxes the live masker adds without a track — and the
regions filled because the detector is behind), frames more than 50 % changed there, and fully
masked (paused) frames. A slow laptop detector is simulated by sleeping ``latency`` s per
call scaled by the area looked at (a changed-region look costs its share of a whole-frame one)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from app.commands.bench_breakdown import OutsideBreakdown, Region
from app.commands.bench_pan import live_regions
from app.core.detections import Source
from app.core.live import LiveMasker, LiveOptions, run_live
from app.core.pipeline import Pipeline
from app.core.redact import integer_boxes
from app.media.video_synthetic import DropoutDetector, SyntheticSource

W, H, N = 640, 360, 300


@dataclass
class _Slow:
    """Wraps a detector; each call first sleeps ``latency`` s × the share of a W×H frame it gets."""

    inner: object
    latency: float

    @property
    def name(self) -> str:
        return getattr(self.inner, "name", "detector")

    @property
    def class_names(self) -> tuple[str, ...]:
        return self.inner.class_names

    def detect(self, frame: np.ndarray):
        if self.latency > 0:
            time.sleep(self.latency * frame.shape[0] * frame.shape[1] / (W * H))
        return self.inner.detect(frame)


def _mask(xyxy: np.ndarray, hw: tuple[int, int]) -> np.ndarray:
    m = np.zeros(hw, bool)
    for x0, y0, x1, y1 in integer_boxes(np.asarray(xyxy, np.float32).reshape(-1, 4), hw):
        m[y0:y1, x0:x1] = True
    return m


def coverage_leaks(hw: tuple[int, int], hidden_xyxy: np.ndarray, gt: np.ndarray) -> int:
    """True boxes (K, 4) not wholly inside the union of the hidden boxes."""
    mask = _mask(hidden_xyxy, hw)
    return sum(1 for x0, y0, x1, y1 in integer_boxes(gt, hw) if x1 > x0 and y1 > y0 and not mask[y0:y1, x0:x1].all())


def live_leak_run(detector, policy, redaction, drop: float, hold: float, latency: float, lead: bool) -> str:
    """One real-time run; returns its figures as one line."""
    dropper = DropoutDetector(_Slow(detector, latency), rate=drop, burst_every=40, burst_len=6, seed=9)
    pipe = Pipeline([dropper], policy, redaction)
    src = SyntheticSource(W, H, 30.0, n_frames=N, seed=3, realtime=True)
    ref = SyntheticSource(W, H, 30.0, n_frames=N, seed=3)  # the same frames, rendered again for comparison
    leaked, outside, idx = 0, [], [0]
    breakdown = OutsideBreakdown()

    def check(out) -> None:
        nonlocal leaked
        i = idx[0]
        idx[0] += 1
        gt = src.gt(i)[0]
        truth = _mask(gt, (H, W))
        if out.protected:
            boxes = pipe.padded(out.hidden, (H, W)).xyxy if out.hidden is not None else np.zeros((0, 4), np.float32)
            leaked += bool(coverage_leaks((H, W), boxes, gt))
            changed = np.any(out.frame != ref.render(i), axis=2)
        else:
            changed = np.ones((H, W), bool)
        outside.append(float((changed & ~truth).mean()))
        breakdown.add(changed, truth, _labelled(out, pipe, (H, W)))

    with LiveMasker(pipe, LiveOptions(hold_s=hold, fps=30.0, lead=lead)) as m:
        summary = run_live(src, m, [check])
    o = np.array(outside)
    return (f"leak check live {W}x{H} {summary.frames} frames, detector +{latency:.1f} s/call, sweep {'on ' if lead else 'off'}, "
            f"hold {hold} s, {dropper.dropped} of {dropper.calls} calls dropped: {leaked} leaked frames, changed outside "
            f"truth median {np.median(o):.1%}, {int((o > 0.5).sum())} frames > 50 %, {summary.paused_frames} fully masked"
            f"\n  {breakdown.summary()}")  # fmt: skip


def _labelled(out, pipe: Pipeline, hw: tuple[int, int]) -> list[Region]:
    """``live_regions`` with the boxes the live masker adds outside any track (the moving-object
    sweep and the changed regions around it: tracker-made, track id -1) labelled ``sweep``."""
    regions = live_regions(out, pipe, hw)
    if not out.protected or out.hidden is None or not len(out.hidden):
        return regions
    n = len(out.hidden)  # live_regions lists the hidden boxes first, in order
    sweep = (out.hidden.sources == Source.TRACKER) & (out.hidden.track_ids < 0)
    return [(f"{label.rsplit(' ', 1)[0]} sweep", box) if i < n and sweep[i] else (label, box)
            for i, (label, box) in enumerate(regions)]  # fmt: skip


def live_leak_check(detector, policy, redaction, args) -> None:
    """Print one line per latency in ``args.live_latency`` (and sweep off/on with ``args.live_ab``)."""
    latencies = [float(v) for v in str(args.live_latency).split(",") if v]
    for latency in latencies:
        for lead in ((False, True) if args.live_ab else (True,)):
            print(live_leak_run(detector, policy, redaction, args.drop, args.hold, latency, lead), flush=True)
