"""Is a detector box plausible for its class? Two checks that need no threshold fitted to any test set.

* Size: the VPD detector learned each class from labelled boxes whose share of the training image
  has a known spread. A box far beyond the largest its class ever had in training (``SIZE_LIMITS``:
  the 99.5th percentile of the box share per class, times ``margin``) is the model extrapolating,
  so it counts only when confident (``strong_score``); a weak one is dropped. The table is
  derived by ``derive_size_limits`` from the YOLO labels the shipped detector was trained on
  (``data/synth-10k``: synthetic crops plus the real pack's photos, all splits; see
  ``python -m app.inference.box_plausibility data/synth-10k``). Training crops have the tile size
  the app detects at, so a box's share of a tiled frame is never larger than its share of its tile:
  the check is lenient on large frames, never stricter.
* Codes: a QR code or barcode that covers more than ``large_share`` of the frame has modules many
  pixels wide, which the decoder (zxing-cpp, ``codes_zxing``) reads; a detector code box that large
  with no decoded symbol inside is no code (a window grille, a tiled façade). ``CodeDetector.refine``
  applies ``undecoded_large_codes``.

Boxes are xyxy float32 in frame pixels.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import centres_inside, frame_share

# 99.5th percentile of box area / image area per class over data/synth-10k labels (train, val,
# test, real_test: 10,000 synthetic crops + 1,327 real photos), measured on 2026-11-30 with
# ``python -m app.inference.box_plausibility data/synth-10k``. Classes with no labels (face,
# person: separate models) have no limit.
SIZE_LIMITS: Mapping[str, float] = MappingProxyType({
    "email": 0.039, "phone_number": 0.024, "person_name": 0.092, "postal_address": 0.057, "card_number": 0.188,
    "bank_account": 0.033, "id_number": 0.208, "date_of_birth": 0.020, "username": 0.021, "password": 0.027,
    "verification_code": 0.094, "secret_key": 0.089, "ip_address": 0.029, "chat_message": 0.225,
    "notification": 0.289, "avatar": 0.090, "id_card": 0.790, "passport": 0.899, "payment_card": 0.865,
    "receipt": 0.969, "ticket": 0.661, "shipping_label": 0.866, "license_plate": 0.247, "paper_document": 0.932,
    "signature": 0.100, "qr_code": 0.836, "barcode": 0.502, "street_sign": 0.229, "house_number": 0.438,
    "shop_sign": 0.240, "map_view": 1.0,
})  # fmt: skip


@dataclass(frozen=True)
class SizePlausibility:
    """Per-class largest plausible frame share (``limits`` × ``margin``, at least ``min_share``)
    and the calibrated score that overrides it. ``margin`` leaves room for what training just
    missed (a 2× larger box); ``min_share``: smaller boxes are never checked. A wrong box under a
    quarter of the frame costs little, and a small picture (one line cropped from a screen) has
    its text fill the frame, as no training crop did."""

    limits: Mapping[str, float] = field(default_factory=lambda: SIZE_LIMITS)
    margin: float = 2.0
    min_share: float = 0.25
    strong_score: float = 0.5

    def oversized(self, detections: Detections, hw: tuple[int, int]) -> np.ndarray:
        """(N,) bool: boxes larger than their class allows (see the class) in an ``hw`` frame."""
        if not len(detections):
            return np.zeros(0, bool)
        per_class = np.array([max(self.limits.get(n, 1.0) * self.margin, self.min_share) for n in detections.class_names],
                             np.float64)  # fmt: skip
        return frame_share(detections.xyxy, hw) > per_class[detections.class_ids]

    def apply(self, detections: Detections, hw: tuple[int, int]) -> Detections:
        """``detections`` without weak oversized boxes (scores below ``strong_score``)."""
        drop = self.oversized(detections, hw) & (detections.scores < self.strong_score)
        return detections.take(~drop) if drop.any() else detections


def undecoded_large_codes(fused: Detections, decoded_xyxy: np.ndarray, hw: tuple[int, int],
                          large_share: float = 0.25) -> np.ndarray:  # fmt: skip
    """(N,) bool: ``qr_code`` / ``barcode`` boxes of the VPD detector in ``fused`` covering more than
    ``large_share`` of an ``hw`` frame whose area holds the centre of no decoded symbol
    (``decoded_xyxy`` (M, 4), the decoder's boxes of the same frame)."""
    out = np.zeros(len(fused), bool)
    codes = [fused.class_names.index(c) for c in ("qr_code", "barcode") if c in fused.class_names]
    if not len(fused) or not codes:
        return out
    candidates = np.isin(fused.class_ids, codes) & (fused.sources == Source.DETECTOR)
    candidates &= frame_share(fused.xyxy, hw) > large_share
    for i in np.flatnonzero(candidates):
        if len(decoded_xyxy) and np.all(np.isclose(decoded_xyxy, fused.xyxy[i]), axis=1).any():
            continue  # the decoder's own box
        out[i] = not centres_inside(decoded_xyxy, fused.xyxy[i]).any()
    return out


def derive_size_limits(label_dirs: Sequence[Path], class_names: Sequence[str], quantile: float = 99.5) -> dict[str, float]:
    """The ``quantile`` percentile of box area share per class over the YOLO label files
    (``class cx cy w h``, normalised) under ``label_dirs``; classes with no boxes are left out."""
    shares: dict[int, list[float]] = {}
    for folder in label_dirs:
        for path in sorted(Path(folder).glob("*.txt")):
            for row in path.read_text().splitlines():
                parts = row.split()
                if len(parts) >= 5:
                    shares.setdefault(int(parts[0]), []).append(float(parts[3]) * float(parts[4]))
    return {class_names[c]: round(float(np.percentile(v, quantile)), 3) for c, v in sorted(shares.items())
            if c < len(class_names)}  # fmt: skip


def _main(argv: list[str]) -> int:
    """Print the size-limit table of a YOLO dataset folder (``data.yaml`` + ``labels/<split>``)."""
    import re

    root = Path(argv[0]) if argv else Path("data/synth-10k")
    rows = re.findall(r"^\s+(\d+):\s*(\S+)\s*$", (root / "data.yaml").read_text(), re.MULTILINE)  # "  7: email"
    names = [n for _, n in sorted((int(k), n) for k, n in rows)]
    splits = [p for p in sorted((root / "labels").iterdir()) if p.is_dir()]
    for name, share in derive_size_limits(splits, names).items():
        print(f"{name:18s} {share:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
