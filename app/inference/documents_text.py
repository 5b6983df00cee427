"""Whole-document regions from the layout of the text lines the OCR has already read.

An identity document, a till receipt and a parcel label are private as wholes: the name, the
photo, the store and the card digits, the recipient's address. Each is recognised from what it
*is*, by cues that its printed template carries in any country:

* identity documents: a machine-readable zone (ICAO 9303), or several of the printed field labels
  every ID page has ("Surname", "Given names", "Date of birth", "Nationality", "Sex", "Date of
  expiry", "Authority", the document's title), in several languages;
* receipts: a total line (TOTAL / SUBTOTAL / SUMME / …) among several lines that end in an
  amount, in a right-aligned price column, with tax, payment, date or "thank you" lines;
* shipping labels: addressing labels (SHIP TO, FROM:, recipient, sender), a carrier, a tracking
  number, parcel words (weight, postage) and a postcode line.

Lines are grouped into blocks by proximity (a document's lines lie close together); a block with
enough agreeing cues becomes one box over the lines it spans, grown by its paper margin, with a
score that rises with the number of cues. A machine-readable zone also gives the page's extent
from its standard size. ID labels alone on a rendered screen (a sign-up form) are not an ID: there
only an MRZ counts. Boxes are ``Source.OCR``; ``attach_portraits`` later widens an ID box to the
holder's photo printed beside its text (a face box of another detector).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import clip_xyxy, connected_groups
from app.inference.plates_text import looks_rendered
from app.text.lines import TextLine, quad_to_xyxy
from app.text.regions import is_mrz as _is_mrz

DOCUMENT_REGION_CLASSES = ("id_card", "passport", "receipt", "shipping_label")
ID_CLASSES = ("id_card", "passport")


def is_mrz(text: str) -> bool:
    """``app.text.regions.is_mrz`` after undoing what OCR makes of runs of fillers ("«" for "<<")."""
    return _is_mrz(text.replace("«", "<<").replace("‹", "<"))


def _words(*alternatives: str) -> re.Pattern:
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alternatives) + r")(?![a-z0-9])")


# Printed field labels of ID pages (en, fr, es, it, de, nl, pl, pt, sv/no/da, fi, cs/sk), matched
# on lower-case text without accents. Each concept counts once however many languages print it.
ID_CUES: dict[str, re.Pattern] = {
    "surname": _words(r"surnames?", r"last name", r"family name", r"nom", r"noms", r"apellidos?", r"cognome",
                      r"achternaam", r"nazwisko", r"familienname", r"sobrenome", r"efternamn", r"etternavn",
                      r"efternavn", r"sukunimi", r"prijmeni", r"priezvisko", r"ln"),  # fmt: skip
    "given_names": _words(r"given names?", r"forenames?", r"first names?", r"prenoms?", r"nombres?", r"nome",
                          r"voornamen", r"imiona", r"vornamen?", r"fornavn", r"fornamn", r"etunimet", r"jmeno",
                          r"meno", r"fn"),  # fmt: skip
    "birth_date": _words(r"date of birth", r"birth ?date", r"dob", r"date de naissance", r"fecha de nacimiento",
                         r"data di nascita", r"geburtsdatum", r"geboortedatum", r"data urodzenia",
                         r"data de nascimento", r"fodelsedatum", r"fodselsdato", r"syntymaaika", r"datum narozeni"),  # fmt: skip
    "birth_place": _words(r"place of birth", r"birth ?place", r"lieu de naissance", r"lugar de nacimiento",
                          r"luogo di nascita", r"geburtsort", r"geboorteplaats", r"miejsce urodzenia",
                          r"local de nascimento"),  # fmt: skip
    "nationality": _words(r"nationality", r"nationalite", r"nacionalidad", r"nazionalita", r"staatsangehorigkeit",
                          r"nationaliteit", r"obywatelstwo", r"nacionalidade", r"nationalitet", r"kansalaisuus"),  # fmt: skip
    "sex": _words(r"sex", r"sexe", r"sexo", r"sesso", r"geschlecht", r"geslacht", r"plec", r"kon", r"kjonn",
                  r"sukupuoli", r"pohlavi"),  # fmt: skip
    "issue": _words(r"date of issue", r"issue date", r"issued", r"iss", r"date de delivrance", r"delivre",
                    r"fecha de expedicion", r"data di rilascio", r"ausstellungsdatum", r"datum van afgifte",
                    r"data wydania", r"data de emissao"),  # fmt: skip
    "expiry": _words(r"date of expiry", r"expiry", r"expiration", r"expires", r"exp", r"valid until",
                     r"date d'expiration", r"fecha de caducidad", r"caducidad", r"data di scadenza", r"scadenza",
                     r"gultig bis", r"vervaldatum", r"geldig tot", r"termin waznosci", r"data de validade"),  # fmt: skip
    "number": _words(r"passport no\.?", r"passport number", r"document no\.?", r"document number", r"card no\.?",
                     r"id no\.?", r"numero de documento", r"ausweisnummer", r"passnummer", r"documentnummer",
                     r"numer dokumentu", r"dl", r"licen[cs]e no\.?"),  # fmt: skip
    "authority": _words(r"authority", r"autorite", r"autoridad", r"behorde", r"autorita", r"organ wydajacy",
                        r"autoridade"),  # fmt: skip
    "appearance": _words(r"height", r"hgt", r"eyes", r"eye colou?r", r"taille", r"altura", r"grosse",
                         r"augenfarbe", r"statura"),  # fmt: skip
    "title": _words(r"passport", r"passeport", r"pasaporte", r"passaporto", r"reisepass", r"paspoort", r"paszport",
                    r"identity card", r"id card", r"carte d'identite", r"carte nationale d'identite",
                    r"documento nacional de identidad", r"carta d'identita", r"personalausweis", r"identiteitskaart",
                    r"dowod osobisty", r"driver'?s licen[cs]e", r"driving licen[cs]e", r"permis de conduire",
                    r"fuhrerschein", r"rijbewijs", r"prawo jazdy", r"residence permit", r"titre de sejour",
                    r"aufenthaltstitel"),  # fmt: skip
}
PASSPORT_TITLE = _words(r"passport", r"passeport", r"pasaporte", r"passaporto", r"reisepass", r"paspoort", r"paszport")

TOTAL = _words(r"sub ?-?total", r"total", r"totaal", r"totale", r"summe", r"gesamt(?:betrag)?", r"importe",
               r"montant", r"amount due", r"balance due", r"to pay", r"zu zahlen", r"a payer", r"suma", r"razem")  # fmt: skip
RECEIPT_CUES: dict[str, re.Pattern] = {
    "tax": _words(r"tax", r"sales tax", r"vat", r"tva", r"mwst", r"ust", r"iva", r"btw", r"gst", r"hst", r"ptu"),
    "payment": _words(r"cash", r"change", r"visa", r"mastercard", r"maestro", r"amex", r"debit", r"credit",
                      r"tender(?:ed)?", r"ruckgeld", r"wechselgeld", r"especes", r"rendu", r"efectivo", r"cambio",
                      r"contanti", r"resto", r"gotowka", r"reszta", r"contactless", r"approved", r"auth code"),  # fmt: skip
    "receipt": _words(r"receipt", r"invoice", r"kassenbon", r"quittung", r"beleg", r"recu", r"factura", r"ricevuta",
                      r"scontrino", r"paragon", r"qty", r"cashier", r"kassierer", r"caissier", r"cajero",
                      r"thank you", r"merci", r"danke", r"gracias", r"grazie", r"dziekujemy", r"tip", r"gratuity"),  # fmt: skip
    "datetime": re.compile(r"(?<!\d)\d{1,2}[./-]\d{1,2}[./-]\d{2,4}(?!\d)|(?<!\d)\d{1,2}:\d{2}(?!\d)"),
}
# An amount ends the line: with cents ("12.99", "1 234,50 €", "3.99 B": a tax code after it), or
# in thousands without minor units, as currencies like the rupiah, yen, won and forint print them.
AMOUNT_AT_END = re.compile(r"(?<![\d])[-−]?\s?(?:[$€£¥₩₫]|eur|usd|chf|pln|zl|rp\.?|idr|jpy|krw|vnd|huf|ft)?\s?"
                           r"(?:\d{1,3}(?:[ ,.]\d{3})*[.,]\d{2}|\d{1,3}(?:[,.]\d{3})+)"
                           r"\s?(?:[$€£¥₩₫]|eur|usd|chf|pln|zl|idr|jpy|krw|vnd|huf|ft|đ)?\s?[a-z*]?\s*$")  # fmt: skip
LABEL_CUES: dict[str, re.Pattern] = {
    "addressing": re.compile(r"(?<![a-z])(?:ship(?:ping)? ?to|ship ?from|deliver ?to|recipient|sender|consignee|shipper|"
                             r"return address|empfanger|absender|destinataire|expediteur|destinatario|remitente|"
                             r"mittente|odbiorca|nadawca)(?![a-z])|(?:^|\s)(?:to|from)\s*:"),  # fmt: skip
    "carrier": _words(r"usps", r"ups", r"fedex", r"dhl", r"tnt", r"royal mail", r"parcelforce", r"canada post",
                      r"postes canada", r"la poste", r"colissimo", r"chronopost", r"correos", r"deutsche post", r"dpd",
                      r"gls", r"hermes", r"evri", r"postnl", r"bpost", r"poste italiane", r"poczta polska", r"inpost",
                      r"priority mail", r"first[- ]class", r"express mail", r"parcel select"),  # fmt: skip
    "tracking": re.compile(r"(?<![a-z])(?:tracking|track(?:ing)? (?:no|number|#)|sendungsnummer|suivi|seguimiento|"
                           r"waybill|awb)(?![a-z])"),  # fmt: skip
    "parcel": _words(r"weight", r"wt", r"lbs?", r"postage", r"postage paid", r"permit", r"pkg", r"package", r"parcel",
                     r"colis", r"paket", r"paquete", r"paczka", r"pieces?", r"dims?"),  # fmt: skip
}
# On the original text (case matters): tracking codes (UPS, USPS, UPU S10) and postcode lines
# (US "City, ST 12345", UK "SW1A 1AA", continental "75008 Paris").
TRACKING_CODE = re.compile(r"\b1Z[0-9A-Z]{16}\b|\b9[1-5]\d{18,20}\b|\b[A-Z]{2}\d{9}[A-Z]{2}\b")
POSTCODE_LINE = re.compile(r"\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b|\b\d{4,5}\s+[A-Z][a-z]{2,}")


@dataclass(frozen=True)
class DocumentRules:
    """How lines group into a document and how many cues make one.

    ``row_gap`` / ``column_gap``: lines join a block when the vertical gap is under ``row_gap``
    line heights (and they overlap or nearly overlap horizontally), or when they share a row and
    the horizontal gap is under ``column_gap`` heights (an item and its price). ``margin``: the
    paper around a document's text, in median line heights. ``section_gap``: a document's region
    takes in the blocks right above or below it in its column, up to this many line heights away. ``min_id_cues``: distinct ID label
    concepts that make an ID page without an MRZ.
    """

    min_line_score: float = 0.5
    max_height_ratio: float = 3.0
    row_gap: float = 2.0  # a blank line between a receipt's sections is about 1.5–2 heights
    near_x: float = 2.0
    column_gap: float = 20.0
    margin: float = 1.0
    section_gap: float = 4.0  # a section break (blank lines, a logo, a barcode) on the same paper
    min_id_cues: int = 3
    min_id_lines: int = 3
    min_receipt_amounts: int = 3
    min_receipt_lines: int = 5
    min_label_cues: int = 2
    min_label_lines: int = 3
    flat_share: float = 0.6


@dataclass(frozen=True)
class DocumentRegion:
    """A document found: box (4,) float32 xyxy frame pixels, class, score, and the cues (for logs)."""

    xyxy: np.ndarray
    class_name: str
    score: float
    cues: tuple[str, ...]


def plain(text: str) -> str:
    """Lower-case ``text`` without accents (``Prénom`` → ``prenom``; ``ł`` → ``l``), spaces collapsed."""
    decomposed = unicodedata.normalize("NFKD", text.replace("ł", "l").replace("Ł", "L"))
    return " ".join("".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower().split())


def line_blocks(boxes: np.ndarray, rules: DocumentRules = DocumentRules()) -> list[list[int]]:
    """Indices of the lines of each block, for line boxes (N, 4) xyxy: connected groups of lines
    that lie within ``row_gap`` heights of each other in a column, or on one row within
    ``column_gap`` heights. Blocks in order of their first line."""
    h = np.maximum(boxes[:, 3] - boxes[:, 1], 1.0)
    hm = 0.5 * (h[:, None] + h[None, :])
    gap_y = np.maximum(boxes[None, :, 1] - boxes[:, None, 3], boxes[:, None, 1] - boxes[None, :, 3])
    gap_x = np.maximum(boxes[None, :, 0] - boxes[:, None, 2], boxes[:, None, 0] - boxes[None, :, 2])
    lower = np.minimum(h[:, None], h[None, :])
    similar = np.maximum(h[:, None], h[None, :]) <= rules.max_height_ratio * lower
    column = (gap_y <= rules.row_gap * hm) & (gap_x <= rules.near_x * hm)
    row = (-gap_y >= 0.5 * lower) & (gap_x <= rules.column_gap * hm)
    return connected_groups(similar & (column | row))


def id_cues(texts: Sequence[str]) -> set[str]:
    """The ID label concepts printed in ``texts`` (plain text of a block's lines)."""
    return {name for name, pattern in ID_CUES.items() if any(pattern.search(t) for t in texts)}


def receipt_cues(texts: Sequence[str], boxes: np.ndarray) -> tuple[int, set[str]]:
    """(lines in the largest right-aligned column of lines ending in an amount, other receipt cues)
    for a block's plain ``texts`` and line ``boxes`` (N, 4). ``total`` is among the cues when a
    total line is printed."""
    cues = {name for name, pattern in RECEIPT_CUES.items() if any(pattern.search(t) for t in texts)}
    if any(TOTAL.search(t) for t in texts):
        cues.add("total")
    amount = [i for i, t in enumerate(texts) if AMOUNT_AT_END.search(t)]
    if not amount:
        return 0, cues
    right, height = boxes[amount, 2], np.median(boxes[amount, 3] - boxes[amount, 1])
    column = int(max(np.sum(np.abs(right - r) <= 1.5 * height) for r in right))
    return column, cues


def label_cues(texts: Sequence[str], originals: Sequence[str]) -> set[str]:
    """The shipping-label cue families in a block (plain ``texts`` and ``originals`` as read)."""
    cues = {name for name, pattern in LABEL_CUES.items() if any(pattern.search(t) for t in texts)}
    compact = [t.replace(" ", "") for t in originals]
    if any(TRACKING_CODE.search(t) for t in compact):
        cues.add("tracking")
    if any(POSTCODE_LINE.search(t) for t in originals):
        cues.add("postcode")
    return cues


def mrz_page(mrz_boxes: np.ndarray) -> np.ndarray:
    """The document page (4,) xyxy implied by its MRZ line boxes (N, 4): ICAO 9303 pages (TD1
    card 85.6 × 54 mm, TD2 105 × 74, TD3 passport 125 × 88) are about 1.13 times as wide as their
    MRZ lines and 0.7–0.8 of that width high, with the zone at the bottom."""
    x0, x1, y1 = float(mrz_boxes[:, 0].min()), float(mrz_boxes[:, 2].max()), float(mrz_boxes[:, 3].max())
    w = x1 - x0
    return np.array([x0 - 0.07 * w, y1 - 0.8 * w, x1 + 0.07 * w, y1 + 0.04 * w], np.float32)


def classify_block(texts: list[str], originals: list[str], boxes: np.ndarray, rendered: bool,
                   rules: DocumentRules = DocumentRules()) -> tuple[str, float, tuple[str, ...]] | None:  # fmt: skip
    """(class, score, cues) of a block of lines, or None when it is no document. The score rises
    with the number of agreeing cues: one kind of evidence is a guess, several are a document."""
    mrz = [t for t in originals if is_mrz(t)]
    found = id_cues(texts)
    if mrz or (not rendered and len(found) >= rules.min_id_cues and len(texts) >= rules.min_id_lines):
        passport = any(len(t.replace(" ", "")) >= 40 for t in mrz) or any(PASSPORT_TITLE.search(t) for t in texts)
        score = (0.7 if len(mrz) >= 2 else 0.45 if mrz else 0.2) + 0.08 * len(found)
        return ("passport" if passport else "id_card"), min(score, 0.95), tuple(sorted(found | ({"mrz"} if mrz else set())))
    column, cues = receipt_cues(texts, boxes)
    if "total" in cues and column >= rules.min_receipt_amounts and len(texts) >= rules.min_receipt_lines:
        score = 0.3 + 0.1 * (len(cues) - 1) + 0.02 * (column - rules.min_receipt_amounts)
        return "receipt", min(score, 0.95), tuple(sorted(cues | {f"{column} amounts"}))
    label = label_cues(texts, originals)
    if (len(label) >= rules.min_label_cues and label & {"addressing", "carrier", "tracking"}
            and len(texts) >= rules.min_label_lines):  # fmt: skip
        return "shipping_label", min(0.3 + 0.12 * (len(label) - rules.min_label_cues), 0.9), tuple(sorted(label))
    return None


def _span(b: np.ndarray) -> np.ndarray:
    return np.array([b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()], np.float32)


def same_paper(spans: list[np.ndarray], seed: int, line_height: float, gap: float) -> list[int]:
    """Indices of the blocks (their ``spans`` xyxy) that continue block ``seed`` down or up its
    column: overlapping it horizontally by half the narrower width, each within ``gap`` ×
    ``line_height`` of the paper found so far. The seed comes first."""
    paper, taken = spans[seed].copy(), [seed]
    grown = True
    while grown:
        grown = False
        for k, s in enumerate(spans):
            if k in taken:
                continue
            overlap = min(paper[2], s[2]) - max(paper[0], s[0])
            vertical_gap = max(s[1] - paper[3], paper[1] - s[3])
            if overlap >= 0.5 * min(paper[2] - paper[0], s[2] - s[0]) and vertical_gap <= gap * line_height:
                taken.append(k)
                paper = np.concatenate([np.minimum(paper[:2], s[:2]), np.maximum(paper[2:], s[2:])])
                grown = True
    return taken


def document_regions(lines: Sequence[TextLine], frame: np.ndarray, rules: DocumentRules = DocumentRules()) -> list[DocumentRegion]:
    """The documents among the OCR ``lines`` of ``frame`` (H, W, 3) uint8 BGR: one region per
    block of lines that ``classify_block`` accepts, together with the blocks that continue it on
    the same paper (``same_paper``), over their lines grown by ``margin`` median line heights (and,
    for an MRZ, the page it implies), clipped to the frame."""
    read = [l for l in lines if l.score >= rules.min_line_score and l.text.strip()]
    if len(read) < 2:
        return []
    boxes = np.array([quad_to_xyxy(l.quad) for l in read], np.float32)
    blocks = line_blocks(boxes, rules)
    spans = [_span(boxes[block]) for block in blocks]
    out, used = [], set()
    for index, block in enumerate(blocks):
        if len(block) < 2 or index in used:
            continue
        h = float(np.median(boxes[block, 3] - boxes[block, 1]))
        paper = [k for k in same_paper(spans, index, h, rules.section_gap) if k not in used]
        # the block alone, else the whole paper it continues: a card's labels may sit in
        # several blocks around its photo, a long receipt's total below a section break
        for lines_of in ([block], [blocks[k] for k in paper]):
            member = sorted(i for part in lines_of for i in part)
            b = boxes[member]
            originals = [read[i].text for i in member]
            rendered = looks_rendered(frame, _span(b), rules.flat_share)
            found = classify_block([plain(t) for t in originals], originals, b, rendered, rules)
            if found is not None or len(paper) == 1:
                break
        if found is None:
            continue
        used.update(paper)
        m = rules.margin * h
        region = _span(np.stack([spans[k] for k in paper])) + np.array([-m, -m, m, m], np.float32)
        mrz = np.array([b[k] for k, t in enumerate(originals) if is_mrz(t)], np.float32).reshape(-1, 4)
        if len(mrz):
            page = mrz_page(mrz)
            region = np.concatenate([np.minimum(region[:2], page[:2]), np.maximum(region[2:], page[2:])])
        out.append(DocumentRegion(clip_xyxy(region[None], frame.shape[:2])[0], *found))
    return out


def document_candidates(lines: Sequence[TextLine], frame: np.ndarray, rules: DocumentRules = DocumentRules()) -> Detections:
    """``document_regions`` as ``Detections`` over ``DOCUMENT_REGION_CLASSES``, ``Source.OCR``."""
    regions = document_regions(lines, frame, rules)
    return Detections.from_lists(DOCUMENT_REGION_CLASSES, Source.OCR, [r.xyxy for r in regions], [r.score for r in regions],
                                 [DOCUMENT_REGION_CLASSES.index(r.class_name) for r in regions])  # fmt: skip


def attach_portraits(fused: Detections, reach: float = 0.8, max_face_share: float = 0.9) -> Detections:
    """``fused`` with each ID box read from text (``id_card`` / ``passport``, ``Source.OCR``)
    widened to a face box (any other source) beside it: the holder's photo printed next to the
    text. A face counts when its centre lies within the ID box's rows and within ``reach`` box
    widths left or right of it, and it is no taller than ``max_face_share`` of the box."""
    if not len(fused) or "face" not in fused.class_names:
        return fused
    names = fused.class_names
    is_id = np.isin(fused.class_ids, [names.index(c) for c in ID_CLASSES if c in names]) & (fused.sources == Source.OCR)
    faces = fused.xyxy[(fused.class_ids == names.index("face")) & (fused.sources != Source.OCR)]
    if not is_id.any() or not len(faces):
        return fused
    xyxy = fused.xyxy.copy()
    for i in np.flatnonzero(is_id):
        x0, y0, x1, y1 = xyxy[i]
        w, h = x1 - x0, y1 - y0
        for f in faces:
            cx, cy = (f[0] + f[2]) / 2, (f[1] + f[3]) / 2
            if y0 <= cy <= y1 and x0 - reach * w <= cx <= x1 + reach * w and f[3] - f[1] <= max_face_share * h:
                pad = 0.25 * (f[3] - f[1])  # the photo's frame around the face
                xyxy[i] = [max(0.0, min(xyxy[i, 0], f[0] - pad)), max(0.0, min(xyxy[i, 1], f[1] - pad)),
                           max(xyxy[i, 2], f[2] + pad), max(xyxy[i, 3], f[3] + pad)]  # fmt: skip
    return fused.with_boxes(xyxy)
