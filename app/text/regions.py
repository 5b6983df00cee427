"""Text read as wholes: identity documents, cards and labels; multi-line postal addresses; and the
detector's text boxes that the reading contradicts.

* Documents: on a passport / ID / licence page (a machine-readable zone is read, or the detector
  boxes a ``passport``, ``id_card``, ``payment_card`` or ``shipping_label`` whose text reads like a
  document), every token that is not a printed template label ("Surname / Nom", "Date of birth",
  "VALID THRU", …) is a variable field and is hidden: names, numbers, dates, places, sex,
  nationality and the MRZ itself.
* Addresses: lines of one left-aligned block that read as parts of an address become one region.
* Precision: a detector text-PII box over clearly read lines is cut to the lines the reading finds
  (even weakly) private, and dropped when there are none; a passport / ID / payment-card box over
  a window of ordinary text (many clear lines, no printed label, no MRZ) is dropped.

All boxes are xyxy float32 in frame pixels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from app.text.classifier import LineReading
from app.text.features import EDGE_PUNCT
from app.text.layout import bounds

MRZ_LINE = re.compile(r"^[A-Z0-9<]{25,46}$")
DOCUMENT_CLASSES = ("passport", "id_card", "payment_card", "shipping_label")
# Printed labels of ID pages, cards and parcel labels (en, de, fr, es, it, nl, pt, pl), lower-cased.
TEMPLATE_WORDS = frozenset("""
surname surnames name names given forename forenames first last middle family nom noms prénom prénoms prenom prenoms
apellido apellidos nombre nombres cognome nome nomi achternaam voornamen sobrenome nazwisko imiona imię vorname vornamen
familienname geburtsname date dates of birth place birthplace sex sexe sexo sesso geslacht płeć geschlecht nationality
nationalité nacionalidad nazionalità nationaliteit nacionalidade obywatelstwo staatsangehörigkeit issue issued issuing
expiry expiration expires exp valid validity thru through until till from to date d'expiration délivrance emission
expedición caducidad validez scadenza gültig bis ausstellungsdatum ausstellende behörde authority autorité autoridad
behörde signature signatures firma unterschrift holder holder's titulaire titular card number no no. nº n° nr nr.
num num. numéro número numero nummer document documento dokument passport passeport pasaporte passaporto paspoort
reisepass paszport type typ tipo code country pays país paese land kraj height taille größe altura eyes colour color
address adresse dirección domicilio indirizzo anschrift wohnort residence résidence residencia personal personnel
identity identité identidad identità identiteit identidade identification id national nationale nacional nazionale
card carte tarjeta carta karte kaart cartão dowód osobisty personalausweis ausweis driving driver driver's licence
license permis conduire führerschein carnet conducir patente rijbewijs class classes categories catégories restrictions
endorsements dl dob ln fn iss exp. dd republic république república repubblica republiek republik rzeczpospolita
federal bundesrepublik deutschland kingdom united states america of the and de la del der und et e y van european
union union européenne unión europea ministry ministère government state états estados ship shipping deliver delivery
recipient sender from: to: tracking weight kg lb priority parcel package colis paket paquete express standard service
postage paid return ref reference barcode order qty customer date: sig. m/f f m x valid thru member since bank debit
credit visa mastercard maestro amex electron contactless
""".split())


@dataclass(frozen=True)
class Region:
    """A box to hide (xyxy, frame pixels), its text class and score, and why (for logs/tests)."""

    xyxy: np.ndarray
    class_name: str
    score: float
    reason: str


def is_mrz(text: str) -> bool:
    """True when ``text`` reads like a line of a machine-readable zone (ICAO 9303)."""
    compact = text.replace(" ", "").upper()
    return bool(MRZ_LINE.match(compact)) and compact.count("<") >= 2


def is_template_token(raw: str) -> bool:
    """True for a printed label word of a document, or bare punctuation such as '/'."""
    word = raw.strip(EDGE_PUNCT).lower()
    return not word.strip("/-·|") or word in TEMPLATE_WORDS or all(w in TEMPLATE_WORDS for w in re.split(r"[/|]", word) if w)


def mrz_regions(readings: list[LineReading]) -> list[np.ndarray]:
    """Document areas (xyxy) implied by MRZ lines: the page above the zone, as wide as the zone."""
    mrz = [bounds(r.line) for r in readings if is_mrz(r.line.text)]
    if not mrz:
        return []
    b = np.array(mrz, np.float32)
    x0, x1, y1 = float(b[:, 0].min()), float(b[:, 2].max()), float(b[:, 3].max())
    w = x1 - x0
    return [np.array([x0 - 0.06 * w, y1 - 0.75 * w, x1 + 0.06 * w, y1 + 0.02 * w], np.float32)]


def _inside(line_box, region: np.ndarray, share: float = 0.6) -> bool:
    x0, y0, x1, y1 = line_box
    iw = max(0.0, min(x1, region[2]) - max(x0, region[0]))
    ih = max(0.0, min(y1, region[3]) - max(y0, region[1]))
    return iw * ih >= share * max((x1 - x0) * (y1 - y0), 1e-6)


def looks_like_document(readings: list[LineReading], region: np.ndarray) -> bool:
    """True when the lines inside ``region`` include an MRZ or at least two template label lines
    (so a detector box on a window full of ordinary UI text does not blank the window)."""
    inside = [r for r in readings if _inside(bounds(r.line), region)]
    labels = sum(1 for r in inside if r.line.text.strip() and all(is_template_token(t) for t in r.line.text.split()))
    return any(is_mrz(r.line.text) for r in inside) or labels >= 2


def reads_as_ordinary_text(readings: list[LineReading], region: np.ndarray, min_lines: int = 5,
                           min_line_score: float = 0.6) -> bool:  # fmt: skip
    """True when at least ``min_lines`` lines inside ``region`` were read clearly and none of them
    is a printed document label or an MRZ: a page of a real ID, card or label that reads this
    well shows its labels, so such a box is a window of ordinary text ("passport" on a vault)."""
    inside = [r for r in readings if _inside(bounds(r.line), region) and r.line.score >= min_line_score]
    if len(inside) < min_lines:
        return False
    return not any(is_mrz(r.line.text) or (r.line.text.strip() and all(is_template_token(t) for t in r.line.text.split()))
                   for r in inside)  # fmt: skip


def document_fields(readings: list[LineReading], region: np.ndarray, span_box) -> list[Region]:
    """Boxes over the variable fields of the document in ``region``: every run of non-template
    tokens of every line inside it. ``span_box(line, start, end)`` maps a character span to xyxy."""
    out = []
    for r in readings:
        if not _inside(bounds(r.line), region):
            continue
        run: list[tuple[int, int, int]] = []  # (start, end, token index)
        for k, (s, e) in enumerate(r.token_bounds):
            if is_template_token(r.line.text[s:e]):
                out += _run_region(r, run, span_box)
                run = []
            else:
                run.append((s, e, k))
        out += _run_region(r, run, span_box)
    return out


def template_spans_inside(regions: list[Region], readings: list[LineReading], area: np.ndarray) -> list[Region]:
    """``regions`` without classifier spans that lie on a printed template label ("Given names /
    Prénoms") of the document in ``area``: on a document those labels are known not private."""
    labels = [bounds(r.line) for r in readings if _inside(bounds(r.line), area) and r.line.text.strip()
              and all(is_template_token(t) for t in r.line.text.split())]  # fmt: skip
    return [g for g in regions if not any(_inside(g.xyxy, np.array(lab, np.float32), 0.7) for lab in labels)]


def _run_region(r: LineReading, run: list[tuple[int, int, int]], span_box) -> list[Region]:
    if not run:
        return []
    cls = "id_number" if is_mrz(r.line.text) else r.private_class[run[0][2]]
    return [Region(span_box(r.line, run[0][0], run[-1][1]), cls, 0.85, "document field")]


def address_blocks(readings: list[LineReading], min_p: float = 0.25) -> list[Region]:
    """One region per block of left-aligned, vertically adjacent lines of which at least one holds
    a postal-address span and the others read as address parts (P(private) ≥ ``min_p`` with
    ``postal_address`` as their likeliest private class)."""

    def address_like(r: LineReading) -> bool:
        if any(s.class_name == "postal_address" for s in r.spans):
            return True
        return r.p_private >= min_p and "postal_address" in r.private_class

    seeds = [i for i, r in enumerate(readings) if any(s.class_name == "postal_address" for s in r.spans)]
    boxes = [bounds(r.line) for r in readings]
    used: set[int] = set()
    out = []
    for i in seeds:
        if i in used:
            continue
        block = {i}
        frontier = [i]
        while frontier:
            j = frontier.pop()
            x0, y0, x1, y1 = boxes[j]
            h = y1 - y0
            for k, (a0, b0, a1, b1) in enumerate(boxes):
                if k in block or abs(a0 - x0) > 1.5 * h or not (0.6 < (b1 - b0) / max(h, 1e-6) < 1.6):
                    continue
                gap = max(b0 - y1, y0 - b1)
                if -0.3 * h <= gap <= 1.0 * h and address_like(readings[k]):
                    block.add(k)
                    frontier.append(k)
        used |= block
        if len(block) >= 2:
            b = np.array([boxes[k] for k in block], np.float32)
            out.append(Region(np.array([b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()], np.float32),
                              "postal_address", 0.8, f"address block of {len(block)} lines"))  # fmt: skip
    return out


def _lines_under(box: np.ndarray, readings: list[LineReading]) -> tuple[list[LineReading], float]:
    """Readings of the lines that lie mostly (> 30 % of their area) under ``box`` and the area of
    ``box`` they cover."""
    covered, under = 0.0, []
    for r in readings:
        x0, y0, x1, y1 = bounds(r.line)
        iw = max(0.0, min(x1, box[2]) - max(x0, box[0]))
        ih = max(0.0, min(y1, box[3]) - max(y0, box[1]))
        if iw * ih > 0.3 * max((x1 - x0) * (y1 - y0), 1e-6):
            covered += iw * ih
            under.append(r)
    return under, covered


# Letter rows of the common on-screen keyboard layouts (QWERTY, AZERTY, QWERTZ), left to right.
KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm", "azertyuiop", "qsdfghjklm", "wxcvbn", "qwertzuiopü", "asdfghjklöä",
                 "yxcvbnm")  # fmt: skip
MIN_KEYS = 4


def keyboard_row(lines: list[LineReading]) -> bool:
    """True when ``lines`` are the keys of an on-screen keyboard: every one a single letter read
    on its own, and on each row (lines whose centres lie within half a line height) the letters,
    left to right, follow a keyboard layout's row in order, keys the OCR missed skipped and one
    stray key allowed (backspace read as "X"), with ``MIN_KEYS`` in order on one row at least. A
    code typed into separate boxes (one digit a box) is digits; a word in letter tiles is not in
    keyboard order."""
    if len(lines) < MIN_KEYS or any(len(r.line.text.strip()) != 1 or not r.line.text.strip().isalpha() for r in lines):
        return False
    keys = sorted(((*bounds(r.line),), r.line.text.strip().lower()) for r in lines)
    rows: list[list[tuple]] = []
    for (x0, y0, x1, y1), ch in keys:
        cy, h = (y0 + y1) / 2, y1 - y0
        row = next((row for row in rows if abs(row[0][0] - cy) <= 0.5 * max(h, row[0][1])), None)
        if row is None:
            rows.append([(cy, h)])
            row = rows[-1]
        row.append((x0, ch))
    runs = ["".join(ch for _, ch in sorted(row[1:])) for row in rows]
    in_order = [max(_in_order(run, layout) for layout in KEYBOARD_ROWS) for run in runs]
    return all(k >= len(run) - 1 for k, run in zip(in_order, runs)) and max(in_order) >= MIN_KEYS


def _in_order(run: str, layout: str) -> int:
    """Length of the longest part of ``run`` whose letters appear in ``layout`` in the same order."""
    best = [0] * (len(layout) + 1)
    for ch in run:
        prev = 0
        for j, key in enumerate(layout, 1):
            prev, best[j] = best[j], (prev + 1 if ch == key else max(best[j], best[j - 1]))
    return best[-1]


def read_detector_box(box: np.ndarray, class_name: str, score: float, readings: list[LineReading], span_box,
                      weak: float = 0.25, min_cover: float = 0.5, min_line_score: float = 0.6) -> list[Region] | None:  # fmt: skip
    """What the reading makes of a detector text-PII box (xyxy): ``None`` when the lines under it
    cover less than ``min_cover`` of it or one of them was not read clearly (the box then stands
    as it is); otherwise one box per line under it that holds a token the reading finds at least
    weakly private (P(private) ≥ ``weak``, or inside a span), over that line's words inside the
    detector box (the line's part inside it), with its class and score. Lines with no such token
    are cut out of the box (the message preview under a name); an empty list means the reading
    contradicts the whole box (a headline, a row of an on-screen keyboard's keys,
    ``keyboard_row``): it goes. On a line with evidence the detector's extent stands, since the
    classifier can be blind to part of it (a display name beside a handle). On a line the reading
    leans to but does not hide (no span) with a token read as the box's own class, the two agree:
    the line's score is ``agreed_score``."""
    area = max(float((box[2] - box[0]) * (box[3] - box[1])), 1e-6)
    under, covered = _lines_under(box, readings)
    if under and all(r.line.score >= min_line_score for r in under) and keyboard_row(under):
        return []  # a row of keys: its letters cover little of the box, but they are what it holds
    if not under or covered < min_cover * area or any(r.line.score < min_line_score for r in under):
        return None
    out = []
    for r in under:
        in_box = [_token_in_box(r, k, box) for k in range(len(r.token_bounds))]
        keep = [in_box[k] and (1.0 - float(r.p_none[k]) >= weak or any(sp.start < e and s < sp.end for sp in r.spans))
                for k, (s, e) in enumerate(r.token_bounds)]  # fmt: skip
        if not any(keep):
            continue
        # the detector's extent stands on a line with evidence ("shork @noiob@awoo.space"): the
        # part of the detector box on this line, on the rows of its ink; never more than the box
        ks = [k for k, v in enumerate(in_box) if v]
        rows = span_box(r.line, r.token_bounds[ks[0]][0], r.token_bounds[ks[-1]][1])
        lx0, _, lx1, _ = bounds(r.line)
        b = np.array([max(float(box[0]), min(lx0, float(rows[0]))), max(float(box[1]), float(rows[1])),
                      min(float(box[2]), max(lx1, float(rows[2]))), min(float(box[3]), float(rows[3]))], np.float32)  # fmt: skip
        if b[3] > b[1] and b[2] > b[0]:
            # A line the reading hides itself (a span) needs no help; one it leans to, in the box's class, does.
            agreeing = [1.0 - float(r.p_none[k]) for k, v in enumerate(keep) if v and r.private_class[k] == class_name]
            lean = 0.0 if r.spans else max(agreeing, default=0.0)
            out.append(Region(b, class_name, agreed_score(score, lean), "detector box, read"))
    return out


def agreed_score(detector: float, reading: float) -> float:
    """The score of a text box that the detector and the reading both find private, in the same
    class, each from its own look (pixels; the words and their context): the chance that at least
    one of them is right, were they independent. A name the detector scores 0.2 and the reading
    0.65 (under its own threshold, in one context) is hidden, though neither alone would hide it."""
    return 1.0 - (1.0 - detector) * (1.0 - reading)


def _token_in_box(r: LineReading, k: int, box: np.ndarray) -> bool:
    """True when token ``k``'s share of the line (apportioned by characters) centres inside ``box``."""
    x0, _, x1, _ = bounds(r.line)
    s, e = r.token_bounds[k]
    n = max(len(r.line.text), 1)
    cx = x0 + (x1 - x0) * (s + e) / (2 * n)
    return float(box[0]) <= cx <= float(box[2])
