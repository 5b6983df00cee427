"""Street-name sign candidates from the text lines the OCR has already read.

A street-name sign says where a picture was taken. Its text is a short line that names a street:
a name plus the street-type word that every addressing system prints with it, after the name in
English and in Germanic compounds ("Main St", "W 42nd Street", "Hauptstraße", "Keizersgracht",
"Drottninggatan") or before it in Romance, Slavic and Vietnamese usage ("Rue de Rivoli", "Calle
Mayor", "Via Roma", "ul. Marszałkowska", "улица Ленина", "Đường Lê Lợi"). A plaque may split the
type word and the name over two lines, so a line is also read together with the one below it.

Like the plate candidates (``plates_text``) this costs no model run, and only photographed text
counts: a street name on a rendered screen (a map, an address form) is text PII for the reader,
not a sign. US street blades set the type word apart after the name, smaller ("S Shore Crest"
then "DR"), and the OCR reads it as a line of its own: such a pair is read together too. The box
is the line (or line pair) taken to the edges of the one-colour plate round it where they are
found (``sign_panel``: out to a wide plate, in to a tight one), else grown by a fixed margin. Boxes are
``street_sign``, ``Source.OCR``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import clip_xyxy
from app.inference.plates_text import _edges, looks_rendered
from app.inference.sign_panel import fit_to_panel
from app.text.lines import TextLine, quad_to_xyxy

SIGN_CLASSES = ("street_sign",)

# Street-type words, lower case. After the name (en):
POST_TYPES = frozenset("""
street st str avenue ave av road rd boulevard blvd drive dr lane ln court ct terrace ter parkway pkwy highway hwy
circle cir crescent cres alley trail trl expressway expy freeway fwy turnpike tpke way wy place pl square sq plaza plz
loop pike heights hts crossing xing
""".split())
# Before the name (fr, es, ca, it, pt, pl, cs, ro, ru, uk, vi); plain (accents removed) except
# Vietnamese, whose "phố" (street) and "phở" (soup) differ only in their marks.
PRE_TYPES = frozenset("""
rue avenue av. av avenida avda. avda boulevard bd bd. allee chemin quai impasse calle c/ carrer carretera paseo plaza
camino via viale piazza piazzale corso largo vicolo rua praca travessa ul. ul ulica al. aleja plac os. osiedle ulice
namesti nabrezi trida strada bulevardul calea piata
улица ул. ул проспект просп. пр-т переулок пер. площадь пл. шоссе бульвар б-р набережная наб. проезд тупик вулиця вул.
""".split())
PRE_TYPES_MARKED = frozenset({"đường", "phố", "ngõ", "hẻm", "đại lộ"})
# Germanic, Dutch, Nordic, Hungarian and Finnish compounds end in the type word ("Hauptstraße").
COMPOUND_ENDINGS = ("strasse", "straße", "str.", "weg", "gasse", "allee", "platz", "damm", "ufer", "chaussee",
                    "straat", "laan", "plein", "gracht", "kade", "singel", "gatan", "gata", "vagen", "vägen", "gade",
                    "vej", "veien", "utca", "katu", "kuja")  # fmt: skip
COMPOUND_STEM = 4  # letters before the ending, so "Brigade" and "Catering" are no streets
CONNECTORS = frozenset("de la del di della du des von der van y e of the da do dos das le les l' d' al di' na".split())
ORDINAL = re.compile(r"^\d{1,4}(st|nd|rd|th|e|er|re|a|o|\.)?$", re.IGNORECASE)
WORD = re.compile(r"^[^\W\d_][^\W\d_'’.\-]*[.'’\-]?[^\W\d_]*\.?$")


@dataclass(frozen=True)
class SignRules:
    """Text, shape and size rules for a street-name line and how to grow it to its plate.

    ``grow_x`` / ``grow_y``: the plate box is the line box grown by these multiples of the line
    height on each side (a sign's border and margin are about half its letter height);
    ``flat_share``: as in ``PlateRules``, the rendered-screen test.
    """

    min_chars: int = 4
    max_chars: int = 40
    max_tokens: int = 6
    min_height_px: float = 8.0
    min_aspect: float = 1.5
    max_height_share: float = 0.25
    max_width_share: float = 0.8
    max_skew_deg: float = 35.0
    min_line_score: float = 0.6
    pair_gap: float = 0.8  # a plaque's second line lies within this many line heights
    grow_x: float = 0.6
    grow_y: float = 0.4
    flat_share: float = 0.6
    score: float = 0.35


def _plain(token: str) -> str:
    decomposed = unicodedata.normalize("NFKD", token.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _name_token(token: str) -> bool:
    """A token that can be part of a street's name: a capitalised word, a connector or a number."""
    if ORDINAL.match(token) or token.lower() in CONNECTORS:
        return True
    return bool(WORD.match(token)) and token[0].isupper()


def street_name(text: str, rules: SignRules = SignRules()) -> bool:
    """True when ``text`` reads as a street's name: a street-type word first or last (or a
    compound ending in one), the other tokens name-like (capitalised words, connectors, numbers;
    at least one of them), at most ``max_tokens`` tokens of ``min_chars``–``max_chars``."""
    text = unicodedata.normalize("NFC", " ".join(text.split()))
    tokens = text.split(" ")
    if not rules.min_chars <= len(text) <= rules.max_chars or not 1 <= len(tokens) <= rules.max_tokens:
        return False
    if sum(ch.isalpha() for ch in text) < 0.6 * sum(not ch.isspace() for ch in text):
        return False
    low = text.lower()
    for marked in PRE_TYPES_MARKED:  # Vietnamese: compare with the marks kept
        if low.startswith(marked + " "):
            rest = text[len(marked) + 1 :].split(" ")
            return all(_name_token(t) for t in rest) and any(t[:1].isalpha() for t in rest)
    first, last = _plain(tokens[0]), _plain(tokens[-1]).rstrip(".,")
    if len(tokens) >= 2 and first in PRE_TYPES:
        rest = tokens[1:]
    elif len(tokens) >= 2 and last in POST_TYPES:
        rest = tokens[:-1]
    elif any(_compound(t) for t in tokens[:2]) and all(_name_token(t) for t in tokens):
        return True  # "Hauptstraße", "Hauptstr. 5", "Keizersgracht"
    else:
        return False
    return all(_name_token(t) for t in rest) and any(t[:1].isalpha() or ORDINAL.match(t) for t in rest)


def _type_word_only(text: str) -> bool:
    """True when ``text`` is just a street-type word that precedes the name ("ul.", "Rue", "Đường")."""
    text = unicodedata.normalize("NFC", text.strip())
    return _plain(text) in PRE_TYPES or text.lower() in PRE_TYPES_MARKED


def _type_word_after(text: str) -> bool:
    """True when ``text`` is just a street-type word printed after the name ("DR", "Wy"): US
    street blades print it apart, in smaller letters, so the OCR reads it as a line of its own."""
    return _plain(text.strip()).rstrip(".") in POST_TYPES


def _after(a: np.ndarray, b: np.ndarray, gap: float) -> bool:
    """True when line box ``b`` follows ``a`` on the same sign: to its right within ``gap``
    heights of ``a``, no taller than it, and its top within ``a``'s upper half (a smaller suffix
    is set at the name's top or middle)."""
    ha, hb = a[3] - a[1], b[3] - b[1]
    return (0.25 * ha <= hb <= 1.2 * ha and -0.2 * ha <= b[0] - a[2] <= gap * ha
            and a[1] - 0.2 * ha <= b[1] <= a[1] + 0.5 * ha)  # fmt: skip


def _compound(token: str) -> bool:
    word = _plain(token)
    return WORD.match(token) is not None and token[0].isupper() and any(
        word.endswith(_plain(e)) and len(word) >= len(_plain(e)) + COMPOUND_STEM for e in COMPOUND_ENDINGS)  # fmt: skip


def sign_shape_ok(xyxy: np.ndarray, quad: np.ndarray, hw: tuple[int, int], rules: SignRules = SignRules()) -> bool:
    """True when a line (quad (4, 2), bounds ``xyxy``) has a sign line's size and shape in an ``hw`` frame."""
    width, height, skew = _edges(quad)
    if height < rules.min_height_px or skew > rules.max_skew_deg or width / max(height, 1e-6) < rules.min_aspect:
        return False
    return (xyxy[3] - xyxy[1]) <= rules.max_height_share * hw[0] and (xyxy[2] - xyxy[0]) <= rules.max_width_share * hw[1]


def _below(a: np.ndarray, b: np.ndarray, gap: float) -> bool:
    """True when line box ``b`` sits right under ``a`` on the same plate (overlapping columns,
    similar height, a gap under ``gap`` heights)."""
    ha, hb = a[3] - a[1], b[3] - b[1]
    overlap = min(a[2], b[2]) - max(a[0], b[0])
    return (0.4 < hb / max(ha, 1e-6) < 2.5 and overlap >= 0.5 * min(a[2] - a[0], b[2] - b[0])
            and -0.3 * ha <= b[1] - a[3] <= gap * max(ha, hb))  # fmt: skip


def sign_candidates(lines: Sequence[TextLine], frame: np.ndarray, rules: SignRules = SignRules()) -> Detections:
    """``street_sign`` boxes (xyxy frame pixels, ``Source.OCR``) for the OCR ``lines`` of ``frame``
    (H, W, 3) uint8 BGR that read as a street's name, alone or with the line below, on a
    photographed line of a sign's shape; the score is ``rules.score`` scaled by reading confidence."""
    hw = frame.shape[:2]
    read = [l for l in lines if l.score >= rules.min_line_score and l.text.strip()]
    boxes = [quad_to_xyxy(l.quad) for l in read]
    found: list[tuple[np.ndarray, float]] = []
    for i, line in enumerate(read):
        if not sign_shape_ok(boxes[i], line.quad, hw, rules):
            continue
        group = [i] if street_name(line.text, rules) else []
        if not group and _type_word_only(line.text):  # "ul." over "Marszałkowska" on one plaque
            below = (j for j in range(len(read)) if j != i and _below(boxes[i], boxes[j], rules.pair_gap))
            group = next(([i, j] for j in below if street_name(f"{line.text} {read[j].text}", rules)), [])
        if not group:  # "S Shore Crest" with "DR" set apart to its right
            after = (j for j in range(len(read)) if j != i and _type_word_after(read[j].text)
                     and _after(boxes[i], boxes[j], rules.pair_gap * 2))  # fmt: skip
            group = next(([i, j] for j in after if street_name(f"{line.text} {read[j].text}", rules)), [])
        if not group:
            continue
        b = np.array([boxes[k] for k in group], np.float32)
        span = np.array([b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()], np.float32)
        if looks_rendered(frame, span, rules.flat_share):
            continue
        h = float(np.median(b[:, 3] - b[:, 1]))
        grown = span + np.array([-rules.grow_x * h, -rules.grow_y * h, rules.grow_x * h, rules.grow_y * h], np.float32)
        grown = fit_to_panel(frame, span, grown, h)
        found.append((clip_xyxy(grown[None], hw)[0], rules.score * min(1.0, 0.5 + 0.5 * min(read[k].score for k in group))))
    return Detections.from_lists(SIGN_CLASSES, Source.OCR, [f[0] for f in found], [f[1] for f in found])
