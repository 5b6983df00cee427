"""Geometry of placing flat objects in a photo: camera poses, warps and label boxes after warps.

Objects are flat rectangles seen by a pinhole camera, so their outlines are projected 3D rectangles,
not random quads. Labels are transformed as polygons (densely sampled when the warp is not a
homography) and their axis-aligned bounding box is taken and clipped to the image.
Points are float32 ``(N, 2)`` in pixels; corner order is TL, TR, BR, BL.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

Label = tuple[str, tuple[float, float, float, float]]


def rect(w: float, h: float) -> np.ndarray:
    """Corners (4, 2) of a ``w`` x ``h`` image."""
    return np.float32([[0, 0], [w, 0], [w, h], [0, h]])


def rotation(yaw: float, pitch: float, roll: float) -> np.ndarray:
    """3x3 rotation (radians): yaw about the vertical axis, pitch about the horizontal, roll in-plane."""
    cy, sy, cp, sp, cr, sr = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rx = np.array([[1, 0, 0], [0, cp, -sp], [0, sp, cp]])
    rz = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
    return ry @ rx @ rz


def pose_quad(ow: float, oh: float, center: tuple[float, float], size: float, yaw: float = 0.0,
              pitch: float = 0.0, roll: float = 0.0, distance: float = 3.0) -> np.ndarray:
    """Image corners (4, 2) of an ``ow`` x ``oh`` flat object turned by (yaw, pitch, roll) in front of a
    pinhole camera at ``distance`` object-widths (smaller = stronger perspective); the projection is
    scaled so its longer bounding-box side is ``size`` px and centred at ``center``."""
    s = 1.0 / max(ow, oh)
    pts = np.array([[-ow / 2, -oh / 2, 0], [ow / 2, -oh / 2, 0], [ow / 2, oh / 2, 0], [-ow / 2, oh / 2, 0]]) * s
    cam = pts @ rotation(yaw, pitch, roll).T + [0, 0, distance]
    proj = cam[:, :2] / cam[:, 2:3]
    proj -= (proj.min(0) + proj.max(0)) / 2
    proj *= size / max(float(np.ptp(proj, 0).max()), 1e-6)
    return (proj + center).astype(np.float32)


def plane_quad(ow: float, oh: float, center: tuple[float, float], scale: float, angle: float) -> np.ndarray:
    """Corners (4, 2) of an ``ow`` x ``oh`` image scaled by ``scale`` and turned by ``angle`` (radians)
    about ``center``: an object lying flat on a plane seen from straight above."""
    c, s = np.cos(angle), np.sin(angle)
    pts = (rect(ow, oh) - [ow / 2, oh / 2]) * scale
    return (pts @ np.array([[c, s], [-s, c]]) + center).astype(np.float32)


def homography(src_w: float, src_h: float, quad: np.ndarray) -> np.ndarray:
    """3x3 homography taking an image of size (src_w, src_h) onto ``quad``."""
    return cv2.getPerspectiveTransform(rect(src_w, src_h), np.float32(quad))


def transform(pts: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Points (N, 2) through homography ``M``."""
    return cv2.perspectiveTransform(np.float32(pts).reshape(1, -1, 2), M)[0]


def box_polygon(b, samples: int = 1) -> np.ndarray:
    """Outline of box ``b`` (xyxy) with ``samples`` points per edge (1 = corners only)."""
    x0, y0, x1, y1 = b
    t = np.linspace(0, 1, samples, endpoint=False)
    top = np.stack([x0 + (x1 - x0) * t, np.full_like(t, y0)], 1)
    right = np.stack([np.full_like(t, x1), y0 + (y1 - y0) * t], 1)
    bottom = np.stack([x1 - (x1 - x0) * t, np.full_like(t, y1)], 1)
    left = np.stack([np.full_like(t, x0), y1 - (y1 - y0) * t], 1)
    return np.concatenate([top, right, bottom, left]).astype(np.float32)


@dataclass
class Placed:
    """Warped label polygons of one pasted layer and the mask that layer covers (occludes earlier ones)."""

    polys: list[tuple[str, np.ndarray]]
    mask: np.ndarray  # uint8 (H, W), 255 where this layer is opaque


def warp_labels(labels: list[Label], M: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Label boxes through homography ``M`` as 4-corner polygons."""
    return [(c, transform(box_polygon(b), M)) for c, b in labels]


def boxes_of(layers: list[Placed], W: int, H: int, min_visible: float = 0.4) -> list[Label]:
    """Clipped bounding boxes of every layer's polygons, dropping boxes under 3 px or less than
    ``min_visible`` visible (outside the frame or under later layers)."""
    out: list[Label] = []
    cover = np.zeros((H, W), bool)
    for layer in reversed(layers):  # walk top-down so ``cover`` holds the layers above this one
        for cls, pts in layer.polys:
            lo, hi = pts.min(0), pts.max(0)
            x0, y0 = np.clip(lo, 0, [W, H])
            x1, y1 = np.clip(hi, 0, [W, H])
            if x1 - x0 < 3 or y1 - y0 < 3:
                continue
            xi0, yi0, xi1, yi1 = int(x0), int(y0), int(np.ceil(x1)), int(np.ceil(y1))
            poly_mask = np.zeros((yi1 - yi0, xi1 - xi0), np.uint8)
            cv2.fillPoly(poly_mask, [np.round(pts - [xi0, yi0]).astype(np.int32)], 1)
            full = max(float(cv2.contourArea(pts.astype(np.float32))), 1e-6)
            shown = float(np.count_nonzero(poly_mask.astype(bool) & ~cover[yi0:yi1, xi0:xi1]))
            if shown / full >= min_visible:
                out.append((cls, (float(x0), float(y0), float(x1), float(y1))))
        cover |= layer.mask > 127
    return out[::-1]
