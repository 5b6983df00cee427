"""More varied personal text for the text-PII classifier's own training scenes.

The synthetic person (``training.synth.fakedata.make_person``) writes every value in one style: a
lower-case username, "First Last", Faker's national phone format and a numeric birth date. Real
screens show more: ``First_Last`` / CamelCase / dotted usernames and handles with digits, names
as "LAST, First" or in capitals, bare or international phone numbers with extensions, birth dates
written out ("12 March 1985"). :func:`restyle` redraws a person's display strings in those styles.

``fakedata`` itself is left unchanged on purpose: the detector's synthetic sets are rendered from
it (and may be rendering while the classifier's data is made), so the variety is applied only
while a classifier scene renders, through :func:`varied_people`.
"""

from __future__ import annotations

import datetime as dt
import re
from contextlib import contextmanager
from dataclasses import replace
from typing import Iterator

import numpy as np

from training.synth import fakedata as fd

USER_WORDS = ("Social", "Work", "User", "Desktop", "Home", "Main", "Dev", "Admin", "Gaming", "Music", "Photo", "Cloud",
              "Office", "Travel", "Shop", "Private", "Family", "School", "Profil", "Konto", "Compte", "Cuenta", "Pixel",
              "Night", "Blue", "Red", "Wolf", "Coffee", "Code", "Bike", "Star", "Moon", "Tiger", "Data", "Green")  # fmt: skip
MONTHS_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December")  # fmt: skip


def ascii_word(s: str) -> str:
    """``s`` reduced to ASCII letters and digits (usernames seldom carry accents or spaces)."""
    return "".join(c for c in s if c.isascii() and c.isalnum())


def username(rng: np.random.Generator, p: fd.Person) -> str:
    """A username in one of the styles people pick: the synthetic lower-case one, CamelCase
    ``FirstLast``, ``First_Last``, ``First.Last``, a first name with digits, joined words,
    initials, surname-first, with or without trailing digits, or the bare first name."""
    first, last = ascii_word(p.first) or "Alex", ascii_word(p.last) or "Smith"
    words = [str(w) for w in rng.choice(USER_WORDS, 2, replace=False)]
    digits = str(int(rng.integers(1, 2030)))
    styles = (p.username, f"{first}{last}", f"{first}_{last}", f"{first}.{last}", f"{first}{digits}",
              "".join(words), f"{words[0]}{first}", f"{first[0]}{last}", f"{last}{first[0]}".lower(),
              f"{first}-{last}".lower(), f"{first.lower()}_{last.lower()}{digits[-2:]}", f"{last}.{first}".lower(),
              f"{first}{last[0]}{digits[-2:]}", f"{words[0].lower()}_{first.lower()}", f"{first[0]}.{last}",
              f"{first}{words[1]}{digits[-1]}", f"{last.upper()}{digits[-2:]}", first, first.lower())  # fmt: skip
    return str(styles[int(rng.integers(0, len(styles)))])


def instance(rng: np.random.Generator) -> str:
    """A made-up fediverse server name for a ``@user@server`` handle: "toot.space", "bird.social"."""
    head = str(rng.choice(["mastodon", "social", "toot", "fedi", "mas", "masto", fd.faker_for(rng, "en_US").word()]))
    return f"{head}.{rng.choice(['social', 'org', 'de', 'io', 'im', 'space', 'online', 'xyz', 'uk', 'net'])}"


def person_name(rng: np.random.Generator, first: str, last: str) -> str:
    """A full name as forms, lists and documents print it: "First Last", "LAST, First", "Last,
    First", "FIRST LAST", "First M. Last", "F. Last", "LAST First"."""
    initial = str(rng.choice(list("ABCDEFGHJKLMNPRSTW")))
    styles = (f"{first} {last}", f"{last.upper()}, {first}", f"{last}, {first}", f"{first} {last}".upper(),
              f"{first} {initial}. {last}", f"{first[0]}. {last}", f"{last.upper()} {first}", f"{last.upper()}, {first.upper()}")  # fmt: skip
    weights = np.array([4, 1.2, 1.2, 1.2, 1, 0.6, 0.8, 1.0])
    return styles[int(rng.choice(len(styles), p=weights / weights.sum()))]


def phone(rng: np.random.Generator, original: str) -> str:
    """``original`` (Faker's national format) or the same digits written another way: bare, with a
    bare "+", in international form, grouped with dots, dashes, spaces or brackets, with an extension."""
    digits = re.sub(r"\D", "", original)
    if len(digits) < 8:
        return original
    d = digits[-10:]
    kind = int(rng.integers(0, 11))
    if kind == 1:
        return d
    if kind == 9:  # a message app's recipient picker: "+" and the digits, nothing between
        return f"+{d}"
    if kind == 10:
        return f"{d[:4]} {d[4:7]} {d[7:]}" if rng.random() < 0.5 else f"{d[:3]} {d[3:6]} {d[6:]}"
    if kind == 2:
        return f"+{rng.choice(['1', '33', '44', '49', '34', '39', '31'])}{d}"
    if kind == 3:
        return f"({d[:3]}) {d[3:6]}-{d[6:]}"
    if kind == 4:
        return f"{d[:3]}.{d[3:6]}.{d[6:]}"
    if kind == 5:
        return f"1-{d[:3]}-{d[3:6]}-{d[6:]}"
    if kind == 6:
        return f"{original} x{int(rng.integers(10, 9999))}"
    if kind == 7:
        return f"+{rng.choice(['33', '44', '49', '34', '48'])} {d[:1]} {d[1:3]} {d[3:5]} {d[5:7]} {d[7:]}".replace("  ", " ")
    return original


def birth_date(rng: np.random.Generator, original: str) -> str:
    """``original`` or a new birth date written another way: "12 March 1985", "March 12, 1985",
    "12 MAR 1985", "12.03.85", "1985/03/12", "12-03-1985"."""
    if rng.random() < 0.4:
        return original
    day = dt.date(int(rng.integers(1938, 2008)), int(rng.integers(1, 13)), int(rng.integers(1, 29)))
    month = MONTHS_EN[day.month - 1]
    styles = (f"{day.day} {month} {day.year}", f"{month} {day.day}, {day.year}", f"{day.day:02d} {month[:3].upper()} {day.year}",
              day.strftime("%d.%m.%y"), day.strftime("%Y/%m/%d"), day.strftime("%d-%m-%Y"), f"{day.day:02d} {month[:3]} {day.year}",
              day.strftime("%m/%d/%y"))  # fmt: skip
    return str(styles[int(rng.integers(0, len(styles)))])


def restyle(rng: np.random.Generator, p: fd.Person) -> fd.Person:
    """``p`` with its name, username, phone, birth date and (sometimes) address redrawn in the
    styles above; about half of each value keeps the original style."""
    name = person_name(rng, p.first, p.last) if rng.random() < 0.5 else p.name
    user = username(rng, p) if rng.random() < 0.6 else p.username
    street, city = p.street, p.city_line
    if rng.random() < 0.15:  # labels and forms often print addresses in capitals
        street, city = street.upper(), city.upper()
    return replace(p, name=name, username=user, phone=phone(rng, p.phone) if rng.random() < 0.5 else p.phone,
                   dob=birth_date(rng, p.dob), street=street, city_line=city)  # fmt: skip


@contextmanager
def varied_people() -> Iterator[None]:
    """While active, ``fakedata.make_person`` returns restyled people (drawn from the same
    generator), so every screen generator shows the varied styles. Restores it on exit."""
    original = fd.make_person

    def make(rng: np.random.Generator, locale: str | None = None) -> fd.Person:
        return restyle(rng, original(rng, locale))

    fd.make_person = make
    try:
        yield
    finally:
        fd.make_person = original

ACTIVITY_VERBS = ("added a note on", "commented on", "updated the deal on", "shared a file on", "replied on",
                  "reacted to your post on", "joined the group on", "closed the ticket on", "signed in on")
ROW_TAILS = ("boosted", "liked your post", "followed you", "mentioned you", "reposted", "is typing…", "sent a photo")
ROLE_LABELS = ("Cashier", "Served by", "Assigned to", "Agent", "Owner", "Reviewer", "Contact", "Driver", "Host")
NAME_SENTENCES = ("Your appointment with {} needs confirmation", "Meeting with {} at {}", "Invoice sent to {}",
                  "Call {} back", "{} shared a document with you", "Reminder: lunch with {}", "Task assigned by {}")


def name_in_context(rng: np.random.Generator, name: str) -> tuple[str, str]:
    """Text before and after a person's name as feeds, CRMs, chat lists and notifications print
    it: "<name> added a note on 3 May 2024", "Followed by <name>", "Call (Re: <name>)",
    "Cashier: <name>", "<name>: see you soon", "Meeting with <name> at 10:30"."""
    fake = fd.faker_for(rng, "en_US")
    when = fake.date_between(start_date="-2y", end_date="+1y").strftime(str(rng.choice(["%d/%m/%Y", "%B %d, %Y", "%d %b %Y"])))
    kind = int(rng.integers(0, 7))
    if kind == 0:
        return "", f" {rng.choice(ACTIVITY_VERBS)} {when}"
    if kind == 1:
        return "", " " + str(rng.choice(ROW_TAILS))
    if kind == 2:
        return str(rng.choice(["Followed by ", "Liked by ", "Invited by ", "Shared by ", "Sent by "])), ""
    if kind == 3:
        return fake.sentence(nb_words=int(rng.integers(2, 5))).rstrip(".") + " (Re: ", ")"
    if kind == 4:
        return f"{rng.choice(ROLE_LABELS)}: ", ""
    if kind == 5:
        return "", ": " + fake.sentence(nb_words=int(rng.integers(3, 7)))
    before, after = str(rng.choice(NAME_SENTENCES)).split("{}", 1)
    return before, after.format(f"{int(rng.integers(8, 19))}:{int(rng.integers(0, 60)):02d}")


# Look-alikes that are NOT private: joined, hyphenated and CamelCase words share a username's shape.
HYPHENATED = ("well-known", "state-of-the-art", "self-service", "long-term", "up-to-date", "follow-up", "e-mail",
              "check-in", "sign-up", "real-time", "high-quality", "full-time", "part-time", "re-enter", "co-worker",
              "non-profit", "one-time", "built-in", "pre-order", "drop-down", "touch-screen", "wi-fi", "mother-in-law",
              "twenty-one", "mid-week", "year-end", "on-demand", "open-source", "user-friendly", "back-end", "front-end",
              "end-to-end", "step-by-step", "hand-made", "sun-dried", "low-cost", "two-factor", "read-only", "opt-in")  # fmt: skip
BRANDS = ("PowerPoint", "iPhone", "YouTube", "WordPress", "JavaScript", "GitHub", "LinkedIn", "PayPal", "WhatsApp",
          "TikTok", "MacBook", "PlayStation", "FedEx", "DoorDash", "OneDrive", "SharePoint", "AirPods", "HubSpot",
          "QuickBooks", "TypeScript", "NextCloud", "LibreOffice", "OpenStreetMap", "BlackBerry", "SoundCloud",
          "MasterCard", "eBay", "iCloud", "FaceTime", "AutoSave", "ReadMe", "DarkMode", "SmartHome", "FastTrack",
          "English", "Deutsch", "Français", "Español", "Nederlands", "Italiano", "Polski", "Svenska", "Dansk")  # fmt: skip
DOTTED = ("e.g.", "i.e.", "a.m.", "p.m.", "U.S.", "Ph.D.", "etc.", "os.path", "node.js", "vue.js", "example.com",
          "docs.google.com", "No.", "approx.", "vs.", "St.", "Dr.", "Inc.", "Ltd.", "co.uk")  # fmt: skip
FILE_EXT = ("pdf", "docx", "xlsx", "jpg", "png", "zip", "csv", "txt", "mp4", "yaml", "json", "pptx")


def hyphenate(word: str, rng: np.random.Generator) -> str:
    """``word`` split into syllable-like chunks as a dictionary or justified text prints it:
    "com-pu-ter"."""
    out, last = [], 0
    for k in range(2, len(word) - 2):
        if word[k - 1] in "aeiouy" and word[k] not in "aeiouy" and k - last >= 2 and rng.random() < 0.7:
            out.append(word[last:k])
            last = k
    out.append(word[last:])
    return "-".join(out)


def look_alike(rng: np.random.Generator, word: str) -> str:
    """A word of ordinary, non-private text in a username-like shape: a hyphenated compound or
    syllable split, a CamelCase product or language name, an abbreviation or domain, a file name."""
    fake = fd.faker_for(rng, "en_US")
    kind = int(rng.integers(0, 6))
    if kind == 0:
        return str(rng.choice(HYPHENATED))
    if kind == 1 and len(word) >= 6 and "-" in (split := hyphenate(word, rng)):
        return split
    if kind == 2:
        return str(rng.choice(BRANDS))
    if kind == 3:
        return str(rng.choice(DOTTED))
    if kind == 4:
        sep = str(rng.choice(["_", "-", ""]))
        return f"{fake.word()}{sep}{fake.word()}.{rng.choice(FILE_EXT)}" if rng.random() < 0.6 else f"IMG_{int(rng.integers(1000, 9999))}.jpg"
    return f"{fake.word().title()}{fake.word().title()}"


# Field labels whose value is ordinary text, not a person ("Title: OCR-free Donut", "Category: Garden").
ORDINARY_LABELS = ("Title", "Subject", "Category", "Project", "Topic", "Product", "Item", "Type", "Status", "Tags",
                   "Model", "Colour", "Brand", "Department", "Course", "Room", "Plan", "Genre", "Theme", "Section")  # fmt: skip


def common_words(words, names, min_zipf: int = 4, keep_names: bool = False) -> list[str]:
    """Ordinary English words to draw harmless text from: alphabetic, 4+ letters, used at least
    10^(min_zipf - 9) of the time (``app.text.words``), and (unless ``keep_names``) not a popular
    first or last name (ranked in some country's top 1,000), so "Grace" stays a name. Sorted, for
    determinism."""
    def popular(w: str) -> bool:
        ranks = [r for r in (names.first_rank(w), names.last_rank(w)) if r is not None]
        return bool(ranks) and min(ranks) <= 1000

    return sorted(w for w, z in words.en.items()
                  if z >= min_zipf and w.isalpha() and len(w) >= 4 and (keep_names or not popular(w)))  # fmt: skip


def ordinary_line(rng: np.random.Generator, pool: list[str]) -> str:
    """A short line of harmless text shaped like a lone name — what grids, tiles, signs, titles,
    labelled fields and dictionaries show: "Cafeteria", "STOP", "Garden Centre", "Title: Holiday
    Plans", "jour-ney-man, n."."""
    def word() -> str:
        return str(pool[int(rng.integers(0, len(pool)))])

    kind = int(rng.integers(0, 5))
    if kind == 4:  # a dictionary headword split into syllables: "jour-ney-man, n.", "Ju-bi-lant (adj.)"
        head = hyphenate(word(), rng)
        head = head[:1].upper() + head[1:] if rng.random() < 0.3 else head
        return head + str(rng.choice(["", ",", ", n.", " n.", " (adj.)", ", v.", " adj.", "."]))
    if kind == 0:
        return word().title()
    if kind == 1:
        return word().upper()
    if kind == 2:
        return f"{word().title()} {word().title()}"
    return f"{rng.choice(ORDINARY_LABELS)}: " + " ".join(word().title() if rng.random() < 0.7 else word() for _ in range(int(rng.integers(1, 4))))


def title_case(text: str, rng: np.random.Generator | None = None, name_words: list[str] | None = None) -> str:
    """``text`` as a headline or title prints it: each word's first letter in capitals, the rest
    kept ("the new version's here" -> "The New Version's Here"). With ``name_words`` (common words
    that are also popular names: "deep", "will", "rich"), half the time one plain word of four or
    more letters becomes one of them, so a name-like word inside a headline is seen as harmless."""
    words = text.split(" ")
    plain = [k for k, w in enumerate(words) if re.fullmatch(r"[a-z]{4,}", w)]
    if rng is not None and name_words and plain and rng.random() < 0.5:
        words[int(rng.choice(plain))] = str(name_words[int(rng.integers(0, len(name_words)))])
    return " ".join(w[:1].upper() + w[1:] for w in words)
