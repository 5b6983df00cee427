"""Pan-clip replay: the export's gap filling and masking re-run on the first pass's detections.

``vpd-redact bench-video --parts pan-replay`` runs the export's first pass (every detector at
the export's default strides, the measured motion) once per pan clip and keeps it in the work
folder (keyed by the clip's SHA-256 and the detector names), then plans, masks and scores every
frame with the code as it is now: the same ``plan_boxes`` and ``Pipeline.render`` as
``vpd-redact video``, without the H.264 encoding of the output. So a change to tracking, gap
filling, box sanity or padding is measured in seconds, on identical detections before and after,
independent of the machine's load. The detections are cached, so a change to a detector or to
the policy needs a fresh work folder. The figures differ slightly from ``pan-export`` (no encoder
noise in the output); ``pan-export`` stays the figure of record.

Per clip it prints the same privacy figures as ``pan-export``, the breakdown of the changed area
outside the truth by what drew it, and the true boxes that leak most (annotation index, frames
leaked, median share of the box hidden on those frames).
"""

from __future__ import annotations

import hashlib
import pickle
from collections import defaultdict
from pathlib import Path

import numpy as np

from app.commands.bench_breakdown import region_labels
from app.commands.bench_pan import FrameScore, PanClip, pixel_maps, read_frames
from app.core.detections import Source
from app.core.pipeline import Pipeline
from app.media.video_export import ExportOptions, FirstPass, collect_first_pass, plan_boxes


def _cache_key(clip: Path, pipeline: Pipeline, options: ExportOptions) -> str:
    h = hashlib.sha256(clip.read_bytes())
    h.update(b"first pass with readings")  # what a kept first pass holds
    h.update(repr((tuple(d.name for d in pipeline.detectors), pipeline.class_names, options.stride,
                   options.ocr_stride, options.ocr_every_s, options.full_look_every)).encode())  # fmt: skip
    return h.hexdigest()[:16]


def first_pass_cached(clip: Path, pipeline: Pipeline, options: ExportOptions, work: Path) -> tuple[FirstPass, bool]:
    """The export's first pass over ``clip``, from ``work`` when it was kept there (a pickle this
    bench wrote itself), else run and kept. Returns it and whether it came from the cache."""
    path = work / f"{clip.stem}_first_pass_{_cache_key(clip, pipeline, options)}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes()), True
    first = collect_first_pass(clip, pipeline, options)
    tmp = path.with_suffix(".part")
    tmp.write_bytes(pickle.dumps(first))
    tmp.replace(path)
    return first, False


def replay_clip(clip: PanClip, pipeline: Pipeline, options: ExportOptions, first: FirstPass) -> tuple[FrameScore, dict]:
    """Plan, mask and score every frame of ``clip`` from ``first``. Returns the score and, per
    true box (annotation index), the hidden share of that box on each frame it leaked."""
    plan = plan_boxes(first.hits, first.ocr_hits, first.n, first.hw, first.fps, pipeline.class_names, options,
                      first.motion, first.quick_hits, first.readings)  # fmt: skip
    score = FrameScore()
    leaks: defaultdict[int, list[float]] = defaultdict(list)
    for i, src in enumerate(read_frames(clip.path)):
        if i >= len(plan):
            break
        drawn = pipeline.padded(plan[i], src.shape[:2])
        out = pipeline.render(src, plan[i])
        masked, changed = pixel_maps(src, out)
        regions = region_labels(drawn.xyxy, drawn.class_ids, drawn.sources, drawn.class_names, int(Source.TRACKER))
        flags = score.add_maps(masked, changed, clip.truth[i], regions)
        for key, ok, (x0, y0, x1, y1) in zip(clip.ids[i], flags, np.round(clip.truth[i]).astype(int)):
            if not ok:
                leaks[int(key)].append(float(masked[y0:y1, x0:x1].mean()) if y1 > y0 and x1 > x0 else 0.0)
    return score, dict(leaks)


def bench_pan_replay(clips: list[PanClip], pipeline: Pipeline, work: Path, options: ExportOptions = ExportOptions()) -> None:
    """Print the replayed export figures of each clip (see the module docstring)."""
    for clip in clips:
        first, cached = first_pass_cached(clip.path, pipeline, options, work)
        score, leaks = replay_clip(clip, pipeline, options, first)
        print(f"pan replay {clip.path.stem} ({'cached' if cached else 'fresh'} first pass: "
              f"{len(first.hits)} detector frames, {len(first.ocr_hits)} OCR frames, "
              f"{sum(options.quick_look(f) for f in first.quick_hits)} quick face looks): {score.summary()}")  # fmt: skip
        print(f"  {score.breakdown.summary(top=10)}")
        worst = sorted(leaks.items(), key=lambda kv: -len(kv[1]))[:6]
        if worst:
            print("  leaking true boxes (index: frames, median share hidden): "
                  + ", ".join(f"#{k}: {len(v)}, {np.median(v):.0%}" for k, v in worst))  # fmt: skip
