"""The real-photo pack (``/work/shared/data/real``): loading, per-source deterministic split.

About 20 % of every source is held out as ``real_test`` (never trained on, never used as
background). ``real-dev`` is an evaluation-only set and is never read here.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

REAL_DIR = Path(os.environ.get("VPD_REAL_DIR", "/work/shared/data/real"))
CATEGORY_MAP = {"license_plate": "license_plate", "qr_code": "qr_code", "receipt": "receipt"}
HOLDOUT = 0.2


@dataclass(frozen=True)
class RealItem:
    """One real image with its boxes (xyxy, source pixels) and its split."""

    path: Path
    source: str
    boxes: tuple[tuple[str, tuple[float, float, float, float]], ...]
    split: str  # "train" | "real_test"


def _rank(name: str) -> float:
    # Hash-based rank: stable across runs and machines, independent of the --seed of a render.
    return int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


@lru_cache(maxsize=1)
def load_items(root: str = str(REAL_DIR)) -> tuple[RealItem, ...]:
    """All real items with their split; empty if the pack is absent."""
    ann = Path(root) / "annotations.json"
    if not ann.exists():
        return ()
    entries = json.loads(ann.read_text())
    by_src: dict[str, list[dict]] = {}
    for e in entries:
        by_src.setdefault(e["source_id"], []).append(e)
    items = []
    for src, es in sorted(by_src.items()):
        es = sorted(es, key=lambda e: _rank(e["file"]))
        n_hold = max(1, int(round(len(es) * HOLDOUT)))
        for k, e in enumerate(es):
            boxes = tuple((CATEGORY_MAP[b["category"]], tuple(float(v) for v in b["box"]))
                          for b in e["boxes"] if b["category"] in CATEGORY_MAP)
            items.append(RealItem(Path(root) / e["file"], src, boxes, "real_test" if k < n_hold else "train"))
    return tuple(items)


def random_train_item(rng: np.random.Generator) -> RealItem | None:
    """A random train-split real item (for backgrounds), or None if the pack is absent."""
    train = [i for i in load_items() if i.split == "train"]
    return train[int(rng.integers(0, len(train)))] if train else None
