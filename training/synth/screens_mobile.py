"""Phone screens (Material-like and iOS-like): chats, contacts, 2FA/SMS, banking, maps.

Each ``render_*`` takes a seeded ``np.random.Generator`` and returns
``(BGR uint8 (H, W, 3), [(class_name, xyxy in image pixels)])``.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QFontMetricsF

from . import fakedata as fd
from .qtkit import Canvas, make_font
from .ui import Theme, avatar, keyboard, map_view, status_bar, theme, toast


def _phone(rng: np.random.Generator) -> tuple[Canvas, Theme, bool, float, float]:
    w = float(rng.choice([360, 375, 390, 393, 412, 414, 430]))
    h = float(round(w * rng.uniform(1.95, 2.17)))
    th = theme(rng)
    c = Canvas(w, h, th.bg, scale=float(rng.choice([1.0, 1.5, 2.0, 2.0, 2.5])))
    return c, th, bool(rng.random() < 0.45), w, h


def _app_bar(c: Canvas, th: Theme, w: float, y: float, title: str, ios: bool, rng, cls: str | None = None) -> float:
    h = 52.0 if ios else 56.0
    bar = th.surface if ios or th.dark else th.accent
    fg = th.text if ios or th.dark else "#ffffff"
    c.rect(0, y, w, h, bar)
    if ios:
        c.line(0, y + h, w, y + h, th.border, 0.5)
    f = make_font(th.family, 17 if ios else 19, bold=True)
    c.text(16 + (0 if ios else 40), y + (h - 22) / 2, "‹" if ios else "", f, fg)
    tx = 48 if not ios else 40
    c.spans(tx, y + (h - 22) / 2, [(title, cls)], f, fg)
    return h


def _finish_with_toast(c: Canvas, th: Theme, w: float, rng) -> tuple:
    if rng.random() < 0.25:
        keyboard(c, w, c.lh, th, rng)
    if rng.random() < 0.3:
        toast(c, 8, 36, w - 16, th, rng, fd.make_person(rng), mobile=True)
    return c.finish()


def render_chat(rng: np.random.Generator):
    """A messenger conversation: header with contact, bubbles (chat_message) with inline PII."""
    c, th, ios, w, h = _phone(rng)
    me, them = fd.make_person(rng), fd.make_person(rng)
    y = status_bar(c, w, th, rng, ios)
    bar_h = 60.0
    c.rect(0, y, w, bar_h, th.surface)
    avatar(c, 40, y + 10, 40, rng, them.first[0] + them.last[0])
    fb = make_font(th.family, rng.uniform(15, 18), bold=True)
    c.spans(90, y + 12, [(them.name, "person_name")], fb, th.text)
    c.spans(90, y + 34, [(them.phone if rng.random() < 0.5 else "online", "phone_number" if rng.random() < 0.5 else None)],
            make_font(th.family, 12), th.muted)
    y += bar_h + 8
    fsize = rng.uniform(13, 17)
    font = make_font(th.family, fsize)
    line_h = fsize * 1.35
    mine_col = th.accent if not th.dark or rng.random() < 0.5 else "#005c4b"
    theirs_col = "#3a3b3c" if th.dark else str(rng.choice(["#e9e9eb", "#ffffff", "#f1f3f4"]))
    while y < h - 120:
        mine = rng.random() < 0.5
        kind = int(rng.integers(0, 7))
        who = them if not mine else me
        parts: list[tuple[str, str | None]]
        if kind == 0:
            parts = [("my number is ", None), (who.phone, "phone_number")]
        elif kind == 1:
            parts = [("mail me at ", None), (who.email, "email")]
        elif kind == 2:
            parts = [("I'm at ", None), (who.street, "postal_address")]
        elif kind == 3:
            parts = [("code: ", None), (fd.otp(rng), "verification_code")]
        elif kind == 4:
            parts = [("Hi ", None), (them.first if mine else me.first, "person_name"), ("!", None)]
        else:
            parts = [(fd.sentence(rng), None)]
        fm = QFontMetricsF(font)
        max_w = w * 0.72
        lines = [parts]
        if fm.horizontalAdvance(parts[0][0]) > max_w and len(parts) == 1:
            words, cur, lines = parts[0][0].split(), "", []
            for wd in words:
                if fm.horizontalAdvance(cur + " " + wd) > max_w and cur:
                    lines.append([(cur, None)])
                    cur = wd
                else:
                    cur = (cur + " " + wd).strip()
            lines.append([(cur, None)])
        bw = min(w - 24, max(sum(fm.horizontalAdvance(s) for s, _ in ln) for ln in lines)) + 24
        bh = len(lines) * line_h + 16
        bx = w - bw - 12 if mine else 12
        if y + bh > h - 110:
            break
        c.rect(bx, y, bw, bh, mine_col if mine else theirs_col, 16 if ios else 10)
        fg = "#ffffff" if mine and (not th.dark or mine_col != "#005c4b") else ("#e8eaed" if th.dark else "#111111")
        for i, ln in enumerate(lines):
            c.spans(bx + 12, y + 8 + i * line_h, ln, font, fg)
        c.label("chat_message", (bx, y, bx + bw, y + bh))
        y += bh + rng.uniform(6, 14)
    c.rect(8, h - 60, w - 16, 44, th.surface, 22, th.border)
    c.text(24, h - 48, "Message", make_font(th.family, 15), th.muted)
    return _finish_with_toast(c, th, w, rng)


def render_contacts(rng: np.random.Generator):
    """Contact list with avatars, or a contact detail card with phone, email, address, birthday."""
    c, th, ios, w, h = _phone(rng)
    y = status_bar(c, w, th, rng, ios)
    if rng.random() < 0.5:
        y += _app_bar(c, th, w, y, "Contacts", ios, rng)
        fname, fsub = make_font(th.family, rng.uniform(14, 18)), make_font(th.family, rng.uniform(11, 14))
        while y < h - 70:
            p = fd.make_person(rng)
            avatar(c, 16, y + 10, 44, rng, p.first[0] + p.last[0])
            c.spans(72, y + 12, [(p.name, "person_name")], fname, th.text)
            sub = [(p.phone, "phone_number")] if rng.random() < 0.6 else [(p.email, "email")]
            c.spans(72, y + 36, sub, fsub, th.muted)
            y += 64
            c.line(72, y, w, y, th.border, 0.5)
        return _finish_with_toast(c, th, w, rng)
    p = fd.make_person(rng)
    y += _app_bar(c, th, w, y, "", ios, rng)
    d = 96.0
    avatar(c, (w - d) / 2, y + 16, d, rng, p.first[0] + p.last[0])
    y += d + 28
    fb = make_font(th.family, rng.uniform(20, 26), bold=True)
    nw = len(p.name) * 12
    c.spans(max(8, (w - nw) / 2), y, [(p.name, "person_name")], fb, th.text)
    y += 48
    rows = [("mobile", p.phone, "phone_number"), ("email", p.email, "email"), ("home", f"{p.street}, {p.city_line}", "postal_address"),
            ("birthday", p.dob, "date_of_birth"), ("company", p.company, None), ("username", "@" + p.username, "username")]
    fl, fv = make_font(th.family, 12), make_font(th.family, rng.uniform(14, 17))
    for lbl, val, cls in rows[: int(rng.integers(3, 7))]:
        c.rect(12, y, w - 24, 60, th.surface, 10)
        c.text(24, y + 8, lbl, fl, th.accent)
        if cls == "postal_address" and len(val) * 8.5 > w - 50:
            val = p.street
        c.spans(24, y + 28, [(val, cls)], fv, th.text)
        y += 68
    return _finish_with_toast(c, th, w, rng)


def render_2fa(rng: np.random.Generator):
    """SMS inbox with codes, an authenticator list, or a 'enter the code' screen."""
    c, th, ios, w, h = _phone(rng)
    y = status_bar(c, w, th, rng, ios)
    kind = int(rng.integers(0, 3))
    if kind == 0:
        y += _app_bar(c, th, w, y, "Authenticator", ios, rng)
        fcode = make_font(th.mono if rng.random() < 0.5 else th.family, rng.uniform(26, 36))
        fsub = make_font(th.family, 13)
        while y < h - 100:
            p = fd.make_person(rng)
            svc = str(rng.choice(["Google", "GitHub", "AWS", "Microsoft", "Dropbox", "Binance", "Discord", "Okta"]))
            c.spans(20, y + 12, [(f"{svc}: ", None), (p.email, "email")], fsub, th.muted)
            code = fd.otp(rng).replace(" ", "")
            code = code[:3] + " " + code[3:] if len(code) == 6 else code
            c.spans(20, y + 34, [(code, "verification_code")], fcode, th.accent)
            c.ellipse(w - 44, y + 36, 24, 24, th.border)
            y += 92
            c.line(0, y, w, y, th.border, 0.5)
    elif kind == 1:
        y += _app_bar(c, th, w, y, "Messages", ios, rng)
        f, fs = make_font(th.family, rng.uniform(14, 17), bold=True), make_font(th.family, rng.uniform(12, 15))
        while y < h - 80:
            svc = str(rng.choice(["BANK", "PayPal", "Google", "Uber", "Amazon", "N26", "Revolut", "+44 7700 900123"]))
            c.text(72, y + 10, svc, f, th.text)
            c.spans(72, y + 34, [("Code ", None), (fd.otp(rng), "verification_code"), (" – do not share", None)], fs, th.muted)
            c.ellipse(16, y + 12, 44, 44, th.accent)
            y += 72
    else:
        y += 60
        p = fd.make_person(rng)
        ft = make_font(th.family, rng.uniform(22, 28), bold=True)
        c.text(24, y, "Verify it's you", ft, th.text)
        fs = make_font(th.family, rng.uniform(14, 16))
        y += 50
        c.spans(24, y, [("We sent a code to ", None)], fs, th.muted)
        y += 24
        dest = [(p.phone, "phone_number")] if rng.random() < 0.5 else [(p.email, "email")]
        c.spans(24, y, dest, fs, th.text)
        y += 50
        code = fd.otp(rng).replace(" ", "")[:6]
        box_w = (w - 48 - 5 * 8) / 6
        fd_ = make_font(th.family, 26, bold=True)
        x0 = 24
        for i, ch in enumerate(code):
            c.rect(x0 + i * (box_w + 8), y, box_w, 56, th.surface, 8, th.accent if i == len(code) - 1 else th.border, 1.5)
            c.text(x0 + i * (box_w + 8) + box_w / 2 - 8, y + 14, ch, fd_, th.text)
        c.label("verification_code", (x0 + box_w / 2 - 10, y + 12, x0 + (len(code) - 1) * (box_w + 8) + box_w / 2 + 12, y + 46), tight=True)
        y += 90
        c.rect(24, y, w - 48, 48, th.accent, 24)
        c.text(w / 2 - 30, y + 14, "Verify", make_font(th.family, 16, bold=True), "#ffffff")
    return _finish_with_toast(c, th, w, rng)


def render_bank(rng: np.random.Generator):
    """Banking app: holder, IBAN, card, transactions (amounts are unlabelled negatives)."""
    c, th, ios, w, h = _phone(rng)
    p = fd.make_person(rng)
    y = status_bar(c, w, th, rng, ios)
    y += _app_bar(c, th, w, y, str(rng.choice(["My Account", "Konto", "Compte", "Cuenta", "Home"])), ios, rng)
    fl, fv = make_font(th.family, 12), make_font(th.family, rng.uniform(14, 17))
    c.rect(16, y + 12, w - 32, 190, th.accent, 16)
    c.spans(32, y + 28, [(p.name.upper(), "person_name")], make_font(th.family, 14, bold=True), "#ffffff")
    c.text(32, y + 56, "Balance", fl, "#e0e0e0")
    c.text(32, y + 74, fd.negative(rng) if rng.random() < 0.3 else f"€ {rng.integers(10, 99999):,}.{rng.integers(0, 99):02d}",
           make_font(th.family, 30, bold=True), "#ffffff")
    c.spans(32, y + 124, [(p.iban if len(p.iban) * 8.2 < w - 70 else p.iban[:22], "bank_account")],
            make_font(th.mono, rng.uniform(12, 15)), "#ffffff")
    c.spans(32, y + 156, [(p.card_number, "card_number") if rng.random() < 0.5 else ("•••• " + p.card_number[-4:], None)],
            make_font(th.mono, 14), "#ffffff")
    y += 220
    ft = make_font(th.family, 16, bold=True)
    c.text(16, y, "Transactions", ft, th.text)
    y += 32
    while y < h - 70:
        q = fd.make_person(rng)
        avatar(c, 16, y + 4, 40, rng, q.first[0] + q.last[0])
        c.spans(68, y + 4, [(q.name, "person_name")], fv, th.text)
        c.text(68, y + 26, fd.negative(rng), fl, th.muted)
        c.text(w - 100, y + 10, f"-{rng.integers(1, 999)}.{rng.integers(0, 99):02d}", fv, th.text)
        y += 60
    return _finish_with_toast(c, th, w, rng)


def render_map(rng: np.random.Generator):
    """Maps app: map view with pins and a place sheet with address and coordinates."""
    c, th, ios, w, h = _phone(rng)
    y = status_bar(c, w, th, rng, ios)
    sheet_h = float(rng.uniform(200, 300))
    map_view(c, 0, y, w, h - y - sheet_h + 16, rng, th.dark)
    c.rect(12, y + 10, w - 24, 46, th.surface, 23, th.border)
    c.text(52, y + 23, "Search here", make_font(th.family, 15), th.muted)
    sy = h - sheet_h
    c.rect(0, sy, w, sheet_h, th.surface, 16)
    c.rect(w / 2 - 20, sy + 8, 40, 4, th.border, 2)
    p = fd.make_person(rng)
    fake = fd.faker_for(rng)
    c.text(20, sy + 26, fake.company()[:28], make_font(th.family, 20, bold=True), th.text)
    fv = make_font(th.family, rng.uniform(13, 16))
    c.spans(20, sy + 62, [(p.street, "postal_address")], fv, th.text)
    c.spans(20, sy + 84, [(p.city_line[:34], "postal_address")], fv, th.text)
    c.spans(20, sy + 114, [(fd.gps(rng), "map_view")], make_font(th.family, 13), th.muted)
    if sheet_h > 230:
        c.spans(20, sy + 144, [(p.phone, "phone_number")], fv, th.accent)
    return _finish_with_toast(c, th, w, rng)
