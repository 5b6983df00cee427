"""Photo compositing: objects and screens warped into backgrounds with camera effects.

All images are BGR ``uint8``; labels are ``(class_name, xyxy)`` in output pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

from . import real

Label = tuple[str, tuple[float, float, float, float]]


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


def background(rng: np.random.Generator, w: int, h: int, allow_real: bool = True) -> tuple[np.ndarray, list[Label]]:
    """Background photo (train-split real photo with its boxes, or a procedural texture) at (w, h)."""
    if allow_real and rng.random() < 0.35:
        item = real.random_train_item(rng)
        if item is not None:
            img = cv2.imread(str(item.path))
            if img is not None:
                sx, sy = w / img.shape[1], h / img.shape[0]
                labels = [(c, (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy)) for c, b in item.boxes]
                return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR), labels
    return procedural_background(rng, w, h), []


def random_quad(rng: np.random.Generator, ow: int, oh: int, W: int, H: int, frac: tuple[float, float]) -> np.ndarray:
    """Destination corners (4, 2) for an object of size (ow, oh): scaled, rotated, perspective-jittered."""
    target = rng.uniform(*frac) * min(W, H)
    s = target / max(ow, oh)
    w, h = ow * s, oh * s
    cx, cy = rng.uniform(w / 2, max(w / 2 + 1, W - w / 2)), rng.uniform(h / 2, max(h / 2 + 1, H - h / 2))
    a = rng.normal(0, 0.25)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) @ R.T
    pts += rng.normal(0, 0.06 * min(w, h), pts.shape)
    return (pts + [cx, cy]).astype(np.float32)


def warp_labels(labels: list[Label], M: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Map label boxes through homography ``M``; returns (class, 4x2 corners)."""
    out = []
    for cls, (x0, y0, x1, y1) in labels:
        pts = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float32)
        out.append((cls, cv2.perspectiveTransform(pts, M)[0]))
    return out


def paste(dst: np.ndarray, src: np.ndarray, quad: np.ndarray, rng: np.random.Generator, shadow: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Warp ``src`` onto ``dst`` at ``quad`` with soft shadow and lighting; returns (homography, mask)."""
    h, w = src.shape[:2]
    H, W = dst.shape[:2]
    M = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad)
    warped = cv2.warpPerspective(src, M, (W, H), flags=cv2.INTER_AREA if (np.ptp(quad[:, 0]) < w) else cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), M, (W, H))
    if shadow:
        off = rng.integers(3, 15, 2)
        sh = cv2.GaussianBlur(np.roll(mask, tuple(off), (0, 1)), (0, 0), rng.uniform(3, 10)).astype(np.float32) / 255
        dst[:] = (dst * (1 - 0.45 * sh[..., None])).astype(np.uint8)
    light = np.linspace(rng.uniform(0.75, 1.05), rng.uniform(0.95, 1.2), W, dtype=np.float32)[None, :, None]
    m = mask.astype(np.float32)[..., None] / 255
    dst[:] = np.clip(dst * (1 - m) + warped * light * m, 0, 255).astype(np.uint8)
    return M, mask


def camera(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Motion/defocus blur, noise, colour cast and JPEG artefacts."""
    r = rng.random()
    if r < 0.25:
        k = int(rng.integers(3, 9))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2] = 1.0 / k
        ker = cv2.warpAffine(ker, cv2.getRotationMatrix2D((k / 2, k / 2), rng.uniform(0, 180), 1), (k, k))
        img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-6))
    elif r < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.6))
    img = img.astype(np.float32) * rng.uniform(0.9, 1.1, 3) + rng.normal(0, rng.uniform(1, 7), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 95))])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


def visible_labels(placed: list[tuple[list[tuple[str, np.ndarray]], np.ndarray]], W: int, H: int) -> list[Label]:
    """Axis-aligned boxes of warped labels, dropping those < 40 % visible under later objects."""
    out: list[Label] = []
    for i, (labels, _) in enumerate(placed):
        cover = np.zeros((H, W), bool)
        for _, m in placed[i + 1 :]:
            cover |= m > 127
        for cls, pts in labels:
            x0, y0 = np.clip(pts.min(0), 0, [W, H])
            x1, y1 = np.clip(pts.max(0), 0, [W, H])
            if x1 - x0 < 3 or y1 - y0 < 3:
                continue
            full = (pts.max(0) - pts.min(0)).prod()
            sub = cover[int(y0) : int(np.ceil(y1)), int(x0) : int(np.ceil(x1))]
            vis = (x1 - x0) * (y1 - y0) * (1 - (sub.mean() if sub.size else 0))
            if vis / max(full, 1e-6) >= 0.4:
                out.append((cls, (float(x0), float(y0), float(x1), float(y1))))
    return out


def compose_objects(rng: np.random.Generator, objects: list[tuple[np.ndarray, list[Label]]], W: int, H: int,
                    frac: tuple[float, float] = (0.25, 0.7)) -> tuple[np.ndarray, list[Label]]:
    """Place flat object renders into one photo; returns (BGR image, labels)."""
    bg, bg_labels = background(rng, W, H)
    placed = [([(c, np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]], np.float32)) for c, b in bg_labels],
               np.zeros((H, W), np.uint8))]
    for img, labels in objects:
        quad = random_quad(rng, img.shape[1], img.shape[0], W, H, frac)
        M, mask = paste(bg, img, quad, rng)
        placed.append((warp_labels(labels, M), mask))
    return camera(bg, rng), visible_labels(placed, W, H)


def screen_in_photo(rng: np.random.Generator, screen: np.ndarray, labels: list[Label], W: int, H: int) -> tuple[np.ndarray, list[Label]]:
    """A rendered screen shown on a monitor/phone photographed: bezel, moiré, glare, blur."""
    bg, _ = background(rng, W, H, allow_real=False)
    sh, sw = screen.shape[:2]
    bez = int(max(sw, sh) * rng.uniform(0.015, 0.05))
    dev = cv2.copyMakeBorder(screen, bez, bez, bez, bez, cv2.BORDER_CONSTANT, value=[int(v) for v in rng.integers(5, 40, 3)])
    quad = random_quad(rng, dev.shape[1], dev.shape[0], W, H, (0.6, 0.95))
    shifted = [(c, (b[0] + bez, b[1] + bez, b[2] + bez, b[3] + bez)) for c, b in labels]
    M, mask = paste(bg, dev, quad, rng)
    m = (mask > 0).astype(np.float32)[..., None]
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    f1, ang = rng.uniform(0.3, 1.2), rng.uniform(0, np.pi)
    moire = 1 + rng.uniform(0.02, 0.08) * np.sin(f1 * (xx * np.cos(ang) + yy * np.sin(ang)))
    glare = np.exp(-(((xx - rng.uniform(0, W)) / (W * 0.3)) ** 2 + ((yy - rng.uniform(0, H)) / (H * 0.3)) ** 2)) * rng.uniform(0, 70)
    out = bg.astype(np.float32) * (1 - m) + (bg.astype(np.float32) * moire[..., None] + glare[..., None]) * m
    out = np.clip(out, 0, 255).astype(np.uint8)
    placed = [(warp_labels(shifted, M), mask)]
    return camera(out, rng), visible_labels(placed, W, H)
