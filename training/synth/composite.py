"""Shared steps of photo scenes: real backgrounds, pasting a warped layer with the photo's look, shadows.

A scene keeps a list of ``placement.Placed`` layers (bottom first); ``placement.boxes_of`` turns them
into labels at the end, so a layer pasted later hides the labels it covers. BGR ``uint8`` throughout.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from . import lookmatch, real
from .placement import Label, Placed, box_polygon, homography, warp_labels

OI_ASPECTS = (4 / 3, 3 / 2)  # Roboflow squashed these Open Images photos to 416x416 (see the pack README)


@dataclass
class Background:
    """A real train-split photo at scene size, its labels (scene px) and its measured camera look."""

    img: np.ndarray
    labels: list[Label]
    look: lookmatch.Look
    source: str


def real_background(rng: np.random.Generator, sources: frozenset[str], scale: tuple[float, float] = (1.0, 1.0),
                    ) -> Background | None:
    """A random train photo from ``sources`` (recorded in ``real.used_backgrounds``), scaled by a
    factor drawn from ``scale``; stretched plate photos get their 4:3 / 3:2 shape back. None when
    the pack or the source is absent."""
    item = real.random_train_item(rng, sources)
    if item is None:
        return None
    img = cv2.imread(str(item.path))
    if img is None:
        return None
    h, w = img.shape[:2]
    look = lookmatch.measure(img)  # measured before resizing: that is the camera's own look
    sx = sy = float(rng.uniform(*scale))
    if item.source == "oi_plates" and w == h:
        ar = float(OI_ASPECTS[int(rng.integers(0, 2))])
        sx, sy = (sx * ar, sy) if rng.random() < 0.85 else (sx, sy * ar)
    size = (max(16, round(w * sx)), max(16, round(h * sy)))
    if size != (w, h):
        img = cv2.resize(img, size, interpolation=cv2.INTER_LINEAR if sx >= 1 else cv2.INTER_AREA)
        up = max(1.0, min(sx, sy))
        look = lookmatch.Look(look.blur_sigma * up, look.noise_sigma / np.sqrt(up),
                              look.jpeg_quality, look.white, look.black, look.cast)
    labels = [(c, (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy)) for c, b in item.boxes]
    return Background(img, labels, look, item.source)


def base_layer(labels: list[Label], H: int, W: int) -> Placed:
    """The background photo's own labels as the bottom layer (covers nothing)."""
    return Placed([(c, box_polygon(b)) for c, b in labels], np.zeros((H, W), np.uint8))


def paste_layer(bg: np.ndarray, obj: np.ndarray, quad: np.ndarray, labels: list[Label], look: lookmatch.Look,
                rng: np.random.Generator, shade: np.ndarray | None = None, alpha: np.ndarray | None = None,
                exposed: np.ndarray | None = None, shadow: tuple | None = None) -> tuple[np.ndarray, Placed]:
    """Warp ``obj`` onto ``quad`` of ``bg`` and blend it with ``look``; returns (new bg, its layer).

    ``alpha`` (uint8, object-sized) cuts the object's outline; ``exposed`` is an already
    colour-matched float32 version of ``obj`` to use instead of ``lookmatch.expose``; ``shadow``
    = (offset xy, sigma, strength) darkens ``bg`` under the object first (see ``drop_shadow``)."""
    H, W = bg.shape[:2]
    oh, ow = obj.shape[:2]
    M = homography(ow, oh, quad)
    mask = np.zeros((H, W), np.uint8)
    pad = int(np.ceil(3 * look.blur_sigma)) + (int(abs(shadow[0][0]) + abs(shadow[0][1]) + 3 * shadow[1]) if shadow else 0) + 4
    x0, y0 = np.maximum(np.floor(quad.min(0)).astype(int) - pad, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(0)).astype(int) + pad, [W, H])
    if x1 <= x0 or y1 <= y0:
        return bg, Placed(warp_labels(labels, M), mask)
    # warp into the object's own region only: whole-frame warps dominate the render time
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ M
    size = (int(x1 - x0), int(y1 - y0))
    flags = cv2.INTER_AREA if float(np.ptp(quad[:, 0])) < ow * 0.5 else cv2.INTER_LINEAR
    warped = cv2.warpPerspective(obj if exposed is None else exposed, T, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)
    a = np.full((oh, ow), 255, np.uint8) if alpha is None else alpha
    mask[y0:y1, x0:x1] = cv2.warpPerspective(a, T, size, flags=cv2.INTER_LINEAR)
    roi = (slice(y0, y1), slice(x0, x1))
    part = bg[roi] if shadow is None else drop_shadow(bg[roi], mask[roi], *shadow)
    out = bg.copy()
    out[roi] = lookmatch.blend(part, warped, mask[roi], look, rng, None if shade is None else shade[roi],
                               exposed=exposed is not None)
    return out, Placed(warp_labels(labels, M), mask)


def drop_shadow(bg: np.ndarray, mask: np.ndarray, offset: tuple[float, float], sigma: float, strength: float) -> np.ndarray:
    """Darken ``bg`` under a soft copy of ``mask`` shifted by ``offset`` (x, y) px."""
    M = np.float32([[1, 0, offset[0]], [0, 1, offset[1]]])
    sh = cv2.warpAffine(mask, M, (mask.shape[1], mask.shape[0]))
    sh = lookmatch.soft_blur(sh, max(0.5, sigma)).astype(np.float32) / 255.0
    return np.clip(bg.astype(np.float32) * (1 - strength * sh[..., None]), 0, 255).astype(np.uint8)


def overlaps(b, boxes, pad: float = 0.0) -> bool:
    """Whether xyxy ``b`` (grown by ``pad`` px) intersects any of ``boxes``."""
    return any(min(b[2] + pad, o[2]) > max(b[0] - pad, o[0]) and min(b[3] + pad, o[3]) > max(b[1] - pad, o[1]) for o in boxes)
