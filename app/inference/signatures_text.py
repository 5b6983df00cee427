"""Handwritten signatures on document pages, from the text lines the OCR has already found.

A signature is handwriting in print's place: on a letter, a certificate or a form, it sits among
printed lines, larger than the body text, and the recogniser reads it badly (a rare "word" or two,
read with low confidence) or not at all. Its text detector still finds the line. So a signature
candidate is a short line on a *page* (enough lines of running text to measure the body text's
height) that is clearly taller than that body text and does not read like print: not read with
the confidence print gets, not mostly common words, not digits, not another script, and written
along a line (an icon read as a letter is about square). Letterheads (a company's logo type at
the top of the page) are left alone.

The text detector often finds no line at all on a signature standing clear of the print (a
scribble above "Vice-Chancellor"). So the page's ink outside every line of print is searched too
(``ink_signatures``): a blob of dark strokes on light paper, linked within half a body-text
height, clearly taller than the body text, written along a line (wider than tall), thin-stroked
(little of its box is ink; seals, logos, photos and emblems are round or solid) and looping like
letters (its strokes cross most columns more than once; a chart's line crosses each once).

The text detector draws its line around the signature's core; loops and flourishes reach past it.
The box is therefore grown to the ink strokes that touch the line (``ink_grown``): dark strokes
linked to the core within a small gap, ending within one and a half line heights of it, while the
lines of print around it (a typed name under the signature) and ruled lines are not ink to follow.

Like the plate and sign candidates this costs no model run. The rules come from the shape of the
problem and were checked on the real pack's *training* signatures (``rf_signatures`` in the
``train`` split), never on the held-out or development sets. Boxes are ``signature``,
``Source.OCR``; the policy decides whether they are hidden.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import clip_xyxy
from app.text.lines import TextLine, quad_extent, quad_to_xyxy
from app.text.words import MIN_ZIPF, word_table

SIGNATURE_CLASSES = ("signature",)
LETTERS = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class SignatureRules:
    """Page, size and reading rules for a signature line, and how to grow it to the ink around.

    ``min_body_lines``: lines of at least two words the page needs (a page, not a photo or a
    screen with a few labels); ``min_height_ratio``: a signature line is at least this many times
    the median height of those lines. ``printed_score``: a line read at least this confidently is
    print. ``max_words`` / ``max_token``: a signature reads as a few short "words", never a long
    run of letters (a border, a pattern). ``top_share``: lines centred in this top share of the
    frame are letterheads. ``grow_x`` / ``grow_y``: the box is the line grown by these fractions of
    its height (flourishes reach beyond the line the text detector drew). ``min_aspect``: a
    signature is written along a line, at least this many times as long as it is tall.
    ``min_read_chars``: a line read as fewer non-space characters is an icon, an avatar letter or a
    logo read as one badly read character, never a signature (a signature the recogniser cannot read
    at all comes as a line with no text, and stays a candidate).
    ``ink_reach``: strokes are followed at most this many line heights beyond the line on each side;
    ``ink_gap``: strokes closer than this share of the line height count as one stroke.
    ``blob_*`` (``ink_signatures``, all lengths in body-text heights): strokes closer than
    ``blob_link`` are one blob; a signature blob is at least ``blob_min_height`` tall and
    ``blob_min_width`` wide, at most ``blob_max_width_share`` / ``blob_max_height_share`` of the
    frame, ``blob_min_aspect`` times as wide as tall, with ink on ``blob_fill`` of its box; lines of
    print are masked with a margin of ``blob_line_margin`` of their height, straight strokes
    longer than ``blob_ruled`` are ruled lines; ``blob_paper``, ``blob_contrast_min`` and
    ``blob_crossings``: handwriting on paper (``_handwriting_on_paper``); the box is grown by
    ``blob_grow``; score ``blob_score``.
    """

    min_body_lines: int = 5
    min_height_ratio: float = 1.3
    printed_score: float = 0.95
    max_words: int = 4
    max_token: int = 12
    max_common_share: float = 0.67
    min_latin_share: float = 0.8
    top_share: float = 0.15
    grow_x: float = 0.3
    grow_y: float = 0.6
    score: float = 0.4
    min_aspect: float = 2.0
    min_read_chars: int = 2
    ink_reach: float = 1.5
    ink_gap: float = 0.2
    blob_link: float = 0.5
    blob_min_height: float = 1.5
    blob_min_width: float = 2.5
    blob_max_width_share: float = 0.6
    blob_max_height_share: float = 0.3
    blob_min_aspect: float = 1.5
    blob_fill: tuple[float, float] = (0.03, 0.2)
    blob_line_margin: float = 0.2
    blob_ruled: float = 3.0
    blob_grow: float = 0.6
    blob_contrast: int = 20  # grey levels darker than the local mean that count as ink
    blob_paper: float = 200.0
    blob_contrast_min: float = 60.0
    blob_crossings: float = 0.4
    blob_score: float = 0.3


def common_word_share(text: str) -> tuple[float, int]:
    """(share of the letter runs of ≥ 2 letters that are common words, number of such runs)."""
    table = word_table()
    runs = [t for t in LETTERS.findall(text) if len(t) >= 2]
    if not runs:
        return 0.0, 0
    return sum(1 for t in runs if max(table.zipf(t)) >= MIN_ZIPF) / len(runs), len(runs)


def reads_like_print(line: TextLine, rules: SignatureRules) -> bool:
    """True when a line's reading says print: confident, mostly common words, digits, or a script
    other than Latin (handwriting comes out of the Latin recogniser as Latin gibberish). A line
    with no text is one the recogniser could not read at all: not print."""
    text = line.text
    if not text:
        return False
    if line.score >= rules.printed_score:
        return True
    letters = [c for c in text if c.isalpha()]
    digits = sum(c.isdigit() for c in text)
    if digits > len(letters):
        return True
    if letters and sum(c.isascii() for c in letters) / len(letters) < rules.min_latin_share:
        return True
    if len(text.split()) > rules.max_words or max((len(t) for t in LETTERS.findall(text)), default=0) > rules.max_token:
        return True
    share, runs = common_word_share(text)
    if runs >= 2 and share >= rules.max_common_share:
        return True
    return bool(line.score >= 0.9 and (share >= 0.5 or text.isupper()))


def _drop_ruled_lines(ink: np.ndarray, length: float) -> None:
    """Clear from the 0/1 ``ink`` mask (in place) every straight horizontal or vertical run of at
    least ``length`` pixels: ruled lines, a table's borders, the line a page is signed on."""
    run = max(3, int(round(length)))
    ruled = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, run), np.uint8)) | \
        cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((run, 1), np.uint8))  # fmt: skip
    ink[ruled > 0] = 0


def ink_grown(frame: np.ndarray, line_box: np.ndarray, height: float, print_boxes: Sequence[np.ndarray],
               rules: SignatureRules = SignatureRules()) -> np.ndarray:
    """``line_box`` (xyxy) grown to the dark strokes of ``frame`` (H, W, 3) uint8 BGR that reach it,
    and end within ``rules.ink_reach`` line ``height``s of it (a stroke running on is part of
    something larger); ink inside ``print_boxes`` (other lines' xyxy) and ruled lines are not
    followed. Ink is what Otsu's threshold puts on the dark side of the area, when that side is the
    minority (a page is mostly paper); otherwise the line box comes back unchanged."""
    H, W = frame.shape[:2]
    reach = rules.ink_reach * height
    x0, y0 = int(max(0, line_box[0] - reach)), int(max(0, line_box[1] - reach))
    x1, y1 = int(min(W, line_box[2] + reach)), int(min(H, line_box[3] + reach))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return line_box
    grey = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    level, ink = cv2.threshold(grey, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    if ink.mean() > 0.4 or float(np.median(grey)) - level < 30:  # no clear paper/ink contrast
        return line_box
    # ruled lines (the line it is signed on, a table's borders) are print too: straight runs of
    # two line heights or more
    _drop_ruled_lines(ink, 2 * height)
    for b in print_boxes:
        ink[int(max(0, b[1] - y0)) : int(max(0, b[3] - y0)), int(max(0, b[0] - x0)) : int(max(0, b[2] - x0))] = 0
    gap = max(1, int(round(rules.ink_gap * height)))
    linked = cv2.dilate(ink, np.ones((gap, gap), np.uint8))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(linked, connectivity=8)
    lx0, ly0 = int(max(0, line_box[0] - x0)), int(max(0, line_box[1] - y0))
    lx1, ly1 = int(min(x1 - x0, line_box[2] - x0)), int(min(y1 - y0, line_box[3] - y0))
    touching = np.unique(labels[ly0:ly1, lx0:lx1])
    touching = touching[touching > 0]
    out = np.array(line_box, np.float32)
    cw, ch = x1 - x0, y1 - y0
    for k in touching:
        sx, sy, sw, sh = stats[k, :4]
        # A stroke running on past the window is part of something larger (print, a table, a
        # code). Where the frame cut the window short, the stroke's end is not seen: it is not
        # followed either (the fixed growth around the line still covers the signature).
        if sx == 0 or sy == 0 or sx + sw >= cw or sy + sh >= ch:
            continue
        out[:2] = np.minimum(out[:2], (x0 + sx, y0 + sy))
        out[2:] = np.maximum(out[2:], (x0 + sx + sw, y0 + sy + sh))
    return out


def ink_signatures(frame: np.ndarray, line_boxes: Sequence[np.ndarray], body_height: float,
                   rules: SignatureRules = SignatureRules()) -> list[np.ndarray]:
    """Signature boxes (xyxy, float32) for the blobs of dark strokes on a page ``frame`` (H, W, 3)
    uint8 BGR outside every line in ``line_boxes`` (xyxy), measured in ``body_height`` (the page's
    body-text height): tall, wide, thin-stroked blobs written along a line, away from the
    letterhead and the frame's edges (a blob cut off by the frame is not seen whole)."""
    H, W = frame.shape[:2]
    bh = body_height
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    block = 2 * int(round(2 * bh)) + 1
    ink = cv2.adaptiveThreshold(grey, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, max(3, block), rules.blob_contrast)
    _drop_ruled_lines(ink, rules.blob_ruled * bh)
    for b in line_boxes:
        m = rules.blob_line_margin * (b[3] - b[1])
        ink[int(max(0, b[1] - m)) : int(min(H, b[3] + m)), int(max(0, b[0] - m)) : int(min(W, b[2] + m))] = 0
    link = max(1, int(round(rules.blob_link * bh)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(ink, np.ones((link, link), np.uint8)), connectivity=8)
    found = []
    for k in range(1, count):
        x, y, w, h = (int(v) for v in stats[k, :4])
        if x == 0 or y == 0 or x + w >= W or y + h >= H or y + h / 2 < rules.top_share * H:
            continue
        if h < rules.blob_min_height * bh or w < rules.blob_min_width * bh or w < rules.blob_min_aspect * h:
            continue
        if w > rules.blob_max_width_share * W or h > rules.blob_max_height_share * H:
            continue
        strokes = (ink[y : y + h, x : x + w] > 0) & (labels[y : y + h, x : x + w] == k)
        if not rules.blob_fill[0] <= float(strokes.mean()) <= rules.blob_fill[1]:
            continue
        if not _handwriting_on_paper(grey[y : y + h, x : x + w], strokes, rules):
            continue
        g = rules.blob_grow * bh
        found.append(np.array([x - g, y - g, x + w + g, y + h + g], np.float32))
    return found


def _handwriting_on_paper(grey: np.ndarray, strokes: np.ndarray, rules: SignatureRules) -> bool:
    """Whether the ``strokes`` (bool mask) in a blob's ``grey`` box are handwriting on paper: the
    rest of the box is light (``blob_paper``), the strokes are clearly darker (``blob_contrast_min``),
    and in at least ``blob_crossings`` of the columns they cross a vertical line more than once
    (letters and loops; a chart's line or a panel's edge crosses once)."""
    paper, ink = grey[~strokes], grey[strokes]
    if not paper.size or not ink.size:
        return False
    if float(np.median(paper)) < rules.blob_paper or float(np.median(paper)) - float(np.median(ink)) < rules.blob_contrast_min:
        return False
    starts = (np.diff(strokes.astype(np.int8), axis=0) == 1).sum(0) + strokes[0]
    inked = starts > 0
    return bool(inked.any() and float((starts[inked] >= 2).mean()) >= rules.blob_crossings)


def signature_candidates(lines: Sequence[TextLine], frame: np.ndarray, rules: SignatureRules = SignatureRules()) -> Detections:
    """``signature`` boxes (xyxy frame pixels, ``Source.OCR``) for the OCR ``lines`` of ``frame``
    (H, W, 3) uint8 BGR, a page: lines read (or found and not read, text "") that stand out from
    its body text by size and do not read like print (score ``rules.score``), and blobs of
    handwriting outside every line (``ink_signatures``, score ``rules.blob_score``)."""
    hw = frame.shape[:2]
    boxes = [quad_to_xyxy(l.quad) for l in lines]
    extents = [quad_extent(l.quad) for l in lines]  # a photographed page is often tilted
    body = [h for l, (_, h) in zip(lines, extents) if len(l.text.split()) >= 2]
    if len(body) < rules.min_body_lines:
        return Detections.empty(SIGNATURE_CLASSES)
    body_height = float(np.median(body))
    found, printed = [], None
    for i, (line, b, (length, h)) in enumerate(zip(lines, boxes, extents)):
        if h < rules.min_height_ratio * body_height or length < rules.min_aspect * h or (b[1] + b[3]) / 2 < rules.top_share * hw[0]:
            continue
        if reads_like_print(line, rules) or 0 < len(line.text.replace(" ", "")) < rules.min_read_chars:
            continue
        grown = np.array([b[0] - rules.grow_x * h, b[1] - rules.grow_y * h, b[2] + rules.grow_x * h, b[3] + rules.grow_y * h], np.float32)
        if printed is None:
            printed = [reads_like_print(other, rules) for other in lines]
        ink = ink_grown(frame, b, h, [boxes[j] for j in range(len(lines)) if j != i and printed[j]], rules)
        found.append(np.concatenate([np.minimum(grown[:2], ink[:2]), np.maximum(grown[2:], ink[2:])]))
    scores = [rules.score] * len(found)
    blobs = ink_signatures(frame, boxes, body_height, rules)
    found, scores = found + blobs, scores + [rules.blob_score] * len(blobs)
    boxes_out = list(clip_xyxy(np.stack(found), hw)) if found else []
    return Detections.from_lists(SIGNATURE_CLASSES, Source.OCR, boxes_out, scores)
