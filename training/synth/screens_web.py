"""Desktop browser pages: Qt's rich-text HTML engine inside drawn browser chrome.

PII spans are ``<a href="c:CLASS">`` anchors; their boxes come from the laid-out
``QTextDocument`` (see ``qtkit.doc_spans``). Pages: webmail, checkout, bank, profile.
"""

from __future__ import annotations

from html import escape as esc

import numpy as np

from . import fakedata as fd
from .qtkit import Canvas, make_font
from .ui import Theme, avatar, theme, toast


def a(cls: str, text: str) -> str:
    """Wrap ``text`` as a labelled span of class ``cls``."""
    return f'<a href="c:{cls}">{esc(text)}</a>'


def _window(rng: np.random.Generator) -> tuple[Canvas, Theme, float, float]:
    w = float(rng.choice([1024, 1280, 1366, 1440, 1600, 1920, 2560]))
    h = float(round(w * rng.uniform(0.5, 0.68)))
    th = theme(rng)
    scale = float(rng.choice([1.0, 1.0, 1.25, 1.5, 2.0])) if w <= 1920 else 1.0
    return Canvas(w, h, th.bg, scale=scale), th, w, h


def browser_chrome(c: Canvas, th: Theme, w: float, rng: np.random.Generator, url: str) -> float:
    """Tabs + address bar; returns the content top."""
    bar = "#202124" if th.dark else str(rng.choice(["#dee1e6", "#f1f3f4", "#e8e8e8"]))
    c.rect(0, 0, w, 82, bar)
    c.rect(80, 8, 240, 34, th.surface, 8)
    c.text(112, 17, url.split("/")[0][:24], make_font(th.family, 12), th.text)
    c.rect(0, 42, w, 40, th.surface)
    for i, col in enumerate(("#ff5f57", "#febc2e", "#28c840")):
        c.ellipse(14 + i * 20, 18, 12, 12, col)
    c.rect(110, 47, w - 220, 30, "#303134" if th.dark else "#f1f3f4", 15)
    c.text(134, 54, url, make_font(th.family, 14), th.muted)
    c.line(0, 82, w, 82, th.border)
    return 82.0


def _page(th: Theme, body: str, rng) -> tuple[str, str]:
    link = th.accent
    css = f"body,h1,h2,h3,td,p{{color:{th.text}}} a{{color:{th.text}}} .m{{color:{th.muted}}} .h{{color:{link}}}"
    return css, body


def page_mail(rng, th: Theme) -> tuple[str, str]:
    """Webmail: message list + open message with sender, recipient, greeting and signature."""
    me, sender = fd.make_person(rng), fd.make_person(rng)
    rows = []
    for _ in range(int(rng.integers(4, 9))):
        p = fd.make_person(rng)
        rows.append(f"<tr><td width='26%'><b>{a('person_name', p.name)}</b></td><td>{esc(fd.sentence(rng, (3, 7)))}</td>"
                    f"<td class='m' align='right'>{esc(fd.negative(rng))}</td></tr>")
    body = (f"<table width='100%' cellpadding='7' cellspacing='0' style='border-bottom:1px solid {th.border}'>{''.join(rows)}</table><hr/>"
            f"<h2>{esc(fd.sentence(rng, (3, 6)))}</h2>"
            f"<p><b>{a('person_name', sender.name)}</b> &lt;{a('email', sender.email)}&gt;<br/>"
            f"<span class='m'>to {a('email', me.email)} · {esc(fd.negative(rng))}</span></p>"
            f"<p>Hi {a('person_name', me.first)},</p><p>{esc(fd.sentence(rng, (10, 25)))} {esc(fd.sentence(rng))}</p>"
            f"<p>You can reach me on {a('phone_number', sender.phone)} or drop by at {a('postal_address', sender.street)}, "
            f"{a('postal_address', sender.city_line)}.</p>"
            f"<p>Best regards,<br/>{a('person_name', sender.name)}<br/>{esc(sender.job)}, {esc(sender.company)}<br/>"
            f"{a('phone_number', sender.phone)}</p>")
    return _page(th, body, rng)


def _field(label: str, cls: str | None, value: str, th: Theme) -> str:
    val = a(cls, value) if cls else esc(value)
    return (f"<td class='m'>{esc(label)}<br/><table width='100%' cellpadding='8' cellspacing='0' border='1' "
            f"style='border-color:{th.border}; border-style:solid'><tr><td>{val}</td></tr></table></td>")


def page_checkout(rng, th: Theme) -> tuple[str, str]:
    """Checkout / sign-up form with address, card and contact fields; prices are negatives."""
    p = fd.make_person(rng)
    pw = a("password", p.password) if rng.random() < 0.4 else a("password", "•" * int(rng.integers(8, 14)))
    fields = [
        ("Full name", "person_name", p.name), ("Email address", "email", p.email), ("Phone", "phone_number", p.phone),
        ("Street address", "postal_address", p.street), ("City / ZIP", "postal_address", p.city_line),
        ("Card number", "card_number", p.card_number), ("Expiry", None, p.card_expiry), ("Date of birth", "date_of_birth", p.dob),
        ("Username", "username", p.username), ("IBAN", "bank_account", p.iban),
    ]
    idx = rng.permutation(len(fields))[: int(rng.integers(5, len(fields) + 1))]
    cells = [_field(*fields[i], th) for i in sorted(idx)]
    cells.append(f"<td class='m'>Password<br/><table width='100%' cellpadding='8' border='1'><tr><td>{pw}</td></tr></table></td>")
    rows = "".join("<tr>" + "".join(cells[i : i + 2]) + "</tr>" for i in range(0, len(cells), 2))
    items = "".join(f"<tr><td>{esc(fd.sentence(rng, (2, 4)))}</td><td align='right'>{esc(fd.negative(rng))}</td></tr>"
                    for _ in range(int(rng.integers(2, 5))))
    body = (f"<h1>{esc(str(rng.choice(['Checkout', 'Create your account', 'Kasse', 'Paiement', 'Shipping details'])))}</h1>"
            f"<table width='100%' cellspacing='14'><tr><td width='62%'><table width='100%' cellspacing='10'>{rows}</table></td>"
            f"<td valign='top' bgcolor='{th.surface}'><h3>Order summary</h3><p class='m'>{esc(fd.negative(rng))}</p>"
            f"<table width='100%' cellpadding='4'>{items}</table></td></tr></table>")
    return _page(th, body, rng)


def page_bank(rng, th: Theme) -> tuple[str, str]:
    """Online banking: holder, IBAN, account number, transactions with payee names."""
    p = fd.make_person(rng)
    acct = "".join(str(d) for d in rng.integers(0, 10, int(rng.integers(8, 12))))
    tx = "".join(
        f"<tr><td class='m'>{esc(fd.negative(rng) if rng.random() < 0.3 else str(fd.faker_for(rng).date()))}</td>"
        f"<td>{a('person_name', fd.make_person(rng).name)}</td><td>{a('bank_account', fd.faker_for(rng).iban()) if rng.random() < 0.4 else esc(fd.sentence(rng, (2, 4)))}</td>"
        f"<td align='right'>{esc(fd.negative(rng))}</td></tr>" for _ in range(int(rng.integers(4, 10))))
    body = (f"<h2>Welcome back, {a('person_name', p.first)}</h2>"
            f"<table width='100%' cellpadding='12' bgcolor='{th.surface}'><tr><td><span class='m'>Account holder</span><br/><b>{a('person_name', p.name)}</b></td>"
            f"<td><span class='m'>IBAN</span><br/>{a('bank_account', p.iban)}</td><td><span class='m'>Account no.</span><br/>{a('bank_account', acct)}</td>"
            f"<td><span class='m'>Balance</span><br/><b>{esc(fd.negative(rng))}</b></td></tr></table>"
            f"<h3>Recent transactions</h3><table width='100%' cellpadding='8' cellspacing='0' border='0'>{tx}</table>"
            f"<p class='m'>Customer ID {a('id_number', p.id_number)} · Branch {esc(p.city_line)}</p>")
    return _page(th, body, rng)


def page_profile(rng, th: Theme) -> tuple[str, str]:
    """Account settings / HR record: every personal field in a definition table."""
    p = fd.make_person(rng)
    rows = [("Name", a("person_name", p.name)), ("Username", a("username", p.username)), ("E-mail", a("email", p.email)),
            ("Mobile", a("phone_number", p.phone)), ("Date of birth", a("date_of_birth", p.dob)),
            ("Address", a("postal_address", p.street) + "<br/>" + a("postal_address", p.city_line)),
            ("National ID", a("id_number", p.id_number)), ("Member since", esc(fd.negative(rng))),
            ("Last login IP", a("ip_address", fd.ip_address(rng))), ("Plan", esc(fd.negative(rng)))]
    order = rng.permutation(len(rows))[: int(rng.integers(5, len(rows) + 1))]
    trs = "".join(f"<tr><td class='m' width='30%'>{rows[i][0]}</td><td>{rows[i][1]}</td></tr>" for i in sorted(order))
    body = f"<h1>{esc(str(rng.choice(['Profile', 'Personal information', 'Mein Konto', 'Mon profil', 'Employee record'])))}</h1>" \
           f"<table width='80%' cellpadding='10' cellspacing='0'>{trs}</table>"
    return _page(th, body, rng)


PAGES = (page_mail, page_checkout, page_bank, page_profile)


def render_browser(rng: np.random.Generator):
    """A browser window showing one of the pages; sometimes a sidebar, avatar and toast."""
    c, th, w, h = _window(rng)
    page = PAGES[int(rng.integers(0, len(PAGES)))]
    fake = fd.faker_for(rng)
    top = browser_chrome(c, th, w, rng, fake.domain_name() + "/" + fake.uri_path())
    css, body = page(rng, th)
    side = float(rng.choice([0, 0, 220, 260]))
    if side:
        c.rect(0, top, side, h - top, th.surface)
        f = make_font(th.family, 14)
        for i, lab in enumerate(("Inbox", "Starred", "Sent", "Drafts", "Spam", "Settings")):
            c.text(24, top + 24 + i * 36, lab, f, th.text)
    me = fd.make_person(rng)
    avatar(c, w - 56, top + 12, 36, rng, me.first[0] + me.last[0])
    px = float(rng.choice([12, 13, 14, 15, 16, 18]))
    margin = side + float(rng.uniform(24, 80))
    c.html(margin, top + 56, min(w - margin - 40, rng.uniform(700, 1400)), body,
           make_font(th.family if rng.random() < 0.8 else th.serif, px), css, clip_h=h - top - 60)
    if rng.random() < 0.35:
        toast(c, w - 380, h - 120, 360, th, rng, fd.make_person(rng), mobile=False)
    return c.finish()
