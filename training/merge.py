"""``python -m training merge``: add a top-up render's train split to a dataset's train split.

Top-ups (``synth --no-real --generators ...``) are rendered into their own folders; their train
images and labels are copied into the main dataset under a prefix (``c1_``, ``u1_``…) so the
names cannot clash, their partial labels are merged into the main ``partial_labels.json``, and
ultralytics' label caches are removed so the next run re-scans. Val and test splits are left
alone: the main dataset's held-out splits stay what its card says. Nothing in ``--into`` is
rewritten in place, so it may be a hard-linked copy (``cp -al``) of a dataset that stays unchanged.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

from training.synth.dataset import PARTIAL_LABELS


def merge_train_split(src: Path, dst: Path, prefix: str) -> int:
    """Copy ``src``'s train images and labels into ``dst`` with ``prefix``; returns the number of
    images copied. Images already copied (same prefixed name) are skipped, so a rerun is safe."""
    if not prefix:
        raise ValueError("a prefix is needed, so that top-up names cannot clash with the dataset's")
    for root in (src, dst):
        if not (root / "images" / "train").is_dir():
            raise FileNotFoundError(f"{root}: no images/train folder (not a rendered dataset)")
    copied = 0
    for image in sorted((src / "images" / "train").iterdir()):
        target = dst / "images" / "train" / f"{prefix}{image.name}"
        if target.exists():
            continue
        label = src / "labels" / "train" / f"{image.stem}.txt"
        if label.exists():
            shutil.copyfile(label, dst / "labels" / "train" / f"{prefix}{image.stem}.txt")
        shutil.copyfile(image, target)
        copied += 1
    unknown = _read_partial(dst)
    unknown.update({f"{prefix}{stem}": names for stem, names in _read_partial(src).items()})
    # A new file, not a rewrite: ``dst`` may be a hard-linked copy (cp -al) of another dataset.
    fresh = dst / f"{PARTIAL_LABELS}.tmp"
    fresh.write_text(json.dumps(dict(sorted(unknown.items())), separators=(",", ":")))
    os.replace(fresh, dst / PARTIAL_LABELS)
    for cache in (dst / "labels").glob("*.cache"):
        cache.unlink()
    return copied


def _read_partial(root: Path) -> dict:
    path = root / PARTIAL_LABELS
    return json.loads(path.read_text()) if path.exists() else {}


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = argparse.ArgumentParser(prog="python -m training merge", description=__doc__.splitlines()[0])
    p.add_argument("--src", type=Path, required=True, help="the top-up dataset (e.g. data/synth-closeup-v1)")
    p.add_argument("--into", type=Path, required=True, help="the main dataset (e.g. data/synth-10k)")
    p.add_argument("--prefix", required=True, help="name prefix for the copied files (e.g. c1_)")
    args = p.parse_args(argv)
    n = merge_train_split(args.src, args.into, args.prefix)
    total = sum(1 for _ in (args.into / "images" / "train").iterdir())
    print(f"merged {n} train images from {args.src} into {args.into} as {args.prefix}*: {total} train images now")
    return 0
