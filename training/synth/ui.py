"""Shared UI pieces for rendered screens: themes, avatars, status bars, toasts, maps."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen

from . import fakedata as fd
from .qtkit import MONO, SANS, SERIF, Canvas, available, make_font

ACCENTS = ("#1a73e8", "#0b8043", "#d93025", "#8e24aa", "#f4511e", "#039be5", "#3949ab", "#00897b", "#e91e63", "#5e35b1", "#128c7e", "#0a84ff")


@dataclass(frozen=True)
class Theme:
    """Colours and fonts of one rendered screen."""

    dark: bool
    bg: str
    surface: str
    text: str
    muted: str
    border: str
    accent: str
    family: str
    mono: str
    serif: str


def theme(rng: np.random.Generator, dark: bool | None = None) -> Theme:
    """A random light or dark theme with a random accent and font family."""
    dark = bool(rng.random() < 0.35) if dark is None else dark
    accent = str(rng.choice(ACCENTS))
    fam = str(rng.choice(available(SANS)))
    mono = str(rng.choice(available(MONO)))
    serif = str(rng.choice(available(SERIF)))
    if dark:
        g = int(rng.integers(16, 40))
        bg = QColor(g, g, g + int(rng.integers(0, 8))).name()
        surf = QColor(g + 14, g + 14, g + 18).name()
        return Theme(True, bg, surf, "#e8eaed", "#9aa0a6", "#3c4043", accent, fam, mono, serif)
    g = int(rng.integers(238, 256))
    return Theme(False, QColor(g, g, g).name(), "#ffffff", str(rng.choice(["#202124", "#111111", "#1c1c1e", "#333333"])),
                 str(rng.choice(["#5f6368", "#6b7280", "#8e8e93"])), "#dadce0", accent, fam, mono, serif)


def avatar(c: Canvas, x: float, y: float, d: float, rng: np.random.Generator, initials: str, square: bool = False) -> None:
    """A profile picture without a face: initials on colour, or an abstract pattern. Labelled."""
    p = c.p
    p.save()
    path = QPainterPath()
    if square:
        path.addRoundedRect(QRectF(x, y, d, d), d * 0.2, d * 0.2)
    else:
        path.addEllipse(QRectF(x, y, d, d))
    p.setClipPath(path)
    base = QColor(str(rng.choice(ACCENTS)))
    p.fillRect(QRectF(x, y, d, d), base)
    kind = int(rng.integers(0, 3))
    if kind == 0:
        f = make_font(str(rng.choice(available(SANS))), d * 0.42, bold=True)
        p.setFont(f)
        p.setPen(QColor("#ffffff"))
        p.drawText(QRectF(x, y, d, d), Qt.AlignmentFlag.AlignCenter, initials[:2].upper())
    else:
        # Abstract "photo": soft blobs; we render no faces or people (no licensed sources).
        for _ in range(int(rng.integers(3, 8))):
            col = QColor(*(int(v) for v in rng.integers(30, 240, 3)))
            col.setAlpha(200)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(col)
            r = d * rng.uniform(0.2, 0.7)
            p.drawEllipse(QPointF(x + d * rng.uniform(0, 1), y + d * rng.uniform(0, 1)), r, r * rng.uniform(0.5, 1.2))
    p.restore()
    c.label("avatar", (x, y, x + d, y + d))


def status_bar(c: Canvas, w: float, th: Theme, rng: np.random.Generator, ios: bool) -> float:
    """Phone status bar (time, signal, battery); returns its height."""
    h = 44.0 if ios else 28.0
    f = make_font(th.family, 14 if ios else 12, bold=ios)
    tm = f"{int(rng.integers(0, 24)):02d}:{int(rng.integers(0, 60)):02d}"
    c.text(24 if ios else 14, (h - 16) / 2, tm, f, th.text)
    x = w - 20
    c.rect(x - 24, h / 2 - 6, 24, 12, None, 3, th.text, 1.2)
    c.rect(x - 22, h / 2 - 4, 20 * rng.uniform(0.2, 1), 8, th.text, 1.5)
    for i in range(4):
        bh = 4 + i * 2.5
        c.rect(x - 60 + i * 5, h / 2 + 6 - bh, 3, bh, th.text)
    return h


def toast(c: Canvas, x: float, y: float, w: float, th: Theme, rng: np.random.Generator, person: fd.Person, mobile: bool) -> float:
    """A notification (toast/banner) with sender and message; labels the whole toast. Returns height."""
    h = 74.0 if mobile else 86.0
    c.occlude(x, y, w, h)
    bg = "#2d2e31" if th.dark else str(rng.choice(["#ffffff", "#f7f7f9", "#eef2f7"]))
    fg = "#e8eaed" if th.dark else "#202124"
    # Soft shadow first so the toast reads as floating over content.
    for i in range(4):
        col = QColor(0, 0, 0, 18 - i * 4)
        c.rect(x - i, y - i + 3, w + 2 * i, h + 2 * i, col, 14 + i)
    c.rect(x, y, w, h, bg, 14 if mobile else 8, th.border if not th.dark else None, 1)
    c.rect(x + 12, y + 12, 20, 20, th.accent, 5)
    small = make_font(th.family, 11)
    app = str(rng.choice(["Messages", "WhatsApp", "Signal", "Mail", "Slack", "Bank", "Telegram", "Calendar"]))
    c.text(x + 40, y + 14, f"{app} · now", small, "#9aa0a6" if th.dark else "#5f6368")
    kind = int(rng.integers(0, 4))
    bold = make_font(th.family, 14, bold=True)
    body = make_font(th.family, 13)
    c.spans(x + 12, y + 38, [(person.name, "person_name")], bold, fg)
    msg_w = w - 24
    if kind == 0:
        code = fd.otp(rng)
        c.spans(x + 12, y + 56, [("Your verification code is ", None), (code, "verification_code")], body, fg)
    elif kind == 1:
        c.spans(x + 12, y + 56, [("Call me back at ", None), (person.phone, "phone_number")], body, fg)
    else:
        s = fd.sentence(rng)
        while len(s) > 8 and make_font(th.family, 13) and len(s) * 7.2 > msg_w:
            s = s[: int(len(s) * 0.8)].rstrip() + "…"
        c.text(x + 12, y + 56, s, body, fg)
    c.label("notification", (x, y, x + w, y + h))
    return h


def map_view(c: Canvas, x: float, y: float, w: float, h: float, rng: np.random.Generator, dark: bool) -> None:
    """A procedural street map (blocks, roads, park, water, pins); labelled ``map_view``."""
    p = c.p
    p.save()
    p.setClipRect(QRectF(x, y, w, h))
    land = QColor("#242f3e" if dark else "#f2efe9")
    p.fillRect(QRectF(x, y, w, h), land)
    if rng.random() < 0.6:
        p.setBrush(QColor("#17263c" if dark else "#aadaff"))
        p.setPen(Qt.PenStyle.NoPen)
        path = QPainterPath(QPointF(x, y + h * rng.uniform(0.5, 0.9)))
        for t in np.linspace(0, 1, 6):
            path.lineTo(QPointF(x + w * t, y + h * rng.uniform(0.6, 1.0)))
        path.lineTo(QPointF(x + w, y + h))
        path.lineTo(QPointF(x, y + h))
        p.drawPath(path)
    for _ in range(int(rng.integers(1, 4))):
        p.setBrush(QColor("#263c3f" if dark else "#c8e6c9"))
        p.drawRoundedRect(QRectF(x + rng.uniform(0, w), y + rng.uniform(0, h), rng.uniform(40, 160), rng.uniform(30, 120)), 8, 8)
    road = QColor("#38414e" if dark else "#ffffff")
    major = QColor("#746855" if dark else "#fcd36b")
    for i in range(int(rng.integers(6, 16))):
        p.setPen(QPen(major if i < 2 else road, rng.uniform(3, 9) if i < 2 else rng.uniform(2, 5)))
        if rng.random() < 0.5:
            yy = y + rng.uniform(0, h)
            p.drawLine(QPointF(x, yy), QPointF(x + w, yy + rng.uniform(-60, 60)))
        else:
            xx = x + rng.uniform(0, w)
            p.drawLine(QPointF(xx, y), QPointF(xx + rng.uniform(-60, 60), y + h))
    f = make_font(str(rng.choice(available(SANS))), 10)
    fake = fd.faker_for(rng)
    for _ in range(int(rng.integers(2, 6))):
        c.text(x + rng.uniform(0, w * 0.8), y + rng.uniform(0, h * 0.9), fake.street_name(), f, "#c9c9c9" if dark else "#5f6368")
    for _ in range(int(rng.integers(1, 3))):
        px, py = x + rng.uniform(20, w - 20), y + rng.uniform(30, h - 10)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor("#ea4335"))
        p.drawEllipse(QPointF(px, py - 18), 9, 9)
        pin = QPainterPath(QPointF(px - 8, py - 15))
        pin.lineTo(QPointF(px, py))
        pin.lineTo(QPointF(px + 8, py - 15))
        p.drawPath(pin)
    p.restore()
    c.label("map_view", (x, y, x + w, y + h))


def mono_font(th: Theme, px: float):
    """Monospace font of the theme at ``px``."""
    return make_font(th.mono, px)


_KEY_ROWS = {
    "qwerty": ("qwertyuiop", "asdfghjkl", "zxcvbnm"),
    "qwertz": ("qwertzuiopü", "asdfghjklöä", "yxcvbnm"),
    "azerty": ("azertyuiop", "qsdfghjklm", "wxcvbn"),
    "digits": ("1234567890", "-/:;()€&@\"", ".,?!'"),
}
_DIALPAD = (("1", ""), ("2", "ABC"), ("3", "DEF"), ("4", "GHI"), ("5", "JKL"), ("6", "MNO"),
            ("7", "PQRS"), ("8", "TUV"), ("9", "WXYZ"), ("*", ""), ("0", "+"), ("#", ""))
_SUGGESTIONS = ("the", "I", "and", "you", "ok", "thanks", "see", "on", "my", "yes", "Hi", "is", "can", "will", "at",
                "danke", "merci", "le", "und", "time", "today", "later", "sure", "good")


def keyboard(c: Canvas, w: float, h: float, th: Theme, rng: np.random.Generator) -> float:
    """An on-screen keyboard (letters, symbols or a PIN/dial pad) over the bottom of a phone screen,
    unlabelled: rows of single letters and digits are exactly what a code or plate detector must
    learn to leave alone. Labels it hides are forgotten. Returns its top y."""
    pad = bool(rng.random() < 0.25)
    kh = float(rng.uniform(0.3, 0.36) * h)
    top = h - kh
    c.occlude(0, top, w, kh)
    dark = th.dark
    panel = str(rng.choice(["#1f1f1f", "#2b2b2d", "#202124"] if dark else ["#d1d3d9", "#e8eaed", "#f1f3f4", "#cfd4da"]))
    key = str(rng.choice(["#3c3c3f", "#4a4a4d"] if dark else ["#ffffff", "#fcfcfe"]))
    fg = "#f1f1f1" if dark else "#202124"
    c.rect(0, top, w, kh, panel)
    y = top + 6
    if not pad:  # the suggestion strip
        f = make_font(th.family, 15)
        words = rng.choice(_SUGGESTIONS, 3, replace=False)
        for i, word in enumerate(words):
            c.text(w * (i + 0.5) / 3 - 8 * len(str(word)) / 2, y + 8, str(word), f, fg)
        y += 40
    gap = 6.0
    if pad:
        rows, cols = 4, 3
        kw, khh = (w - gap * (cols + 1)) / cols, (h - y - gap * (rows + 1) - 20) / rows
        big, small = make_font(th.family, 24), make_font(th.family, 9, bold=True)
        for i, (digit, letters) in enumerate(_DIALPAD):
            x0, y0 = gap + (i % cols) * (kw + gap), y + gap + (i // cols) * (khh + gap)
            c.rect(x0, y0, kw, khh, key, 6)
            c.text(x0 + kw / 2 - 7, y0 + khh / 2 - 20, digit, big, fg)
            if letters:
                c.text(x0 + kw / 2 - 4 * len(letters), y0 + khh / 2 + 8, letters, small, fg)
        return top
    layout = _KEY_ROWS[str(rng.choice(list(_KEY_ROWS)))]
    upper = bool(rng.random() < 0.4)
    n = max(len(r) for r in layout)
    kw = (w - gap * (n + 1)) / n
    khh = (h - y - gap * 5 - 20) / 4
    f = make_font(th.family, float(np.clip(khh * 0.45, 14, 24)))
    for r, row in enumerate(layout):
        x0 = (w - len(row) * (kw + gap) + gap) / 2
        for k, ch in enumerate(row):
            x, yy = x0 + k * (kw + gap), y + gap + r * (khh + gap)
            c.rect(x, yy, kw, khh, key, 5)
            c.text(x + kw / 2 - 5, yy + khh * 0.22, ch.upper() if upper else ch, f, fg)
    yb = y + gap + 3 * (khh + gap)  # the bottom row: mode key, space bar, return
    c.rect(gap, yb, kw * 2, khh, panel if dark else "#adb3bc", 5)
    c.text(gap + 6, yb + khh * 0.25, "123" if layout is not _KEY_ROWS["digits"] else "ABC", make_font(th.family, 13), fg)
    c.rect(gap * 2 + kw * 2, yb, w - kw * 4 - gap * 4, khh, key, 5)
    c.text(w / 2 - 20, yb + khh * 0.25, str(rng.choice(["space", "English", "Deutsch", "Français", ""])),
           make_font(th.family, 12), th.muted)
    c.rect(w - gap - kw * 2, yb, kw * 2, khh, th.accent if rng.random() < 0.5 else key, 5)
    return top


__all__ = ["Theme", "theme", "avatar", "status_bar", "toast", "map_view", "keyboard", "mono_font", "MONO", "SANS", "SERIF"]
