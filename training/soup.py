"""``python -m training soup``: average the weights of checkpoints from one training line.

Weight averaging ("model soups", Wortsman et al. 2022; WiSE-FT for a fine-tuned model and the one it
started from) trades a little of the newest checkpoint's fit to the training data for the older
one's behaviour elsewhere, at no training cost. Every checkpoint must be the same architecture (the
same line: each started from the one before); float tensors are averaged in float32 with the given
weights, integer tensors (BatchNorm's batch counters) come from the last checkpoint. The result is
an ordinary checkpoint: ``candidate`` judges it and ``train --model`` continues from it.

    python -m training soup models/vpd-n.pt training/checkpoints/vpd-n-s33-candidate.pt \\
        --weights 0.5 0.5 --out runs/soup/vpd-n-soup.pt
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from training.offline import repo_root, setup_offline

log = logging.getLogger("training.soup")


def average_state_dicts(state_dicts: list[dict], weights: list[float]) -> dict:
    """The weighted average of same-shaped state dicts (weights normalised to sum 1); non-float
    entries are taken from the last dict. Raises ValueError when keys or shapes differ."""
    import torch

    if not state_dicts or len(state_dicts) != len(weights):
        raise ValueError("one weight per state dict is needed")
    total = float(sum(weights))
    if total <= 0 or any(w < 0 for w in weights):
        raise ValueError("weights must be non-negative and not all zero")
    keys = list(state_dicts[-1])
    for sd in state_dicts:
        if list(sd) != keys:
            raise ValueError("checkpoints differ in their layers: not one training line")
    averaged = {}
    for key in keys:
        tensors = [sd[key] for sd in state_dicts]
        if any(t.shape != tensors[-1].shape for t in tensors):
            raise ValueError(f"checkpoints differ in the shape of {key}")
        if not tensors[-1].is_floating_point():
            averaged[key] = tensors[-1].clone()
            continue
        mix = sum(t.float() * (w / total) for t, w in zip(tensors, weights))
        averaged[key] = mix.to(tensors[-1].dtype)
    return averaged


def soup(paths: list[Path], weights: list[float], out: Path) -> Path:
    """Average the ``model`` weights of ultralytics checkpoints ``paths`` into ``out`` (the last
    checkpoint's metadata and architecture, its ``epoch`` kept, the recipe noted in ``train_args``)."""
    import copy

    import torch

    from training.nn import register

    register()
    checkpoints = [torch.load(p, map_location="cpu", weights_only=False) for p in paths]
    models = [ck.get("ema") or ck["model"] for ck in checkpoints]
    mixed = average_state_dicts([m.state_dict() for m in models], weights)
    result = copy.copy(checkpoints[-1])
    model = copy.deepcopy(models[-1])
    model.load_state_dict(mixed)
    result.update(model=model, ema=None, optimizer=None, updates=None)
    args = dict(result.get("train_args") or {})
    args["soup"] = [f"{p} x {w:g}" for p, w in zip(paths, weights)]
    result["train_args"] = args
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(result, out)
    log.info("soup of %d checkpoints -> %s", len(paths), out)
    return out


def main(argv: list[str] | None = None) -> int:
    """CLI entry: average checkpoints into one."""
    parser = argparse.ArgumentParser(prog="python -m training soup", description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", nargs="+", type=Path, help=".pt checkpoints of one training line")
    parser.add_argument("--weights", nargs="+", type=float, help="one weight each (default: equal)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the averaged .pt")
    args = parser.parse_args(argv)
    weights = args.weights or [1.0] * len(args.checkpoints)
    if len(weights) != len(args.checkpoints):
        parser.error("give one --weights value per checkpoint")
    missing = [str(p) for p in args.checkpoints if not p.is_file()]
    if missing:
        parser.error(f"no such checkpoint: {', '.join(missing)}")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    setup_offline(repo_root())
    try:
        soup(args.checkpoints, weights, args.out)
    except ValueError as err:
        print(f"soup: {err}")
        return 1
    return 0
