"""Box-size sanity per class: a box far larger than its class can plausibly be on screen must be
confident to count, so one false whole-frame "house number" cannot black out a video for seconds.

The limits are what the classes are, not figures fitted to any data set: a line of text (an
e-mail, a phone number) is a line, not half the frame; a face in a video is rarely more than
half of it; a document may fill the frame. A box over its class limit is kept only with a score
of at least ``strong_score`` (more likely right than wrong); a weaker one is dropped before it
reaches the tracker. Manual boxes (drawn by the user) are always kept. Used by the video export
and live paths through ``Pipeline.select(raw, hw)``; still images are reviewed by the user and
keep every box.

Boxes cut by the frame border are completed (``complete_edge_cut``, called by the detectors
themselves, which see the frame): a detector sees only the visible part of an object the frame
cuts, and localises it worse than a whole one (a face detector trained on whole faces boxes the
half face it sees narrowly). For classes whose whole box has a typical shape (``EDGE_ASPECTS``,
width / height), a box that touches the left or right border and is narrower than that shape is
widened inward to it, and one that touches the top or bottom border and is flatter is made
taller inward: the visible part of the object lies within the completed box. A face's 0.75 is
CenterFace's own box shape on whole faces (median 0.78 on the sample pictures of scikit-image and
ultralytics, 0.66-0.79); an avatar is square. Where the picture a face or avatar sits in is seen
(``picture_bounds``), its visible part is the box and nothing is completed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import frame_share


@dataclass(frozen=True)
class SizeLimit:
    """Largest plausible box as fractions of the frame: ``height`` of its height, ``area`` of its area."""

    height: float = 1.0
    area: float = 1.0


_LINE = SizeLimit(height=0.2, area=0.2)  # one line (or a short block) of text
_SMALL_OBJECT = SizeLimit(height=0.6, area=0.35)  # plates, signs, codes, signatures: held in view, not filling it
DEFAULT_LIMITS: Mapping[str, SizeLimit] = MappingProxyType(
    {
        **{name: _LINE for name in (
            "email", "phone_number", "person_name", "card_number", "bank_account", "id_number", "date_of_birth",
            "username", "password", "verification_code", "secret_key", "ip_address",
        )},  # fmt: skip
        "postal_address": SizeLimit(height=0.4, area=0.3),  # a few lines
        "face": SizeLimit(height=0.9, area=0.5),
        **{name: _SMALL_OBJECT for name in ("license_plate", "house_number", "street_sign", "shop_sign", "qr_code",
                                             "barcode", "signature")},  # fmt: skip
    }
)


EDGE_ASPECTS: Mapping[str, float] = MappingProxyType({"face": 0.75, "avatar": 1.0})
EDGE_PX = 1.0  # a box side this close to the frame border is cut by it


def complete_edge_cut(detections: Detections, hw: tuple[int, int], aspects: Mapping[str, float]) -> Detections:
    """Boxes cut by the frame border completed inward to their class's whole-box ``aspects``
    (width / height); other boxes unchanged."""
    if not len(detections) or not aspects:
        return detections
    h, w = hw
    a = np.array([aspects.get(c, 0.0) for c in detections.class_names], np.float32)[detections.class_ids]
    b = detections.xyxy.copy()
    bw, bh = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    side = (a > 0) & (bw < a * bh) & ((b[:, 0] <= EDGE_PX) | (b[:, 2] >= w - EDGE_PX))
    flat = (a > 0) & (bw > a * bh) & ((b[:, 1] <= EDGE_PX) | (b[:, 3] >= h - EDGE_PX))
    if not (side.any() or flat.any()):
        return detections
    need_w = np.where(side, a * bh - bw, 0.0)
    at_left = b[:, 0] <= EDGE_PX
    b[:, 2] = np.where(side & at_left, np.minimum(w, b[:, 2] + need_w), b[:, 2])
    b[:, 0] = np.where(side & ~at_left, np.maximum(0, b[:, 0] - need_w), b[:, 0])
    need_h = np.where(flat, bw / np.maximum(a, 1e-6) - bh, 0.0)
    at_top = b[:, 1] <= EDGE_PX
    b[:, 3] = np.where(flat & at_top, np.minimum(h, b[:, 3] + need_h), b[:, 3])
    b[:, 1] = np.where(flat & ~at_top, np.maximum(0, b[:, 1] - need_h), b[:, 1])
    return detections.with_boxes(b)


@dataclass(frozen=True)
class BoxSanity:
    """Per-class size limits (classes not listed have none) and the score that overrides them."""

    limits: Mapping[str, SizeLimit] = field(default_factory=lambda: DEFAULT_LIMITS)
    strong_score: float = 0.5

    def implausible(self, detections: Detections, hw: tuple[int, int]) -> np.ndarray:
        """(N,) bool: boxes over their class limit in an ``hw`` frame (before the score check)."""
        n = len(detections)
        if not n:
            return np.zeros(0, bool)
        h = hw[0]
        names = detections.class_names
        max_h = np.array([self.limits.get(c, SizeLimit()).height for c in names], np.float32)[detections.class_ids]
        max_a = np.array([self.limits.get(c, SizeLimit()).area for c in names], np.float32)[detections.class_ids]
        xyxy = detections.xyxy
        bh = np.clip(xyxy[:, 3], 0, h) - np.clip(xyxy[:, 1], 0, h)
        return (bh > max_h * h) | (frame_share(xyxy, hw) > max_a)

    def apply(self, detections: Detections, hw: tuple[int, int]) -> Detections:
        """``detections`` without the weak implausible boxes (manual boxes always kept)."""
        if not len(detections):
            return detections
        drop = self.implausible(detections, hw) & (detections.scores < self.strong_score)
        drop &= detections.sources != Source.MANUAL
        return detections.take(~drop) if drop.any() else detections
