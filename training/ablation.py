"""``python -m training ablation``: train the four FDAF/FCL variants alike and tabulate them.

Variants (same data, seed, epochs, imgsz, fraction, batch): ``base`` (yolo26n), ``fdaf_nogate``
(FDAF with per-channel scalar modulation), ``fdaf`` (Adaptive Spectral Gating), ``fdaf_fcl``
(gating + Frequency-Consistency Loss). Each variant is evaluated on ``--split`` (COCO
mAP50-95, mAP50, small-object AP in input pixels) and exported to ONNX at the same imgsz for
the ORT CPU latency. Re-running the same command resumes: finished variants are read back,
an interrupted one resumes from its ``last.pt``. Results: ``<out>/results.{json,md}``,
rewritten after every variant.

    nohup python -m training ablation --data data/synth-10k/data.yaml --epochs 10 --imgsz 320 \
        --fraction 0.2 --out runs/ablation > runs/ablation.log 2>&1 &
"""

from __future__ import annotations

import argparse
import json
import logging
from dataclasses import dataclass
from pathlib import Path

from training.offline import repo_root

log = logging.getLogger("training.ablation")

MODELS = Path(__file__).resolve().parent / "models"


@dataclass(frozen=True)
class Variant:
    name: str
    model_yaml: str
    fcl: bool
    label: str


VARIANTS = (
    Variant("base", "vpd-yolo26n.yaml", False, "yolo26n"),
    Variant("fdaf_nogate", "vpd-yolo26n-fdaf-nogate.yaml", False, "+FDAF (no gating)"),
    Variant("fdaf", "vpd-yolo26n-fdaf.yaml", False, "+FDAF (gating)"),
    Variant("fdaf_fcl", "vpd-yolo26n-fdaf.yaml", True, "+FDAF (gating) + FCL"),
)


def _finished(run_dir: Path) -> bool:
    progress = run_dir / "progress.jsonl"
    return progress.is_file() and any('"final_best"' in line for line in progress.read_text().splitlines())


def _epoch_times(run_dir: Path) -> list[float]:
    progress = run_dir / "progress.jsonl"
    if not progress.is_file():
        return []
    recs = [json.loads(x) for x in progress.read_text().splitlines() if x.strip()]
    return [r["epoch_time_s"] for r in recs if "epoch_time_s" in r]


def run_variant(v: Variant, a, out: Path) -> dict:
    """Train (or resume, or reuse) one variant, then evaluate and time it."""
    from training.evaluate import evaluate
    from training.export import export_onnx
    from training.train import TrainConfig, parse_overrides, train

    cfg = TrainConfig(
        data=str(Path(a.data).resolve()), model=str(MODELS / v.model_yaml), epochs=a.epochs, imgsz=a.imgsz,
        batch=a.batch, workers=a.workers, fraction=a.fraction, seed=a.seed, fcl=v.fcl,
        project=str(out / "runs"), name=v.name, device=a.device, threads=a.threads,
        extra=parse_overrides(a.set),
    )
    run_dir = cfg.run_dir()
    if not _finished(run_dir):
        train(cfg, resume=(run_dir / "weights" / "last.pt").is_file())
    best = run_dir / "weights" / "best.pt"
    onnx_path, _ = export_onnx(best, out / "onnx", v.name, a.imgsz)
    res = evaluate(best, Path(a.data), a.split, a.imgsz, a.max_eval_images, onnx_path)
    times = _epoch_times(run_dir)
    res.update(variant=v.name, label=v.label, epochs=a.epochs,
               mean_epoch_s=round(sum(times) / len(times), 1) if times else None)
    return res


def to_markdown(rows: list[dict], a) -> str:
    """The results table: one row per variant, metrics in percent, latency in ms."""
    head = (f"Ablation on `{a.data}` ({a.split} split), imgsz {a.imgsz}, {a.epochs} epochs, fraction {a.fraction}, "
            f"seed {a.seed}. AP_small: COCO small (< 32^2 input px). Latency: ORT CPU, batch 1, 2 threads, median.\n\n")
    lines = ["| variant | mAP50-95 | mAP50 | AP_small | latency ms | s/epoch |", "|---|---|---|---|---|---|"]
    pct = lambda x: "n/a" if x is None or x != x else f"{100 * x:.2f}"  # noqa: E731 (NaN check)
    for r in rows:
        lines.append(f"| {r['label']} | {pct(r['map50_95'])} | {pct(r['map50'])} | {pct(r['ap_small'])} | "
                     f"{r.get('latency_ms', float('nan')):.1f} | {r.get('mean_epoch_s')} |")
    return head + "\n".join(lines) + "\n"


def latency_table(imgsz_list: list[int], out: Path, rounds: int = 5, runs: int = 10) -> str:
    """CPU latency of every variant's architecture (weights do not change it), measured round-robin
    so machine load hits all variants alike; returns a markdown table of medians in ms."""
    import numpy as np

    from training.base_choice import export_for_latency
    from training.evaluate import measure_latency
    from training.nn import register
    from training.offline import setup_offline

    setup_offline(repo_root())
    register()

    archs = {v.model_yaml: v for v in VARIANTS if not v.fcl}  # FCL is a loss: same graph as ``fdaf``
    paths = {(y, s): export_for_latency(MODELS / y, s, out / "latency") for y in archs for s in imgsz_list}
    samples: dict[tuple[str, int], list[float]] = {k: [] for k in paths}
    for _ in range(rounds):
        for key, path in paths.items():
            samples[key].append(measure_latency(path, key[1], runs=runs))
    lines = ["| architecture | " + " | ".join(f"{s}×{s} ms" for s in imgsz_list) + " |",
             "|---|" + "---|" * len(imgsz_list)]
    for yaml_name, v in archs.items():
        cells = [f"{float(np.median(samples[(yaml_name, s)])):.1f}" for s in imgsz_list]
        lines.append(f"| {v.label if v.name != 'fdaf' else '+FDAF (gating), ± FCL'} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """CLI entry; returns 0 when every variant finished."""
    p = argparse.ArgumentParser(prog="python -m training ablation", description=__doc__.splitlines()[0])
    p.add_argument("--data", help="YOLO data.yaml (required unless --latency-only)")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--imgsz", type=int, default=320)
    p.add_argument("--fraction", type=float, default=1.0)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default=None)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--split", default="test", help="evaluation split (held back from training)")
    p.add_argument("--max-eval-images", type=int, default=None)
    p.add_argument("--variants", default=",".join(v.name for v in VARIANTS), help="comma-separated subset")
    p.add_argument("--out", default="runs/ablation")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="ultralytics train argument for every variant, e.g. --set optimizer=AdamW --set lr0=0.002")
    p.add_argument("--latency-only", action="store_true",
                   help="only time each architecture on ORT CPU (untrained; --imgsz and 640), no training")
    a = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    out = Path(a.out) if Path(a.out).is_absolute() else repo_root() / a.out
    out.mkdir(parents=True, exist_ok=True)
    if a.latency_only:
        table = latency_table(sorted({a.imgsz, 640}), out)
        (out / "latency.md").write_text(table)
        log.info("latency:\n%s", table)
        return 0
    if not a.data:
        p.error("--data is required (unless --latency-only)")
    wanted = set(a.variants.split(","))
    rows = []
    for v in VARIANTS:
        if v.name not in wanted:
            continue
        log.info("=== variant %s (%s) ===", v.name, v.label)
        rows.append(run_variant(v, a, out))
        (out / "results.json").write_text(json.dumps(rows, indent=2))
        (out / "results.md").write_text(to_markdown(rows, a))
        log.info("results so far:\n%s", to_markdown(rows, a))
    return 0
