"""``python -m training.text.locale_check``: how much of the personal text of other languages the
app's text reading hides (postal addresses, national identity numbers, dates of birth, sign-in
fields, phone numbers), per locale, and how often it hides ordinary text as such.

Positives are Faker addresses (``faker.address()``) in the locales the text classifier was trained
on (``training.synth.fakedata.LOCALES``) and in locales it never saw, read the way screens show
them: the whole address on one line ("ul. Długa 14/3, 00-238 Warszawa"), or street and town on two
lines, between two ordinary lines (a headline above, a sentence below), so the layout context is
that of a page, not of a lone line. Each page goes through the app's ``read_screen`` (spans, then
address blocks); a line counts as hidden when boxes of any class cover at least 90 % of its width.

Negatives are ordinary lines: the training renderer's headlines, product names and dates, and
sentences from the docstrings of Python's standard library (text neither the rules nor the model
were made from). A negative line counts when a ``postal_address`` box lies on it.

Identity numbers are Faker's ``ssn()`` of the locales whose numbers have a national form (PESEL,
BSN, codice fiscale, personnummer, henkilötunnus, fødselsnummer, the Austrian insurance number, the
French NIR, the US SSN), shown under their label, after it on one line, or bare under a heading.
Their negatives are numbers of the same lengths (9-13 digits, or 6-4 with a dash) after labels
that are not identities (order, invoice, tracking, reference): the share hidden as ``id_number``.

Dates of birth are Faker's ``date_of_birth()`` written d.m.Y, d/m/Y, Y-m-d or d-m-Y under or after
the local label ("Data urodzenia", "Födelsedatum"); their negatives are dates of the same forms
after labels that are not births (issued, expires, ordered, delivered).

Sign-in fields are Faker passwords and user names under or after the field's label in 16
languages ("Hasło", "Gebruikersnaam", "Käyttäjätunnus").

Phone numbers are Faker's ``phone_number()`` of 12 locales under or after a local label ("Mobil",
"Tlf.", "Puhelin", "Komórka").

Addresses are reported for the rules alone (no classifier) and for the shipped classifier with
them (``TextPiiClassifier``, what the app runs); the rest for the classifier with the rules only.
"""

from __future__ import annotations

import argparse
import ast
import sys
import sysconfig
from pathlib import Path

import numpy as np
from faker import Faker

from app.text.classifier import TextPiiClassifier
from app.text.lines import TextLine
from app.text.model import load_model
from app.text.screen import read_screen
from training.synth import fakedata as fd
from training.text.ordinary import title_headline

HIDDEN = 0.9  # share of a line's width under boxes for it to count as hidden
ADDRESS = frozenset({"postal_address"})
UNSEEN_LOCALES = ("pt_PT", "no_NO", "fi_FI", "hu_HU", "cs_CZ", "sk_SK", "de_AT", "de_CH", "fr_CH", "nl_BE",
                  "hr_HR", "sl_SI", "ro_RO", "en_IE", "en_AU", "en_CA")  # fmt: skip


def _page(texts: list[str]) -> tuple[list[TextLine], np.ndarray]:
    """``texts`` as lines of a page (24 px apart, 8 px a character) and its blank frame; on a blank
    frame the span boxes are the character-width boxes (no ink to fit)."""
    lines = []
    for row, text in enumerate(texts):
        y, w = 10.0 + 24.0 * row, 10.0 + 8.0 * max(len(text), 1)
        lines.append(TextLine(text, np.array([[10, y], [w, y], [w, y + 16], [10, y + 16]], np.float32)))
    width = int(max(float(l.quad[:, 0].max()) for l in lines)) + 20
    return lines, np.full((24 * len(texts) + 30, width, 3), 255, np.uint8)


def _covered(line: TextLine, regions, classes: frozenset[str] | None = None) -> float:
    """Share of ``line``'s width under the boxes of ``regions`` that cross its middle row."""
    x0, x1 = float(line.quad[:, 0].min()), float(line.quad[:, 0].max())
    mid = float(line.quad[:, 1].mean())
    hit = np.zeros(int(x1 - x0) + 1, bool)
    for r in regions:
        if (classes is None or r.class_name in classes) and r.xyxy[1] <= mid <= r.xyxy[3]:
            hit[max(0, int(r.xyxy[0] - x0)) : max(0, int(np.ceil(r.xyxy[2] - x0)))] = True
    return float(hit.mean())


def addresses(locale: str, n: int, seed: int) -> list[list[str]]:
    """``n`` addresses of ``locale`` as their lines (Faker's own line breaks)."""
    fake = Faker(locale)
    fake.seed_instance(seed)
    return [[part.strip() for part in fake.address().split("\n") if part.strip()] for _ in range(n)]


def stdlib_sentences(limit: int) -> list[str]:
    """Up to ``limit`` docstring lines of 25-90 characters from Python's standard library."""
    out: list[str] = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="ignore"))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and ast.get_docstring(node):
                out += [s.strip() for s in ast.get_docstring(node).splitlines() if 25 <= len(s.strip()) <= 90]
        if len(out) >= limit:
            break
    return out[:limit]


def check_positives(clf: TextPiiClassifier, locales, n: int, seed: int, one_line: bool, rng: np.random.Generator) -> dict:
    """Share of address lines hidden (rules alone, classifier), over ``locales``."""
    hits = {"rules": 0, "classifier": 0}
    total = 0
    for locale in locales:
        for parts in addresses(locale, n, seed):
            shown = [", ".join(parts)] if one_line else parts
            lines, frame = _page([title_headline(rng)] + shown + [fd.sentence(rng, (6, 12))])
            total += len(shown)
            for name, reader in (("rules", None), ("classifier", clf)):
                regions = read_screen(lines, frame, reader).regions
                hits[name] += sum(_covered(line, regions) >= HIDDEN for line in lines[1:-1])
    return {"lines": total, **{k: v / max(total, 1) for k, v in hits.items()}}


def check_negatives(clf: TextPiiClassifier, texts: list[str]) -> dict:
    """Share of ordinary lines under a ``postal_address`` box (rules alone, classifier)."""
    hits = {"rules": 0, "classifier": 0}
    for start in range(0, len(texts), 8):  # pages of 8 lines
        lines, frame = _page(texts[start : start + 8])
        for name, reader in (("rules", None), ("classifier", clf)):
            regions = read_screen(lines, frame, reader).regions
            hits[name] += sum(_covered(line, regions, ADDRESS) > 0 for line in lines)
    return {"lines": len(texts), **{k: v / max(len(texts), 1) for k, v in hits.items()}}


ID_LABELS = {"pl_PL": "PESEL", "nl_NL": "BSN", "it_IT": "Codice fiscale", "sv_SE": "Personnummer",
             "fi_FI": "Henkilötunnus", "no_NO": "Fødselsnummer", "de_AT": "Sozialversicherungsnummer",
             "fr_FR": "N° de sécurité sociale", "en_US": "SSN"}  # fmt: skip
OTHER_LABELS = ("Order", "Invoice no.", "Tracking number", "Reference", "Ticket", "Build", "Serial number", "Transaction ID")
ID_CLASS = frozenset({"id_number"})


def _layouts(label: str, value: str) -> tuple[tuple[str, list[str]], ...]:
    """A labelled value as forms show it: the label on the line above, or before it on one line."""
    return ("label line", [label, value]), ("same line", [f"{label}: {value}"])


def _value_hidden(clf: TextPiiClassifier, heading: str, texts: list[str], footer: str, value: str) -> bool:
    """Whether ``value``, the last of ``texts`` on a page between ``heading`` and ``footer``, is
    hidden: boxes cover ``HIDDEN`` of its share of its line's width."""
    lines, frame = _page([heading] + texts + [footer])
    line = lines[-2]
    return _covered(line, read_screen(lines, frame, clf).regions) >= HIDDEN * len(value) / max(len(line.text), 1)


def check_ids(clf: TextPiiClassifier, n: int, seed: int) -> list[tuple[str, dict]]:
    """Per locale: share of identity numbers hidden under a label line, after a label on the same
    line, and bare."""
    rows = []
    for locale, label in ID_LABELS.items():
        fake = Faker(locale)
        fake.seed_instance(seed)
        hits = {"label line": 0, "same line": 0, "bare": 0}
        for _ in range(n):
            number = fake.ssn()
            for kind, texts in _layouts(label, number) + (("bare", ["Profile", number]),):
                hits[kind] += _value_hidden(clf, "Account details", texts, "Last updated yesterday", number)
        rows.append((f"{locale} ({label})", {k: v / n for k, v in hits.items()}))
    return rows


def check_id_negatives(clf: TextPiiClassifier, n: int, rng: np.random.Generator) -> dict:
    """Share of order, invoice and reference numbers hidden as ``id_number``."""
    hidden = 0
    for _ in range(n):
        if rng.random() < 0.2:
            number = "".join(map(str, rng.integers(0, 10, 6))) + "-" + "".join(map(str, rng.integers(0, 10, 4)))
        else:
            number = "".join(map(str, rng.integers(0, 10, int(rng.integers(9, 14)))))
        texts = [f"{rng.choice(OTHER_LABELS)}: {number}"] if rng.random() < 0.5 else [str(rng.choice(OTHER_LABELS)), number]
        lines, frame = _page(["Your purchase"] + texts + ["Thank you for shopping with us"])
        hidden += _covered(lines[-2], read_screen(lines, frame, clf).regions, ID_CLASS) > 0
    return {"lines": n, "hidden": hidden / max(n, 1)}


DOB_LABELS = {"en_US": "Date of birth", "de_DE": "Geburtsdatum", "fr_FR": "Date de naissance", "es_ES": "Fecha de nacimiento",
              "it_IT": "Data di nascita", "nl_NL": "Geboortedatum", "pl_PL": "Data urodzenia", "pt_PT": "Data de nascimento",
              "sv_SE": "Födelsedatum", "da_DK": "Fødselsdato", "fi_FI": "Syntymäaika", "cs_CZ": "Datum narození",
              "hu_HU": "Születési dátum", "ro_RO": "Data nașterii", "tr_TR": "Doğum tarihi"}  # fmt: skip
OTHER_DATE_LABELS = ("Issued", "Expires", "Valid until", "Ordered", "Delivered", "Data di scadenza", "Vervaldatum",
                     "Data ważności", "Utgångsdatum", "Ablaufdatum", "Date d'expiration")  # fmt: skip
DATE_FORMATS = ("%d.%m.%Y", "%d/%m/%Y", "%Y-%m-%d", "%d-%m-%Y")
DOB_CLASS = frozenset({"date_of_birth"})


def check_dates_of_birth(clf: TextPiiClassifier, n: int, seed: int, rng: np.random.Generator) -> tuple[list, float]:
    """Per locale, the share of birth dates hidden under their label line and after their label;
    and the share of other dates hidden as ``date_of_birth``."""
    rows = []
    for locale, label in DOB_LABELS.items():
        fake = Faker(locale)
        fake.seed_instance(seed)
        hits = {"label line": 0, "same line": 0}
        for _ in range(n):
            date = fake.date_of_birth().strftime(str(rng.choice(DATE_FORMATS)))
            for kind, texts in _layouts(label, date):
                hits[kind] += _value_hidden(clf, "Personal details", texts, "Last updated yesterday", date)
        rows.append((f"{locale} ({label})", {k: v / n for k, v in hits.items()}))
    fake = Faker("en_US")
    fake.seed_instance(seed)
    others = 0
    for _ in range(n * 4):
        date = fake.date_between(start_date="-3y", end_date="+5y").strftime(str(rng.choice(DATE_FORMATS)))
        lines, frame = _page(["Personal details", f"{rng.choice(OTHER_DATE_LABELS)}: {date}", "Last updated yesterday"])
        others += _covered(lines[1], read_screen(lines, frame, clf).regions, DOB_CLASS) > 0
    return rows, others / (n * 4)


CREDENTIAL_LABELS = {
    "password": ("Password", "Passwort", "Mot de passe", "Contraseña", "Hasło", "Wachtwoord", "Senha", "Lösenord", "Adgangskode",
                 "Passord", "Salasana", "Heslo", "Jelszó", "Parola", "Şifre", "Lozinka"),
    "username": ("Username", "Benutzername", "Identifiant", "Usuario", "Nazwa użytkownika", "Gebruikersnaam", "Nome utente",
                 "Nome de usuário", "Användarnamn", "Brugernavn", "Brukernavn", "Käyttäjätunnus", "Uživatelské jméno",
                 "Felhasználónév", "Nume de utilizator", "Kullanıcı adı"),
}  # fmt: skip


def check_credentials(clf: TextPiiClassifier, n: int, seed: int) -> list[tuple[str, dict]]:
    """Per field, the share of values hidden under their label line and after their label, over
    all the label's languages."""
    fake = Faker("en_US")
    fake.seed_instance(seed)
    rows = []
    for field, labels in CREDENTIAL_LABELS.items():
        hits, total = {"label line": 0, "same line": 0}, 0
        for label in labels:
            for _ in range(n):
                value = fake.password(length=12) if field == "password" else fake.user_name()
                total += 1
                for kind, texts in _layouts(label, value):
                    hits[kind] += _value_hidden(clf, "Sign in", texts, "Forgot your password?", value)
        rows.append((f"{field} ({len(labels)} languages, {total})", {k: v / max(total, 1) for k, v in hits.items()}))
    return rows


PHONE_LABELS = {"it_IT": "Cellulare", "nl_NL": "Mobiel", "pl_PL": "Komórka", "fi_FI": "Puhelin", "no_NO": "Mobil",
                "da_DK": "Tlf.", "sv_SE": "Mobilnummer", "hu_HU": "Telefonszám", "pt_PT": "Telemóvel", "ro_RO": "Telefon mobil",
                "de_AT": "Mobil", "cs_CZ": "Mobil"}  # fmt: skip


def check_phone_labels(clf: TextPiiClassifier, n: int, seed: int) -> dict:
    """Share of phone numbers hidden under and after their local label, over ``PHONE_LABELS``."""
    hits, total = {"label line": 0, "same line": 0}, 0
    for locale, label in PHONE_LABELS.items():
        fake = Faker(locale)
        fake.seed_instance(seed)
        for _ in range(n):
            number = fake.phone_number()
            total += 1
            for kind, texts in _layouts(label, number):
                hits[kind] += _value_hidden(clf, "Kontakt", texts, "Last updated", number)
    return {"numbers": total, **{k: v / max(total, 1) for k, v in hits.items()}}


def main(argv: list[str] | None = None) -> int:
    """Print the table; returns 0."""
    p = argparse.ArgumentParser(prog="python -m training.text.locale_check", description=__doc__.split("\n\n")[0])
    p.add_argument("--per-locale", type=int, default=40, help="addresses per locale (default %(default)s)")
    p.add_argument("--negatives", type=int, default=2000, help="ordinary lines of each kind (default %(default)s)")
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args(argv)
    clf = TextPiiClassifier(load_model())
    rng = np.random.default_rng(a.seed)
    print("| addresses | layout | lines | hidden, rules alone | hidden, classifier (app) |\n|---|---|---|---|---|")
    for name, locales in (("trained locales", fd.LOCALES), ("unseen locales", UNSEEN_LOCALES)):
        for one_line in (True, False):
            r = check_positives(clf, locales, a.per_locale, a.seed, one_line, rng)
            print(f"| {name} | {'one line' if one_line else 'two lines'} | {r['lines']} | {100 * r['rules']:.1f} % | {100 * r['classifier']:.1f} % |")
    renderer = [title_headline(rng) for _ in range(a.negatives // 2)] + [fd.sentence(rng, (5, 14)) for _ in range(a.negatives // 2)]
    print("\n| ordinary lines | lines | under an address box, rules alone | under an address box, classifier (app) |\n|---|---|---|---|")
    for name, texts in (("renderer headlines and sentences", renderer), ("Python stdlib docstrings", stdlib_sentences(a.negatives))):
        r = check_negatives(clf, texts)
        print(f"| {name} | {r['lines']} | {100 * r['rules']:.2f} % | {100 * r['classifier']:.2f} % |")
    print("\n| identity numbers (classifier, app) | under a label line | after a label | bare |\n|---|---|---|---|")
    for name, r in check_ids(clf, a.per_locale, a.seed):
        print(f"| {name} | {100 * r['label line']:.0f} % | {100 * r['same line']:.0f} % | {100 * r['bare']:.0f} % |")
    r = check_id_negatives(clf, a.negatives // 2, rng)
    print(f"\nOrder, invoice and reference numbers hidden as id_number: {100 * r['hidden']:.2f} % of {r['lines']}")
    rows, others = check_dates_of_birth(clf, a.per_locale, a.seed, rng)
    print("\n| dates of birth (classifier, app) | under a label line | after a label |\n|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {100 * r['label line']:.0f} % | {100 * r['same line']:.0f} % |")
    print(f"\nOther dates (issued, expires, ordered) hidden as date_of_birth: {100 * others:.2f} % of {a.per_locale * 4}")
    print("\n| sign-in fields (classifier, app) | under a label line | after a label |\n|---|---|---|")
    for name, r in check_credentials(clf, max(1, a.per_locale // 4), a.seed):
        print(f"| {name} | {100 * r['label line']:.1f} % | {100 * r['same line']:.1f} % |")
    r = check_phone_labels(clf, max(1, a.per_locale // 2), a.seed)
    print(f"\nPhone numbers under / after a local label ({len(PHONE_LABELS)} locales, {r['numbers']}): "
          f"{100 * r['label line']:.1f} % / {100 * r['same line']:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
