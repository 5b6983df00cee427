"""``python -m training branch``: a new run that resumes another's checkpoint, optimiser state included,
on a changed data list, for more epochs or for a new time budget.

Ultralytics resumes a run from the arguments saved in its checkpoint, so continuing an optimiser
checkpoint on a new render (or past its planned epochs) meant editing those arguments by hand.
This writes ``<project>/<name>/weights/last.pt``: the source checkpoint with its data, run folder
and epoch count replaced, beside the source run's ``vpd_train.json`` (its FCL settings). Then::

    python -m training branch --from runs/train/vpd-n-s46far/weights/epoch2.pt --name vpd-n-s47far \\
        --data data/synth-10k-s47/data-s47.yaml --epochs 4
    python -m training train --resume --name vpd-n-s47far
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from training.train import SIDECAR, TrainError, _abs

log = logging.getLogger("training.branch")


def branch(source: Path, run_dir: Path, data: Path | None = None, epochs: int | None = None,
           hours: float | None = None) -> Path:
    """Write ``run_dir/weights/last.pt`` from the optimiser checkpoint ``source`` with ``data``
    and ``epochs`` replaced where given, and ``hours`` as the resumed run's time budget (ultralytics
    ``time``: it stops and saves mid-epoch when it runs out); returns its path. Raises :class:`TrainError` when the
    checkpoint has no optimiser state, the epochs are already done, or ``run_dir`` holds a run."""
    import torch

    last = run_dir / "weights" / "last.pt"
    if last.exists():
        raise TrainError(f"{run_dir} already holds a run; choose another --name")
    if not source.is_file():
        raise TrainError(f"no checkpoint at {source}")
    ckpt = torch.load(source, map_location="cpu", weights_only=False)
    if ckpt.get("optimizer") is None or "train_args" not in ckpt:
        raise TrainError(f"{source} has no optimiser state (a finished or stripped run): start a new run with "
                         f"`python -m training train --model {source}` instead")  # fmt: skip
    args = dict(ckpt["train_args"])
    done = int(ckpt.get("epoch", -1)) + 1  # ultralytics saves the index of the last finished epoch
    epochs = int(epochs or args.get("epochs", 0))
    if epochs <= done:
        raise TrainError(f"{source} has finished {done} epochs; pass --epochs above {done}")
    if data is not None:
        if not data.is_file():
            raise TrainError(f"no data list at {data}")
        args["data"] = str(data.resolve())
    if hours is not None:
        if hours <= 0:
            raise TrainError("--hours must be positive")
        args["time"] = float(hours)
    args.update(epochs=epochs, save_dir=str(run_dir.resolve()), name=run_dir.name, project=str(run_dir.parent.resolve()),
                model=str(last.resolve()), resume=str(last.resolve()))  # fmt: skip
    ckpt["train_args"] = args
    last.parent.mkdir(parents=True, exist_ok=True)
    torch.save(ckpt, last)
    sidecar = source.parent.parent / SIDECAR
    settings = json.loads(sidecar.read_text()) if sidecar.is_file() else {}
    settings.update(name=run_dir.name, project=str(run_dir.parent), data=args["data"], epochs=epochs,
                    branched_from=str(source))  # fmt: skip
    (run_dir / SIDECAR).write_text(json.dumps(settings, indent=2))
    return last


def main(argv: list[str] | None = None) -> int:
    """CLI entry; returns the exit code (2 when the branch cannot be made)."""
    p = argparse.ArgumentParser(prog="python -m training branch", description=__doc__.splitlines()[0])
    p.add_argument("--from", dest="source", type=Path, required=True, help="an optimiser checkpoint (last.pt, epochN.pt)")
    p.add_argument("--name", required=True, help="the new run's name")
    p.add_argument("--project", default="runs/train")
    p.add_argument("--data", type=Path, default=None, help="a new YOLO data.yaml (default: the checkpoint's)")
    p.add_argument("--epochs", type=int, default=None, help="the run's total epochs (default: the checkpoint's)")
    p.add_argument("--hours", type=float, default=None,
                   help="time budget of the resumed run; it stops and saves when spent (default: the checkpoint's)")
    a = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    run_dir = _abs(a.project) / a.name
    try:
        last = branch(a.source, run_dir, a.data, a.epochs, a.hours)
    except TrainError as e:
        log.error("%s", e)
        return 2
    print(f"wrote {last}; continue with: python -m training train --resume --project {a.project} --name {a.name}")
    return 0
