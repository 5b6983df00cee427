"""National identity numbers of European countries, found by how they are written and checked by
python-stdnum (check digits, embedded birth dates), beside the hand-written DE/ES/FR/US rules in
``app.text.recognisers``.

A form whose layout is rare in ordinary text (letters or separators in fixed places: a codice
fiscale, a Swedish personnummer with its dash, a Belgian national number with its dots) is a hard
override once valid. A run of bare digits passes some check by chance (one in ten or eleven), so
it overrides only beside a label that names the number ("PESEL", "BSN", "Personnummer"); without
one it only informs the text classifier.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from stdnum.at import vnr
from stdnum.be import nn
from stdnum.bg import egn
from stdnum.ch import ssn as ch_ssn
from stdnum.cz import rc
from stdnum.dk import cpr
from stdnum.ee import ik
from stdnum.fi import hetu
from stdnum.hr import oib
from stdnum.ie import pps
from stdnum.it import codicefiscale
from stdnum.lt import asmens
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.pl import pesel
from stdnum.ro import cnp
from stdnum.se import personnummer
from stdnum.si import emso

# The labels these numbers are printed under, in their languages and in English.
LABELS = re.compile(
    r"\b(?:pesel|bsn|burgerservice\w*|sofi-?nummer|codice fiscale|cod\. ?fisc|personnummer|personnr|person(?:al)? (?:id|code|number)"
    r"|henkilötunnus|hetu|f[øo]dselsnummer|f[øo]dselsnr|cpr|sozialversicherungs\w*|sv-?nr|vsnr|versicherungsnummer"
    r"|rodn[ée] [čc][íi]slo|cnp|cod numeric personal|egn|егн|oib|isikukood|asmens kodas|em[šs]o|ahv|avs"
    r"|national insurance|nino|ni number|pps|rijksregister\w*|num[ée]ro national|national (?:id|number|identity)"
    r"|identity (?:number|code)|personal identity)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class IdForm:
    """One country's number: ``pattern`` finds it as written, ``valid`` checks it, ``distinctive``:
    its written form is rare enough in ordinary text to be sure once valid."""

    name: str
    pattern: re.Pattern
    valid: Callable[[str], bool]
    distinctive: bool


def _form(name: str, pattern: str, valid: Callable[[str], bool], distinctive: bool = False) -> IdForm:
    return IdForm(name, re.compile(pattern), valid, distinctive)


def _nino_valid(number: str) -> bool:
    """UK National Insurance number: two prefix letters (not D, F, I, Q, U, V; not O second; not
    the unused pairs), six digits, a suffix A-D. It has no check digit."""
    s = re.sub(r"\s", "", number).upper()
    if s[:2] in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}:
        return False
    return s[0] not in "DFIQUV" and s[1] not in "DFIQUVO"


_DIGITS = r"(?<![\d.,/\-])"
_END = r"(?![\d.,/\-]?\d)"
FORMS: tuple[IdForm, ...] = (
    _form("it_codice_fiscale", r"\b[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]\b", codicefiscale.is_valid, True),
    _form("se_personnummer", r"(?<![\d\-])(?:19|20)?\d{6}[\-+]\d{4}(?![\d\-])", personnummer.is_valid, True),
    _form("fi_hetu", r"(?<![\w\-])\d{6}[\-+A-FU-Y]\d{3}[0-9A-Y](?![\w\-])", hetu.is_valid, True),
    _form("be_national_number", r"(?<![\d.\-])\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}(?![\d.\-])", nn.is_valid, True),
    _form("ch_ahv", r"(?<![\d.])756\.\d{4}\.\d{4}\.\d{2}(?![\d.])", ch_ssn.is_valid, True),
    _form("cz_sk_birth_number", r"(?<![\d/])\d{6}/\d{3,4}(?![\d/])", rc.is_valid, True),
    _form("gb_nino", r"\b[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b", _nino_valid),
    _form("ie_pps", r"\b\d{7}[A-W][A-IW]?\b", pps.is_valid),
    _form("dk_cpr", rf"{_DIGITS}\d{{6}}-?\d{{4}}{_END}", cpr.is_valid),
    _form("pl_pesel", rf"{_DIGITS}\d{{11}}{_END}", pesel.is_valid),
    _form("nl_bsn", rf"{_DIGITS}(?:\d{{9}}|\d{{4}}\.\d{{2}}\.\d{{3}}){_END}", bsn.is_valid),
    _form("no_fodselsnummer", rf"{_DIGITS}\d{{6}} ?\d{{5}}{_END}", fodselsnummer.is_valid),
    _form("at_vnr", rf"{_DIGITS}\d{{4}} ?\d{{6}}{_END}", vnr.is_valid),
    _form("ro_cnp", rf"{_DIGITS}[1-8]\d{{12}}{_END}", cnp.is_valid),
    _form("bg_egn", rf"{_DIGITS}\d{{10}}{_END}", egn.is_valid),
    _form("hr_oib", rf"{_DIGITS}\d{{11}}{_END}", oib.is_valid),
    _form("ee_lt_personal_code", rf"{_DIGITS}[1-6]\d{{10}}{_END}", lambda s: ik.is_valid(s) or asmens.is_valid(s)),
    _form("si_emso", rf"{_DIGITS}\d{{13}}{_END}", emso.is_valid),
)


MIN_DIGITS = 6  # the fewest digits any form holds (a NINO's six): a line with fewer holds none


def find_national_ids(text: str, labelled: bool) -> list[tuple[int, int, float, str]]:
    """``(start, end, score, form name)`` of each valid national number in ``text``; ``labelled``:
    a label naming such a number is on the line or just above it (``LABELS``)."""
    out = []
    for form in FORMS:
        for m in form.pattern.finditer(text):
            try:
                ok = bool(form.valid(m.group(0)))
            except Exception:  # stdnum raises on a few malformed inputs instead of answering False
                ok = False
            if ok:
                score = 0.95 if labelled else (0.9 if form.distinctive else 0.5)
                out.append((m.start(), m.end(), score, form.name))
    return out
