"""Licence-plate candidates from text lines the OCR has already read.

A plate is a short line of upper-case letters and digits (4–8 of them, both kinds, in at most four
runs: "AB 123 CD", "M AB 1234", "12-ABC-3", "LS12 ZRK", "7ABC123") printed on a small, flat,
high-contrast rectangle. This specialist costs no model run: it checks each line the OCR read
(``OcrPiiDetector`` reads every frame anyway) against those character rules and against the line's
shape and size, then grows the line box to the plate around it. Lines on rendered screens are
skipped: a plate is photographed, so the pixels around it carry sensor noise, while UI text sits
on perfectly flat colour (``looks_rendered``). Boxes are ``license_plate``, ``Source.OCR``; a
candidate inside a plate box of the VPD detector, however weak, scores higher (``confirm_plates``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import cv2
import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import box_area, centres_inside, clip_xyxy, inside_share
from app.text.lines import TextLine, quad_to_xyxy

PLATE_CLASSES = ("license_plate",)
# The words of the regulatory road signs seen in every street scene: no plate's or business's text.
ROAD_SIGN_WORDS = frozenset({"stop", "стоп", "yield", "give way", "one way", "no entry", "do not enter", "wrong way",
                             "no parking", "exit", "slow"})  # fmt: skip
# A plate's bolts, seals and emblems between its groups are read as any of these.
SEPARATORS = " -·•*=°"
# Not "." (prices, versions, abbreviations: "$12.99", "EST.19"); ":" only where no digit follows
# it ("RATE: 12", "C13:00" are labels and clocks, "M:AB 123" is a plate).
LABEL_SEPARATORS = ":"
LABEL_COLON = re.compile(r":\s*\d")
RUNS = re.compile(r"[A-Z]+|[0-9]+")
# Digits only: three groups ("11-113-10", "6-1337-92", "99:998-68"), read with any separator
# above or ":" (a hyphen in a plate's font reads as one).
_GAP = "[" + re.escape(SEPARATORS + LABEL_SEPARATORS) + "]+"
DIGIT_GROUPS = re.compile(rf"^(\d+){_GAP}(\d+){_GAP}(\d+)$")


@dataclass(frozen=True)
class PlateRules:
    """Character, shape and size rules for a plate line, and how to grow it to the plate.

    ``max_height_share`` / ``max_width_share``: a plate line is small in its frame (plates held
    up to the camera in close-ups still leave the line under these shares). ``grow_x`` /
    ``grow_y``: the plate box is the line box grown by these fractions of the line's width /
    height on each side (the OCR line box already includes a margin around the glyphs).
    ``flat_share``: a line whose surroundings have more than this share of pixels with exactly
    the colour of a neighbour in both directions is rendered (a screen), not photographed.
    """

    min_chars: int = 4
    max_chars: int = 8
    max_runs: int = 4
    min_height_px: float = 8.0
    min_aspect: float = 1.2
    max_aspect: float = 9.0
    max_height_share: float = 0.3
    max_width_share: float = 0.8
    max_skew_deg: float = 35.0
    min_line_score: float = 0.5
    grow_x: float = 0.08
    grow_y: float = 0.2
    flat_share: float = 0.6
    score: float = 0.3  # alone: just above the default threshold (0.25); see ``confirm_plates``
    confirmed_score: float = 0.6
    outline_score: float = 0.25  # a detector plate box this sure (the default threshold) outlines the plate


def plate_text(text: str, rules: PlateRules | None = None) -> str | None:
    """The plate characters of an OCR line (upper case, separators and accents removed), or None
    when the line cannot be a plate. A plate has ``min_chars``–``max_chars`` characters in at most
    ``max_runs`` letter/digit runs, capitals only (one misread lower-case letter is tolerated), and
    mixes letters and digits, or is digits only in three groups (``digit_plate``). Letter-only
    vanity plates are given up: they read like brands and words. One leading non-Latin character
    (the province of a Chinese plate) is allowed."""
    rules = rules or PlateRules()
    raw = unicodedata.normalize("NFKC", text).strip()
    if raw and not raw[0].isascii() and raw[0].isalpha() and "LATIN" not in unicodedata.name(raw[0], ""):
        raw = raw[1:]
    if sum(ch.islower() for ch in raw) > 1:
        return None
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", raw.upper()) if not unicodedata.combining(ch))
    digits_only = digit_plate(plain, rules)
    if digits_only is not None:
        return digits_only
    if LABEL_COLON.search(plain):
        return None
    chars = "".join(ch for ch in plain if ch not in SEPARATORS + LABEL_SEPARATORS)
    if not chars.isascii() or not chars.isalnum() or not rules.min_chars <= len(chars) <= rules.max_chars:
        return None
    letters, digits = sum(ch.isalpha() for ch in chars), sum(ch.isdigit() for ch in chars)
    if not letters or not digits:
        return None
    if len(chars) == rules.min_chars and min(letters, digits) < 2:  # "221B", "A380": house numbers, models
        return None
    return chars if len(RUNS.findall(chars)) <= rules.max_runs else None


def digit_plate(text: str, rules: PlateRules | None = None) -> str | None:
    """The digits of a digits-only plate ("11-113-10", "6-1337-92", "57:777·70"), or None: three
    groups, ``min_chars + 1``–``max_chars`` digits in all, not a clock or a date (every group
    of one or two digits, or a four-digit year beside two short groups), not a phone number
    written in pairs. Ungrouped digits and two groups are prices, phone numbers and codes."""
    rules = rules or PlateRules()
    m = DIGIT_GROUPS.match(text.strip())
    if not m:
        return None
    groups = list(m.groups())
    sizes = [len(g) for g in groups]
    if not rules.min_chars < sum(sizes) <= rules.max_chars or max(sizes) <= 2:
        return None
    if sorted(sizes) == [2, 2, 4] and sizes[1] == 2:  # 15-02-1953, 1953-02-15
        return None
    if sizes[1:] == [2, 2]:  # 555-12-34
        return None
    return "".join(groups)


def _edges(quad: np.ndarray) -> tuple[float, float, float]:
    """Width, height and skew (degrees) of a line quad (clockwise from top-left)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    top, left = q[1] - q[0], q[3] - q[0]
    width = (np.linalg.norm(top) + np.linalg.norm(q[2] - q[3])) / 2
    height = (np.linalg.norm(left) + np.linalg.norm(q[2] - q[1])) / 2
    skew = abs(np.degrees(np.arctan2(top[1], top[0]))) if top.any() else 0.0
    return float(width), float(height), float(min(skew, 180 - skew))


def plate_shape_ok(quad: np.ndarray, hw: tuple[int, int], rules: PlateRules = PlateRules()) -> bool:
    """True when a line quad (4, 2) in frame pixels has a plate line's size and shape in a frame
    of height/width ``hw``."""
    width, height, skew = _edges(quad)
    if height < rules.min_height_px or skew > rules.max_skew_deg:
        return False
    if not rules.min_aspect <= width / height <= rules.max_aspect:
        return False
    return height <= rules.max_height_share * hw[0] and width <= rules.max_width_share * hw[1]


def looks_rendered(frame: np.ndarray, xyxy: np.ndarray, flat_share: float) -> bool:
    """True when the pixels in and around ``xyxy`` are mostly flat colour (a rendered screen):
    the share of pixels equal to their right and lower neighbours exceeds ``flat_share``. Camera
    pictures, even of a plain plate, carry noise and JPEG texture."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = xyxy
    mx, my = 0.5 * (x1 - x0), 1.0 * (y1 - y0)
    x0, y0 = int(max(0, x0 - mx)), int(max(0, y0 - my))
    x1, y1 = int(min(w, x1 + mx)), int(min(h, y1 + my))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return False
    grey = cv2.cvtColor(np.ascontiguousarray(frame[y0:y1, x0:x1]), cv2.COLOR_BGR2GRAY).astype(np.int16)
    flat = (grey[:-1, :-1] == grey[1:, :-1]) & (grey[:-1, :-1] == grey[:-1, 1:])
    return float(flat.mean()) > flat_share


def plate_box(quad: np.ndarray, hw: tuple[int, int], rules: PlateRules = PlateRules()) -> np.ndarray:
    """The plate around a line quad: its bounds grown by ``grow_x`` of the line width and ``grow_y``
    of the line height on each side, clipped to the frame; (4,) float32 xyxy pixels."""
    width, height, _ = _edges(quad)
    x0, y0, x1, y1 = quad_to_xyxy(quad)
    gx, gy = rules.grow_x * width, rules.grow_y * height
    return clip_xyxy(np.array([[x0 - gx, y0 - gy, x1 + gx, y1 + gy]], np.float32), hw)[0]


def plate_candidates(lines: Sequence[TextLine], frame: np.ndarray, rules: PlateRules = PlateRules()) -> Detections:
    """``license_plate`` boxes (xyxy frame pixels, ``Source.OCR``) for the OCR ``lines`` of ``frame``
    (H, W, 3) uint8 BGR that pass the character, shape and photo rules; the score is
    ``rules.score`` scaled by the line's reading confidence."""
    hw = frame.shape[:2]
    boxes, scores = [], []
    for line in lines:
        if line.score < rules.min_line_score or plate_text(line.text, rules) is None:
            continue
        if not plate_shape_ok(line.quad, hw, rules) or looks_rendered(frame, quad_to_xyxy(line.quad), rules.flat_share):
            continue
        boxes.append(plate_box(line.quad, hw, rules))
        scores.append(rules.score * min(1.0, 0.5 + 0.5 * line.score))
    return Detections.from_lists(PLATE_CLASSES, Source.OCR, boxes, scores)


def road_sign_text(text: str) -> bool:
    """Whether ``text`` is a regulatory road sign's words ("STOP", "One Way"), whole."""
    return " ".join(text.lower().split()) in ROAD_SIGN_WORDS


def drop_road_sign_objects(fused: Detections, lines: Sequence[TextLine], own_text: Mapping[str, Callable[[str], bool]],
                           min_line_score: float = 0.8) -> Detections:  # fmt: skip
    """``fused`` without the VPD detector's boxes of the classes in ``own_text`` that hold a line
    clearly read (``min_line_score``) as a road sign's words and no line that ``own_text[class]``
    accepts as that object's own: a red octagon that says STOP has a plate's outline and contrast,
    and a house number's large characters on a plain panel, but neither a plate nor a house number
    ever says STOP."""
    if not len(fused) or not lines:
        return fused
    line_boxes = np.stack([quad_to_xyxy(l.quad) for l in lines])
    sign = np.array([l.score >= min_line_score and road_sign_text(l.text) for l in lines])[:, None]
    drop = np.zeros(len(fused), bool)
    for name, is_own in own_text.items():
        if name not in fused.class_names:
            continue
        judged = np.flatnonzero((fused.class_ids == fused.class_names.index(name)) & (fused.sources == Source.DETECTOR))
        if not len(judged):
            continue
        inside = centres_inside(line_boxes, fused.xyxy[judged])  # (lines, boxes)
        own = np.array([is_own(l.text) for l in lines])[:, None]
        drop[judged] = (inside & sign).any(0) & ~(inside & own).any(0)
    return fused.take(~drop) if drop.any() else fused


def confirm_plates(fused: Detections, lines: Sequence[TextLine] = (), rules: PlateRules = PlateRules()) -> Detections:
    """``fused`` (every detector's raw boxes for one frame) with each text-plate candidate
    (``license_plate`` from ``Source.OCR``) whose centre lies in a ``license_plate`` box of the
    VPD detector, of any score, raised to ``rules.confirmed_score``. Two weak, independent cues
    agree: a plate-like line of characters where the detector saw something plate-like. Alone,
    a candidate keeps its low score (car badges, shop signs, model numbers read alike).

    A confirmed candidate's box is also cut to the plate the detector outlined with at least
    ``rules.outline_score``, joined with its own line of ``lines`` (so every character stays
    inside), where that is smaller than the fixed growth around the line (``plate_box``): the
    growth must reach the rim of any plate, the detector's box is the rim of this one."""
    if not len(fused) or "license_plate" not in fused.class_names:
        return fused
    is_plate = fused.class_ids == fused.class_names.index("license_plate")
    candidates = np.flatnonzero(is_plate & (fused.sources == Source.OCR))
    by_detector = is_plate & (fused.sources == Source.DETECTOR)
    seen, seen_scores = fused.xyxy[by_detector], fused.scores[by_detector]
    if not len(candidates) or not len(seen):
        return fused
    inside = centres_inside(fused.xyxy[candidates], seen)  # (candidates, detector plates)
    if not inside.any():
        return fused
    confirmed = inside.any(1)
    scores = fused.scores.copy()
    scores[candidates[confirmed]] = np.maximum(scores[candidates[confirmed]], rules.confirmed_score)
    xyxy = fused.xyxy.copy()
    plate_lines = [quad_to_xyxy(l.quad) for l in lines if plate_text(l.text, rules) is not None]
    outlines = seen_scores >= rules.outline_score
    if plate_lines and outlines.any():
        line_boxes = np.stack(plate_lines).astype(np.float32)
        for row in np.flatnonzero(confirmed):
            xyxy[candidates[row]] = _cut_to_outline(xyxy[candidates[row]], line_boxes, seen[inside[row] & outlines])
    return Detections(xyxy, scores, fused.class_ids, fused.class_names, fused.track_ids, fused.sources)


def _cut_to_outline(candidate: np.ndarray, line_boxes: np.ndarray, outlines: np.ndarray) -> np.ndarray:
    """``candidate`` (4,) replaced by its line (the plate line of ``line_boxes`` whose centre lies
    in it) joined with the smallest of ``outlines`` that holds most of the line, where that join
    is smaller. An outline that leaves much of the line out is not this plate's rim."""
    own = np.flatnonzero(centres_inside(line_boxes, candidate[None])[:, 0])
    if not len(own) or not len(outlines):
        return candidate
    line = line_boxes[own[np.argmax(box_area(line_boxes[own]))]]
    holding = outlines[inside_share(line[None], outlines)[0] >= 0.9]
    if not len(holding):
        return candidate
    outline = holding[np.argmin(box_area(holding))]
    joined = np.concatenate([np.minimum(line[:2], outline[:2]), np.maximum(line[2:], outline[2:])])
    return joined if box_area(joined[None])[0] < box_area(candidate[None])[0] else candidate
