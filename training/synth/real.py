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
CATEGORY_MAP = {c: c for c in ("license_plate", "qr_code", "receipt", "signature", "shop_sign", "house_number")}
HOLDOUT = 0.2
# A source labelled only its ``annotated_categories``; other objects in its pictures are unlabelled.
# Only classes that plausibly occur unlabelled there are unknown; every other class keeps its
# negatives, so a real street never teaches "passport" and a receipt never teaches "licence plate"
# (dropping all negatives let whole-document classes fire on real scenes).
STREET_SOURCES = frozenset({"oi_plates", "facade_shop_signs", "rf_building_numbers"})
STREET_UNKNOWN = frozenset(("face", "person", "license_plate", "street_sign", "house_number", "shop_sign",
                            "qr_code", "barcode"))
# The plate source is car close-ups (Open Images): a street-name sign or a house-number plaque is
# rare there (none in a 30-picture sample we looked at), while its road signs, badges and numbers
# are exactly the negatives those two classes need. Façades keep both unknown (they often show them).
SOURCE_UNKNOWN = {"oi_plates": STREET_UNKNOWN - {"street_sign", "house_number"}}
# Document and product photos (QR, receipt, signature sources) may hold any printed or on-screen
# text PII and codes, but not street objects or a second kind of identity card.
DOCUMENT_KNOWN_ABSENT = frozenset(("person", "id_card", "passport", "payment_card", "license_plate",
                                   "street_sign", "house_number", "map_view"))


@dataclass(frozen=True)
class RealItem:
    """One real image with its boxes (xyxy, source pixels) and its split."""

    path: Path
    source: str
    boxes: tuple[tuple[str, tuple[float, float, float, float]], ...]
    split: str  # "train" | "real_test"
    annotated: frozenset[str] = frozenset()

    def unknown_classes(self, all_classes) -> frozenset[str]:
        """Classes this image may show unlabelled: the loss must not teach them as background here."""
        if self.source in SOURCE_UNKNOWN:
            pool = SOURCE_UNKNOWN[self.source]
        elif self.source in STREET_SOURCES:
            pool = STREET_UNKNOWN
        else:
            pool = frozenset(all_classes) - DOCUMENT_KNOWN_ABSENT
        return frozenset(pool) - self.annotated


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
            annotated = frozenset(CATEGORY_MAP[c] for c in e.get("annotated_categories", ()) if c in CATEGORY_MAP)
            items.append(RealItem(Path(root) / e["file"], src, boxes, "real_test" if k < n_hold else "train", annotated))
    return tuple(items)


# Real items used as backgrounds by the sample being rendered (one process renders one sample at
# a time); dataset.py resets and reads it to record the sample's unknown classes.
used_backgrounds: list[RealItem] = []


def random_train_item(rng: np.random.Generator, sources: frozenset[str] | None = None) -> RealItem | None:
    """A random train-split real item (for backgrounds), optionally from ``sources`` only; None if
    the pack (or that source) is absent. The item is recorded in ``used_backgrounds``."""
    train = [i for i in load_items() if i.split == "train" and (sources is None or i.source in sources)]
    if not train:
        return None
    item = train[int(rng.integers(0, len(train)))]
    used_backgrounds.append(item)
    return item
