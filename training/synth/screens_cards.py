"""Harmless card-like UI: feeds, tile grids, dashboards, banners, loyalty-card artwork, login pages.

Negatives for the detector: rounded cards, gradient banners, card-shaped store artwork (no number,
no name), big display numbers ("1,284", "42 %", "12:45") and large headings are drawn and left
unlabelled, so ``payment_card``, ``notification``, ``verification_code``, ``house_number`` and the
other physical classes train as background here. The PII such pages really hold (names, usernames,
e-mails, avatars, and a real notification now and then) is labelled as in the other screens.
``render_cards_page`` returns ``(BGR uint8 (H, W, 3), [(class_name, xyxy image pixels)])``.
"""

from __future__ import annotations

from html import escape as esc

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QLinearGradient, QPainterPath

from . import fakedata as fd
from .qtkit import Canvas, make_font, rounded_path
from .screens_web import browser_chrome
from .ui import ACCENTS, Theme, avatar, keyboard, status_bar, theme

# Everything this scene can label; every other class is provably absent (known negative).
CARDS_CLASSES = frozenset({"person_name", "username", "email", "avatar", "notification"})

_STORES = ("FreshMart", "Brew & Co", "Nordic Books", "Petal", "Kiosk 24", "UrbanFit", "Bäckerei Sonne", "Le Panier",
           "Green Leaf", "Cinema City", "Pet Palace", "Café Lumen", "Sportzone", "Bloom", "Mercado", "Velo Club")
_TIERS = ("Rewards", "Member", "Gold", "Silver", "Club", "Plus", "Premium", "Friends", "VIP", "Punkte", "Fidélité")
_PRODUCTS = ("Linen Shirt", "Desk Lamp", "Running Shoes", "Ceramic Mug", "Backpack", "Green Tea", "Wireless Earbuds",
             "Notebook A5", "Plant Pot", "Sunglasses", "Yoga Mat", "Coffee Beans", "Wool Scarf", "Water Bottle")
_STATS = ("Active users", "Revenue", "Sessions", "Orders", "Conversion", "Avg. time", "Bounce rate", "Downloads",
          "Open tickets", "Page views", "Steps today", "Sleep", "Storage used", "Uptime")
_CATEGORIES = ("Fashion", "Home", "Sports", "Books", "Music", "Travel", "Food", "Games", "Beauty", "Kids", "Garden", "Tech")
_HEADINGS = ("Welcome back", "Sign in", "Create your account", "Log in to continue", "Hello again", "Willkommen",
             "Bienvenue", "Get started")


def big_number(rng: np.random.Generator) -> str:
    """A display figure such as a dashboard shows: counts, percentages, clock times, money, ratios."""
    kind = int(rng.integers(0, 7))
    if kind == 0:
        return f"{int(rng.integers(1, 999))},{int(rng.integers(0, 1000)):03d}"
    if kind == 1:
        return f"{int(rng.integers(1, 100))}{rng.choice([' %', '%'])}"
    if kind == 2:
        return f"{int(rng.integers(0, 24)):02d}:{int(rng.integers(0, 60)):02d}"
    if kind == 3:
        return f"{rng.choice(['€', '$', '£'])}{rng.uniform(1, 99):.1f}{rng.choice(['k', 'M'])}"
    if kind == 4:
        return f"{int(rng.integers(1, 24))}h {int(rng.integers(0, 60))}m"
    if kind == 5:
        return f"{rng.uniform(0, 5):.1f}"
    return str(int(rng.integers(1, 999)))


def _shadow_card(c: Canvas, x, y, w, h, th: Theme, r: float, fill: str | None = None) -> None:
    for i in range(4):
        c.rect(x - i, y - i + 3, w + 2 * i, h + 2 * i, QColor(0, 0, 0, (10 if th.dark else 16) - i * 3), r + i)
    c.rect(x, y, w, h, fill or th.surface, r, None if th.dark else th.border, 1)


def _gradient(c: Canvas, x, y, w, h, r, c0, c1, rng) -> None:
    g = QLinearGradient(QPointF(x, y), QPointF(x + w * rng.uniform(0.3, 1), y + h * rng.uniform(0.3, 1)))
    g.setColorAt(0, QColor(c0))
    g.setColorAt(1, QColor(c1))
    c.p.setPen(Qt.PenStyle.NoPen)
    c.p.setBrush(QBrush(g))
    c.p.drawRoundedRect(QRectF(x, y, w, h), r, r)


def _two_colours(rng) -> tuple[str, str]:
    a, b = rng.choice(len(ACCENTS), 2, replace=False)
    return ACCENTS[int(a)], (QColor(ACCENTS[int(b)]).lighter(int(rng.integers(100, 150)))).name()


def picture(c: Canvas, x, y, w, h, rng, r: float = 0.0) -> None:
    """An image placeholder: a gradient sky with soft hills and blobs (no people, no text)."""
    p = c.p
    p.save()
    p.setClipPath(rounded_path(x, y, w, h, r))
    _gradient(c, x, y, w, h, 0, *_two_colours(rng), rng)
    p.setPen(Qt.PenStyle.NoPen)
    for _ in range(int(rng.integers(2, 6))):
        col = QColor(*(int(v) for v in rng.integers(30, 240, 3)))
        col.setAlpha(int(rng.integers(90, 220)))
        p.setBrush(col)
        if rng.random() < 0.5:
            path = QPainterPath(QPointF(x, y + h))
            for t in np.linspace(0, 1, 5):
                path.lineTo(QPointF(x + w * t, y + h * rng.uniform(0.35, 0.9)))
            path.lineTo(QPointF(x + w, y + h))
            p.drawPath(path)
        else:
            d = min(w, h) * rng.uniform(0.1, 0.4)
            p.drawEllipse(QPointF(x + w * rng.uniform(0, 1), y + h * rng.uniform(0, 1)), d, d * rng.uniform(0.6, 1.2))
    p.restore()


def _para(c: Canvas, x, y, w, text: str, px: float, th: Theme, max_h: float, muted: bool = False) -> float:
    col = th.muted if muted else th.text
    return c.html(x, y, w, f"<span style='color:{col}'>{esc(text)}</span>", make_font(th.family, px), clip_h=max_h)


def _button(c: Canvas, x, y, w, h, label: str, th: Theme, filled: bool = True) -> None:
    c.rect(x, y, w, h, th.accent if filled else None, h / 2 if h < 40 else 8, None if filled else th.border, 1.2)
    f = make_font(th.family, min(15, h * 0.4), bold=True)
    c.text(x + max(6, w / 2 - len(label) * f.pixelSize() * 0.3), y + h / 2 - f.pixelSize() * 0.6, label, f,
           "#ffffff" if filled else th.text)


# -- cards: each draws inside (x, y, w, h) -------------------------------------------------------
def post_card(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A timeline post: avatar, name, @username, text, image, like/comment counts."""
    _shadow_card(c, x, y, w, h, th, 12)
    p = fd.make_person(rng)
    avatar(c, x + 14, y + 14, 40, rng, p.first[0] + p.last[0])
    c.spans(x + 64, y + 14, [(p.name, "person_name")], make_font(th.family, 15, bold=True), th.text)
    c.spans(x + 64, y + 36, [("@" + p.username, "username"), (f" · {int(rng.integers(1, 59))} min", None)],
            make_font(th.family, 12), th.muted)
    ty = y + 66
    ty += _para(c, x + 14, ty, w - 28, fd.sentence(rng, (6, 22)), rng.uniform(13, 16), th, max(0.0, h * 0.3)) + 8
    ph = h - (ty - y) - 44
    if ph > 40:
        picture(c, x + 14, ty, w - 28, ph, rng, 10)
    f = make_font(th.family, 13)
    c.text(x + 16, y + h - 32, f"♥ {big_number(rng)}    {int(rng.integers(0, 400))} comments    Share", f, th.muted)


def product_tile(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A shop tile: picture, product name, price, stars, maybe a sale badge and a button."""
    _shadow_card(c, x, y, w, h, th, float(rng.choice([6, 12, 16])))
    ph = h * rng.uniform(0.5, 0.62)
    picture(c, x + 8, y + 8, w - 16, ph, rng, 8)
    if rng.random() < 0.4:
        c.rect(x + 14, y + 14, 56, 22, "#d93025", 11)
        c.text(x + 20, y + 17, f"-{int(rng.integers(10, 70))}%", make_font(th.family, 12, bold=True), "#ffffff")
    ty = y + ph + 16
    c.text(x + 12, ty, str(rng.choice(_PRODUCTS)), make_font(th.family, 14, bold=True), th.text)
    c.text(x + 12, ty + 22, "★" * int(rng.integers(3, 6)) + f" ({int(rng.integers(2, 999))})", make_font(th.family, 12), "#f4b400")
    c.text(x + 12, ty + 42, f"{rng.choice(['€', '$', '£'])}{rng.integers(2, 300)}.{rng.integers(0, 100):02d}",
           make_font(th.family, 18, bold=True), th.text)
    if y + h - (ty + 70) > 30:
        _button(c, x + 12, y + h - 44, w - 24, 32, "Add to cart", th)


def stat_card(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A dashboard stat: caption, big number, change, sparkline."""
    _shadow_card(c, x, y, w, h, th, float(rng.choice([8, 12, 16])))
    c.text(x + 16, y + 14, str(rng.choice(_STATS)), make_font(th.family, 13), th.muted)
    px = min(h * 0.38, rng.uniform(26, 48))
    c.text(x + 16, y + 36, big_number(rng), make_font(th.family, px, bold=True), th.text)
    up = rng.random() < 0.6
    c.text(x + 16, y + 44 + px * 1.2, f"{'▲' if up else '▼'} {rng.uniform(0, 40):.1f} %", make_font(th.family, 12),
           "#0b8043" if up else "#d93025")
    if w > 180:
        pts = rng.uniform(0, 1, 10).cumsum()
        pts = (pts - pts.min()) / max(1e-6, np.ptp(pts))
        x0, y0, sw, sh = x + w * 0.55, y + h * 0.45, w * 0.38, h * 0.35
        for i in range(9):
            c.line(x0 + sw * i / 9, y0 + sh * (1 - pts[i]), x0 + sw * (i + 1) / 9, y0 + sh * (1 - pts[i + 1]), th.accent, 2)


def promo_banner(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A gradient promo banner: headline, big discount, call-to-action (an ad, not a notification)."""
    r = float(rng.choice([0, 12, 20]))
    _gradient(c, x, y, w, h, r, *_two_colours(rng), rng)
    c.p.save()
    c.p.setClipPath(rounded_path(x, y, w, h, r))
    for _ in range(int(rng.integers(0, 4))):
        d = h * rng.uniform(0.3, 1.2)
        c.ellipse(x + w * rng.uniform(0.5, 1) - d / 2, y + h * rng.uniform(0, 1) - d / 2, d, d, QColor(255, 255, 255, 40))
    c.p.restore()
    head = str(rng.choice(["Summer Sale", "Black Friday", "New season", "Free delivery", "Spring deals", "Winterschluss",
                           "Soldes", "Members save more", "Limited offer", "Weekend special"]))
    fh, fb = make_font(th.family, min(h * 0.2, 40), bold=True), make_font(th.family, min(h * 0.22, 56), bold=True)
    c.text(x + 24, y + h * 0.12, head, fh, "#ffffff")
    y2 = y + h * 0.12 + fh.pixelSize() * 1.3
    c.text(x + 24, y2, str(rng.choice(["up to ", "save ", "", "extra "])) + f"-{int(rng.integers(10, 70))} %", fb, "#ffffff")
    by = y2 + fb.pixelSize() * 1.4
    if by + 44 <= y + h:
        c.rect(x + 24, by, 130, 36, "#ffffff", 18)
        c.text(x + 40, by + 8, str(rng.choice(["Shop now", "Learn more", "Get offer", "Jetzt kaufen"])),
               make_font(th.family, 14, bold=True), "#202124")


def loyalty_card(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """Store-card artwork at card proportions: logo, store name, tier, maybe points; no number, no name."""
    cw = min(w, h * 1.586)
    ch = cw / 1.586
    r = cw * 0.05
    _gradient(c, x, y, cw, ch, r, *_two_colours(rng), rng)
    c.p.save()
    c.p.setClipPath(rounded_path(x, y, cw, ch, r))
    for _ in range(int(rng.integers(0, 3))):
        d = cw * rng.uniform(0.4, 1.0)
        c.ellipse(x + cw * rng.uniform(0.3, 1.1) - d / 2, y + ch * rng.uniform(-0.3, 1.2) - d / 2, d, d, QColor(255, 255, 255, 35))
    c.p.restore()
    store = str(rng.choice(_STORES))
    d = ch * 0.26
    c.ellipse(x + ch * 0.1, y + ch * 0.1, d, d, "#ffffff")
    c.text(x + ch * 0.1 + d * 0.28, y + ch * 0.1 + d * 0.12, store[0], make_font(th.family, d * 0.6, bold=True), "#202124")
    c.text(x + ch * 0.14 + d, y + ch * 0.13, store, make_font(th.family, ch * 0.12, bold=True), "#ffffff")
    c.text(x + ch * 0.1, y + ch * 0.66, str(rng.choice(_TIERS)).upper(), make_font(th.family, ch * 0.1, bold=True), "#ffffff")
    if rng.random() < 0.5:
        c.text(x + cw * 0.58, y + ch * 0.68, f"{int(rng.integers(0, 9999)):,} pts",
               make_font(th.family, ch * 0.09), "#ffffff")


def settings_card(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A grouped settings list: labels with toggles or chevrons."""
    _shadow_card(c, x, y, w, h, th, 12)
    f = make_font(th.family, 15)
    names = ("Notifications", "Dark mode", "Wi-Fi", "Bluetooth", "Location", "Auto-update", "Sounds", "Privacy",
             "Language", "Storage", "Battery saver", "Sync")
    yy = y + 8
    while yy + 48 <= y + h:
        c.text(x + 16, yy + 14, str(rng.choice(names)), f, th.text)
        if rng.random() < 0.6:
            on = rng.random() < 0.5
            c.rect(x + w - 62, yy + 12, 44, 24, th.accent if on else th.border, 12)
            c.ellipse(x + w - 60 + (20 if on else 0), yy + 14, 20, 20, "#ffffff")
        else:
            c.text(x + w - 30, yy + 12, "›", make_font(th.family, 20), th.muted)
        yy += 48
        c.line(x + 16, yy, x + w - 16, yy, th.border, 0.5)


def pricing_card(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A plan: name, big price per month, feature list with ticks, button."""
    _shadow_card(c, x, y, w, h, th, 14)
    c.text(x + 20, y + 18, str(rng.choice(["Free", "Basic", "Pro", "Team", "Business", "Starter", "Family"])),
           make_font(th.family, 16, bold=True), th.accent)
    c.text(x + 20, y + 44, f"{rng.choice(['€', '$', '£'])}{int(rng.integers(0, 99))}", make_font(th.family, 40, bold=True), th.text)
    c.text(x + 20, y + 96, "per month", make_font(th.family, 12), th.muted)
    f = make_font(th.family, 13)
    yy = y + 124
    while yy < y + h - 70:
        c.text(x + 20, yy, "✓  " + fd.sentence(rng, (2, 5)).rstrip("."), f, th.text)
        yy += 26
    _button(c, x + 20, y + h - 52, w - 40, 36, "Choose plan", th, rng.random() < 0.6)


def category_tile(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A coloured category tile with a simple glyph and a word."""
    col = str(rng.choice(ACCENTS))
    c.rect(x, y, w, h, QColor(col).lighter(int(rng.integers(100, 170))).name(), float(rng.choice([8, 14, 20])))
    d = min(w, h) * 0.35
    c.ellipse(x + w / 2 - d / 2, y + h * 0.18, d, d, QColor(255, 255, 255, 170))
    f = make_font(th.family, min(16, h * 0.16), bold=True)
    c.text(x + 10, y + h - f.pixelSize() * 1.8, str(rng.choice(_CATEGORIES)), f, "#202124")


def profile_card(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A profile: cover, big avatar, name, @username, bio, follower counts."""
    _shadow_card(c, x, y, w, h, th, 14)
    picture(c, x, y, w, h * 0.28, rng, 14)
    p = fd.make_person(rng)
    d = min(84.0, h * 0.28)
    avatar(c, x + 18, y + h * 0.28 - d / 2, d, rng, p.first[0] + p.last[0])
    yy = y + h * 0.28 + d / 2 + 8
    c.spans(x + 18, yy, [(p.name, "person_name")], make_font(th.family, 18, bold=True), th.text)
    c.spans(x + 18, yy + 26, [("@" + p.username, "username")], make_font(th.family, 13), th.muted)
    if rng.random() < 0.35:
        c.spans(x + 18, yy + 46, [(p.email, "email")], make_font(th.family, 13), th.muted)
    _para(c, x + 18, yy + 70, w - 36, fd.sentence(rng, (5, 14)), 13, th, max(0.0, y + h - yy - 120))
    f = make_font(th.family, 13)
    xx = x + 18
    for word in ("Posts", "Followers", "Following"):
        n = int(rng.integers(0, 99999))
        count = f"{n / 1000:.1f}k " if n > 9999 else f"{n:,} "
        if xx + len(count + word) * 8 > x + w:
            break
        xx += c.spans(xx, y + h - 34, [(count, None)], make_font(th.family, 14, bold=True), th.text)
        xx += c.text(xx, y + h - 33, word + "   ", f, th.muted)


def message_row(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A message-list row as a rounded card: avatar, sender, snippet, time, unread count."""
    c.rect(x, y, w, h, th.surface, 12, None if th.dark else th.border, 1)
    p = fd.make_person(rng)
    d = min(44.0, h - 16)
    avatar(c, x + 12, y + (h - d) / 2, d, rng, p.first[0] + p.last[0])
    c.spans(x + d + 24, y + h * 0.18, [(p.name, "person_name")], make_font(th.family, 15, bold=True), th.text)
    snip = fd.sentence(rng, (4, 10))
    c.text(x + d + 24, y + h * 0.55, snip[: int(max(8, (w - d - 90) / 7))], make_font(th.family, 13), th.muted)
    c.text(x + w - 56, y + h * 0.18, f"{int(rng.integers(0, 24)):02d}:{int(rng.integers(0, 60)):02d}", make_font(th.family, 12), th.muted)
    if rng.random() < 0.4:
        c.ellipse(x + w - 38, y + h * 0.52, 22, 22, th.accent)
        c.text(x + w - 32, y + h * 0.52 + 3, str(int(rng.integers(1, 9))), make_font(th.family, 12, bold=True), "#ffffff")


def cookie_banner(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A consent banner with text and Accept / Reject buttons."""
    dark = th.dark or rng.random() < 0.3
    c.occlude(x, y, w, h)
    _shadow_card(c, x, y, w, h, th, float(rng.choice([0, 10])), "#2d2e31" if dark else "#ffffff")
    col = "#e8eaed" if dark else "#202124"
    text = "We use cookies to improve your experience. " + fd.sentence(rng, (6, 14))
    narrow = w < 600
    c.html(x + 20, y + 14, w - 40 if narrow else w * 0.6, f"<span style='color:{col}'>{esc(text)}</span>",
           make_font(th.family, 13), clip_h=h - (70 if narrow else 20))
    by = y + h - 48 if narrow else y + h / 2 - 18
    _button(c, x + w - 270, by, 120, 36, "Accept all", th)
    _button(c, x + w - 140, by, 120, 36, "Reject", th, False)


def notification(c: Canvas, x, y, w, th: Theme, rng) -> float:
    """A real notification (app, sender, plain message), labelled ``notification`` + ``person_name``."""
    h = 76.0
    c.occlude(x, y, w, h)
    _shadow_card(c, x, y, w, h, th, 14, "#2d2e31" if th.dark else "#ffffff")
    c.rect(x + 12, y + 12, 20, 20, th.accent, 5)
    c.text(x + 40, y + 14, str(rng.choice(["Messages", "Mail", "Slack", "Calendar", "Photos"])) + " · now",
           make_font(th.family, 11), th.muted)
    c.spans(x + 12, y + 36, [(fd.make_person(rng).name, "person_name")], make_font(th.family, 14, bold=True), th.text)
    c.text(x + 12, y + 55, fd.sentence(rng, (3, 7))[: int(w / 8)], make_font(th.family, 13), th.text)
    c.label("notification", (x, y, x + w, y + h))
    return h


def login_panel(c: Canvas, x, y, w, h, th: Theme, rng) -> None:
    """A sign-in form under a large heading; a typed-in e-mail is labelled."""
    fh = make_font(th.family, rng.uniform(28, 44), bold=True)
    c.text(x, y, str(rng.choice(_HEADINGS)), fh, th.text)
    yy = y + fh.pixelSize() * 1.5
    c.text(x, yy, fd.sentence(rng, (4, 9)), make_font(th.family, 14), th.muted)
    yy += 44
    p = fd.make_person(rng)
    for placeholder in ("Email", "Password"):
        c.rect(x, yy, w, 48, th.surface, 8, th.border, 1.2)
        if placeholder == "Email" and rng.random() < 0.4:
            c.spans(x + 14, yy + 14, [(p.email, "email")], make_font(th.family, 15), th.text)
        else:
            c.text(x + 14, yy + 14, placeholder, make_font(th.family, 15), th.muted)
        yy += 64
    _button(c, x, yy, w, 48, "Sign in", th)
    yy += 70
    if yy + 48 < y + h:
        c.text(x + w / 2 - 60, yy, "or continue with", make_font(th.family, 13), th.muted)
        for i, name in enumerate(("Google", "Apple")):
            _button(c, x + i * (w / 2 + 4), yy + 26, w / 2 - 4, 42, name, th, False)


# -- layouts ------------------------------------------------------------------------------------
CARDS = (post_card, product_tile, stat_card, promo_banner, loyalty_card, settings_card, pricing_card, category_tile,
         profile_card, message_row)
# how often each kind is drawn: loyalty-card artwork is the nearest look-alike of a payment card
_WEIGHTS = np.array([1.0, 1.0, 1.0, 0.8, 1.6, 0.6, 0.6, 0.8, 0.8, 1.0])
_WEIGHTS /= _WEIGHTS.sum()
# (columns range, tile height range) per card kind at page scale
_SHAPE = {post_card: ((1, 3), (320, 520)), product_tile: ((2, 5), (260, 360)), stat_card: ((2, 5), (120, 170)),
          promo_banner: ((1, 2), (130, 240)), loyalty_card: ((1, 4), (140, 230)), settings_card: ((1, 2), (160, 300)),
          pricing_card: ((2, 4), (300, 420)), category_tile: ((3, 7), (90, 150)), profile_card: ((1, 4), (300, 380)),
          message_row: ((1, 1), (68, 84))}


def fill_grid(c: Canvas, x, y, w, y_end, th: Theme, rng, mobile: bool) -> None:
    """Rows of same-kind cards until ``y_end``: feeds, tile grids, dashboards, card lists."""
    gap = float(rng.choice([12, 16, 20, 24]))
    misses = 0
    while misses < 6:
        kind = CARDS[int(rng.choice(len(CARDS), p=_WEIGHTS))]
        (c0, c1), (h0, h1) = _SHAPE[kind]
        cols = int(rng.integers(c0, c1 + 1))
        if mobile:
            cols = min(cols, 1 if kind in (post_card, profile_card, settings_card, promo_banner, loyalty_card) else 2)
        tw = (w - gap * (cols - 1)) / cols
        th_ = float(rng.uniform(h0, h1))
        if kind in (stat_card, category_tile, product_tile) and tw < 140:
            th_ = min(th_, tw * 1.4)
        rows = 1 if kind not in (message_row, loyalty_card, stat_card) else int(rng.integers(1, 4))
        if y + th_ > y_end:
            misses += 1  # a smaller kind may still fit: no empty page bottoms
            continue
        for _ in range(rows):
            if y + th_ > y_end:
                break
            for i in range(cols):
                kind(c, x + i * (tw + gap), y, tw, th_, th, rng)
            y += th_ + gap
        if rng.random() < 0.5 and y + 40 < y_end:
            c.text(x, y + 4, str(rng.choice(["For you", "Trending", "Overview", "Recommended", "Your cards", "Categories",
                                              "Recent", "Popular now"])), make_font(th.family, 20, bold=True), th.text)
            y += 40


def _web(rng) -> Canvas:
    w = float(rng.choice([1280, 1366, 1440, 1600, 1920]))
    h = float(round(w * rng.uniform(0.55, 0.75)))
    th = theme(rng)
    c = Canvas(w, h, th.bg, scale=float(rng.choice([1.0, 1.0, 1.25, 1.5])))
    fake = fd.faker_for(rng)
    top = browser_chrome(c, th, w, rng, fake.domain_name() + "/" + fake.uri_path())
    c.rect(0, top, w, 60, th.surface)
    c.text(32, top + 18, str(rng.choice(_STORES)), make_font(th.family, 20, bold=True), th.accent)
    for i, word in enumerate(rng.choice(_CATEGORIES, 4, replace=False)):
        c.text(w * 0.3 + i * 110, top + 21, str(word), make_font(th.family, 15), th.text)
    y, m = top + 84, float(rng.uniform(32, 120))
    if rng.random() < 0.25:
        login_panel(c, w / 2 - 200, y + 30, 400, h - y - 60, th, rng)
        return _extras(c, th, w, h, rng, top, False)
    if rng.random() < 0.5:
        bh = float(rng.uniform(180, 320))
        promo_banner(c, m, y, w - 2 * m, bh, th, rng)
        y += bh + 24
    fill_grid(c, m, y, w - 2 * m, h - 10, th, rng, mobile=False)
    return _extras(c, th, w, h, rng, top, False)


def _mobile(rng) -> Canvas:
    w = float(rng.choice([360, 375, 390, 393, 412, 430]))
    h = float(round(w * rng.uniform(1.95, 2.17)))
    th = theme(rng)
    c = Canvas(w, h, th.bg, scale=float(rng.choice([1.5, 2.0, 2.0, 2.5])))
    y = status_bar(c, w, th, rng, bool(rng.random() < 0.5))
    c.text(16, y + 10, str(rng.choice(["Home", "Wallet", "Shop", "Feed", "Discover", "Cards", "Inbox"])),
           make_font(th.family, rng.uniform(24, 34), bold=True), th.text)
    y += 60
    if rng.random() < 0.2:
        login_panel(c, 20, y + 20, w - 40, h - y - 100, th, rng)
    else:
        fill_grid(c, 12, y, w - 24, h - 70, th, rng, mobile=True)
    c.rect(0, h - 60, w, 60, th.surface)
    for i in range(4):
        c.ellipse(w * (i + 0.5) / 4 - 11, h - 44, 22, 22, th.accent if i == 0 else th.border)
    return _extras(c, th, w, h, rng, y, True)


def _desktop(rng) -> Canvas:
    w = float(rng.choice([1280, 1440, 1600, 1920]))
    h = float(round(w * rng.uniform(0.56, 0.7)))
    th = theme(rng)
    c = Canvas(w, h, th.bg, scale=float(rng.choice([1.0, 1.25, 1.5])))
    c.rect(0, 0, w, 34, th.surface)
    for i, col in enumerate(("#ff5f57", "#febc2e", "#28c840")):
        c.ellipse(12 + i * 20, 11, 12, 12, col)
    side = float(rng.uniform(200, 260))
    c.rect(0, 34, side, h - 34, th.surface)
    for i, word in enumerate(("Dashboard", "Analytics", "Customers", "Products", "Wallet", "Settings")):
        if i == 0:
            c.rect(12, 60 + i * 44, side - 24, 36, QColor(th.accent).lighter(170).name() if not th.dark else "#3c4043", 8)
        c.text(28, 68 + i * 44, word, make_font(th.family, 15), th.text)
    me = fd.make_person(rng)
    avatar(c, 20, h - 64, 40, rng, me.first[0] + me.last[0])
    c.spans(70, h - 56, [(me.name, "person_name")], make_font(th.family, 14, bold=True), th.text)
    c.text(side + 32, 56, str(rng.choice(["Overview", "Dashboard", "Good morning", "Your wallet", "Analytics"])),
           make_font(th.family, rng.uniform(26, 40), bold=True), th.text)
    fill_grid(c, side + 32, 120, w - side - 64, h - 16, th, rng, mobile=False)
    return _extras(c, th, w, h, rng, 34, False)


def _extras(c: Canvas, th: Theme, w, h, rng, top, mobile: bool) -> Canvas:
    if mobile and rng.random() < 0.3:
        keyboard(c, w, h, th, rng)
    elif rng.random() < 0.25:
        bh = 140.0 if mobile else 96.0
        cookie_banner(c, 8 if mobile else 0, h - bh - (8 if mobile else 0), w - (16 if mobile else 0), bh, th, rng)
    if rng.random() < 0.15:
        nw = w - 16 if mobile else 360.0
        notification(c, 8 if mobile else w - nw - 16, top + 8, nw, th, rng)
    return c


def render_cards_page(rng: np.random.Generator):
    """A web, phone or desktop page made of harmless card-like UI (see the module docstring)."""
    layout = (_web, _mobile, _desktop)[int(rng.choice(3, p=[0.4, 0.35, 0.25]))]
    return layout(rng).finish()
