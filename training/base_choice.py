"""``python -m training choose-base``: the evidence for the detector's base architecture.

For each candidate (yolo11n, yolov10n, yolo26n and the s scale of the winner's family), built from
ultralytics' YAML with our class count, it measures what limits us on 2 CPU cores:

* parameters and GFLOPs (at 640);
* ONNX Runtime CPU latency at 320 and 640 (batch 1, 2 threads), measured round-robin so machine
  load hits every candidate alike — what runs in real time;
* seconds per training iteration (forward + loss + backward + AdamW step, batch 16 at 320, the
  shipped schedule) — what a session can train. Measured round-robin too.

Random weights: neither latency nor iteration time depends on them.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import numpy as np

from training.taxonomy import CLASS_NAMES

log = logging.getLogger(__name__)

CANDIDATES = ("yolo11n", "yolov10n", "yolo26n", "yolo26s")


def candidate_yaml(name: str, out: Path) -> Path:
    """ultralytics' ``<name>.yaml`` with our class count, written under ``out`` (scale kept)."""
    import yaml
    from ultralytics.nn.tasks import yaml_model_load

    cfg = dict(yaml_model_load(f"{name}.yaml"))
    cfg["nc"] = len(CLASS_NAMES)
    cfg.pop("yaml_file", None)
    target = out / f"{name}.yaml"  # the file name keeps ultralytics' scale guess ("yolo26n" -> n)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return target


def _fake_batch(batch: int, imgsz: int, nc: int, rng: np.random.Generator) -> dict:
    """A training batch of random images with 8 random boxes each (normalised xywh)."""
    import torch

    n = 8 * batch
    xy = rng.uniform(0.2, 0.8, (n, 2))
    wh = rng.uniform(0.03, 0.3, (n, 2))
    return {"img": torch.rand(batch, 3, imgsz, imgsz),
            "batch_idx": torch.arange(batch).repeat_interleave(8).float(),
            "cls": torch.from_numpy(rng.integers(0, nc, (n, 1))).float(),
            "bboxes": torch.from_numpy(np.concatenate([xy, wh], 1)).float()}  # fmt: skip


class TrainStepTimer:
    """One candidate's model + AdamW, ready to time ``step()`` (seconds per iteration)."""

    def __init__(self, yaml_path: Path, batch: int = 16, imgsz: int = 320) -> None:
        import torch
        from ultralytics.cfg import get_cfg
        from ultralytics.nn.tasks import DetectionModel

        self.model = DetectionModel(str(yaml_path), nc=len(CLASS_NAMES), verbose=False)
        self.model.args = get_cfg()
        self.model.train()
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=0.002)
        self.batch = _fake_batch(batch, imgsz, len(CLASS_NAMES), np.random.default_rng(0))

    def step(self) -> float:
        """Time one forward + loss + backward + optimiser step."""
        t = time.perf_counter()
        self.opt.zero_grad()
        loss, _ = self.model.loss(self.batch)
        loss.sum().backward()
        self.opt.step()
        return time.perf_counter() - t


def size_of(model) -> tuple[float, float]:
    """(parameters in millions, GFLOPs at 640) of a candidate's ``DetectionModel``."""
    from ultralytics.utils.torch_utils import get_flops

    return sum(p.numel() for p in model.parameters()) / 1e6, float(get_flops(model, 640))


def export_for_latency(yaml_path: Path, imgsz: int, out: Path) -> Path:
    """The untrained candidate as a static ONNX file at ``imgsz`` (cached under ``out``)."""
    from ultralytics import YOLO

    target = out / f"{yaml_path.stem}-{imgsz}.onnx"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        produced = YOLO(str(yaml_path), task="detect").export(format="onnx", imgsz=imgsz, nms=False, simplify=False,
                                                              dynamic=False, device="cpu")  # fmt: skip
        Path(produced).replace(target)
    return target


def measure(names: list[str], out: Path, rounds: int = 3, steps: int = 3, imgsz_list=(320, 640)) -> list[dict]:
    """Size, latency and training-iteration time of every candidate (round-robin medians)."""
    import torch

    from training.evaluate import measure_latency
    from training.offline import repo_root, setup_offline

    setup_offline(repo_root())
    torch.set_num_threads(2)
    yamls = {n: candidate_yaml(n, out) for n in names}
    rows = {n: {"name": n} for n in names}
    timers = {n: TrainStepTimer(y) for n, y in yamls.items()}
    for n, timer in timers.items():
        rows[n]["params_m"], rows[n]["gflops_640"] = size_of(timer.model)
    onnx = {(n, s): export_for_latency(y, s, out) for n, y in yamls.items() for s in imgsz_list}
    for t in timers.values():
        t.step()  # warm-up: allocator, criterion construction
    lat: dict = {k: [] for k in onnx}
    it: dict = {n: [] for n in names}
    for r in range(rounds):
        log.info("round %d/%d", r + 1, rounds)
        for (n, s), path in onnx.items():
            lat[(n, s)].append(measure_latency(path, s, runs=10))
        for n, timer in timers.items():
            it[n] += [timer.step() for _ in range(steps)]
    for n in names:
        for s in imgsz_list:
            rows[n][f"latency_ms_{s}"] = float(np.median(lat[(n, s)]))
        rows[n]["train_s_per_iter"] = float(np.median(it[n]))
    return [rows[n] for n in names]


def table(rows: list[dict], iters_per_epoch: int = 563) -> str:
    """Markdown table; epoch minutes are for ``iters_per_epoch`` iterations (synth-10k, batch 16)."""
    lines = ["| base | params M | GFLOPs@640 | ORT CPU 320 ms | ORT CPU 640 ms | train s/iter (b16, 320) | min/epoch synth-10k |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        lines.append(f"| {r['name']} | {r['params_m']:.2f} | {r['gflops_640']:.1f} | {r['latency_ms_320']:.1f} | "
                     f"{r['latency_ms_640']:.1f} | {r['train_s_per_iter']:.2f} | "
                     f"{r['train_s_per_iter'] * iters_per_epoch / 60:.0f} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """CLI entry: measure the candidates, print the table, write JSON + markdown under ``--out``."""
    p = argparse.ArgumentParser(prog="python -m training choose-base", description=__doc__.splitlines()[0])
    p.add_argument("--candidates", default=",".join(CANDIDATES), help="comma-separated ultralytics model names")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=3, help="training iterations timed per candidate per round")
    p.add_argument("--out", type=Path, default=Path("runs/base-choice"))
    a = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    rows = measure([c for c in a.candidates.split(",") if c], a.out, a.rounds, a.steps)
    md = table(rows)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "results.json").write_text(json.dumps(rows, indent=1))
    (a.out / "results.md").write_text(md)
    print(md)
    return 0
