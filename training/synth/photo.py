"""Procedural photo textures (wallpapers, tables, walls) for scenes without a real photo.

Photo scenes live in ``scenes_street.py``, ``scenes_objects.py`` and ``scenes_screen.py``. BGR ``uint8``.
"""

from __future__ import annotations

import cv2
import numpy as np


def procedural_background(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A table/wall/floor/asphalt-like texture: coloured noise at several scales plus a gradient."""
    base = rng.integers(30, 220, 3).astype(np.float32)
    img = np.ones((h, w, 3), np.float32) * base
    for scale, amp in ((8, 30), (32, 20), (128, 12)):
        n = rng.normal(0, 1, (max(2, h // scale), max(2, w // scale), 1)).astype(np.float32)
        img += cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)[..., None] * amp * rng.uniform(0.3, 1.2)
    kind = int(rng.integers(0, 3))
    if kind == 0:  # wood-like grain
        yy = np.arange(h, dtype=np.float32)[:, None]
        img += (np.sin(yy / rng.uniform(3, 12) + rng.normal(0, 2, (1, w)).cumsum(1) * 0.05) * 14)[..., None]
    elif kind == 1:  # tiles/bricks
        step = int(rng.integers(40, 160))
        img[::step] *= 0.6
        img[:, ::step] *= 0.6
    gx = np.linspace(rng.uniform(0.6, 1.0), rng.uniform(0.9, 1.3), w, dtype=np.float32)
    img *= gx[None, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)
