"""``bench-video --parts pan-looks``: what live mode's changed-region looks cost and find, against
whole-frame looks, on the pan clips stepped frame by frame (not in real time, so the machine's
load changes the CPU time, not what is looked at).

Per tier (fast: every ``fast_every`` frames; OCR: every ``ocr_every`` frames), both variants look
at the same frames with the motion measured on every frame: CPU seconds a look (this process),
the share of the frame looked at, and how many true boxes a look's padded boxes hide (≥ 95 % of
the true box inside one of them).
"""

from __future__ import annotations

import time

import numpy as np

from app.commands.bench_pan import HIDDEN_SHARE, PanClip, read_frames
from app.core.async_detector import split_slow_detectors
from app.core.live_regions import ChangedRegionDetector, RegionSettings
from app.core.motion import MotionEstimator, to_flow_gray
from app.core.pipeline import Pipeline


def hidden_truth(pipeline: Pipeline, found, truth: np.ndarray, hw: tuple[int, int]) -> int:
    """How many (K, 4) true boxes lie ≥ ``HIDDEN_SHARE`` inside one padded, policy-selected box."""
    boxes = pipeline.padded(pipeline.select(found, hw), hw).xyxy
    if not len(boxes) or not len(truth):
        return 0
    n = 0
    for t in truth:
        area = max(1.0, float((t[2] - t[0]) * (t[3] - t[1])))
        ix = np.clip(np.minimum(boxes[:, 2], t[2]) - np.maximum(boxes[:, 0], t[0]), 0, None)
        iy = np.clip(np.minimum(boxes[:, 3], t[3]) - np.maximum(boxes[:, 1], t[1]), 0, None)
        n += bool((ix * iy).max() / area >= HIDDEN_SHARE)
    return n


def bench_pan_looks(clips: list[PanClip], pipeline: Pipeline, fast_every: int = 10, ocr_every: int = 30) -> None:
    """Print CPU a look, share looked at and true boxes hidden, whole vs changed-region looks."""
    fast, slow = split_slow_detectors(pipeline.detectors)
    for clip in clips:
        for tier, detectors, every, regions in (("fast", fast, fast_every, 3), ("OCR", slow, ocr_every, 1)):
            if not detectors:
                continue
            motion = MotionEstimator()
            looks = {
                "whole": ChangedRegionDetector(detectors, pipeline.class_names, motion, RegionSettings(full_every=1)),
                # The live defaults, without the shortcut for detectors faster than the change check.
                "changed-region": ChangedRegionDetector(detectors, pipeline.class_names, motion,
                                                        RegionSettings(min_look_s=0.0, max_regions=regions)),
            }  # fmt: skip
            sums = {k: np.zeros(5) for k in looks}  # CPU s, share, looks, hidden, truth boxes
            for i, frame in enumerate(read_frames(clip.path)):
                motion.step(frame, i)
                if i % every:
                    continue
                gray, hw = to_flow_gray(frame), frame.shape[:2]
                for name, det in looks.items():
                    t0 = time.process_time()
                    found = det.detect(i, frame, gray)
                    cpu = time.process_time() - t0
                    r = det.last_regions
                    share = float(((r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])).sum()) / (hw[0] * hw[1])
                    sums[name] += (cpu, share, 1, hidden_truth(pipeline, found, clip.truth[i], hw), len(clip.truth[i]))
            print(f"pan looks {clip.path.stem}, {tier} tier every {every} frames: " + "; ".join(
                f"{name} {s[0] / s[2]:.2f} s CPU a look, {s[1] / s[2]:.0%} of the frame looked at, "
                f"true boxes hidden {int(s[3])}/{int(s[4])}" for name, s in sums.items()))  # fmt: skip
