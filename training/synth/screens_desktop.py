"""Desktop apps: terminals with keys and IPs, password managers, real Qt widget forms.

``render_*`` return ``(BGR uint8 (H, W, 3), [(class_name, xyxy image pixels)])``.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from . import fakedata as fd
from .qtkit import Canvas, make_font, qimage_to_bgr
from .ui import theme, toast


def _window_frame(c: Canvas, x, y, w, h, th, title: str) -> float:
    """Title bar + frame; returns content top."""
    c.rect(x, y, w, h, th.bg, 8, th.border)
    c.rect(x, y, w, 32, th.surface, 8)
    for i, col in enumerate(("#ff5f57", "#febc2e", "#28c840")):
        c.ellipse(x + 12 + i * 20, y + 10, 12, 12, col)
    c.text(x + w / 2 - len(title) * 3.5, y + 8, title, make_font(th.family, 13), th.muted)
    return y + 32


def render_terminal(rng: np.random.Generator):
    """Shell session: prompt with username, ssh/ping to IPs, exported secrets, git hashes (negatives)."""
    w = float(rng.choice([900, 1100, 1280, 1600, 1920]))
    h = float(round(w * rng.uniform(0.55, 0.75)))
    th = theme(rng, dark=bool(rng.random() < 0.8))
    c = Canvas(w, h, th.bg, scale=float(rng.choice([1.0, 1.25, 1.5, 2.0])) if w < 1800 else 1.0)
    top = _window_frame(c, 0, 0, w, h, th, "Terminal")
    px = float(rng.uniform(11, 18))
    f = make_font(th.mono, px)
    lh = px * float(rng.uniform(1.25, 1.5))
    p = fd.make_person(rng)
    host = str(rng.choice(["laptop", "dev-box", "build01", "ubuntu", "MacBook-Pro", "prod-api-3"]))
    green, blue, fg = "#8ae234", "#729fcf", "#d3d7cf" if th.dark else "#2e3436"
    y = top + 8
    while y < h - lh * 2:
        prompt = [(p.username, "username"), (f"@{host}", None)]
        kind = int(rng.integers(0, 8))
        ip = fd.ip_address(rng)
        if kind == 0:
            cmd, out = [("ssh ", None), (p.username, "username"), ("@", None), (ip, "ip_address")], [[(f"Last login: {fd.negative(rng)} from ", None), (fd.ip_address(rng), "ip_address")]]
        elif kind == 1:
            var = str(rng.choice(["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "OPENAI_API_KEY", "STRIPE_KEY", "SLACK_TOKEN"]))
            cmd, out = [(f"export {var}=", None), (fd.secret_key(rng), "secret_key")], []
        elif kind == 2:
            cmd = [("git log --oneline -3", None)]
            out = [[(fd.negative(rng)[:7] if False else "".join(rng.choice(list("0123456789abcdef"), 7)) + " " + fd.sentence(rng, (3, 6)), None)] for _ in range(3)]
        elif kind == 3:
            cmd = [("ping -c 1 ", None), (ip, "ip_address")]
            out = [[("64 bytes from ", None), (ip, "ip_address"), (f": icmp_seq=1 ttl=5{rng.integers(0, 9)} time={rng.uniform(1, 90):.1f} ms", None)]]
        elif kind == 4:
            cmd = [("cat ~/.ssh/id_ed25519", None)]
            out = [[("-----BEGIN OPENSSH PRIVATE KEY-----", "secret_key")]] + [[("".join(rng.choice(list("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"), 64)), "secret_key")] for _ in range(int(rng.integers(1, 4)))]
        elif kind == 5:
            cmd = [("pip install requests==", None), (fd.negative(rng)[1:] if False else f"2.{rng.integers(0, 33)}.{rng.integers(0, 9)}", None)]
            out = [[(f"Successfully installed {fd.negative(rng)}", None)]]
        elif kind == 6:
            cmd = [("curl -H 'Authorization: Bearer ", None), (fd.secret_key(rng), "secret_key"), ("' api.example.com", None)]
            out = [[('{"status": "ok", "id": "' + fd.negative(rng) + '"}', None)]]
        else:
            cmd = [("whoami && hostname -I", None)]
            out = [[(p.username, "username")], [(ip, "ip_address"), (" ", None), (fd.ip_address(rng), "ip_address")]]
        x = 10 + c.spans(10, y, prompt, f, green)
        x += c.spans(x, y, [(":~$ ", None)], f, blue)
        c.spans(x, y, cmd, f, fg)
        y += lh
        for ln in out:
            if y >= h - lh:
                break
            c.spans(10, y, ln, f, fg)
            y += lh
    return c.finish()


def render_password_manager(rng: np.random.Generator):
    """Vault list + detail pane: usernames/emails, visible or dotted passwords, TOTP codes."""
    w = float(rng.choice([1024, 1280, 1440, 1920]))
    h = float(round(w * rng.uniform(0.56, 0.7)))
    th = theme(rng)
    c = Canvas(w, h, th.bg, scale=float(rng.choice([1.0, 1.25, 1.5, 2.0])) if w < 1800 else 1.0)
    top = _window_frame(c, 0, 0, w, h, th, str(rng.choice(["Vault", "Passwords", "KeePassXC", "Bitwarden"])))
    list_w = w * 0.38
    c.rect(0, top, list_w, h - top, th.surface)
    f, fs = make_font(th.family, rng.uniform(13, 16), bold=True), make_font(th.family, rng.uniform(11, 14))
    y = top + 12
    while y < h - 60:
        p = fd.make_person(rng)
        c.rect(14, y + 8, 32, 32, th.accent, 6)
        c.text(58, y + 6, fd.faker_for(rng).domain_name(), f, th.text)
        c.spans(58, y + 28, [(p.email, "email") if rng.random() < 0.5 else (p.username, "username")], fs, th.muted)
        y += 56
    p = fd.make_person(rng)
    x0, y = list_w + 30, top + 30
    c.text(x0, y, fd.faker_for(rng).domain_name(), make_font(th.family, 24, bold=True), th.text)
    y += 60
    fl, fv = make_font(th.family, 12), make_font(th.mono if rng.random() < 0.5 else th.family, rng.uniform(14, 18))
    show = rng.random() < 0.6
    rows = [("username", p.username, "username"), ("email", p.email, "email"),
            ("password", p.password if show else "•" * int(rng.integers(8, 16)), "password"),
            ("one-time code", fd.otp(rng), "verification_code"), ("notes", fd.negative(rng), None),
            ("recovery key", fd.secret_key(rng), "secret_key")]
    for lab, val, cls in rows:
        c.text(x0, y, lab, fl, th.muted)
        c.spans(x0, y + 18, [(val, cls)], fv, th.text)
        y += 64
    if rng.random() < 0.3:
        toast(c, w - 380, top + 12, 360, th, rng, fd.make_person(rng), mobile=False)
    return c.finish()


def render_widget_form(rng: np.random.Generator):
    """A real QWidget sign-up dialog (QLineEdit incl. password echo) grabbed offscreen.

    Boxes are the line edits' geometry mapped to the top window, shrunk to the text ink.
    """
    p = fd.make_person(rng)
    th = theme(rng)
    root = QWidget()
    root.setStyleSheet(f"QWidget{{background:{th.bg}; color:{th.text}; font-family:'{th.family}'; font-size:{int(rng.integers(12, 20))}px}}"
                       f" QLineEdit{{background:{th.surface}; border:1px solid {th.border}; border-radius:4px; padding:6px}}"
                       f" QPushButton{{background:{th.accent}; color:white; padding:8px; border-radius:4px}}")
    lay = QVBoxLayout(root)
    lay.addWidget(QLabel(str(rng.choice(["Create account", "Sign up", "Registrieren", "Inscription", "Your details"]))))
    form = QFormLayout()
    lay.addLayout(form)
    fields = [("Name", p.name, "person_name"), ("E-mail", p.email, "email"), ("Phone", p.phone, "phone_number"),
              ("Username", p.username, "username"), ("Birthday", p.dob, "date_of_birth"), ("Address", p.street, "postal_address"),
              ("Password", p.password, "password"), ("Promo code", fd.negative(rng), None)]
    edits = []
    for lab, val, cls in fields:
        e = QLineEdit(val)
        if cls == "password" and rng.random() < 0.6:
            e.setEchoMode(QLineEdit.EchoMode.Password)
        e.setCursorPosition(0)
        form.addRow(lab, e)
        edits.append((e, cls))
    combo = QComboBox()
    combo.addItems([fd.faker_for(rng).country()])
    form.addRow("Country", combo)
    lay.addWidget(QPushButton("Continue"))
    scale = float(rng.choice([1.0, 1.25, 1.5, 2.0]))
    root.resize(int(rng.integers(380, 700)), 10)
    root.adjustSize()
    pix = root.grab()
    img = qimage_to_bgr(pix.toImage())
    from .qtkit import ink_box
    labels = []
    for e, cls in edits:
        if not cls:
            continue
        tl = e.mapTo(root, QPoint(0, 0))
        g = e.rect()
        # Inset by the frame + padding so the ink search sees only the field's text area.
        box = ink_box(img, (tl.x() + 6, tl.y() + 3, tl.x() + g.width() - 4, tl.y() + g.height() - 3))
        if box:
            labels.append((cls, box))
    if scale != 1.0:
        import cv2
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        labels = [(k, tuple(v * scale for v in b)) for k, b in labels]
    return img, labels
