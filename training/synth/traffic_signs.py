"""Road signs that hold nothing private: stop, speed limit, warning, no entry, parking, one-way.

They go on poles in real street photos *unlabelled*, so the detector learns that a sign with text
or a number on a street is not by itself a street-name sign or a house number. Each sign is drawn
with OpenCV on a square canvas and returned with its outline as an alpha mask.
"""

from __future__ import annotations

import cv2
import numpy as np

RED, WHITE, BLACK, BLUE, YELLOW = (40, 30, 200), (245, 245, 245), (20, 20, 20), (160, 80, 10), (20, 200, 245)
KINDS = ("stop", "speed", "warning", "give_way", "no_entry", "mandatory", "parking", "diamond", "one_way")


def _text(img: np.ndarray, text: str, cx: float, cy: float, width: float, colour, thick: float) -> None:
    """``text`` centred on (cx, cy), scaled to ``width`` px (Hershey: no font files needed)."""
    font = cv2.FONT_HERSHEY_DUPLEX
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = width / max(tw, 1)
    t = max(1, int(round(thick * scale)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, t)
    cv2.putText(img, text, (int(cx - tw / 2), int(cy + th / 2)), font, scale, colour, t, cv2.LINE_AA)


def _regular(n: int, cx: float, cy: float, r: float, rot: float) -> np.ndarray:
    a = rot + np.arange(n) * 2 * np.pi / n
    return np.int32(np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], 1))


def traffic_sign(rng: np.random.Generator, size: int = 240) -> tuple[np.ndarray, np.ndarray, str]:
    """A random non-private road sign: (BGR uint8, alpha uint8 outline, kind)."""
    kind = str(rng.choice(KINDS))
    s = size
    c = s / 2
    img = np.full((s, s, 3), 128, np.uint8)
    alpha = np.zeros((s, s), np.uint8)

    def shape(poly=None, circle=None, fill=WHITE, border=None, bw=0.0):
        """Outline into ``alpha``; ``border`` colour, then ``fill`` shrunk by ``bw`` inside it."""
        def draw(target, colour, k=1.0):
            if poly is not None:
                cv2.fillPoly(target, [np.int32((poly - c) * k + c)], colour, cv2.LINE_AA)
            else:
                cv2.circle(target, (int(c), int(c)), int(circle * k), colour, -1, cv2.LINE_AA)

        draw(alpha, 255)
        draw(img, border or fill)
        if border is not None:
            draw(img, fill, 1 - bw)

    if kind == "stop":
        shape(poly=_regular(8, c, c, s * 0.49, np.pi / 8), fill=RED, border=WHITE, bw=0.06)
        _text(img, str(rng.choice(["STOP", "STOP", "ALTO", "ARRET"])), c, c, s * 0.66, WHITE, 2.2)
    elif kind == "speed":
        shape(circle=s * 0.49, fill=WHITE, border=RED, bw=0.16)
        _text(img, str(int(rng.choice([10, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]))), c, c, s * 0.5, BLACK, 2.0)
    elif kind in ("warning", "give_way"):
        up = kind == "warning"
        poly = _regular(3, c, c + (s * 0.1 if up else -s * 0.1), s * 0.52, -np.pi / 2 if up else np.pi / 2)
        shape(poly=poly, fill=YELLOW if rng.random() < 0.3 else WHITE, border=RED, bw=0.22)
        if up:
            _text(img, "!", c, c + s * 0.12, s * 0.12, BLACK, 3.0)
    elif kind == "no_entry":
        shape(circle=s * 0.49, fill=RED)
        cv2.rectangle(img, (int(s * 0.18), int(c - s * 0.08)), (int(s * 0.82), int(c + s * 0.08)), WHITE, -1)
    elif kind == "mandatory":
        shape(circle=s * 0.49, fill=BLUE)
        tip = [(c, s * 0.2), (c + s * 0.18, s * 0.42), (c - s * 0.18, s * 0.42)]
        cv2.fillPoly(img, [np.int32(tip)], WHITE, cv2.LINE_AA)
        cv2.rectangle(img, (int(c - s * 0.06), int(s * 0.4)), (int(c + s * 0.06), int(s * 0.8)), WHITE, -1)
    elif kind == "parking":
        shape(poly=np.int32([[s * 0.04, s * 0.04], [s * 0.96, s * 0.04], [s * 0.96, s * 0.96], [s * 0.04, s * 0.96]]),
              fill=BLUE, border=WHITE, bw=0.05)
        _text(img, "P", c, c, s * 0.42, WHITE, 2.5)
    elif kind == "diamond":
        shape(poly=_regular(4, c, c, s * 0.49, 0.0), fill=YELLOW, border=BLACK, bw=0.06)
        cv2.arrowedLine(img, (int(c - s * 0.2), int(c + s * 0.1)), (int(c + s * 0.2), int(c - s * 0.1)), BLACK,
                        max(2, s // 18), cv2.LINE_AA, tipLength=0.4)
    else:  # one_way: a wide white plate with an arrow and words
        h0, h1 = s * 0.3, s * 0.7
        shape(poly=np.int32([[2, h0], [s - 2, h0], [s - 2, h1], [2, h1]]), fill=WHITE, border=BLACK, bw=0.04)
        cv2.arrowedLine(img, (int(s * 0.12), int(c + s * 0.08)), (int(s * 0.88), int(c + s * 0.08)), BLACK,
                        max(2, s // 24), cv2.LINE_AA, tipLength=0.15)
        _text(img, str(rng.choice(["ONE WAY", "EINBAHN", "SENS UNIQUE"])), c, c - s * 0.07, s * 0.6, BLACK, 1.6)
    img[alpha == 0] = 128
    return img, alpha, kind
