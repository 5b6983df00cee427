"""``python -m training train``: offline, resumable YOLO training from a model YAML.

Example (background, survives logout; progress in runs/train/<name>/train.log)::

    nohup python -m training train --data data/synth-10k/data.yaml \
        --model training/models/vpd-yolo26n-fdaf.yaml --epochs 30 --imgsz 640 --fcl \
        --name fdaf-fcl > runs/fdaf-fcl.out 2>&1 &
    # later, after an interruption:
    nohup python -m training train --name fdaf-fcl --resume > runs/fdaf-fcl.out 2>&1 &
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from training.offline import repo_root, setup_offline

log = logging.getLogger("training.train")

DEFAULT_MODEL = "training/models/vpd-yolo26n-fdaf.yaml"
SIDECAR = "vpd_train.json"  # our own options (FCL etc.), which ultralytics' checkpoint args cannot hold
PROGRESS = "progress.jsonl"  # one JSON line per finished epoch


class TrainError(RuntimeError):
    """A training run cannot start or resume; the message says what to do."""


@dataclass(frozen=True)
class TrainConfig:
    """One training run. Paths may be relative to the repo root."""

    data: str = ""
    model: str = DEFAULT_MODEL
    epochs: int = 30
    imgsz: int = 640
    batch: int = 16
    workers: int = 2
    fraction: float = 1.0
    seed: int = 0
    fcl: bool = False
    fcl_beta: float = 0.05
    fcl_lam: float = 1.0
    fcl_max_rois: int = 64
    project: str = "runs/train"
    name: str = "exp"
    device: str | None = None
    threads: int = 2
    time_hours: float | None = None
    patience: int = 100
    plots: bool = False
    val: bool = True
    extra: dict = field(default_factory=dict)  # further ultralytics train args (e.g. {"mosaic": 0.0})

    def run_dir(self) -> Path:
        return _abs(self.project) / self.name


def _abs(p: str | os.PathLike) -> Path:
    p = Path(p)
    return p if p.is_absolute() else repo_root() / p


def _attach_file_log(path: Path) -> logging.Handler:
    """Send our and ultralytics' log records to ``path`` too (the CLI's stdout may be nohup'd elsewhere)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    for name in ("training", "ultralytics"):
        logging.getLogger(name).addHandler(handler)
    logging.getLogger("training").setLevel(logging.INFO)
    return handler


def _detach_file_log(handler: logging.Handler) -> None:
    for name in ("training", "ultralytics"):
        logging.getLogger(name).removeHandler(handler)
    handler.close()


def make_trainer_class(fcl=None):
    """A ``DetectionTrainer`` subclass that builds ``FclDetectionModel`` when ``fcl`` (an ``FclConfig``) is given.

    ultralytics instantiates the trainer itself and rejects unknown args, so the FCL settings travel as a
    class attribute of a generated subclass.
    """
    from ultralytics.models.yolo.detect import DetectionTrainer
    from ultralytics.utils import RANK

    from training.nn.fcl import FclDetectionModel

    class VpdTrainer(DetectionTrainer):
        fcl_cfg = fcl

        def get_model(self, cfg=None, weights=None, verbose=True):
            if self.fcl_cfg is None:
                return super().get_model(cfg=cfg, weights=weights, verbose=verbose)
            model = FclDetectionModel(cfg, nc=self.data["nc"], ch=self.data["channels"], verbose=verbose and RANK == -1)
            model.fcl_cfg = self.fcl_cfg
            model = self.set_model_names_for_load(model)
            if weights:
                model.load(weights)
            return model

    return VpdTrainer


def _callbacks(cfg: TrainConfig, run_dir: Path):
    """``on_train_start``: use ``cfg.threads`` torch threads (ultralytics sets 1 on CPU; 2 halves epoch time).
    ``on_fit_epoch_end``: one log line and one JSON line per epoch, so a background run can be followed."""
    import torch

    def on_train_start(trainer):
        torch.set_num_threads(cfg.threads)

    logged: set[int] = set()

    def on_fit_epoch_end(trainer):
        # ultralytics fires this once more after training for the final validation of best.pt.
        final = trainer.epoch in logged or trainer.epoch >= trainer.epochs
        logged.add(trainer.epoch)
        losses = {k: round(float(v), 5) for k, v in (trainer.tloss or {}).items()} if isinstance(trainer.tloss, dict) else {}
        rec = {
            "epoch": trainer.epoch + 1,
            "epochs": trainer.epochs,
            "epoch_time_s": round(float(trainer.epoch_time or 0.0), 2),
            "train_loss": losses,
            "metrics": {k: round(float(v), 5) for k, v in (trainer.metrics or {}).items()},
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        if final:
            rec = {"final_best": True, "metrics": rec["metrics"], "time": rec["time"]}
        with open(run_dir / PROGRESS, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")
        m = rec["metrics"]
        if final:
            log.info("best.pt: mAP50-95=%.4f mAP50=%.4f", m.get("metrics/mAP50-95(B)", float("nan")),
                     m.get("metrics/mAP50(B)", float("nan")))
            return
        log.info(
            "epoch %d/%d %.1fs mAP50-95=%.4f mAP50=%.4f loss=%s",
            rec["epoch"], rec["epochs"], rec["epoch_time_s"],
            rec["metrics"].get("metrics/mAP50-95(B)", float("nan")),
            rec["metrics"].get("metrics/mAP50(B)", float("nan")), losses,
        )

    return {"on_train_start": on_train_start, "on_fit_epoch_end": on_fit_epoch_end}


def _fcl_config(cfg: TrainConfig):
    from training.nn.fcl import FclConfig

    return FclConfig(beta=cfg.fcl_beta, lam=cfg.fcl_lam, max_rois=cfg.fcl_max_rois) if cfg.fcl else None


def train(cfg: TrainConfig, resume: bool = False) -> Path:
    """Train (or resume) one run; return the run dir, holding ``weights/{last,best}.pt``, ``train.log``,
    ``progress.jsonl`` and ``vpd_train.json``.

    On resume the run's saved ``vpd_train.json`` decides the FCL settings; ultralytics restores the rest
    (epochs, schedule, optimizer state) from ``last.pt``; only batch/workers/device/patience/time may change.
    """
    setup_offline(repo_root())
    from training.nn import register

    register()
    from ultralytics import YOLO

    run_dir = cfg.run_dir()
    last = run_dir / "weights" / "last.pt"
    if resume:
        if not last.is_file():
            raise TrainError(f"nothing to resume: {last} does not exist (start the run without --resume)")
        saved = json.loads((run_dir / SIDECAR).read_text()) if (run_dir / SIDECAR).is_file() else {}
        cfg = TrainConfig(**{**asdict(cfg), **{k: v for k, v in saved.items() if k.startswith("fcl")}})
    elif last.is_file():
        raise TrainError(f"{run_dir} already holds a run; pass --resume to continue it or choose another --name")
    handler = _attach_file_log(run_dir / "train.log")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        if not resume:
            (run_dir / SIDECAR).write_text(json.dumps(asdict(cfg), indent=2))
        trainer_cls = make_trainer_class(_fcl_config(cfg))
        if resume:
            model = YOLO(str(last))
            import torch

            if torch.load(last, map_location="cpu", weights_only=False).get("optimizer") is None:
                raise TrainError(
                    f"{last} is from a finished run (no optimizer state). To train further start a new run "
                    f"with --model {last} (its weights, fresh schedule) and a new --name."
                )
        else:
            model = YOLO(str(_abs(cfg.model)) if not Path(cfg.model).is_absolute() else cfg.model, task="detect")
        for event, fn in _callbacks(cfg, run_dir).items():
            model.add_callback(event, fn)
        if resume:  # ultralytics restores data, epochs, imgsz, schedule from last.pt; only FCL comes from the sidecar
            log.info("resuming run %s from %s (fcl=%s)", run_dir, last, cfg.fcl)
        else:
            log.info("starting run %s: %s", run_dir, asdict(cfg))
        args = {
            "batch": cfg.batch, "workers": cfg.workers, "patience": cfg.patience, "plots": cfg.plots,
            "val": cfg.val, "project": str(run_dir.parent), "name": run_dir.name, "exist_ok": True,
        }
        if cfg.device is not None:
            args["device"] = cfg.device
        if cfg.time_hours:
            args["time"] = cfg.time_hours
        if resume:
            model.train(resume=True, trainer=trainer_cls, **args)
        else:
            fresh = {
                "data": str(_abs(cfg.data)), "epochs": cfg.epochs, "imgsz": cfg.imgsz, "fraction": cfg.fraction,
                "seed": cfg.seed, "deterministic": True, "amp": False,
                # A .pt --model means "start from these weights"; ultralytics drops them if pretrained=False.
                "pretrained": str(cfg.model).endswith(".pt"),
            }
            model.train(trainer=trainer_cls, **{**fresh, **args, **cfg.extra})  # --set wins, e.g. val=False
        log.info("finished run %s", run_dir)
        return run_dir
    finally:
        _detach_file_log(handler)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training train", description=__doc__.splitlines()[0])
    p.add_argument("--data", help="YOLO data.yaml (required unless --resume)")
    p.add_argument("--model", default=DEFAULT_MODEL, help="model YAML (or a .pt to start from its weights)")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--imgsz", type=int, default=640)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--fraction", type=float, default=1.0, help="fraction of the train split to use")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fcl", action="store_true", help="add the Frequency-Consistency Loss")
    p.add_argument("--fcl-beta", type=float, default=0.05)
    p.add_argument("--fcl-lam", type=float, default=1.0)
    p.add_argument("--project", default="runs/train")
    p.add_argument("--name", default="exp")
    p.add_argument("--device", default=None, help="cpu, 0, ... (default: ultralytics' choice)")
    p.add_argument("--threads", type=int, default=2, help="torch CPU threads during training")
    p.add_argument("--time", type=float, default=None, help="time budget in hours (ultralytics fits epochs to it)")
    p.add_argument("--patience", type=int, default=100)
    p.add_argument("--plots", action="store_true")
    p.add_argument("--resume", action="store_true", help="continue <project>/<name>/weights/last.pt")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="any further ultralytics train argument, e.g. --set optimizer=AdamW --set lr0=0.002")
    return p


def parse_overrides(items: list[str]) -> dict:
    """``["lr0=0.002", "optimizer=AdamW"]`` → ``{"lr0": 0.002, "optimizer": "AdamW"}`` (numbers parsed)."""
    out: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--set expects KEY=VALUE, got {item!r}")
        for cast in (int, float):
            try:
                out[key] = cast(value)
                break
            except ValueError:
                continue
        else:
            out[key] = {"true": True, "false": False}.get(value.lower(), value)
    return out


def main(argv: list[str] | None = None) -> int:
    """CLI entry; returns the exit code."""
    a = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if not a.resume and not a.data:
        build_parser().error("--data is required unless --resume")
    cfg = TrainConfig(
        data=a.data or "", model=a.model, epochs=a.epochs, imgsz=a.imgsz, batch=a.batch, workers=a.workers,
        fraction=a.fraction, seed=a.seed, fcl=a.fcl, fcl_beta=a.fcl_beta, fcl_lam=a.fcl_lam, project=a.project,
        name=a.name, device=a.device, threads=a.threads, time_hours=a.time, patience=a.patience, plots=a.plots,
        extra=parse_overrides(a.set),
    )
    try:
        run_dir = train(cfg, resume=a.resume)
    except TrainError as e:
        log.error("%s", e)
        return 2
    log.info("weights: %s", run_dir / "weights")
    return 0
