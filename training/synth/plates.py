"""Licence plates as cars carry them, in the styles a street photo shows.

The held-out real photos the detector misses most are not EU plates but North-American ones
(about 2:1, a state name over the registration, coloured characters, pictures, slogans, stickers,
dealer frames), two-row square plates, yellow rear plates and plates their uploader already
blurred. Each style here returns ``(BGR uint8 (H, W, 3), labels)`` with ``license_plate`` over the
whole plate, like every ``objects.obj_*``.
"""

from __future__ import annotations

import cv2
import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFontMetricsF, QLinearGradient, QPolygonF

from .qtkit import MONO, SANS, SERIF, Canvas, available, make_font

LETTERS = list("ABCDEFGHJKLMNPRSTUVWXYZ")
REGIONS = ("CALIFORNIA", "TEXAS", "NEW YORK", "FLORIDA", "OHIO", "ONTARIO", "QUEBEC", "ARIZONA", "OREGON", "GEORGIA",
           "MICHIGAN", "NEVADA", "ILLINOIS", "VIRGINIA", "Connecticut", "New Jersey", "Colorado", "Washington")
SLOGANS = ("Sunshine State", "Land of Lincoln", "Great Lakes", "Empire State", "Yours to Discover", "Je me souviens",
           "Grand Canyon State", "Garden State", "Constitution State", "dmv.ca.gov", "Lone Star State", "Peach State")
INKS = ("#111111", "#0d2a6b", "#1b3f8b", "#7a1020", "#0f5a2a", "#3b1f5c")
PALE = ("#ffffff", "#f4f1e6", "#eef4fb", "#fdf6d8", "#f2f2f2")


def _fam(rng, fams) -> str:
    return str(rng.choice(available(fams)))


def _fitted(text: str, fams, max_w: float, max_h: float, rng, bold: bool = True):
    """A font of one of ``fams`` as large as lets ``text`` fit ``max_w`` wide and ``max_h`` tall (its line height)."""
    family = _fam(rng, fams)
    metrics = QFontMetricsF(make_font(family, max_h, bold=bold))
    px = max_h * min(1.0, max_w / max(metrics.horizontalAdvance(text), 1.0), max_h / max(metrics.height(), 1.0))
    return make_font(family, px, bold=bold)


def _centred(c: Canvas, text: str, fams, top: float, max_w: float, max_h: float, ink: str, rng) -> None:
    """``text`` as large as fits (``_fitted``), centred across the plate with its top at ``top``."""
    font = _fitted(text, fams, max_w, max_h, rng)
    c.text(c.lw / 2 - QFontMetricsF(font).horizontalAdvance(text) / 2, top, text, font, ink)


def _registration(rng) -> str:
    """A North-American style registration: ``7ABC123``, ``ABC-1234``, ``123 XYZ`` or a vanity word."""
    digits = lambda n: "".join(str(d) for d in rng.integers(0, 10, n))  # noqa: E731
    letters = lambda n: "".join(rng.choice(LETTERS, n))  # noqa: E731
    kind = int(rng.integers(0, 5))
    if kind == 4:
        return letters(int(rng.integers(3, 6)))
    return (f"{rng.integers(1, 9)}{letters(3)}{digits(3)}", f"{letters(3)}-{digits(4)}", f"{digits(3)} {letters(3)}",
            f"{letters(2)}{digits(1)} {digits(4)}")[kind]  # fmt: skip


def _pale_background(c: Canvas, w: float, h: float, rng) -> None:
    """A plain, graded or pictured (sky band, hills, sun) light plate face."""
    style = rng.random()
    if style < 0.35:
        return
    top = QColor(str(rng.choice(("#cfe3f7", "#f9e3b4", "#e0f0dc", "#fde6e6", "#e8e0f4"))))
    g = QLinearGradient(0, 0, 0, h)
    g.setColorAt(0, top)
    g.setColorAt(rng.uniform(0.4, 0.8), QColor("#ffffff"))
    c.p.fillRect(QRectF(0, 0, w, h), g)
    if style > 0.7:
        hill = QColor(str(rng.choice(("#b7d3a8", "#d9b98a", "#a9c4de", "#c9a7a0"))))
        xs = np.linspace(0, w, 7)
        ys = h * (0.75 - 0.15 * rng.random(7))
        poly = QPolygonF([QPointF(0, h)] + [QPointF(float(x), float(y)) for x, y in zip(xs, ys)] + [QPointF(w, h)])
        c.p.setPen(QColor(0, 0, 0, 0))
        c.p.setBrush(hill)
        c.p.drawPolygon(poly)
        if rng.random() < 0.5:
            c.ellipse(w * rng.uniform(0.05, 0.8), h * 0.08, h * 0.25, h * 0.25, str(rng.choice(("#f6c343", "#f08a4b"))))


def _stickers(c: Canvas, w: float, h: float, rng) -> None:
    for x in ([8.0] if rng.random() < 0.5 else []) + ([w - 50.0] if rng.random() < 0.6 else []):
        colour = str(rng.choice(("#d7263d", "#1b998b", "#f46036", "#2e294e", "#e2c044")))
        c.rect(x, 8, 42, 26, colour, 3)
        c.text(x + 6, 11, str(rng.integers(10, 30)), make_font(_fam(rng, SANS), 15, bold=True), "#ffffff")


def _frame(c: Canvas, w: float, h: float, rng) -> None:
    """A dealer's frame: a dark or chrome rim, thicker at the bottom, with the dealer's name."""
    rim = str(rng.choice(("#161616", "#2b2b2b", "#b9bcc0")))
    thick = h * rng.uniform(0.06, 0.1)
    for x, y, fw, fh in ((0, 0, w, thick), (0, 0, thick, h), (w - thick, 0, thick, h)):
        c.rect(x, y, fw, fh, rim)
    bottom = h * rng.uniform(0.14, 0.2)
    c.rect(0, h - bottom, w, bottom, rim)
    ink = "#ffffff" if QColor(rim).lightness() < 128 else "#111111"
    name = str(rng.choice(("AUTO MALL", "HONDA OF", "TOYOTA", "MOTORS", "CARMAX", "FORD", "DEALER")))
    c.text(w * 0.25, h - bottom + 2, name, make_font(_fam(rng, SANS), bottom * 0.6, bold=True), ink)


def north_american(rng) -> Canvas:
    """A 12 × 6 in plate: region name over the registration, slogan under it, stickers, maybe a frame."""
    w, h = 300.0, 150.0
    c = Canvas(w, h, str(rng.choice(PALE)))
    _pale_background(c, w, h, rng)
    ink = str(rng.choice(INKS))
    head = str(rng.choice(REGIONS))
    head_font = make_font(_fam(rng, SERIF + SANS), h * rng.uniform(0.14, 0.2), bold=bool(rng.random() < 0.6))
    head_font.setItalic(bool(rng.random() < 0.35))
    head_w = QFontMetricsF(head_font).horizontalAdvance(head)
    c.text(w / 2 - head_w / 2, h * 0.06, head, head_font, str(rng.choice(INKS + ("#c62828",))))
    _centred(c, _registration(rng), MONO + SANS, h * 0.28, w - 24, h * rng.uniform(0.48, 0.56), ink, rng)
    if rng.random() < 0.7:
        c.text(w * 0.3, h * 0.8, str(rng.choice(SLOGANS)), make_font(_fam(rng, SERIF + SANS), h * 0.1), ink)
    _stickers(c, w, h, rng)
    if rng.random() < 0.4:
        _frame(c, w, h, rng)
    else:
        c.rect(2, 2, w - 4, h - 4, None, 10, str(rng.choice(("#555555", ink, "#9a9a9a"))), 3)
    return c


def european(rng) -> Canvas:
    """A long EU plate (blue band, country letters), white or a yellow rear plate."""
    w, h = 520.0, 112.0
    yellow = rng.random() < 0.25
    c = Canvas(w, h, "#f7c600" if yellow else "#ffffff")
    c.rect(3, 3, w - 6, h - 6, None, 8, "#111111", 4)
    band = not yellow or rng.random() < 0.5
    if band:
        c.rect(6, 6, 48, h - 12, "#003399", 4)
        c.text(15, h - 44, str(rng.choice(["D", "F", "NL", "I", "E", "PL", "GB", "UK"])), make_font(_fam(rng, SANS), 22, bold=True), "#ffffff")
    reg = (f"{''.join(rng.choice(LETTERS, int(rng.integers(1, 4))))}-{''.join(rng.choice(LETTERS, 2))} {rng.integers(1, 9999)}"
           if not yellow else f"{''.join(rng.choice(LETTERS, 2))}{rng.integers(10, 99)} {''.join(rng.choice(LETTERS, 3))}")
    left = 60 if band else 12
    c.text(left, h * 0.1, reg, _fitted(reg, MONO + SANS, w - left - 12, h * 0.8, rng), "#111111")
    return c


def two_row(rng) -> Canvas:
    """A near-square plate with the registration on two rows (motorcycles, many rear plates)."""
    w, h = 220.0, 170.0
    c = Canvas(w, h, str(rng.choice(("#ffffff", "#f7c600", "#f4f1e6"))))
    c.rect(3, 3, w - 6, h - 6, None, 8, "#111111", 4)
    top, bottom = "".join(rng.choice(LETTERS, int(rng.integers(2, 4)))), str(rng.integers(100, 9999))
    _centred(c, top, MONO + SANS, h * 0.06, w - 24, h * 0.44, "#111111", rng)
    _centred(c, bottom, MONO + SANS, h * 0.5, w - 24, h * 0.44, "#111111", rng)
    return c


def license_plate(rng, eu: bool | None = None) -> tuple[np.ndarray, list]:
    """A plate in one of the styles above: long EU plates when ``eu`` (None: drawn at random),
    otherwise mostly North-American, some two-row; one in ten is already blurred by its uploader."""
    eu = bool(rng.random() < 0.45) if eu is None else eu
    c = european(rng) if eu else (two_row(rng) if rng.random() < 0.2 else north_american(rng))
    c.label("license_plate", (0, 0, c.lw, c.lh))
    img, labels = c.finish()
    if rng.random() < 0.1:
        img = _blurred(img, rng)
    return img, labels


def _blurred(img: np.ndarray, rng) -> np.ndarray:
    """The plate as uploaders publish it: characters blurred away or covered by a blank patch."""
    h, w = img.shape[:2]
    if rng.random() < 0.5:
        k = max(3, int(min(h, w) * 0.3) | 1)
        return cv2.GaussianBlur(img, (k, k), 0)
    out = img.copy()
    colour = tuple(int(v) for v in rng.integers(180, 256, 3))
    cv2.rectangle(out, (int(w * 0.08), int(h * 0.2)), (int(w * 0.92), int(h * 0.8)), colour, -1)
    return out
