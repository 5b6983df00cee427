"""Fake personal data (and look-alike non-PII negatives) for the synthetic renderers.

Every value comes from a ``Person`` built by :func:`make_person` from a seeded
``np.random.Generator``, so one image's data depends only on its seed.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from faker import Faker

LOCALES = ("en_US", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL", "pt_BR", "en_GB", "sv_SE", "da_DK")


@lru_cache(maxsize=None)
def _faker(locale: str) -> Faker:
    return Faker(locale)


@dataclass(frozen=True)
class Person:
    """One fake identity; strings are display-ready."""

    locale: str
    first: str
    last: str
    name: str
    email: str
    username: str
    phone: str
    street: str
    city_line: str
    country: str
    dob: str
    id_number: str
    iban: str
    card_number: str
    card_expiry: str
    company: str
    job: str
    password: str


def faker_for(rng: np.random.Generator, locale: str | None = None) -> Faker:
    """A Faker for ``locale`` (random if None), re-seeded from ``rng`` for determinism."""
    fake = _faker(locale or str(rng.choice(LOCALES)))
    fake.seed_instance(int(rng.integers(0, 2**31)))
    return fake


def _digits(rng: np.random.Generator, n: int) -> str:
    return "".join(str(d) for d in rng.integers(0, 10, n))


def card_number(rng: np.random.Generator) -> str:
    """A 16-digit card number grouped in fours, with a valid Luhn check digit as real cards have."""
    first = str(rng.choice(["4", "5", "37", "6011"]))
    d = (first + _digits(rng, 16 - len(first)))[:15]  # draws as many digits as before: same RNG stream
    d += str(_luhn_check_digit(d))
    return " ".join(d[i : i + 4] for i in range(0, 16, 4))


def _luhn_check_digit(payload: str) -> int:
    """The digit that makes ``payload`` + digit pass the Luhn check."""
    total = 0
    for i, ch in enumerate(reversed(payload)):
        n = int(ch) * (2 if i % 2 == 0 else 1)
        total += n - 9 if n > 9 else n
    return (10 - total % 10) % 10


def id_number(rng: np.random.Generator, fake: Faker) -> str:
    """A national ID / SSN / passport-number-like string."""
    kind = int(rng.integers(0, 4))
    if kind == 0 and hasattr(fake, "ssn"):
        return str(fake.ssn())
    if kind == 1:
        return "".join(rng.choice(list(string.ascii_uppercase), 2)) + _digits(rng, 7)
    if kind == 2:
        return f"{_digits(rng, 3)}-{_digits(rng, 2)}-{_digits(rng, 4)}"
    return "".join(rng.choice(list("CFGHJKLMNPRTVWXYZ0123456789"), 9))


def password(rng: np.random.Generator) -> str:
    """A visible password like people type them."""
    words = ["sunshine", "dragon", "Monkey", "Winter", "hunter", "Qwerty", "shadow", "Passw0rd", "letmein"]
    if rng.random() < 0.5:
        return str(rng.choice(words)) + _digits(rng, int(rng.integers(1, 5))) + str(rng.choice(list("!?#$%*")))
    alphabet = list(string.ascii_letters + string.digits + "!@#$%^&*")
    return "".join(rng.choice(alphabet, int(rng.integers(10, 20))))


def secret_key(rng: np.random.Generator) -> str:
    """An API key / token in one of the common formats."""
    an = list(string.ascii_letters + string.digits)
    kind = int(rng.integers(0, 6))
    if kind == 0:
        return "AKIA" + "".join(rng.choice(list(string.ascii_uppercase + string.digits), 16))
    if kind == 1:
        return "ghp_" + "".join(rng.choice(an, 36))
    if kind == 2:
        return "sk-" + "".join(rng.choice(an, 40))
    if kind == 3:
        return "xoxb-" + _digits(rng, 11) + "-" + _digits(rng, 12) + "-" + "".join(rng.choice(an, 24))
    if kind == 4:
        return "".join(rng.choice(an + ["/", "+"], 40))
    return "eyJhbGciOiJIUzI1NiJ9." + "".join(rng.choice(an, 30))


def otp(rng: np.random.Generator) -> str:
    """A 6-digit (sometimes 4/8) verification code, sometimes spaced."""
    n = int(rng.choice([6, 6, 6, 4, 8]))
    code = _digits(rng, n)
    return code[:3] + " " + code[3:] if n == 6 and rng.random() < 0.3 else code


def ip_address(rng: np.random.Generator) -> str:
    """IPv4 (mostly) or IPv6."""
    if rng.random() < 0.85:
        return ".".join(str(int(x)) for x in rng.integers(1, 255, 4))
    return ":".join(f"{int(x):x}" for x in rng.integers(0, 65535, 8))


def gps(rng: np.random.Generator) -> str:
    """GPS coordinates, in decimal or degree notation."""
    lat, lon = rng.uniform(-60, 70), rng.uniform(-170, 170)
    if rng.random() < 0.5:
        return f"{lat:.5f}, {lon:.5f}"
    return f"{abs(lat):.4f}° {'N' if lat > 0 else 'S'}, {abs(lon):.4f}° {'E' if lon > 0 else 'W'}"


def make_person(rng: np.random.Generator, locale: str | None = None) -> Person:
    """Draw a full fake identity from ``rng`` (locale random if None)."""
    fake = faker_for(rng, locale)
    first, last = fake.first_name(), fake.last_name()
    sep = str(rng.choice([".", "_", "", "-"]))
    user = (first[: int(rng.integers(1, len(first) + 1))] + sep + last).lower()
    user = "".join(c for c in user if c.isascii() and (c.isalnum() or c in "._-")) or "user"
    if rng.random() < 0.4:
        user += _digits(rng, int(rng.integers(1, 4)))
    domain = str(rng.choice(["gmail.com", "outlook.com", "yahoo.com", "proton.me", "web.de", "gmx.net", fake.free_email_domain()]))
    addr = fake.address().split("\n")
    dob = fake.date_of_birth(minimum_age=18, maximum_age=85)
    fmt = str(rng.choice(["%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%Y-%m-%d", "%d %b %Y"]))
    exp = f"{int(rng.integers(1, 13)):02d}/{int(rng.integers(25, 33))}"
    return Person(
        locale=fake.locale() if hasattr(fake, "locale") else "",
        first=first, last=last, name=f"{first} {last}", email=f"{user}@{domain}", username=user,
        phone=fake.phone_number(), street=addr[0], city_line=" ".join(addr[1:]) or fake.city(),
        country=fake.current_country() if rng.random() < 0.3 else "", dob=dob.strftime(fmt),
        id_number=id_number(rng, fake), iban=fake.iban(), card_number=card_number(rng),
        card_expiry=exp, company=fake.company(), job=fake.job()[:40], password=password(rng),
    )


def sentence(rng: np.random.Generator, words: tuple[int, int] = (4, 14)) -> str:
    """A chat-like sentence (Faker's lorem in English, which reads like text at a glance)."""
    fake = faker_for(rng, "en_US")
    return fake.sentence(nb_words=int(rng.integers(*words)))


# Look-alikes that must stay unlabelled: they teach the model what is NOT PII.
def negative(rng: np.random.Generator) -> str:
    """A PII-looking string that is not PII: price, order id, version, hash, plain date."""
    kind = int(rng.integers(0, 8))
    if kind == 0:
        return f"{rng.choice(['$', '€', '£', ''])}{rng.integers(1, 9999)}.{rng.integers(0, 100):02d}"
    if kind == 1:
        return f"Order #{rng.choice(['A', 'B', 'X', ''])}{_digits(rng, int(rng.integers(5, 10)))}"
    if kind == 2:
        return f"v{rng.integers(0, 20)}.{rng.integers(0, 40)}.{rng.integers(0, 100)}"
    if kind == 3:
        return "".join(rng.choice(list("0123456789abcdef"), int(rng.choice([7, 12, 40]))))
    if kind == 4:
        return f"{rng.integers(2019, 2027)}-{rng.integers(1, 13):02d}-{rng.integers(1, 29):02d} {rng.integers(0, 24):02d}:{rng.integers(0, 60):02d}"
    if kind == 5:
        return f"SKU {_digits(rng, 4)}-{_digits(rng, 4)}"
    if kind == 6:
        return f"{rng.integers(1, 100)}% · {rng.integers(1, 999)} items"
    return f"Build {_digits(rng, 5)} ({rng.integers(1, 12)}/{rng.integers(1, 28)})"
