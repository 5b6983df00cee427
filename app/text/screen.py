"""From OCR lines of one frame to boxes to hide, and the reading's say on the other detectors' boxes.

``read_screen`` turns lines into PII boxes: span boxes from the classifier (or from the rules when
no classifier is loaded), the variable fields of documents found by their MRZ, and multi-line
address blocks. ``refine`` then runs on the fused detections of all detectors: documents the visual
detector boxed get the same field-by-field treatment, and detector text boxes that the reading
contradicts (a headline, a message preview) are dropped.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from app.core.detections import Detections, Source, concat
from app.core.policy import TEXT_PII
from app.core.tracking import cut_sides
from app.text.classifier import LineReading, TextPiiClassifier
from app.text.layout import line_contexts
from app.text.ink import line_ink_xyxy
from app.text.lines import TextLine, is_tilted, is_vertical, quad_to_xyxy, span_xyxy
from app.text.recognisers import find_pii
from app.text.regions import (DOCUMENT_CLASSES, Region, address_blocks, document_fields, looks_like_document, mrz_regions,
                              read_detector_box, reads_as_ordinary_text, template_spans_inside)  # fmt: skip

log = logging.getLogger(__name__)

DOCUMENT_MIN_SCORE = 0.3  # detector document boxes weaker than this do not switch on document mode
# Documents whose every page shows printed labels; a shipping label or slip may be plain prose.
PAGE_CLASSES = ("passport", "id_card", "payment_card")


@dataclass
class ScreenReading:
    """One frame as read: the line readings (classifier path only), the boxes found, the frame and
    the span-box function used on it (``span_box_function``; ``refine`` reuses its per-line work),
    and ``weak``: the P(private) from which a word backs a detector text box, half the classifier's
    own threshold (what counts as weak evidence depends on where that model draws the line)."""

    readings: list[LineReading] = field(default_factory=list)
    regions: list[Region] = field(default_factory=list)
    frame: np.ndarray | None = None
    span_box: Callable[[TextLine, int, int], np.ndarray] | None = None
    weak: float = 0.25

    def detections(self, source: Source = Source.OCR) -> Detections:
        """The regions as ``Detections`` over ``TEXT_PII``, tagged ``source``."""
        return Detections.from_lists(TEXT_PII, source, [r.xyxy for r in self.regions], [r.score for r in self.regions],
                                     [TEXT_PII.index(r.class_name) for r in self.regions])  # fmt: skip

    def placed(self, offset: np.ndarray, hw: tuple[int, int], read_again: np.ndarray | None = None) -> "ScreenReading":
        """The line readings moved by ``offset`` (2,) px onto another frame (height, width) ``hw``,
        less the lines out of view there and those wholly inside ``read_again`` (4,) xyxy (a crop
        read anew). Only the readings travel, each line with its ink measured on the frame read
        (``TextLine.ink``, by that frame's span-box function) for ``known_ink_span_box``; boxes
        and frame stay with the frame read."""
        d = np.asarray(offset, np.float32).reshape(1, 2)
        d4 = np.tile(d[0], 2)
        h, w = hw
        out = []
        for r in self.readings:
            x0, y0, x1, y1 = quad_to_xyxy(r.line.quad + d)
            if x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
                continue
            if read_again is not None and x0 >= read_again[0] and y0 >= read_again[1] and x1 <= read_again[2] and y1 <= read_again[3]:
                continue
            ink = r.line.ink
            if ink is None and self.span_box is not None and r.line.text:
                ink = self.span_box(r.line, 0, len(r.line.text))  # measured while the frame read is at hand
            line = replace(r.line, quad=r.line.quad + d, words=tuple((t, q + d) for t, q in r.line.words),
                           ink=None if ink is None else np.asarray(ink, np.float32) + d4)  # fmt: skip
            out.append(replace(r, line=line))
        return ScreenReading(out, weak=self.weak, span_box=known_ink_span_box)

    def whole(self, hw: tuple[int, int]) -> "ScreenReading":
        """The line readings not cut by the border of their (height, width) ``hw`` frame
        (``whole_lines``)."""
        return ScreenReading(whole_lines(self.readings, hw), frame=self.frame, span_box=self.span_box, weak=self.weak)

    def cut(self, hw: tuple[int, int]) -> np.ndarray:
        """(K, 4) xyxy of the lines the border of their (height, width) ``hw`` frame cuts: read as
        a part of their text, they are left out of ``whole`` and judged by no one."""
        boxes = np.array([quad_to_xyxy(r.line.quad) for r in self.readings], np.float32).reshape(-1, 4)
        return boxes[_cut(self.readings, hw)]

    def plus(self, other: "ScreenReading") -> "ScreenReading":
        """The line readings of both (of one frame), as one reading with ``other``'s weak level."""
        return ScreenReading(self.readings + other.readings, weak=other.weak, span_box=known_ink_span_box)

    def judge(self, dets: Detections, to_reading: np.ndarray) -> Detections:
        """``dets`` of another frame of the same picture with their detector text-PII boxes
        judged by these readings (``judge_by_reading``); ``to_reading`` (2,) px: where a box of
        ``dets`` lies on the read frame relative to its own."""
        return judge_by_reading(dets, self.readings, self.weak, to_reading, span_box=self.span_box or span_xyxy)


def span_box_function(frame: np.ndarray):
    """``(line, start, end) -> xyxy``: the box over a span of a line read from ``frame``, trimmed to
    the span's ink (``app.text.ink``) so the redaction padding grows the ink, not the loose line box.
    Vertically it spans the whole line's ink, so that every mask on a line has one height and does
    not draw the outline of the hidden word (its ascenders and descenders)."""
    line_ink: dict[int, np.ndarray] = {}

    def box(line: TextLine, start: int, end: int) -> np.ndarray:
        if is_tilted(line):  # its box's bounds cross other characters' ink: no ink fit
            return span_xyxy(line, start, end)
        vertical = is_vertical(line)
        if id(line) not in line_ink:
            line_ink[id(line)] = line_ink_xyxy(frame, span_xyxy(line, 0, len(line.text)), vertical)
        out = line_ink_xyxy(frame, span_xyxy(line, start, end), vertical)
        full = line_ink[id(line)]
        lo, hi = (0, 2) if vertical else (1, 3)  # across the line
        out[lo], out[hi] = min(out[lo], full[lo]), max(out[hi], full[hi])
        return out

    return box


def known_ink_span_box(line: TextLine, start: int, end: int) -> np.ndarray:
    """The box over a span of a line (``span_xyxy``), across the line spanning its ink where that
    was measured (``TextLine.ink``), as ``span_box_function`` gives on the frame read."""
    box = span_xyxy(line, start, end)
    if line.ink is not None:
        lo, hi = (0, 2) if is_vertical(line) else (1, 3)
        box[lo], box[hi] = line.ink[lo], line.ink[hi]
    return box


def whole_lines(lines: list[LineReading], hw: tuple[int, int]) -> list[LineReading]:
    """The lines of a reading not cut by the border of its (``hw``) frame: a line cut there was
    read as a part of its text, and would cut down a box over the whole of it on another frame."""
    return [reading for reading, is_cut in zip(lines, _cut(lines, hw)) if not is_cut]


def _cut(lines: list[LineReading], hw: tuple[int, int]) -> np.ndarray:
    """(N,) bool: which of ``lines`` the border of their (``hw``) frame cuts."""
    if not lines:
        return np.zeros(0, bool)
    return cut_sides(np.stack([quad_to_xyxy(reading.line.quad) for reading in lines]), hw).any(1)


def read_screen(lines: list[TextLine], frame: np.ndarray, classifier: TextPiiClassifier | None) -> ScreenReading:
    """Boxes to hide for ``lines`` read from ``frame`` (H, W, 3) uint8 BGR."""
    box = span_box_function(frame)
    quality = {id(l): 0.6 + 0.4 * min(1.0, l.score) for l in lines}
    if classifier is None:
        regions = [Region(box(line, s.start, s.end), s.class_name, s.score * quality[id(line)], s.recogniser)
                   for line, ctx in zip(lines, line_contexts(lines)) for s in find_pii(line.text, ctx.label_text, column_head=ctx.column_head)]  # fmt: skip
        return ScreenReading([], regions, frame, box)
    readings = classifier.read(lines)
    regions = [Region(box(r.line, s.start, s.end), s.class_name, s.score * quality[id(r.line)], s.recogniser)
               for r in readings for s in r.spans]  # fmt: skip
    for area in mrz_regions(readings):
        regions = template_spans_inside(regions, readings, area) + document_fields(readings, area, box)
    regions += address_blocks(readings)
    return ScreenReading(readings, regions, frame, box, weak=0.5 * float(classifier.threshold))


def _judge_text_boxes(dets: Detections, readings: list[LineReading], span_box, weak: float,
                      to_reading: np.ndarray | None = None,
                      sources: tuple[Source, ...] = (Source.DETECTOR,)) -> tuple[np.ndarray, list[Region]]:  # fmt: skip
    """(drop mask, narrowed regions): the text-PII boxes of ``dets`` from ``sources`` (the
    detector's) that ``readings`` replaces (``read_detector_box``), and what replaces them: the
    boxes cut down to the words the reading backs (none for a headline). ``to_reading`` (2,): where
    a box of ``dets`` lies on the read frame, relative to its own frame (0 when it is the same frame)."""
    d4 = np.zeros(4, np.float32) if to_reading is None else np.tile(np.asarray(to_reading, np.float32), 2)
    labels = dets.labels
    drop = np.zeros(len(dets), bool)
    narrowed: list[Region] = []
    for i in np.flatnonzero(np.isin(dets.sources, [int(s) for s in sources])):
        if labels[i] not in TEXT_PII:
            continue
        read = read_detector_box(dets.xyxy[i] + d4, labels[i], float(dets.scores[i]), readings, span_box, weak=weak)
        if read is not None:
            drop[i] = True
            narrowed += [Region(r.xyxy - d4, r.class_name, r.score, r.reason) for r in read]
    return drop, narrowed


def judge_by_reading(dets: Detections, readings: list[LineReading], weak: float, to_reading: np.ndarray,
                     sources: tuple[Source, ...] = (Source.DETECTOR,), span_box=span_xyxy) -> Detections:  # fmt: skip
    """``dets`` of one video frame with their text-PII boxes from ``sources`` (the detector's; a
    video's held boxes too) judged by ``readings`` made on another frame of the same picture,
    ``to_reading`` (2,) px away by the measured motion, as ``refine`` judges them on the read
    frame itself: a box over clearly read lines keeps only the lines with a word the reading finds
    at least weakly private, a box over none goes (a headline, an app's name in a list), a box
    over text that was not read stands. ``span_box``: the box over a span of a line (read from
    its quad; ``known_ink_span_box`` for lines whose ink was measured)."""
    if not readings or not len(dets):
        return dets
    drop, narrowed = _judge_text_boxes(dets, readings, span_box, weak, to_reading, sources)
    if not drop.any():
        return dets
    parts = [dets.take(~drop)]
    if narrowed:
        parts.append(ScreenReading(regions=narrowed).detections(Source.DETECTOR))
    return concat(parts, dets.class_names)


def refine(fused: Detections, reading: ScreenReading) -> Detections:
    """``fused`` (all detectors) adjusted by the text reading. Unchanged without a classifier reading.

    * A detector text-PII box over clearly read lines is cut down to the lines under it that hold
      a word the reading finds at least weakly private (``read_detector_box``); with none, it is
      dropped (a headline, a message preview). Boxes over text the OCR could not read stay.
    * A detector document box (passport, ID, card, label) whose text reads like a document gets
      its variable fields hidden one by one, and OCR spans on its printed labels go. A passport,
      ID or payment-card box over many clearly read lines with no labels and no MRZ (a window of
      ordinary text) is dropped.
    """
    if not reading.readings or not len(fused) or reading.frame is None:
        return fused
    labels = fused.labels
    from_detector = fused.sources == Source.DETECTOR
    span_box = reading.span_box or span_box_function(reading.frame)
    drop, narrowed = _judge_text_boxes(fused, reading.readings, span_box, reading.weak)
    added: list[Region] = []
    for i in np.flatnonzero(from_detector):
        area = fused.xyxy[i]
        if labels[i] not in DOCUMENT_CLASSES:
            continue
        if labels[i] in PAGE_CLASSES and reads_as_ordinary_text(reading.readings, area):
            drop[i] = True
        elif fused.scores[i] >= DOCUMENT_MIN_SCORE and looks_like_document(reading.readings, area):
            added += document_fields(reading.readings, area, span_box)
            # OCR spans on the document's printed labels are not private
            ocr = np.flatnonzero((fused.sources == Source.OCR) & ~drop)
            as_regions = [Region(fused.xyxy[j], labels[j], float(fused.scores[j]), "") for j in ocr]
            kept = {id(g) for g in template_spans_inside(as_regions, reading.readings, area)}
            drop[ocr[[id(g) not in kept for g in as_regions]]] = True
    if drop.any():
        log.info("text reading replaced or dropped %d detector box(es) (%d word boxes kept)", int(drop.sum()), len(narrowed))
    out = fused.take(~drop)
    parts = [out]
    if added:
        parts.append(ScreenReading(regions=added).detections())
    if narrowed:
        parts.append(ScreenReading(regions=narrowed).detections(Source.DETECTOR))
    return concat(parts, fused.class_names) if len(parts) > 1 else out
