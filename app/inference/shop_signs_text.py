"""Shop signs and house numbers from the text lines the OCR has already read (photos only).

A shop sign names a business and so places a picture on one street. What makes it a sign is not
its words (the recogniser often cannot read them: Cyrillic, stylised or neon letters come out as
Latin gibberish) but its layout, and the OCR's text *detector* finds the line even where reading
fails: a short line, or a row of lines, of letters far larger than any printed or on-screen text,
photographed on a building front. A house number is a short line of 1–4 digits (an optional
letter or "/2" part) in large glyphs on a wall or plaque, standing alone.

Like the plate and street-sign candidates (``plates_text``, ``signs_text``) this costs no model
run, and only photographed text counts: a big headline or a clock on a rendered screen sits on
flat colour (``looks_rendered``). A frame whose lines cover much of it is a page (a document, a
menu, a poster held to the camera), not a street, and gives no shop sign. Boxes are
``shop_sign`` / ``house_number``, ``Source.OCR``; the policy decides whether they are hidden.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import box_area, clip_xyxy, connected_groups
from app.inference.plates_text import _edges, looks_rendered, plate_text, road_sign_text
from app.inference.signs_text import street_name
from app.text.lines import TextLine, quad_to_xyxy

SHOP_SIGN_CLASSES = ("shop_sign", "house_number")
# 1–4 digits, optionally a letter ("221B", "12а") or a building after a slash ("12/3"), optionally
# "No." / "№". Not "9-21" (opening hours) and not a unit letter: prices ("300р", "199p"), metres,
# kilo-, grams, hours ("100m", "5k", "24h").
HOUSE_NUMBER = re.compile(r"^(?:no\.?\s?|№\s?|nr\.?\s?)?\d{1,4}(?:\s?[^\W\d_])?(?:\s?/\s?\d{1,3})?$", re.IGNORECASE)
UNIT_LETTERS = frozenset("pрmмkкgгhч")
NOT_HOUSE_NUMBERS = frozenset({"24/7"})


@dataclass(frozen=True)
class FacadeRules:
    """Size, shape and layout rules for sign lines and house numbers.

    ``min_glyph_share``: a sign line is at least this share of the frame's shorter side tall
    (and ``min_height_px``); printed and on-screen text in a street photo is smaller.
    ``row_gap`` / ``stack_gap``: lines of similar height (within ``height_ratio``) on one row
    closer than this many line heights, or stacked with a gap under ``stack_gap`` heights, are one
    sign. ``grow_x`` / ``grow_y``: the sign box is the lines' span grown by these multiples of
    the line height (the board around the letters). ``max_text_cover``: a frame with at least
    ``page_lines`` lines covering more than this share of it is a page, not a street.
    ``max_sign_share``: a sign's box larger than this share of the frame is no shop sign.
    ``max_skew_deg``: lines slanted more than this, up to as much short of vertical, are no sign's
    (a vertical blade's text is found upright). ``flat_share``: the rendered-screen test.
    """

    min_glyph_share: float = 0.03
    min_height_px: float = 12.0
    max_height_share: float = 0.3
    max_width_share: float = 0.9
    max_skew_deg: float = 30.0
    min_sign_letters: int = 2
    max_sign_words: int = 3  # a sign names a business in a word or three; longer lines are prose
    min_read_share: float = 0.4  # characters read per line height of box width, below which the reading failed
    min_unread_aspect: float = 2.0  # a found line not read must be long like a word (QR codes and textures are found too)
    max_group_lines: int = 4  # more stacked lines are a poster or a page
    max_group_words: int = 4  # a sign's lines together name a business; more words are advertising copy
    min_letter_share: float = 0.5
    min_line_score: float = 0.3
    row_gap: float = 1.0
    stack_gap: float = 0.8
    height_ratio: float = 1.7
    grow_x: float = 0.5
    grow_y: float = 0.0  # the OCR's line box already holds a margin of about a quarter of the letter height
    max_text_cover: float = 0.15
    # The real pack's largest labelled shop sign (train split) is 14 % of its photo; a "sign" box
    # over a quarter of the frame is a poster, a banner or a product label photographed close.
    max_sign_share: float = 0.25
    page_lines: int = 8
    flat_share: float = 0.6
    sign_score: float = 0.3
    number_min_score: float = 0.7  # a digit line read with less confidence is often texture (bricks, railings)
    number_glyph_share: float = 0.025  # a number's text rule is strict, so its glyphs may be smaller
    number_height_share: float = 0.6  # a plaque photographed up close
    number_alone_gap: float = 1.0  # no other line on its row within this many heights (else a phone, a plate, a price)
    number_grow: float = -0.1  # the OCR's line box has a margin of ~1/4 of the glyph height round the digits
    number_score: float = 0.3


def house_number_text(text: str) -> bool:
    """True when ``text`` reads as a house number: 1–4 digits, optionally a letter that is no unit
    or a building number after "/", optionally after "No." / "№"; no clock, price, date or
    opening-hours separators."""
    text = unicodedata.normalize("NFKC", " ".join(text.split()))
    if not HOUSE_NUMBER.match(text) or text in NOT_HOUSE_NUMBERS:
        return False
    number = text.split("/")[0]
    return not (number[-1].isalpha() and number[-1].lower() in UNIT_LETTERS)


def sign_text(text: str, rules: FacadeRules = FacadeRules()) -> bool:
    """True when ``text`` can be (a misreading of) a sign's words: at most ``max_sign_words``
    words, mostly letters, at least ``min_sign_letters`` of them. The words themselves are not
    checked: a misread sign reads as gibberish."""
    chars = [ch for ch in text if not ch.isspace()]
    letters = sum(ch.isalpha() for ch in chars)
    return (len(text.split()) <= rules.max_sign_words and letters >= rules.min_sign_letters
            and letters >= rules.min_letter_share * len(chars))  # fmt: skip


def _sign_line(line: TextLine, rules: FacadeRules) -> bool:
    """A found line that was not read and is long like a word, or one whose text can be a sign's
    and is no licence plate's or street name's (those are ``plates_text``'s and ``signs_text``'s)
    or road sign's ("STOP"). A line read as far fewer characters than its box holds ("A" over a
    whole word) was not read either: its text says nothing."""
    width, height, _ = _edges(line.quad)
    text = line.text.strip()
    if len(text) < rules.min_read_share * width / max(height, 1e-6):
        return width >= rules.min_unread_aspect * height
    return (sign_text(text, rules) and plate_text(text) is None and not street_name(text)
            and not road_sign_text(text))  # fmt: skip


def _big_line(quad: np.ndarray, hw: tuple[int, int], rules: FacadeRules) -> bool:
    """True when a line (quad (4, 2)) has large glyphs for an ``hw`` frame and is not too large
    for a sign. Its size is measured along its slant: the bounds of a tilted line (a number
    photographed from below) are far taller than its letters."""
    width, height, skew = _edges(quad)
    if rules.max_skew_deg < skew < 90 - rules.max_skew_deg:
        return False
    if height < max(rules.min_height_px, rules.min_glyph_share * min(hw)):
        return False
    frame_h, frame_w = hw if skew < 45 else hw[::-1]
    return height <= rules.max_height_share * frame_h and width <= rules.max_width_share * frame_w


def _linked(boxes: np.ndarray, h: np.ndarray, rules: FacadeRules) -> np.ndarray:
    """(N, N) bool: lines (bounds (N, 4) xyxy, letter heights (N,) along their slant) that belong
    to one sign — similar heights, and on one row close together, or stacked with a gap under
    ``stack_gap`` of the smaller height over half the narrower line's width."""
    hmin, hmax = np.minimum(h[:, None], h[None]), np.maximum(h[:, None], h[None])
    v_overlap = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    h_gap = np.maximum(boxes[:, None, 0], boxes[None, :, 0]) - np.minimum(boxes[:, None, 2], boxes[None, :, 2])
    w = boxes[:, 2] - boxes[:, 0]
    same_row = (v_overlap >= 0.5 * hmin) & (h_gap <= rules.row_gap * hmax)
    stacked = (-h_gap >= 0.5 * np.minimum(w[:, None], w[None])) & (-v_overlap <= rules.stack_gap * hmin)
    return (hmax <= rules.height_ratio * hmin) & (same_row | stacked)


def _detections(found: list[tuple[np.ndarray, float, int]], hw: tuple[int, int]) -> Detections:
    boxes = list(clip_xyxy(np.stack([f[0] for f in found]), hw)) if found else []
    return Detections.from_lists(SHOP_SIGN_CLASSES, Source.OCR, boxes, [f[1] for f in found], [f[2] for f in found])


def shop_sign_candidates(lines: Sequence[TextLine], frame: np.ndarray, rules: FacadeRules = FacadeRules()) -> Detections:
    """``shop_sign`` and ``house_number`` boxes (xyxy frame pixels, ``Source.OCR``) for the OCR
    ``lines`` of ``frame`` (H, W, 3) uint8 BGR, a photograph: rows and stacks of large-glyph
    letter lines grown to their board, and lone large-glyph house numbers grown to their plaque.
    A line with empty text is one the OCR found but could not read (an unknown script, a stylised
    font): it can be a sign's line, never a number.
    Scores are ``rules.sign_score`` / ``rules.number_score``; none on a rendered screen or a page."""
    hw = frame.shape[:2]
    lines = [l for l in lines if l.score >= rules.min_line_score or not l.text.strip()]
    if not lines:
        return Detections.empty(SHOP_SIGN_CLASSES)
    boxes = np.array([quad_to_xyxy(l.quad) for l in lines], np.float32).reshape(-1, 4)
    if len(lines) >= rules.page_lines and float(box_area(boxes).sum()) > rules.max_text_cover * hw[0] * hw[1]:
        return Detections.empty(SHOP_SIGN_CLASSES)  # a page of text, not a street
    big = np.array([_big_line(l.quad, hw, rules) for l in lines], bool)
    number_rules = replace(rules, min_glyph_share=rules.number_glyph_share, max_height_share=rules.number_height_share)
    big_number = np.array([_big_line(l.quad, hw, number_rules) for l in lines], bool)
    found = _house_numbers(lines, boxes, big_number, frame, rules)
    signs = np.flatnonzero(big & np.array([_sign_line(l, rules) for l in lines], bool))
    heights = np.array([_edges(lines[i].quad)[1] for i in signs], np.float32)
    for group in connected_groups(_linked(boxes[signs], heights, rules)) if len(signs) else []:
        words = sum(len(lines[signs[k]].text.split()) for k in group)
        if len(group) > rules.max_group_lines or words > rules.max_group_words:
            continue
        b = boxes[signs[group]]
        span = np.array([b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()], np.float32)
        if looks_rendered(frame, span, rules.flat_share):
            continue
        h = float(np.median(heights[group]))
        grow = np.array([-rules.grow_x, -rules.grow_y, rules.grow_x, rules.grow_y], np.float32) * h
        sign = clip_xyxy((span + grow)[None], hw)[0]
        if float(box_area(sign[None])[0]) > rules.max_sign_share * hw[0] * hw[1]:
            continue
        found.append((sign, rules.sign_score, 0))
    return _detections(found, hw)


def _house_numbers(lines: Sequence[TextLine], boxes: np.ndarray, big: np.ndarray, frame: np.ndarray,
                   rules: FacadeRules) -> list[tuple[np.ndarray, float, int]]:  # fmt: skip
    """Large, confidently read, lone house-number lines grown to their plaque."""
    found = []
    for i in np.flatnonzero(big):
        line = lines[i]
        if line.score < rules.number_min_score or not house_number_text(line.text):
            continue
        b = boxes[i]
        h = b[3] - b[1]
        centre_dy = np.abs((boxes[:, 1] + boxes[:, 3]) - (b[1] + b[3])) / 2
        h_gap = np.maximum(boxes[:, 0], b[0]) - np.minimum(boxes[:, 2], b[2])
        neighbours = (centre_dy < 0.35 * h) & (h_gap <= rules.number_alone_gap * h)
        neighbours[i] = False
        if neighbours.any() or looks_rendered(frame, b, rules.flat_share):
            continue
        g = rules.number_grow * h
        found.append((b + np.array([-g, -g, g, g], np.float32), rules.number_score, 1))
    return found


# A text candidate centred on a confident box of these classes is part of that object: the digits
# of a plate are no house number, the modules of a code read as a line are no sign.
PART_OF = {"house_number": ("license_plate",), "shop_sign": ("qr_code", "barcode")}


def drop_parts_of_objects(fused: Detections, min_score: float = 0.5) -> Detections:
    """``fused`` (every detector's raw boxes for one frame) without the text candidates
    (``Source.OCR``) of ``PART_OF``'s classes whose centre lies in a box of an object class they
    belong to, of any source, scored at least ``min_score``. Weak boxes do not count: the detector
    also gives number plaques a low plate score."""
    names, drop = fused.class_names, np.zeros(len(fused), bool)
    centres = (fused.xyxy[:, :2] + fused.xyxy[:, 2:]) / 2
    for part, wholes in PART_OF.items():
        if part not in names:
            continue
        mine = np.flatnonzero((fused.class_ids == names.index(part)) & (fused.sources == Source.OCR))
        whole = np.isin(fused.class_ids, [names.index(w) for w in wholes if w in names]) & (fused.scores >= min_score)
        if not len(mine) or not whole.any():
            continue
        c, boxes = centres[mine], fused.xyxy[whole]
        inside = ((c[:, None, 0] >= boxes[None, :, 0]) & (c[:, None, 0] <= boxes[None, :, 2])
                  & (c[:, None, 1] >= boxes[None, :, 1]) & (c[:, None, 1] <= boxes[None, :, 3])).any(1)  # fmt: skip
        drop[mine[inside]] = True
    return fused.take(~drop) if drop.any() else fused
