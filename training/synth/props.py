"""Procedural props for photo scenes: table and cardboard surfaces, poles, hands, device frames.

Surfaces are BGR ``uint8`` (H, W, 3); layers with shape are ``(BGR uint8, alpha uint8)`` pairs.
They carry no labels: they are where objects lie, what holds them, or what occludes them.
"""

from __future__ import annotations

import cv2
import numpy as np


def _noise(rng: np.random.Generator, h: int, w: int, cell_y: float, cell_x: float) -> np.ndarray:
    """Smooth noise (float32, ~N(0, 1)) with features of about ``cell`` px along each axis."""
    n = rng.normal(0, 1, (max(2, int(h / cell_y)), max(2, int(w / cell_x)))).astype(np.float32)
    return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)


# BGR colour pairs (dark, light) of common table tops
WOODS = (((40, 70, 110), (90, 140, 190)), ((30, 50, 80), (70, 105, 150)), ((100, 150, 190), (150, 200, 225)),
         ((25, 35, 50), (55, 75, 100)))
PLAIN = ((235, 235, 235), (200, 200, 205), (60, 60, 62), (35, 35, 40), (180, 190, 200), (120, 130, 140), (210, 225, 235))


def wood(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Wooden table top: long grain lines wobbling along x, fine streaks, two-colour palette."""
    return cv2.resize(_wood(rng, max(8, h // 2), max(8, w // 2)), (w, h), interpolation=cv2.INTER_LINEAR)


def _wood(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    dark, light = (np.float32(c) for c in WOODS[int(rng.integers(0, len(WOODS)))])
    yy = np.arange(h, dtype=np.float32)[:, None]
    warp = _noise(rng, h, w, h / 2, w / 2) * rng.uniform(5, 25) + _noise(rng, h, w, 10, 150) * 2
    t = 0.5 + 0.5 * np.sin((yy + warp) / rng.uniform(2, 6))
    streaks = _noise(rng, h, w, 0.7, 60)  # fine fibres along the grain
    t = t * t * 0.45 + 0.35 + 0.12 * streaks + 0.1 * _noise(rng, h, w, h / 6, w / 3)
    img = dark + (light - dark) * np.clip(t, 0, 1)[..., None]
    if rng.random() < 0.5:  # planks
        step = int(rng.integers(h // 5 + 1, h // 2 + 2))
        img[::step] *= 0.55
    return np.clip(img, 0, 255).astype(np.uint8)


def plain(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Laminate, painted or stone counter: one colour, faint mottling and speckles."""
    base = np.float32(PLAIN[int(rng.integers(0, len(PLAIN)))]) * rng.uniform(0.9, 1.05)
    img = base + (_noise(rng, h, w, 40, 40) * rng.uniform(2, 8) + rng.normal(0, rng.uniform(1, 5), (h, w)))[..., None]
    if rng.random() < 0.35:  # granite / terrazzo speckles
        dots = (rng.random((h, w)) < rng.uniform(0.002, 0.01)).astype(np.float32)
        dots = cv2.GaussianBlur(dots, (0, 0), rng.uniform(0.6, 1.2)) * rng.uniform(-120, 120)
        img += dots[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def fabric(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Woven cloth or desk mat: fine cross pattern over a colour."""
    grey = rng.uniform(50, 190)
    base = np.float32(grey + rng.normal(0, 18, 3))  # muted cloth colours
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    p = rng.uniform(2.5, 5)
    weave = np.sin(xx * np.pi / p) * np.sin(yy * np.pi / p) * rng.uniform(5, 15)
    img = base + (weave + _noise(rng, h, w, 60, 60) * 8)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def cardboard_colour(rng: np.random.Generator) -> np.ndarray:
    """BGR of brown packaging cardboard."""
    return np.float32([rng.uniform(70, 110), rng.uniform(120, 155), rng.uniform(165, 200)])


def cardboard(rng: np.random.Generator, h: int, w: int, tape: bool = True, base: np.ndarray | None = None) -> np.ndarray:
    """Brown corrugated cardboard with fibres and, optionally, a strip of packing tape."""
    base = cardboard_colour(rng) if base is None else base
    fib = _noise(rng, h, w, 1.5, 30) * 5 + _noise(rng, h, w, 60, 60) * 6
    img = base + fib[..., None]
    if tape:
        t = int(h * rng.uniform(0.12, 0.2))
        y0 = int(rng.uniform(0, h - t))
        img[y0 : y0 + t] = img[y0 : y0 + t] * 0.85 + np.float32([60, 110, 160]) * 0.15 + 12
        img[y0 : y0 + 2] *= 0.8
        img[y0 + t - 2 : y0 + t] *= 0.8
    return np.clip(img, 0, 255).astype(np.uint8)


SURFACES = (wood, plain, fabric)


def surface(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A random table / counter surface."""
    return SURFACES[int(rng.choice(len(SURFACES), p=[0.45, 0.4, 0.15]))](rng, h, w)


def light_falloff(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Float32 (h, w) shading: a lamp/window gradient, vignette and sometimes the photographer's shadow."""
    sh, sw = max(8, h // 8), max(8, w // 8)  # all smooth: computed small, then resized
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    yy, xx = yy / sh, xx / sw
    ang = rng.uniform(0, 2 * np.pi)
    g = 1 + rng.uniform(0.05, 0.3) * ((xx - 0.5) * np.cos(ang) + (yy - 0.5) * np.sin(ang))
    g *= 1 - rng.uniform(0.05, 0.35) * ((xx - 0.5) ** 2 + (yy - 0.5) ** 2) * 2
    if rng.random() < 0.3:
        cx, cy = rng.uniform(0.2, 0.8), rng.uniform(0.9, 1.3)
        blob = ((xx - cx) / rng.uniform(0.2, 0.4)) ** 2 + ((yy - cy) / rng.uniform(0.4, 0.7)) ** 2 < 1
        g *= 1 - rng.uniform(0.2, 0.45) * cv2.GaussianBlur(blob.astype(np.float32), (0, 0), sw * 0.03 + 0.5)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_LINEAR)


def pole(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A metal sign pole of width ``w`` px and height ``h`` px: cylinder shading (BGR uint8)."""
    base = np.float32(((90, 90, 92), (40, 70, 40), (35, 35, 38), (150, 150, 150))[int(rng.integers(0, 4))])
    x = np.linspace(-1, 1, max(2, w), dtype=np.float32)
    light = 0.55 + 0.45 * np.sqrt(np.clip(1 - x ** 2, 0, 1)) + 0.35 * np.exp(-((x - rng.uniform(-0.5, 0.5)) / 0.15) ** 2)
    col = base[None, :] * light[:, None]
    img = np.broadcast_to(col[None], (h, w, 3)).astype(np.float32)
    img = img * (1 + _noise(rng, h, w, 30, w)[..., None] * 0.05)
    return np.clip(img, 0, 255).astype(np.uint8)


SKIN = ((150, 180, 225), (125, 160, 210), (100, 140, 190), (80, 115, 165), (60, 85, 125), (45, 60, 90))


def _capsule(alpha: np.ndarray, p0, p1, radius: float) -> None:
    cv2.line(alpha, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 255, int(2 * radius), cv2.LINE_AA)


def hand(rng: np.random.Generator, cw: int, ch: int, margin: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A hand holding a ``cw`` x ``ch`` card by one short edge, in card coordinates shifted by ``margin``.

    Returns (BGR skin layer, alpha of palm and fingers behind the card, alpha of the thumb in front);
    both alphas are uint8 (ch + 2 margin, cw + 2 margin) with soft edges.
    """
    fullsize = (cw + 2 * margin, ch + 2 * margin)
    q = 4  # skin is smooth: draw at a quarter of the size, then scale up
    cw, ch, margin = cw / q, ch / q, margin / q
    H, W = fullsize[1] // q, fullsize[0] // q
    tone = np.float32(SKIN[int(rng.integers(0, len(SKIN)))]) * rng.uniform(0.92, 1.08)
    back, front = np.zeros((H, W), np.uint8), np.zeros((H, W), np.uint8)
    unit = min(cw, ch)  # a hand is sized by the object's short side (a card's height, a phone's width)
    r = unit * rng.uniform(0.075, 0.095)  # finger radius
    side = 1 if rng.random() < 0.5 else -1  # hand on the right or the left edge
    ex = margin + (cw if side > 0 else 0)  # the card edge the hand holds
    ty = margin + ch * rng.uniform(0.5, 0.75)
    # palm: a rounded blob at the held edge, mostly behind the object; the fingers are behind it too
    palm_c = (int(ex + side * unit * rng.uniform(0.15, 0.3)), int(margin + ch * rng.uniform(0.6, 0.85)))
    cv2.ellipse(back, palm_c, (int(unit * rng.uniform(0.22, 0.3)), int(unit * rng.uniform(0.38, 0.5))),
                side * rng.uniform(5, 30), 0, 360, 255, -1, cv2.LINE_AA)
    # wrist and forearm, out past the canvas edge
    _capsule(back, palm_c, (palm_c[0] + side * unit * 1.6, palm_c[1] + unit * 1.4), unit * rng.uniform(0.2, 0.26))
    # thumb in front: from the palm over the object's face
    _capsule(front, (palm_c[0], ty + r * 2), (ex - side * r * rng.uniform(1.2, 2.5), ty - r * rng.uniform(0.2, 1.2)), r * 1.1)
    back = cv2.GaussianBlur(back, (0, 0), max(0.5, r * 0.08))
    front = cv2.GaussianBlur(front, (0, 0), max(0.5, r * 0.08))
    xx = np.linspace(-1, 1, W, dtype=np.float32)[None, :] * side
    yy = np.linspace(-1, 1, H, dtype=np.float32)[:, None]
    light = 1.0 + 0.12 * (-xx * 0.5 - yy * 0.5) + 0.03 * _noise(rng, H, W, r * 2, r * 2)
    skin = tone * light[..., None]
    # rounded look: darker towards each shape's outline
    for a in (back, front):
        d = cv2.distanceTransform((a > 127).astype(np.uint8), cv2.DIST_L2, 3)
        k = np.clip(d / r, 0, 1) ** 0.5 * 0.3 + 0.7
        sel = a > 0
        skin[sel] *= k[sel][:, None]
    skin = cv2.resize(np.clip(skin, 0, 255).astype(np.uint8), fullsize, interpolation=cv2.INTER_LINEAR)
    return skin, cv2.resize(back, fullsize, interpolation=cv2.INTER_LINEAR), cv2.resize(front, fullsize, interpolation=cv2.INTER_LINEAR)


def device_frame(rng: np.random.Generator, screen: np.ndarray, phone: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """A phone (rounded, thin bezel) or monitor (square, thicker bezel) around ``screen``.

    Returns (BGR device image, alpha uint8, bezel px); the screen starts at (bezel, bezel).
    """
    sh, sw = screen.shape[:2]
    bez = int(max(sw, sh) * (rng.uniform(0.02, 0.035) if phone else rng.uniform(0.015, 0.04)))
    col = [int(v) for v in (rng.integers(5, 35, 3) if rng.random() < 0.8 else rng.integers(170, 230, 3))]
    dev = cv2.copyMakeBorder(screen, bez, bez, bez, bez, cv2.BORDER_CONSTANT, value=col)
    alpha = np.full(dev.shape[:2], 255, np.uint8)
    if phone:
        rad = int(bez * 3)
        alpha[:] = 0
        cv2.rectangle(alpha, (rad, 0), (dev.shape[1] - rad, dev.shape[0]), 255, -1)
        cv2.rectangle(alpha, (0, rad), (dev.shape[1], dev.shape[0] - rad), 255, -1)
        for cx, cy in ((rad, rad), (dev.shape[1] - rad, rad), (rad, dev.shape[0] - rad), (dev.shape[1] - rad, dev.shape[0] - rad)):
            cv2.circle(alpha, (cx, cy), rad, 255, -1, cv2.LINE_AA)
    return dev, alpha, bez
