"""Flat renders of physical objects: cards, IDs, passports, receipts, tickets, labels, plates, signs.

Each ``obj_*`` returns ``(BGR uint8 (H, W, 3), labels)`` for the object alone, filling the
image; the object-level class covers the whole image and field classes are tight text boxes.
``scenes_street.py`` and ``scenes_objects.py`` place these into photos.
"""

from __future__ import annotations

import numpy as np
import segno
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QLinearGradient, QPainterPath, QPen

from . import fakedata as fd
from . import plates
from .qtkit import MONO, SANS, SERIF, Canvas, available, make_font
from .ui import avatar


def _fam(rng, fams=SANS) -> str:
    return str(rng.choice(available(fams)))


def qr(c: Canvas, x, y, size, rng, cls: str | None = "qr_code") -> None:
    """A real QR code (segno) with quiet zone, labelled."""
    data = fd.faker_for(rng).url() + fd.negative(rng).replace(" ", "")
    m = np.array(segno.make(data, error=str(rng.choice(list("lmq")))).matrix, bool)
    n = m.shape[0]
    cell = size / (n + 2)
    c.rect(x, y, size, size, "#ffffff")
    c.p.setPen(QPen(QColor(0, 0, 0, 0)))
    c.p.setBrush(QColor("#000000"))
    ys, xs = np.nonzero(m)
    for r, q in zip(ys, xs):
        c.p.drawRect(QRectF(x + (q + 1) * cell, y + (r + 1) * cell, cell + 0.3, cell + 0.3))
    if cls:
        c.label(cls, (x + cell * 0.5, y + cell * 0.5, x + size - cell * 0.5, y + size - cell * 0.5))


def barcode(c: Canvas, x, y, w, h, rng, cls: str | None = "barcode", digits: bool = True) -> None:
    """A 1D barcode-like pattern (EAN/Code128 look) with optional digits underneath, labelled."""
    c.rect(x, y, w, h, "#ffffff")
    bars = rng.integers(1, 5, int(rng.integers(40, 70)))
    unit = (w - 12) / bars.sum()
    cx, dark = x + 6, True
    bh = h * (0.78 if digits else 0.92)
    for b in bars:
        if dark:
            c.rect(cx, y + 3, b * unit, bh - 3, "#000000")
        cx += b * unit
        dark = not dark
    if digits:
        f = make_font(_fam(rng, MONO), h * 0.16)
        c.text(x + 8, y + bh + 1, "".join(str(d) for d in rng.integers(0, 10, 13)), f, "#000000")
    if cls:
        c.label(cls, (x + 4, y + 2, x + w - 4, y + h))


def signature(c: Canvas, x, y, w, h, rng, color="#1a237e") -> None:
    """A handwritten signature, labelled ``signature``: mostly joined-up loops like cursive
    letters (``cursive_path``), sometimes a few random Bezier strokes (a scrawl)."""
    path = cursive_path(x, y, w, h, rng) if rng.random() < 0.7 else _scrawl_path(x, y, w, h, rng)
    c.p.setPen(QPen(QColor(color), rng.uniform(1.5, 3.5)))
    c.p.setBrush(QColor(0, 0, 0, 0))
    c.p.drawPath(path)
    r = path.boundingRect()
    c.label("signature", (r.left() - 2, r.top() - 2, r.right() + 2, r.bottom() + 2))


def _scrawl_path(x, y, w, h, rng) -> QPainterPath:
    path = QPainterPath(QPointF(x, y + h * rng.uniform(0.4, 0.8)))
    px = x
    for _ in range(int(rng.integers(4, 9))):
        nx = min(x + w, px + w * rng.uniform(0.08, 0.25))
        path.cubicTo(QPointF(px + rng.uniform(-10, 20), y + rng.uniform(0, h)), QPointF(nx + rng.uniform(-20, 10), y + rng.uniform(0, h)),
                     QPointF(nx, y + h * rng.uniform(0.2, 0.9)))
        px = nx
    return path


def cursive_path(x, y, w, h, rng) -> QPainterPath:
    """Joined-up handwriting in the box (x, y, w, h): a run of loops along a wavering, slanting
    baseline, each as tall as a small or an ascending letter (its stroke crosses itself, as real
    handwriting does, unlike a chart's line), and now and then a flourish back under the name."""
    loops = int(rng.integers(4, 11))
    advance = w * rng.uniform(0.7, 0.95) / loops
    base = y + h * rng.uniform(0.6, 0.8)
    slant = rng.uniform(-0.15, 0.05) * h / w
    points = []
    for i in range(loops):
        height = h * (rng.uniform(0.5, 0.6) if rng.random() < 0.3 else rng.uniform(0.2, 0.35))
        width = advance * rng.uniform(0.3, 0.5)  # over a quarter of the advance: the down stroke crosses the up stroke
        for t in np.linspace(0, 2 * np.pi, 16, endpoint=False):
            px = x + advance * (i + t / (2 * np.pi)) + width * np.sin(t)
            py = base - height * (1 - np.cos(t)) / 2 + slant * (px - x) + rng.normal(0, h * 0.01)
            points.append(QPointF(px, py))
    path = QPainterPath(points[0])
    for pt in points[1:]:
        path.lineTo(pt)
    if rng.random() < 0.4:
        end = points[-1]
        path.cubicTo(QPointF(end.x() + w * 0.05, base + h * 0.15), QPointF(x + w * 0.3, base + h * 0.25),
                     QPointF(x + w * rng.uniform(0.0, 0.2), base + h * rng.uniform(0.05, 0.2)))  # fmt: skip
    return path


def _grad(c: Canvas, w, h, rng, light: bool):
    g = QLinearGradient(0, 0, w, h)
    base = rng.integers(150, 240, 3) if light else rng.integers(10, 120, 3)
    g.setColorAt(0, QColor(*(int(v) for v in base)))
    g.setColorAt(1, QColor(*(int(np.clip(v + rng.integers(-60, 60), 0, 255)) for v in base)))
    c.p.fillRect(QRectF(0, 0, w, h), g)


def obj_payment_card(rng):
    """A bank card: number, name, expiry, chip."""
    c = Canvas(856, 540, "#ffffff")
    _grad(c, 856, 540, rng, light=bool(rng.random() < 0.3))
    p = fd.make_person(rng)
    fg = "#ffffff" if c.img.pixelColor(400, 300).lightness() < 140 else "#111111"
    c.text(50, 40, str(rng.choice(["VISA", "BANK", "mastercard", "N26", "Revolut", "Sparkasse", "BNP"])), make_font(_fam(rng), 44, bold=True), fg)
    c.rect(70, 190, 100, 76, "#d4af37", 12, "#8d6e1f", 2)
    f = make_font(_fam(rng, MONO + SANS), rng.uniform(48, 60))
    c.spans(60, 300, [(p.card_number, "card_number")], f, fg)
    c.text(60, 400, "VALID THRU " + p.card_expiry, make_font(_fam(rng), 26), fg)
    c.spans(60, 450, [(p.name.upper(), "person_name")], make_font(_fam(rng), rng.uniform(30, 40)), fg)
    c.label("payment_card", (0, 0, 856, 540))
    return c.finish()


def obj_id_card(rng):
    """National ID / driving licence with photo area, fields, signature, sometimes a barcode."""
    c = Canvas(856, 540, "#ffffff")
    _grad(c, 856, 540, rng, light=True)
    p = fd.make_person(rng)
    fam = _fam(rng)
    c.rect(0, 0, 856, 70, str(rng.choice(["#1e3a8a", "#7f1d1d", "#065f46", "#374151"])))
    c.text(30, 18, str(rng.choice(["IDENTITY CARD", "PERSONALAUSWEIS", "CARTE D'IDENTITÉ", "DRIVER LICENSE", "DOCUMENTO DE IDENTIDAD"])),
           make_font(fam, 30, bold=True), "#ffffff")
    avatar(c, 36, 100, 220, rng, p.first[0] + p.last[0], square=True)
    c.boxes.pop()  # the portrait area is part of the card; no avatar class on physical IDs
    fl, fv = make_font(fam, 17), make_font(fam, rng.uniform(26, 32), bold=True)
    y = 96.0
    for lab, val, cls in (("Surname / Name", p.last.upper(), "person_name"), ("Given names", p.first, "person_name"),
                          ("Date of birth", p.dob, "date_of_birth"), ("Document no.", p.id_number, "id_number"),
                          ("Address", p.street, "postal_address")):
        c.text(290, y, lab, fl, "#444444")
        c.spans(290, y + 20, [(val, cls)], fv, "#111111")
        y += 72
    signature(c, 40, 345, 200, 60, rng)
    if rng.random() < 0.5:
        barcode(c, 40, 440, 220, 80, rng, digits=False)
    c.label("id_card", (0, 0, 856, 540))
    return c.finish()


def obj_passport(rng):
    """Passport data page: fields, portrait area, MRZ (id_number), signature."""
    c = Canvas(880, 620, "#e8eef0")
    _grad(c, 880, 620, rng, light=True)
    p = fd.make_person(rng)
    fam = _fam(rng)
    c.text(30, 20, "PASSPORT / PASSEPORT / REISEPASS", make_font(fam, 24, bold=True), "#1f2937")
    avatar(c, 30, 80, 230, rng, p.first[0] + p.last[0], square=True)
    c.boxes.pop()
    fl, fv = make_font(fam, 15), make_font(fam, rng.uniform(24, 30), bold=True)
    y = 70.0
    for lab, val, cls in (("Surname", p.last.upper(), "person_name"), ("Given names", p.first.upper(), "person_name"),
                          ("Passport No.", p.id_number, "id_number"), ("Date of birth", p.dob, "date_of_birth"),
                          ("Place of birth", p.city_line[:22], None)):
        c.text(290, y, lab, fl, "#4b5563")
        c.spans(290, y + 18, [(val, cls)], fv, "#111827")
        y += 64
    signature(c, 290, 395, 260, 50, rng)
    mono = make_font(_fam(rng, MONO), 30)
    l1 = f"P<{p.last.upper()}<<{p.first.upper()}".replace(" ", "<")[:44].ljust(44, "<")
    l2 = (p.id_number.replace("-", "") + "<" + "".join(str(d) for d in rng.integers(0, 10, 20)))[:44].ljust(44, "<")
    c.spans(24, 480, [(l1, "person_name")], mono, "#111111")
    c.spans(24, 530, [(l2, "id_number")], mono, "#111111")
    c.label("passport", (0, 0, 880, 620))
    return c.finish()


def obj_receipt(rng):
    """Till receipt: shop, items and prices (negatives), masked card, barcode/QR."""
    w, n = 420.0, int(rng.integers(4, 14))
    h = 330.0 + n * 28
    c = Canvas(w, h, str(rng.choice(["#fbfbf8", "#f5f3ee", "#ffffff"])))
    fam = _fam(rng, MONO)
    fake = fd.faker_for(rng)
    c.text(30, 20, fake.company()[:24].upper(), make_font(fam, 22, bold=True), "#111111")
    c.text(30, 52, fake.street_address()[:32], make_font(fam, 14), "#222222")
    f = make_font(fam, 16)
    y = 90.0
    for _ in range(n):
        c.text(30, y, fake.word()[:14].upper(), f, "#222222")
        c.text(300, y, f"{rng.integers(0, 99)}.{rng.integers(0, 99):02d}", f, "#222222")
        y += 28
    c.text(30, y + 6, f"TOTAL   {rng.integers(5, 400)}.{rng.integers(0, 99):02d}", make_font(fam, 20, bold=True), "#111111")
    c.text(30, y + 40, "CARD **** " + "".join(str(d) for d in rng.integers(0, 10, 4)), f, "#222222")
    c.text(30, y + 66, fd.negative(rng), f, "#222222")
    if rng.random() < 0.5:
        barcode(c, 60, y + 100, 300, 80, rng)
    else:
        qr(c, 140, y + 96, 140, rng)
    c.label("receipt", (0, 0, w, h))
    return c.finish()


def obj_ticket(rng):
    """Boarding pass / event ticket: passenger name, booking ref (unlabelled), QR or barcode."""
    c = Canvas(900, 340, "#ffffff")
    p = fd.make_person(rng)
    fam = _fam(rng)
    c.rect(0, 0, 900, 64, str(rng.choice(["#0d47a1", "#b71c1c", "#1b5e20", "#4a148c", "#e65100"])))
    c.text(24, 16, str(rng.choice(["BOARDING PASS", "E-TICKET", "CONCERT TICKET", "BAHNTICKET"])), make_font(fam, 28, bold=True), "#ffffff")
    fl, fv = make_font(fam, 15), make_font(fam, rng.uniform(24, 30), bold=True)
    c.text(24, 84, "Passenger", fl, "#555555")
    c.spans(24, 104, [(p.name.upper(), "person_name")], fv, "#111111")
    for i, (lab, val) in enumerate((("Seat", f"{rng.integers(1, 40)}{rng.choice(list('ABCDEF'))}"), ("Gate", f"B{rng.integers(1, 60)}"),
                                    ("Booking", fd.negative(rng)[-6:].upper()))):
        c.text(24 + i * 180, 170, lab, fl, "#555555")
        c.text(24 + i * 180, 190, val, fv, "#111111")
    c.line(640, 70, 640, 330, "#999999", 2)
    if rng.random() < 0.6:
        qr(c, 680, 90, 190, rng)
    else:
        barcode(c, 40, 250, 560, 80, rng, digits=False)
    c.label("ticket", (0, 0, 900, 340))
    return c.finish()


def obj_shipping_label(rng):
    """Parcel label: sender + recipient names and addresses, barcode, QR."""
    c = Canvas(600, 820, "#ffffff")
    fam = _fam(rng)
    c.rect(4, 4, 592, 812, None, 0, "#000000", 3)
    frm, to = fd.make_person(rng), fd.make_person(rng)
    fs, fb = make_font(fam, 17), make_font(fam, rng.uniform(26, 32), bold=True)
    c.text(20, 16, "FROM:", fs, "#000000")
    c.spans(20, 40, [(frm.name, "person_name")], fs, "#000000")
    c.spans(20, 62, [(frm.street, "postal_address")], fs, "#000000")
    c.spans(20, 84, [(frm.city_line[:40], "postal_address")], fs, "#000000")
    c.line(4, 120, 596, 120, "#000000", 3)
    c.text(20, 136, "SHIP TO:", fs, "#000000")
    c.spans(20, 166, [(to.name.upper(), "person_name")], fb, "#000000")
    c.spans(20, 208, [(to.street[:26], "postal_address")], fb, "#000000")
    c.spans(20, 250, [(to.city_line[:26], "postal_address")], fb, "#000000")
    if rng.random() < 0.5:
        c.spans(20, 300, [("Tel ", None), (to.phone, "phone_number")], fs, "#000000")
    c.line(4, 340, 596, 340, "#000000", 3)
    barcode(c, 40, 370, 520, 190, rng)
    qr(c, 30, 590, 200, rng)
    c.text(260, 620, str(rng.choice(["DHL", "UPS", "DPD", "GLS", "PostNL", "Colissimo"])), make_font(fam, 48, bold=True), "#000000")
    c.label("shipping_label", (0, 0, 600, 820))
    return c.finish()


def obj_paper_document(rng):
    """A printed letter / form: sender block, recipient address, body, contact, signature."""
    c = Canvas(850, 1100, str(rng.choice(["#ffffff", "#fafaf7", "#f6f6f1"])))
    fam = _fam(rng, SERIF + SANS)
    s, r = fd.make_person(rng), fd.make_person(rng)
    f, fb = make_font(fam, rng.uniform(15, 19)), make_font(fam, 22, bold=True)
    c.text(70, 60, s.company[:40], fb, "#111111")
    c.spans(70, 150, [(r.name, "person_name")], f, "#111111")
    c.spans(70, 174, [(r.street, "postal_address")], f, "#111111")
    c.spans(70, 198, [(r.city_line[:44], "postal_address")], f, "#111111")
    c.text(560, 250, fd.negative(rng), f, "#111111")
    c.spans(70, 300, [("Dear ", None), (r.name, "person_name"), (",", None)], f, "#111111")
    y = 340.0
    for _ in range(int(rng.integers(8, 16))):
        c.text(70, y, fd.sentence(rng, (9, 12))[:78], f, "#222222")
        y += 26
    c.spans(70, y + 10, [("Your reference: ", None), (r.id_number, "id_number")], f, "#222222")
    c.spans(70, y + 40, [("Contact: ", None), (s.phone, "phone_number"), (" · ", None), (s.email, "email")], f, "#222222")
    signature(c, 70, y + 90, 240, 70, rng)
    c.spans(70, y + 170, [(s.name, "person_name")], f, "#111111")
    c.label("paper_document", (0, 0, 850, 1100))
    return c.finish()


def obj_handwritten_note(rng):
    """A handwritten page (a note, a letter, class notes): rows of joined-up words drawn with the
    same strokes as ``signature``, unlabelled, so that handwriting in rows is not a signature; some
    pages end with a real signature, labelled, set apart under the last row."""
    w, h = (850, 1100) if rng.random() < 0.6 else (600, 800)
    paper = str(rng.choice(["#ffffff", "#fbfaf4", "#fdf6c3", "#f4f1e8"]))
    c = Canvas(w, h, paper)
    row = rng.uniform(26, 46)
    if rng.random() < 0.5:  # ruled paper
        rule = QColor(str(rng.choice(["#9ec5e8", "#b8c9d9", "#c9c9c9"])))
        c.p.setPen(QPen(rule, 1.2))
        for yy in np.arange(row * 2, h - row * 0.5, row):
            c.p.drawLine(QPointF(0, yy), QPointF(w, yy))
    ink = str(rng.choice(["#1a237e", "#0d47a1", "#111111", "#263238", "#3e2723"]))
    margin = rng.uniform(40, 90)
    rows = int(rng.integers(4, max(5, int((h - 3 * row) / row) - 2)))
    y = row * rng.uniform(1.2, 2.0)
    for _ in range(rows):
        x = margin + (rng.uniform(20, 60) if rng.random() < 0.15 else 0)  # an indented paragraph start
        end = w - margin * rng.uniform(0.5, 1.5)
        while x < end - row:
            word = min(end - x, row * rng.uniform(1.0, 4.0))
            c.p.setPen(QPen(QColor(ink), rng.uniform(1.5, 3.0)))
            c.p.setBrush(QColor(0, 0, 0, 0))
            c.p.drawPath(cursive_path(x, y + row * 0.2, word, row * rng.uniform(0.55, 0.75), rng))
            x += word + row * rng.uniform(0.3, 0.7)
        y += row
        if y > h - 3 * row:
            break
    if rng.random() < 0.3 and y < h - 3 * row:  # a signature is set apart and larger than the writing
        sw = rng.uniform(160, 260)
        signature(c, w - margin - sw if rng.random() < 0.5 else margin, y + row * rng.uniform(0.8, 1.5), sw, row * 2.2, rng, ink)
    return c.finish()


def obj_license_plate(rng, eu: bool | None = None):
    """A licence plate: long EU (``eu``) or one of ``plates``' other styles (``eu`` None: drawn at random)."""
    return plates.license_plate(rng, eu)


def obj_street_sign(rng):
    """Blue/green street-name plate."""
    fake = fd.faker_for(rng)
    name = fake.street_name()[:22]
    w = 80.0 + len(name) * 34
    c = Canvas(w, 130, str(rng.choice(["#0b4ea2", "#0f6b3a", "#ffffff", "#1f3b73"])))
    fg = "#111111" if c.img.pixelColor(5, 5).lightness() > 200 else "#ffffff"
    c.rect(8, 8, w - 16, 114, None, 10, fg, 4)
    c.text(40, 30, name, make_font(_fam(rng), 60, bold=True), fg)
    c.label("street_sign", (0, 0, w, 130))
    return c.finish()


def obj_house_number(rng):
    """A house-number plaque."""
    c = Canvas(200, 170, str(rng.choice(["#ffffff", "#0b4ea2", "#111111", "#c0a062", "#7a1f1f"])))
    fg = "#111111" if c.img.pixelColor(5, 5).lightness() > 180 else "#ffffff"
    c.rect(6, 6, 188, 158, None, 16, fg, 3)
    num = f"{rng.integers(1, 300)}{rng.choice(['', '', 'a', 'B'])}"
    c.text(100 - len(num) * 30, 20, num, make_font(_fam(rng, SANS + SERIF), 110, bold=True), fg)
    c.label("house_number", (0, 0, 200, 170))
    return c.finish()


def obj_shop_sign(rng):
    """Storefront fascia sign with a shop name."""
    name = str(fd.faker_for(rng).company()).split(",")[0][:20]
    w = 120.0 + len(name) * 44
    c = Canvas(w, 180, "#000000")
    _grad(c, w, 180, rng, light=bool(rng.random() < 0.5))
    fg = "#ffffff" if c.img.pixelColor(int(w / 2), 90).lightness() < 140 else "#111111"
    c.text(60, 45, name, make_font(_fam(rng, SANS + SERIF), 80, bold=True), fg)
    c.label("shop_sign", (0, 0, w, 180))
    return c.finish()


def obj_blade_sign(rng):
    """A projecting shop sign: a tall panel with its name's letters stacked one per row, or a
    square panel with an emblem and a short name (both sides printed; the scene turns it)."""
    name = str(fd.faker_for(rng).company()).split(",")[0].split(" ")[0][:9]
    light = bool(rng.random() < 0.45)
    if rng.random() < 0.55:
        letters = [ch for ch in name.upper() if ch.strip()][:7] or ["A"]
        w, h = 190.0, 40.0 + 110 * len(letters)
        c = Canvas(w, h, "#000000")
        _grad(c, w, h, rng, light=light)
        fg = "#111111" if light else str(rng.choice(["#ffffff", "#ffd54a", "#f0f0f0"]))
        f = make_font(_fam(rng, SANS + SERIF), 92, bold=True)
        for k, ch in enumerate(letters):
            c.text(45, 20 + 110 * k, ch, f, fg)
    else:
        w = h = 300.0
        c = Canvas(w, h, "#000000")
        _grad(c, w, h, rng, light=light)
        fg = "#111111" if light else "#ffffff"
        if rng.random() < 0.5:
            c.ellipse(90, 30, 120, 120, fg)
        else:
            c.rect(95, 35, 110, 110, None, 12, fg, 8)
        c.text(22, 175, name[:7], make_font(_fam(rng, SANS + SERIF), 62, bold=True), fg)
    if rng.random() < 0.6:
        c.rect(5, 5, w - 10, h - 10, None, 6, fg, 5)
    c.label("shop_sign", (0, 0, w, h))
    return c.finish()


def obj_qr_sticker(rng):
    """A printed QR code on a small card/sticker."""
    c = Canvas(320, 380, "#ffffff")
    qr(c, 20, 20, 280, rng)
    c.text(40, 320, str(rng.choice(["Scan to pay", "Scan me", "Menu", "Wi-Fi", "Check in"])), make_font(_fam(rng), 30, bold=True), "#111111")
    return c.finish()


def obj_barcode_label(rng):
    """A product/price label with a barcode."""
    c = Canvas(420, 260, "#ffffff")
    c.text(20, 14, fd.faker_for(rng).word().upper(), make_font(_fam(rng), 26, bold=True), "#111111")
    c.text(260, 14, fd.negative(rng)[:9], make_font(_fam(rng), 26), "#111111")
    barcode(c, 20, 70, 380, 170, rng)
    return c.finish()


OBJECTS = {
    "payment_card": obj_payment_card, "id_card": obj_id_card, "passport": obj_passport, "receipt": obj_receipt,
    "ticket": obj_ticket, "shipping_label": obj_shipping_label, "paper_document": obj_paper_document,
    "license_plate": obj_license_plate, "street_sign": obj_street_sign, "house_number": obj_house_number,
    "shop_sign": obj_shop_sign, "qr_code": obj_qr_sticker, "barcode": obj_barcode_label,
    "handwritten_note": obj_handwritten_note,
}
