"""Screens photographed: a phone held in a hand or a monitor filmed at an angle, in front of a real scene.

A screen emits light, so it is not shaded by the room: its white is a little above the photo's white
and its black glows. Moiré between pixel grid and sensor, glare and a faint reflection of the room
are optional. Returns (BGR ``uint8`` scene, [(class, xyxy)]) like every scene generator.
"""

from __future__ import annotations

import cv2
import numpy as np

from . import lookmatch, props
from . import screens_desktop as sd
from . import screens_mobile as sm
from . import screens_web as sw
from .composite import paste_layer
from .placement import Placed, boxes_of, homography, pose_quad
from .scenes_objects import blurred_backdrop

PHONE_SCREENS = (sm.render_chat, sm.render_contacts, sm.render_2fa, sm.render_bank)
DESK_SCREENS = (sw.render_browser, sd.render_terminal, sd.render_password_manager)


def _emissive(screen: np.ndarray, look: lookmatch.Look, rng: np.random.Generator) -> np.ndarray:
    """Screen colours as the camera records them (float32 BGR), with optional moiré fringes."""
    white = min(255.0, look.white * rng.uniform(1.0, 1.15))
    black = rng.uniform(8, 40)
    out = black + screen.astype(np.float32) * ((white - black) / 255.0)
    if rng.random() < 0.5:
        h, w = screen.shape[:2]
        period, ang = rng.uniform(6, 40), rng.uniform(0, np.pi)
        u = 2 * np.pi * np.arange(w, dtype=np.float32) * np.cos(ang) / period
        v = 2 * np.pi * np.arange(h, dtype=np.float32) * np.sin(ang) / period
        amp = rng.uniform(0.02, 0.07)
        # the sensor's colour filters beat with the sub-pixels at different phases: rainbow fringes;
        # cos(u + v + k) = cos u cos(v + k) - sin u sin(v + k): two outer products per channel
        for k in range(3):
            out[..., k] *= 1 + amp * (np.outer(np.cos(v + k * 2.1), np.cos(u)) - np.outer(np.sin(v + k * 2.1), np.sin(u)))
    return out


def _glare(img: np.ndarray, mask: np.ndarray, rng: np.random.Generator, backdrop: np.ndarray) -> np.ndarray:
    """Veiling glare from a light source and a faint mirror image of the room on the glass."""
    ys, xs = np.nonzero(mask)
    if ys.size == 0:
        return img
    # only the screen's bounding box changes
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    roi = (slice(y0, y1), slice(x0, x1))
    img = img.copy()
    img[roi] = _glare_roi(img[roi], mask[roi], rng, backdrop[roi])
    return img


def _glare_roi(img: np.ndarray, mask: np.ndarray, rng: np.random.Generator, backdrop: np.ndarray) -> np.ndarray:
    H, W = mask.shape
    m = mask.astype(np.float32)[..., None] / 255.0
    out = img.astype(np.float32)
    if rng.random() < 0.5:
        cx, cy, sx, sy = rng.uniform(0, W), rng.uniform(0, H), W * rng.uniform(0.1, 0.35), H * rng.uniform(0.1, 0.35)
        gx = np.exp(-((np.arange(W, dtype=np.float32) - cx) / sx) ** 2)
        gy = np.exp(-((np.arange(H, dtype=np.float32) - cy) / sy) ** 2)
        g = np.outer(gy, gx) * rng.uniform(0.2, 0.6)
        out += (255 - out) * g[..., None] * m
    if rng.random() < 0.5:
        mirror = lookmatch.soft_blur(cv2.flip(backdrop, 1), 6).astype(np.float32)
        out = out * (1 - 0.1 * m) + mirror * 0.1 * m
    return np.clip(out, 0, 255).astype(np.uint8)


def screen_filmed(rng: np.random.Generator):
    """A phone (in a hand) or a monitor photographed at an angle; the screen's text labels kept."""
    W, H = int(rng.integers(900, 1500)), int(rng.integers(700, 1100))
    phone = bool(rng.random() < 0.5)
    fns = PHONE_SCREENS if phone else DESK_SCREENS
    screen, labels = fns[int(rng.integers(0, len(fns)))](rng)
    s = 1100 / max(screen.shape[:2])
    screen = cv2.resize(screen, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    labels = [(c, tuple(v * s for v in b)) for c, b in labels]
    bg = blurred_backdrop(rng, W, H)
    device, alpha, bez = props.device_frame(rng, screen, phone)
    exposed = lookmatch.expose(device, bg.look, cast_strength=0.2)
    exposed[bez : bez + screen.shape[0], bez : bez + screen.shape[1]] = _emissive(screen, bg.look, rng)
    labels = [(c, (b[0] + bez, b[1] + bez, b[2] + bez, b[3] + bez)) for c, b in labels]
    dh, dw = device.shape[:2]
    thumb = None
    if phone:
        m = int(min(dw, dh) * 0.9)
        skin, back, front = props.hand(rng, dw, dh, m)
        canvas = lookmatch.expose(skin, bg.look)
        thumb_sel = front > 127
        thumb_px = canvas[thumb_sel]
        held = canvas[m : m + dh, m : m + dw]
        held[alpha > 127] = exposed[alpha > 127]
        canvas[thumb_sel] = thumb_px
        full = np.maximum(back, front)
        full[m : m + dh, m : m + dw] = np.maximum(full[m : m + dh, m : m + dw], alpha)
        labels = [(c, (b[0] + m, b[1] + m, b[2] + m, b[3] + m)) for c, b in labels]
        exposed, alpha, thumb = canvas, full, front
        size = H * rng.uniform(0.75, 1.1) * exposed.shape[0] / dh
        quad = pose_quad(exposed.shape[1], exposed.shape[0], (W * rng.uniform(0.4, 0.6), H * rng.uniform(0.45, 0.6)), size,
                         yaw=rng.normal(0, 0.3), pitch=rng.normal(0, 0.3), roll=rng.normal(0, 0.2), distance=rng.uniform(1.8, 4))
    else:
        size = W * rng.uniform(0.75, 1.25)
        quad = pose_quad(dw, dh, (W * rng.uniform(0.4, 0.6), H * rng.uniform(0.4, 0.6)), size,
                         yaw=rng.uniform(-0.7, 0.7), pitch=rng.normal(0, 0.15), roll=rng.normal(0, 0.05), distance=rng.uniform(1.5, 3))
    img, layer = paste_layer(bg.img, exposed, quad, labels, bg.look, rng, alpha=alpha, exposed=exposed)
    layers = [layer]
    M = homography(exposed.shape[1], exposed.shape[0], quad)
    if thumb is not None:
        layers.append(Placed([], cv2.warpPerspective(thumb, M, (W, H), flags=cv2.INTER_NEAREST)))
    screen_mask = np.zeros(exposed.shape[:2], np.uint8)
    off = int(m) if phone else 0
    screen_mask[off + bez : off + bez + screen.shape[0], off + bez : off + bez + screen.shape[1]] = 255
    if thumb is not None:
        screen_mask[thumb > 127] = 0
    img = _glare(img, cv2.warpPerspective(screen_mask, M, (W, H)), rng, bg.img)
    return lookmatch.finish(img, bg.look), boxes_of(layers, W, H)
