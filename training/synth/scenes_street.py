"""Street scenes on real photos: new plates on the cars' real plates, name signs on walls and poles.

Each scene takes a seeded ``np.random.Generator`` and returns (BGR ``uint8`` scene, [(class, xyxy)]).
Backgrounds come from the real pack's train split (``real.used_backgrounds`` records them, so the
sample keeps its source's unknown classes); without the pack the scenes fall back to a procedural wall.
"""

from __future__ import annotations

import cv2
import numpy as np

from . import lookmatch, photo, props
from . import objects as ob
from .traffic_signs import traffic_sign
from .composite import Background, base_layer, overlaps, paste_layer, real_background
from .placement import Placed, box_polygon, boxes_of, pose_quad, rect

PLATE_SOURCES = frozenset({"oi_plates"})
WALL_SOURCES = frozenset({"facade_shop_signs", "rf_building_numbers"})
STREET_FRONT_SOURCES = frozenset({"facade_shop_signs"})


def _order(pts: np.ndarray) -> np.ndarray:
    """Corners sorted TL, TR, BR, BL."""
    s, d = pts.sum(1), np.diff(pts, axis=1)[:, 0]
    return np.float32([pts[np.argmin(s)], pts[np.argmin(d)], pts[np.argmax(s)], pts[np.argmax(d)]])


def plate_quad(img: np.ndarray, box) -> np.ndarray:
    """Outline (4, 2) of the real plate inside its labelled box: the bright plate face found by
    Otsu thresholding (its rotation), or the box itself when no clear face is found."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(img.shape[1], x1), min(img.shape[0], y1)
    fallback = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    if x1 - x0 < 12 or y1 - y0 < 6:
        return fallback
    grey = cv2.cvtColor(img[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    _, bw = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bw = cv2.morphologyEx(bw, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8), iterations=2)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(bw)
    if n < 2:
        return fallback
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[k, cv2.CC_STAT_AREA] < 0.45 * (x1 - x0) * (y1 - y0):
        return fallback
    ys, xs = np.nonzero(lab == k)
    quad = cv2.boxPoints(cv2.minAreaRect(np.float32(np.stack([xs, ys], 1)))) + [x0, y0]
    return _order(np.float32(quad))


def replace_plate(bg: Background, box, rng: np.random.Generator) -> tuple[np.ndarray, Placed]:
    """Paste a new synthetic plate over the real one at ``box`` (its pose, its light)."""
    quad = plate_quad(bg.img, box)
    c = quad.mean(0)
    quad = (quad - c) * 1.08 + c  # cover the real plate's rim
    w = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    h = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    plate, labels = ob.obj_license_plate(rng, eu=bool(w / max(h, 1) > 3.0))
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    ref = bg.img[max(0, y0) : max(y0 + 1, y1), max(0, x0) : max(x0 + 1, x1)]
    exposed = lookmatch.colour_transfer(plate, ref)
    img, layer = paste_layer(bg.img, plate, quad, labels, bg.look, rng, exposed=exposed)
    # the label covers what is left of the real plate as well
    (cls, poly), = layer.polys
    both = np.concatenate([poly, np.float32([[box[0], box[1]], [box[2], box[3]]])])
    layer.polys = [(cls, box_polygon((*both.min(0), *both.max(0))))]
    return img, layer


def street_plates(rng: np.random.Generator):
    """A real car photo whose labelled plates mostly get new synthetic registrations in place."""
    bg = real_background(rng, PLATE_SOURCES, (1.0, 2.0))
    if bg is None:
        return wall_signs(rng)
    H, W = bg.img.shape[:2]
    layers = [base_layer([], H, W)]
    for cls, box in bg.labels:
        if box[2] - box[0] >= 14 and rng.random() < 0.85:
            bg.img, layer = replace_plate(bg, box, rng)
            layers.append(layer)
        else:  # too small to redraw: the real plate stays, labelled
            layers[0].polys += base_layer([(cls, box)], H, W).polys
    if rng.random() < 0.6:
        layers += road_signs(bg, [b for _, b in bg.labels], rng, int(rng.integers(1, 3)))
    return lookmatch.finish(bg.img, bg.look), boxes_of(layers, W, H)


def road_signs(bg: Background, taken: list, rng: np.random.Generator, n: int) -> list[Placed]:
    """Up to ``n`` unlabelled road signs on poles (``traffic_signs``), clear of ``taken`` boxes;
    ``bg.img`` is updated in place. Returns their layers (they may hide labelled objects)."""
    H, W = bg.img.shape[:2]
    shade = lookmatch.illumination(bg.img)
    layers = []
    for _ in range(n):
        sign, alpha, _kind = traffic_sign(rng)
        width = W * rng.uniform(0.05, 0.2)
        for _ in range(12):
            cx, cy = rng.uniform(0.05, 0.95) * W, rng.uniform(0.08, 0.45) * H
            box = (cx - width / 2, cy - width / 2, cx + width / 2, H)
            if not overlaps(box, taken, pad=width * 0.1):
                break
        else:
            continue
        taken.append(box)
        pw = max(3, int(width * rng.uniform(0.06, 0.1)))
        top = int(cy)
        pole = props.pole(rng, max(4, H - top), pw)
        bg.img, layer = paste_layer(bg.img, pole, np.float32(rect(pw, H - top) + [cx - pw / 2, top]), [], bg.look, rng, shade)
        layers.append(layer)
        quad = pose_quad(sign.shape[1], sign.shape[0], (cx, cy), width, yaw=rng.uniform(-0.9, 0.9),
                         roll=rng.normal(0, 0.04), distance=rng.uniform(3, 8))
        bg.img, layer = paste_layer(bg.img, sign, quad, [], bg.look, rng, shade, alpha=alpha)
        layers.append(layer)
    return layers


def wall_angle(grey: np.ndarray, region) -> float:
    """Median slope angle (radians) of near-horizontal straight edges in ``region`` (xyxy): the
    direction of the wall's horizontals (window sills, cornices, bricks) there; 0 when none."""
    x0, y0, x1, y1 = (int(v) for v in region)
    patch = grey[max(0, y0) : y1, max(0, x0) : x1]
    if patch.size < 400:
        return 0.0
    edges = cv2.Canny(patch, 60, 160)
    lines = cv2.HoughLinesP(edges, 1, np.pi / 180, 30, minLineLength=max(15, patch.shape[1] // 8), maxLineGap=4)
    if lines is None:
        return 0.0
    seg = np.asarray(lines, np.float32).reshape(-1, 4)
    a = np.arctan2(seg[:, 3] - seg[:, 1], seg[:, 2] - seg[:, 0])
    a = np.where(a > np.pi / 2, a - np.pi, np.where(a < -np.pi / 2, a + np.pi, a))
    a = a[np.abs(a) < np.radians(25)]
    return float(np.median(a)) if a.size else 0.0


def wall_quad(center, width: float, aspect: float, angle: float, rng: np.random.Generator) -> np.ndarray:
    """A sign flat on a wall: vertical sides, top/bottom along the wall's horizontals (``angle``),
    the farther side a little shorter."""
    w, h = width, width / aspect
    t = np.tan(angle)
    k = np.clip(abs(t) * rng.uniform(0.2, 0.6), 0, 0.12)  # farther end shrinks
    near_left = t > 0  # horizontals falling to the right: the wall recedes to the left
    hl, hr = (h * (1 + k), h * (1 - k)) if near_left else (h * (1 - k), h * (1 + k))
    cx, cy = center
    return np.float32([[cx - w / 2, cy - hl / 2 - t * w / 2], [cx + w / 2, cy - hr / 2 + t * w / 2],
                       [cx + w / 2, cy + hr / 2 + t * w / 2], [cx - w / 2, cy + hl / 2 - t * w / 2]])


def _procedural_street(rng: np.random.Generator) -> Background:
    """Without the real pack: a painted wall with a shop fascia and a car's rear (with its plate) in front."""
    W, H = int(rng.integers(900, 1300)), int(rng.integers(600, 900))
    img = props.plain(rng, H, W)
    img[int(H * 0.8) :] = props.plain(rng, H - int(H * 0.8), W) // 2  # pavement
    look = lookmatch.Look(0.4, 0.0, 95, 255.0, 0.0, (1.0, 1.0, 1.0))
    fascia, f_labels = ob.obj_shop_sign(rng)
    fw = W * rng.uniform(0.3, 0.6)
    fq = rect(fascia.shape[1], fascia.shape[0]) * (fw / fascia.shape[1]) + [rng.uniform(0, W - fw), H * 0.05]
    img, shop = paste_layer(img, fascia, np.float32(fq), f_labels, look, rng)
    cw, ch = W * rng.uniform(0.3, 0.45), H * rng.uniform(0.3, 0.4)
    x0, y0 = rng.uniform(0, W - cw), H * 0.95 - ch
    body = tuple(int(v) for v in rng.integers(20, 230, 3))
    cv2.rectangle(img, (int(x0), int(y0 + ch * 0.35)), (int(x0 + cw), int(y0 + ch)), body, -1, cv2.LINE_AA)
    roof = np.int32([[x0 + cw * 0.15, y0], [x0 + cw * 0.85, y0], [x0 + cw, y0 + ch * 0.38], [x0, y0 + ch * 0.38]])
    cv2.fillPoly(img, [roof], body, cv2.LINE_AA)
    glass = np.int32([[x0 + cw * 0.2, y0 + ch * 0.05], [x0 + cw * 0.8, y0 + ch * 0.05], [x0 + cw * 0.92, y0 + ch * 0.33],
                      [x0 + cw * 0.08, y0 + ch * 0.33]])
    cv2.fillPoly(img, [glass], (40, 35, 30), cv2.LINE_AA)
    for lx in (x0 + cw * 0.03, x0 + cw * 0.85):
        cv2.rectangle(img, (int(lx), int(y0 + ch * 0.45)), (int(lx + cw * 0.12), int(y0 + ch * 0.58)), (30, 30, 200), -1)
    plate, p_labels = ob.obj_license_plate(rng)
    pw = cw * rng.uniform(0.25, 0.35)
    pq = rect(plate.shape[1], plate.shape[0]) * (pw / plate.shape[1]) + [x0 + (cw - pw) / 2, y0 + ch * 0.65]
    img, car = paste_layer(img, plate, np.float32(pq), p_labels, look, rng)
    polys = shop.polys + car.polys
    labels = [(c, (*p.min(0), *p.max(0))) for c, p in polys]
    return Background(img, labels, lookmatch.random_look(rng), "procedural")


def wall_signs(rng: np.random.Generator):
    """Street-name signs on façade walls and on poles, sometimes a house number, on a real street."""
    bg = real_background(rng, WALL_SOURCES, (1.0, 1.6)) or _procedural_street(rng)
    H, W = bg.img.shape[:2]
    grey = cv2.cvtColor(bg.img, cv2.COLOR_BGR2GRAY)
    shade = lookmatch.illumination(bg.img)
    layers = [base_layer(bg.labels, H, W)]
    taken = [b for _, b in bg.labels]
    for k in range(int(rng.integers(1, 3))):
        sign, labels = ob.obj_street_sign(rng)
        aspect = sign.shape[1] / sign.shape[0]
        width = W * rng.uniform(0.07, 0.2)
        for _ in range(12):
            on_pole = rng.random() < 0.45
            cx = rng.uniform(0.08, 0.92) * W
            cy = rng.uniform(0.1, 0.35 if on_pole else 0.55) * H
            box = (cx - width / 2, cy - width / aspect, cx + width / 2, cy + width / aspect)
            if not overlaps(box, taken, pad=width * 0.1):
                break
        else:
            continue
        taken.append(box)
        if on_pole:
            pw = max(3, int(width / aspect * rng.uniform(0.15, 0.25)))
            top, bottom = int(cy - width / aspect * 0.3), int(H * rng.uniform(0.9, 1.1))
            pole = props.pole(rng, max(4, bottom - top), pw)
            px = cx + rng.uniform(-0.35, 0.35) * width
            pq = np.float32(rect(pw, bottom - top) + [px - pw / 2, top])
            bg.img, layer = paste_layer(bg.img, pole, pq, [], bg.look, rng, shade)
            layers.append(layer)
            quad = pose_quad(sign.shape[1], sign.shape[0], (cx, cy), width, yaw=rng.uniform(-1.0, 1.0),
                             roll=rng.normal(0, 0.03), distance=rng.uniform(3, 8))
        else:
            quad = wall_quad((cx, cy), width * rng.uniform(0.8, 1.0), aspect,
                             wall_angle(grey, (cx - width, cy - width / 2, cx + width, cy + width / 2)), rng)
        shadow = None if on_pole else (tuple(rng.uniform(1, 4, 2)), 2.0, 0.25)
        bg.img, layer = paste_layer(bg.img, sign, quad, labels, bg.look, rng, shade, shadow=shadow)
        layers.append(layer)
    if rng.random() < 0.5:
        num, labels = ob.obj_house_number(rng)
        width = W * rng.uniform(0.025, 0.06)
        cx, cy = rng.uniform(0.05, 0.95) * W, rng.uniform(0.25, 0.65) * H
        box = (cx - width, cy - width, cx + width, cy + width)
        if not overlaps(box, taken):
            quad = wall_quad((cx, cy), width, num.shape[1] / num.shape[0], wall_angle(grey, box), rng)
            bg.img, layer = paste_layer(bg.img, num, quad, labels, bg.look, rng, shade)
            layers.append(layer)
            taken.append(box)
    if rng.random() < 0.4:
        layers += road_signs(bg, taken, rng, 1)
    return lookmatch.finish(bg.img, bg.look), boxes_of(layers, W, H)


def blade_signs(rng: np.random.Generator):
    """Projecting (blade) shop signs on a real street: panels fixed at right angles to the façade on a
    bracket, so a photo of the façade sees them turned, from face-on to almost edge-on (a tall,
    narrow shape), often with lettering stacked vertically. The fascia signs of the other scenes
    lie flat on the wall."""
    bg = real_background(rng, WALL_SOURCES, (1.0, 1.6)) or _procedural_street(rng)
    H, W = bg.img.shape[:2]
    shade = lookmatch.illumination(bg.img)
    layers = [base_layer(bg.labels, H, W)]
    taken = [b for _, b in bg.labels]
    for _ in range(int(rng.integers(1, 4))):
        sign, labels = ob.obj_blade_sign(rng)
        size = H * rng.uniform(0.07, 0.3)
        for _ in range(12):
            cx, cy = rng.uniform(0.05, 0.95) * W, rng.uniform(0.12, 0.6) * H
            box = (cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2)
            if not overlaps(box, taken, pad=size * 0.05):
                break
        else:
            continue
        taken.append(box)
        side = 1 if rng.random() < 0.5 else -1  # the wall is on this side of the sign
        quad = pose_quad(sign.shape[1], sign.shape[0], (cx, cy), size, yaw=-side * rng.uniform(0.0, 1.3),
                         roll=rng.normal(0, 0.03), distance=rng.uniform(3, 8))
        near = quad[1] if side > 0 else quad[0]  # the top corner on the wall's side
        arm = side * max(4.0, float(np.ptp(quad[:, 0])) * rng.uniform(0.15, 0.4))
        colour = tuple(int(v) for v in rng.integers(15, 80, 3))
        cv2.line(bg.img, (int(near[0]), int(near[1])), (int(near[0] + arm), int(near[1])), colour,
                 max(2, int(size * 0.02)), cv2.LINE_AA)
        bg.img, layer = paste_layer(bg.img, sign, quad, labels, bg.look, rng, shade)
        layers.append(layer)
    return lookmatch.finish(bg.img, bg.look), boxes_of(layers, W, H)


def _sky(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A sky from deep blue at the top to pale at the horizon, with soft clouds (BGR uint8)."""
    top = np.float32(rng.uniform([150, 90, 40], [235, 170, 120]))
    low = np.float32(rng.uniform([215, 200, 180], [250, 245, 240]))
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None] ** rng.uniform(0.6, 1.6)
    img = top * (1 - t) + low * t
    clouds = cv2.resize(rng.random((max(2, h // 60), max(2, w // 60))).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    cover = cv2.GaussianBlur(np.clip((clouds - rng.uniform(0.4, 0.8)) * 3, 0, 1), (0, 0), 12)[..., None]
    img = img * (1 - cover) + np.float32([245, 245, 245]) * cover
    return np.clip(np.broadcast_to(img, (h, w, 3)), 0, 255).astype(np.uint8)


def sign_closeup(rng: np.random.Generator):
    """A road sign photographed up close against sky, trees or a wall: no label at all.

    Close-up house-number plaques fill their frames in the real pack; this teaches that a large
    sign with letters or digits is not by itself a house number or a street-name sign."""
    W, H = int(rng.integers(560, 900)), int(rng.integers(480, 800))
    kind = int(rng.choice(3, p=[0.5, 0.25, 0.25]))
    img = (_sky(rng, H, W), photo.procedural_background(rng, W, H), props.plain(rng, H, W))[kind]
    look = lookmatch.random_look(rng)
    size = min(W, H) * rng.uniform(0.3, 0.85)
    cx, cy = W * rng.uniform(0.3, 0.7), H * rng.uniform(0.3, 0.6)
    pw = max(4, int(size * rng.uniform(0.05, 0.09)))
    pole = props.pole(rng, max(4, H - int(cy)), pw)
    img, _ = paste_layer(img, pole, np.float32(rect(pw, H - int(cy)) + [cx - pw / 2, int(cy)]), [], look, rng)
    sign, alpha, _kind = traffic_sign(rng)
    quad = pose_quad(sign.shape[1], sign.shape[0], (cx, cy), size, yaw=rng.uniform(-0.6, 0.6),
                     pitch=rng.uniform(-0.3, 0.3), roll=rng.normal(0, 0.05), distance=rng.uniform(2.5, 6))
    img, _ = paste_layer(img, sign, quad, [], look, rng, alpha=alpha)
    return lookmatch.finish(img, look), []


# Plate widths (scene px) of a distant car: the app reads a photo's 640-px tiles at 320 px, so these
# are 7-28 px at the model's input, where the real pack's close-ups rarely put a plate.
FAR_PLATE_PX = (14.0, 56.0)


def car_cutout(rng: np.random.Generator):
    """The car round one labelled plate of a real plate photo, with a soft-edged alpha: (BGR crop,
    uint8 alpha, [(class, xyxy)] of every labelled plate in the crop, the chosen plate's width);
    None when the pack has no plate photo with a plate wide enough to find its car by."""
    bg = real_background(rng, PLATE_SOURCES, (1.0, 1.0))
    if bg is None:
        return None
    plates = [b for c, b in bg.labels if c == "license_plate" and b[2] - b[0] >= 12]
    if not plates:
        return None
    box = plates[int(rng.integers(0, len(plates)))]
    if rng.random() < 0.5 and box[2] - box[0] >= 14:  # a new registration, as street_plates does
        bg.img, layer = replace_plate(bg, box, rng)
        (_, poly), = layer.polys
        bg.labels = [(c, (*poly.min(0), *poly.max(0)) if b == box else b) for c, b in bg.labels]
        box = (*poly.min(0), *poly.max(0))
    pw = box[2] - box[0]
    H, W = bg.img.shape[:2]
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    x0, x1 = max(0, int(cx - pw * rng.uniform(2.2, 3.2))), min(W, int(cx + pw * rng.uniform(2.2, 3.2)))
    y0, y1 = max(0, int(cy - pw * rng.uniform(1.6, 2.6))), min(H, int(cy + pw * rng.uniform(0.6, 1.0)))
    crop = bg.img[y0:y1, x0:x1]
    h, w = crop.shape[:2]
    alpha = np.zeros((h, w), np.uint8)
    inset = max(1, int(min(h, w) * 0.08))
    cv2.rectangle(alpha, (inset, inset), (w - 1 - inset, h - 1 - inset), 255, -1)
    alpha = lookmatch.soft_blur(alpha, max(1.0, inset * 0.6))
    labels = [(c, (b[0] - x0, b[1] - y0, b[2] - x0, b[3] - y0)) for c, b in bg.labels
              if c == "license_plate" and b[0] >= x0 and b[1] >= y0 and b[2] <= x1 and b[3] <= y1]
    if rng.random() < 0.5:  # the other side of the road
        crop, alpha = crop[:, ::-1].copy(), alpha[:, ::-1].copy()
        labels = [(c, (w - b[2], b[1], w - b[0], b[3])) for c, b in labels]
    return crop, alpha, labels, pw


def distant_cars(rng: np.random.Generator):
    """Cars seen from across the street: real cars cut from the plate photos round their plates,
    shrunk to street-scene scale (``FAR_PLATE_PX``) and set at street level in front of a real
    façade (the shop-sign photos: whole fronts down to the pavement), so plates appear as small as
    they are in wide photos of a street."""
    bg = real_background(rng, STREET_FRONT_SOURCES, (1.4, 2.4)) or _procedural_street(rng)
    H, W = bg.img.shape[:2]
    layers = [base_layer(bg.labels, H, W)]
    taken = [b for _, b in bg.labels]
    wanted, placed = int(rng.integers(1, 4)), 0
    for _ in range(3 * wanted):
        if placed == wanted:
            break
        cut = car_cutout(rng)
        if cut is None:
            break
        crop, alpha, labels, pw = cut
        if pw * 0.9 <= FAR_PLATE_PX[0]:  # only ever shrunk: a distant car, not an enlarged blur
            continue
        s = rng.uniform(FAR_PLATE_PX[0], min(FAR_PLATE_PX[1], pw * 0.9)) / pw
        w, h = max(4, round(crop.shape[1] * s)), max(4, round(crop.shape[0] * s))
        if w >= W or h >= H:
            continue
        for _ in range(12):
            x, y = rng.uniform(0, W - w), H * rng.uniform(0.88, 1.02) - h  # standing on the pavement
            box = (x, max(0.0, y), x + w, y + h)
            if not overlaps(box, taken, pad=2):
                break
        else:
            continue
        taken.append(box)
        quad = np.float32(rect(crop.shape[1], crop.shape[0]) * [w / crop.shape[1], h / crop.shape[0]] + [x, y])
        # a real photo already has real colours: blended with the street's look, not re-exposed
        bg.img, layer = paste_layer(bg.img, crop, quad, labels, bg.look, rng, alpha=alpha, exposed=crop.astype(np.float32))
        layers.append(layer)
        placed += 1
    return lookmatch.finish(bg.img, bg.look), boxes_of(layers, W, H)
