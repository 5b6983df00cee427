"""Document scenes: papers and cards lying on a table, a card held in a hand, a label on a parcel.

Objects keep their real-world sizes relative to each other (a bank card is 85.6 mm wide, a receipt
80 mm, A4 210 mm). A table scene is laid out flat on the table plane, then the whole plane is seen by
a tilted camera, so every object shares one perspective and one light. Each scene takes a seeded
``np.random.Generator`` and returns (BGR ``uint8`` scene, [(class, xyxy)]).
"""

from __future__ import annotations

import cv2
import numpy as np

from . import lookmatch, props
from . import objects as ob
from .composite import Background, paste_layer, real_background
from .placement import Placed, boxes_of, homography, plane_quad, pose_quad, rect, transform

WIDTH_MM = {"payment_card": 85.6, "id_card": 85.6, "passport": 125.0, "receipt": 80.0, "ticket": 200.0,
            "shipping_label": 100.0, "paper_document": 210.0, "qr_code": 55.0, "barcode": 70.0,
            "handwritten_note": 180.0}
THEMES = (("payment_card", "id_card", "passport"), ("receipt", "ticket", "qr_code", "barcode", "payment_card"),
          ("paper_document", "shipping_label", "receipt", "id_card", "handwritten_note"),
          ("paper_document", "receipt", "ticket", "passport", "handwritten_note"))
HELD = ("id_card", "payment_card", "passport", "ticket")
BLURRED_BACKDROPS = frozenset({"facade_shop_signs", "rf_building_numbers", "oi_plates", "rf_qr_xcerno30"})


def _camera_view(rng: np.random.Generator, pw: int, ph: int, W: int, H: int, pitch: tuple[float, float],
                 angles: tuple[float, float, float] | None = None) -> np.ndarray:
    """Homography from a (pw, ph) plane to a (W, H) photo taken at a tilt (random, or ``angles`` =
    (yaw, pitch, roll)), the frame fully inside the plane."""
    corners = rect(W, H)
    size = max(W, H) * rng.uniform(1.15, 1.5)
    p, yaw, roll = rng.uniform(*pitch), rng.normal(0, 0.15), rng.uniform(-np.pi, np.pi) * (rng.random() < 0.3)
    if angles is not None:
        yaw, p, roll = angles
    for _ in range(8):
        quad = pose_quad(pw, ph, (W / 2, H / 2), size, yaw=yaw, pitch=p, roll=roll, distance=rng.uniform(1.6, 3))
        if all(cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(x), float(y)), False) > 0 for x, y in corners):
            break
        size *= 1.3
    return homography(pw, ph, quad)


def _lay_out(rng: np.random.Generator, names, plane: np.ndarray, px_per_mm: float):
    """Drop objects onto the table plane (in place), later ones on top, each with a soft shadow.
    Returns plane-space layers."""
    ph, pw = plane.shape[:2]
    look = lookmatch.Look(0.4, 0.0, 95, 255.0, 0.0, (1.0, 1.0, 1.0))  # the camera look comes later, once
    light = rng.uniform(-1, 1, 2) * 8 * px_per_mm / 4
    layers = []
    for name in names:
        img, labels = ob.OBJECTS[name](rng)
        scale = WIDTH_MM[name] * px_per_mm * rng.uniform(0.95, 1.05) / img.shape[1]
        ang = rng.normal(0, 0.35) + (np.pi / 2 if rng.random() < 0.15 else 0)
        c = (rng.uniform(0.25, 0.75) * pw, rng.uniform(0.25, 0.75) * ph)
        quad = plane_quad(img.shape[1], img.shape[0], c, scale, ang)
        shadow = (tuple(light), 3 * px_per_mm / 4, rng.uniform(0.25, 0.45))
        plane[:], layer = paste_layer(plane, img, quad, labels, look, rng, shadow=shadow)
        layers.append(layer)
    return layers


def table_documents(rng: np.random.Generator):
    """Cards, IDs, receipts, tickets, letters and labels lying on a table, photographed at a tilt."""
    W, H = int(rng.integers(900, 1500)), int(rng.integers(700, 1100))
    pw, ph = 1280, 960
    plane = props.surface(rng, ph, pw)
    theme = THEMES[int(rng.choice(len(THEMES), p=[0.25, 0.3, 0.2, 0.25]))]  # held_document shows cards too
    names = [str(n) for n in rng.choice(theme, int(rng.integers(2, min(4, len(theme)) + 1)), replace=False)]
    names.sort(key=lambda n: -WIDTH_MM[n])  # papers first, cards on top of them, as people leave them
    px_per_mm = pw / rng.uniform(300, 800)  # the plane shows 30-80 cm of table
    layers = _lay_out(rng, names, plane, px_per_mm)
    plane = (plane.astype(np.float32) * props.light_falloff(rng, ph, pw)[..., None]).clip(0, 255).astype(np.uint8)
    V = _camera_view(rng, pw, ph, W, H, (0.0, 0.7))
    img = cv2.warpPerspective(plane, V, (W, H), flags=cv2.INTER_AREA)
    view = [Placed([(c, transform(p, V)) for c, p in l.polys], cv2.warpPerspective(l.mask, V, (W, H), flags=cv2.INTER_NEAREST))
            for l in layers]
    return _shoot(img, lookmatch.random_look(rng), rng), boxes_of(view, W, H)


def handwritten_scan(rng: np.random.Generator):
    """A handwritten page scanned or photographed from above, filling most of the frame (rows of
    handwriting unlabelled; a signature under them, when the page has one, labelled)."""
    page, labels = ob.obj_handwritten_note(rng)
    ph, pw = page.shape[:2]
    H = int(rng.integers(900, 1500))
    W = int(H * pw / ph * rng.uniform(0.95, 1.2))
    bg = cv2.resize(props.plain(rng, H // 4, W // 4), (W, H))  # a desk or a scanner's lid
    size = max(W, H) * rng.uniform(0.85, 1.0)  # the page fills most of the frame
    quad = pose_quad(pw, ph, (W * rng.uniform(0.45, 0.55), H * rng.uniform(0.45, 0.55)), size,
                     yaw=rng.normal(0, 0.08), pitch=rng.normal(0, 0.08), roll=rng.normal(0, 0.03), distance=rng.uniform(3, 6))
    look = lookmatch.random_look(rng)
    img, layer = paste_layer(bg, page, quad, labels, look, rng)
    return lookmatch.finish(img, look), boxes_of([layer], W, H)


def _shoot(img: np.ndarray, look: lookmatch.Look, rng: np.random.Generator) -> np.ndarray:
    """Camera effects on a fully synthetic photo: exposure, colour cast, blur, noise, JPEG."""
    out = lookmatch.expose(img, look)
    if look.blur_sigma > 0.6:
        out = cv2.GaussianBlur(out, (0, 0), look.blur_sigma - 0.5)
    out += lookmatch.sensor_noise(rng, out.shape[:2], look.noise_sigma)
    return lookmatch.finish(np.clip(out, 0, 255).astype(np.uint8), look)


def blurred_backdrop(rng: np.random.Generator, W: int, H: int) -> Background:
    """A real photo far behind the subject (out of focus), or a blurred room wall."""
    bg = real_background(rng, BLURRED_BACKDROPS) if rng.random() < 0.75 else None
    if bg is None:
        img = lookmatch.soft_blur(props.plain(rng, H // 4, W // 4), 2.0)  # a wall, out of focus
        return Background(cv2.resize(img, (W, H)), [], lookmatch.random_look(rng), "procedural")
    img = cv2.resize(bg.img, (W, H), interpolation=cv2.INTER_LINEAR)
    img = lookmatch.soft_blur(img, rng.uniform(2, 8) * max(W, H) / 1000)  # depth of field
    return Background(img, [], bg.look, bg.source)  # its labels are blurred away; its unknowns are recorded


def held_document(rng: np.random.Generator):
    """An ID card, bank card, passport or ticket held in a hand in front of the camera."""
    W, H = int(rng.integers(800, 1300)), int(rng.integers(700, 1100))
    bg = blurred_backdrop(rng, W, H)
    name = str(rng.choice(HELD, p=[0.3, 0.25, 0.3, 0.15]))
    card, labels = ob.OBJECTS[name](rng)
    ch, cw = card.shape[:2]
    m = int(ch * 1.1)  # room for the hand and forearm around the card
    skin, back, front = props.hand(rng, cw, ch, m)
    canvas = skin.copy()
    canvas[m : m + ch, m : m + cw] = card
    if rng.random() < 0.4:  # laminated cards catch a light source (a soft highlight, drawn small)
        glare = np.zeros((canvas.shape[0] // 4, canvas.shape[1] // 4), np.float32)
        cv2.ellipse(glare, (int((m + rng.uniform(0.2, 0.8) * cw) / 4), int((m + rng.uniform(0.2, 0.8) * ch) / 4)),
                    (int(cw * rng.uniform(0.1, 0.3) / 4), int(ch * rng.uniform(0.05, 0.2) / 4)), rng.uniform(0, 180), 0, 360, 1.0, -1)
        glare = cv2.GaussianBlur(glare, (0, 0), ch * 0.05 / 4) * rng.uniform(0.3, 0.7)
        glare = cv2.resize(glare, (canvas.shape[1], canvas.shape[0]))[..., None]
        canvas = (canvas * (1 - glare) + 255 * glare).astype(np.uint8)
    front_only = front.copy()
    canvas[front > 127] = skin[front > 127]
    alpha = np.maximum(back, front)
    alpha[m : m + ch, m : m + cw] = 255
    labels = [(c, (b[0] + m, b[1] + m, b[2] + m, b[3] + m)) for c, b in labels]
    size = min(W, H) * rng.uniform(0.55, 0.95) * (cw + 2 * m) / cw
    quad = pose_quad(canvas.shape[1], canvas.shape[0], (W * rng.uniform(0.35, 0.65), H * rng.uniform(0.35, 0.65)), size,
                     yaw=rng.normal(0, 0.3), pitch=rng.normal(0, 0.3), roll=rng.normal(0, 0.3), distance=rng.uniform(1.8, 4))
    shade = props.light_falloff(rng, H, W)
    img, layer = paste_layer(bg.img, canvas, quad, labels, bg.look, rng, shade, alpha=alpha)
    M = homography(canvas.shape[1], canvas.shape[0], quad)
    thumb = Placed([], cv2.warpPerspective(front_only, M, (W, H), flags=cv2.INTER_NEAREST))
    return lookmatch.finish(img, bg.look), boxes_of([layer, thumb], W, H)


def parcel(rng: np.random.Generator):
    """A shipping label stuck on the top of a cardboard box standing on a floor or table."""
    W, H = int(rng.integers(800, 1300)), int(rng.integers(700, 1100))
    look = lookmatch.random_look(rng)
    yaw, pitch, roll = rng.normal(0, 0.25), rng.uniform(0.2, 0.7), rng.normal(0, 0.08)
    fh, fw = 900, 1200  # the floor is seen at the box top's angle, so both share vanishing lines
    floor = cv2.warpPerspective(props.surface(rng, fh, fw), _camera_view(rng, fw, fh, W, H, (0, 0), (yaw, pitch, roll)),
                                (W, H), flags=cv2.INTER_LINEAR)
    brown = props.cardboard_colour(rng)
    top = props.cardboard(rng, 900, 1200, base=brown)
    label, labels = ob.obj_shipping_label(rng)
    s = rng.uniform(0.35, 0.6) * 900 / label.shape[0]
    lw, lh = label.shape[1] * s, label.shape[0] * s
    lq = plane_quad(label.shape[1], label.shape[0], (rng.uniform(lw / 2 + 60, 1140 - lw / 2), rng.uniform(lh / 2 + 60, 840 - lh / 2)),
                    s, rng.normal(0, 0.15))
    flat = lookmatch.Look(0.4, 0.0, 95, 245.0, 0.0, (1.0, 1.0, 1.0))
    top, on_top = paste_layer(top, label, lq, labels, flat, rng)
    size = max(W, H) * rng.uniform(0.45, 0.9)
    tq = pose_quad(1200, 900, (W * rng.uniform(0.4, 0.6), H * rng.uniform(0.3, 0.5)), size,
                   yaw=yaw, pitch=pitch, roll=roll, distance=rng.uniform(2, 4))
    depth = size * rng.uniform(0.2, 0.45)  # visible side of the box below its top's front edge
    side = np.float32([tq[3], tq[2], tq[2] + [0, depth], tq[3] + [0, depth]])
    layers = []
    img, layer = paste_layer(floor, (props.cardboard(rng, 300, 1200, tape=False, base=brown) * rng.uniform(0.55, 0.8)).astype(np.uint8), side, [], flat, rng,
                             shadow=((depth * 0.3, depth * 0.2), depth * 0.15, 0.4))
    layers.append(layer)
    img, layer = paste_layer(img, top, tq, [], flat, rng)
    T = homography(1200, 900, tq)
    layer.polys = [(c, transform(p, T)) for c, p in on_top.polys]
    layers.append(layer)
    img = (img.astype(np.float32) * props.light_falloff(rng, H, W)[..., None]).clip(0, 255).astype(np.uint8)
    return _shoot(img, look, rng), boxes_of(layers, W, H)
