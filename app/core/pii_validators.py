"""Checksum and format validators for text PII. Pure Python, no I/O.

Each ``*_valid`` function takes the matched text (separators allowed where the format has
them) and returns True only when the format *and* its check digit(s) hold, so a recogniser can
claim near-perfect precision for formats that carry a checksum.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections import Counter

_NON_ALNUM = re.compile(r"[^0-9A-Za-z]")


def compact(text: str) -> str:
    """``text`` without spaces, dashes, dots and other separators, upper-cased."""
    return _NON_ALNUM.sub("", text).upper()


def luhn_valid(text: str) -> bool:
    """Payment card number: 13–19 digits passing the Luhn checksum (separators ignored)."""
    digits = compact(text)
    if not digits.isdigit() or not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


# IBAN lengths per country (ISO 13616 registry, the countries our users are most likely to show).
IBAN_LENGTHS = {
    "AD": 24, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22, "DK": 18,
    "EE": 20, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GR": 27, "HR": 21, "HU": 28, "IE": 22,
    "IS": 26, "IT": 27, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18,
    "NO": 15, "PL": 28, "PT": 25, "RO": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27,
}  # fmt: skip


def iban_valid(text: str) -> bool:
    """IBAN: known country, its length, and ISO 7064 mod-97 remainder 1."""
    iban = compact(text)
    if len(iban) < 15 or not iban[:2].isalpha() or not iban[2:4].isdigit():
        return False
    expected = IBAN_LENGTHS.get(iban[:2])
    if expected is not None and len(iban) != expected:
        return False
    if expected is None and not 15 <= len(iban) <= 34:
        return False
    rearranged = iban[4:] + iban[:4]
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def es_dni_valid(text: str) -> bool:
    """Spanish DNI (8 digits + letter) or NIE (X/Y/Z + 7 digits + letter) with its check letter."""
    s = compact(text)
    if len(s) != 9 or not s[-1].isalpha():
        return False
    body = s[:-1]
    if body[0] in "XYZ":
        body = str("XYZ".index(body[0])) + body[1:]
    if not body.isdigit():
        return False
    return _DNI_LETTERS[int(body) % 23] == s[-1]


def fr_nir_valid(text: str) -> bool:
    """French NIR (numéro de sécurité sociale): 13 characters + 2-digit key = 97 − (n mod 97).

    Corsican departments 2A/2B count as 19/18, as the official rule says.
    """
    s = compact(text)
    if len(s) != 15 or s[0] not in "1278":
        return False
    body, key = s[:13], s[13:]
    if not key.isdigit():
        return False
    if body[5:7] in ("2A", "2B"):
        body = body[:5] + ("19" if body[6] == "A" else "18") + body[7:]
    if not body.isdigit():
        return False
    month = int(body[3:5])
    if not (1 <= month <= 12 or 20 <= month <= 42 or 50 <= month <= 99):
        return False
    n = int(body)
    return 97 - (n % 97) == int(key)


def de_steuer_id_valid(text: str) -> bool:
    """German Steuer-Identifikationsnummer: 11 digits, no leading 0, one digit repeated 2–3 times
    in the first ten, ISO 7064 MOD 11,10 check digit."""
    s = compact(text)
    if len(s) != 11 or not s.isdigit() or s[0] == "0":
        return False
    counts = Counter(s[:10]).values()
    if not any(c in (2, 3) for c in counts) or max(counts) > 3:
        return False
    product = 10
    for ch in s[:10]:
        total = (int(ch) + product) % 10 or 10
        product = (total * 2) % 11
    check = (11 - product) % 10
    return check == int(s[10])


_ID_CHAR_VALUES = {ch: i for i, ch in enumerate("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")}


def icao_check_digit(chars: str) -> int:
    """ICAO 9303 check digit (weights 7, 3, 1; '<' counts 0), used by the German ID card."""
    total = 0
    for i, ch in enumerate(chars):
        total += (0 if ch == "<" else _ID_CHAR_VALUES[ch]) * (7, 3, 1)[i % 3]
    return total % 10


def de_id_card_valid(text: str) -> bool:
    """German Personalausweis number: 9 characters from the restricted alphabet + check digit."""
    s = compact(text)
    if len(s) != 10 or not s[-1].isdigit():
        return False
    body = s[:9]
    if any(ch not in "CFGHJKLMNPRTVWXYZ0123456789" for ch in body) or body.isdigit() or body.isalpha():
        return False
    return icao_check_digit(body) == int(s[-1])


def us_ssn_valid(text: str) -> bool:
    """US SSN ``AAA-GG-SSSS``: area not 000/666/9xx, group not 00, serial not 0000."""
    s = compact(text)
    if len(s) != 9 or not s.isdigit():
        return False
    area, group, serial = s[:3], s[3:5], s[5:]
    if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
        return False
    return len(set(s)) > 1 and s not in ("123456789", "078051120")


def ip_valid(text: str) -> bool:
    """A public-looking IPv4 or IPv6 address (loopback/unspecified and version-like '1.0.0.0' excluded)."""
    try:
        addr = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return False
    if addr.is_unspecified or addr.is_loopback:
        return False
    if addr.version == 4:
        parts = text.split(".")
        if any(len(p) > 1 and p.startswith("0") for p in parts):
            return False  # zero-padded octets are versions or dates, not addresses
    return True


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``."""
    if not text:
        return 0.0
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


SECRET_PREFIXES = (
    "sk-", "sk_live_", "sk_test_", "rk_live_", "pk_live_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
    "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxs-", "AKIA", "ASIA", "AIza", "ya29.",
    "hf_", "npm_", "pypi-", "SG.", "shpat_", "dop_v1_", "eyJ",
)  # fmt: skip


def looks_like_secret(token: str) -> bool:
    """API key / token: a known prefix with a long random tail, or a long mixed-class random string.

    Plain hex (commit hashes, checksums) and words are not secrets on their own.
    """
    if len(token) < 16 or " " in token:
        return False
    for prefix in SECRET_PREFIXES:
        if token.startswith(prefix) and len(token) - len(prefix) >= 12:
            tail = token[len(prefix) :]
            return shannon_entropy(tail) >= 3.0 and any(ch.isdigit() for ch in tail + prefix)
    if len(token) < 20 or re.fullmatch(r"[0-9a-fA-F]+", token):
        return False
    if not re.fullmatch(r"[A-Za-z0-9_\-+/=.]+", token):
        return False
    classes = sum(bool(re.search(p, token)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
    return classes == 3 and shannon_entropy(token) >= 4.0
