"""Does the frame show what a weak detector box claims? Checks on the pixels under the box.

A box the detector is sure of (``strong_score``, the calibrated "more likely right than wrong")
is checked only where nothing can have blurred it (a code drawn on a screen): a blurred plate or
code in a photo must stay hidden. A weak one is dropped only where the frame gives cheap, direct
evidence against it:

* Codes on screens (``CodeEvidence``): a code drawn on a rendered screen (flat colour inside
  the box, ``drawn``) is pixel-exact, so one large enough for its modules to be a
  couple of pixels wide (a QR code), or its bars (a barcode), decodes (zxing-cpp, the decoder
  ``codes_zxing`` uses); a weak ``qr_code`` / ``barcode`` box of that size on a screen whose crop
  decodes to nothing is an icon or a row of text. That holds for a sure box too (drawn pixels
  cannot be blurred). On a screen the crop is also read inverted (a light code on a dark theme).
  A photo shown on the screen (an avatar) is no drawing, and is not checked. Smaller boxes are
  kept: a code too small to decode may still be one. In camera pictures blur, perspective and wear keep real
  codes from decoding (on the real pack's held-back photos, 4 of 83 real QR codes that the
  detector boxed weakly did not decode in their crop), so only a weak box big enough for
  ``PHOTO_PX_PER_MODULE`` px modules (145 px for a QR code, 475 px for a barcode) is checked
  there, in its crop and at half size: a real symbol that large decodes (on the same held-back
  photos no true QR box was lost: QR recall 51.8 → 51.8 % with the shipped detector, while the
  FP area fell 70.8 → 66.7 %). Another exception is the rule
  ``codes_zxing`` applies to the fused boxes of a still image (``undecoded_large_codes``), here
  for every path, video and live included: a code box of any score over ``large_share`` of the
  frame has modules many pixels wide and decodes if it is a code. Without zxing-cpp nothing is dropped.
* Cards on screens (``RenderedCardEvidence``): a payment card in a photo is a camera picture;
  on a rendered screen (flat colour inside the box, ``drawn``) a card is drawn by an app,
  and what makes it private is the number printed on it. A weak ``payment_card`` box on flat
  colour with no ``card_number`` box of the detector inside is a UI card (a message row, a
  profile card, a banner) and is dropped. So is one that is not card-shaped: an app draws a card
  at its ISO 7810 ID-1 shape (85.6 × 54 mm, 1.59:1), and a weak box of another shape over a
  number is a list or a panel (its number has a box of its own).

* Camera objects on screens (``CameraObjectEvidence``): a house number is on a wall, a shop sign
  on a façade and an avatar is a photograph of a person; a camera sees them, an app does not draw
  them. A detector ``house_number``, ``shop_sign`` or ``avatar`` box of any score whose pixels are
  flat colour (``drawn``) is a UI element (a dialler's digits, an OTP code, a badge, an app's icon
  or a round button in an avatar's place, an initial on a coloured disc) and is dropped; the text
  reading covers rendered text that is private (an address, a code, the name beside an avatar).
  A street photo or a profile photo shown on the screen is no drawing and keeps its boxes. Plates
  and street signs are not judged this way: apps draw plate graphics (parking, car sharing) and
  turn-by-turn signs that show the user's own plate and street.

Boxes are xyxy float32 in frame pixels; frames (H, W, 3) uint8 BGR.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import frame_share, inside_share

log = logging.getLogger(__name__)

# Modules across a symbol, quiet zone excluded: a version-3 QR code (29, a typical URL) and an
# EAN-13 / UPC-A barcode (95). zxing reads a sharp symbol from about 2 px a module.
QR_MODULES = 29
BARCODE_MODULES = 95
PX_PER_MODULE = 2.0
# In a camera picture a symbol's modules blur over about a pixel each side, so a weak box is
# checked only where they would be several pixels wide: a real code that size decodes.
PHOTO_PX_PER_MODULE = 5.0


def _decodes(zxing, crop: np.ndarray, inverted: bool = False) -> bool:
    """True when zxing finds a symbol in ``crop`` as it is or at half size (a large photographed
    symbol's blur and noise shrink with it); with ``inverted`` also light-on-dark symbols."""
    crop = np.ascontiguousarray(crop)
    if zxing.read_barcodes(crop, try_invert=inverted):
        return True
    if min(crop.shape[:2]) < 2 * QR_MODULES * PX_PER_MODULE:
        return False
    half = cv2.resize(crop, (crop.shape[1] // 2, crop.shape[0] // 2), interpolation=cv2.INTER_AREA)
    return bool(zxing.read_barcodes(half, try_invert=inverted))


def drawn(frame: np.ndarray, xyxy: np.ndarray, flat_share: float) -> bool:
    """True when the pixels inside ``xyxy`` are mostly flat colour (drawn by an app, not seen by a
    camera): the share of pixels equal to their right and lower neighbours exceeds ``flat_share``,
    the test of ``plates_text.looks_rendered`` without its surroundings (a photo on a screen, an
    avatar, sits on flat colour but is none)."""
    h, w = frame.shape[:2]
    x0, y0 = int(max(0, xyxy[0])), int(max(0, xyxy[1]))
    x1, y1 = int(min(w, xyxy[2])), int(min(h, xyxy[3]))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return False
    grey = cv2.cvtColor(np.ascontiguousarray(frame[y0:y1, x0:x1]), cv2.COLOR_BGR2GRAY)
    flat = (grey[:-1, :-1] == grey[1:, :-1]) & (grey[:-1, :-1] == grey[:-1, 1:])
    return float(flat.mean()) > flat_share


def _zxing():
    try:
        import zxingcpp
    except ImportError:
        return None
    return zxingcpp


@dataclass(frozen=True)
class CodeEvidence:
    """Weak detector code boxes that should decode and do not (see the module).

    ``margin``: the crop is the box grown by this share of its sides, so a box that cuts the
    symbol's edge still holds the whole symbol and some quiet zone. ``flat_share``: the
    test of ``drawn``; ``large_share``: boxes over this share of the
    frame are checked at any score, on screens and in camera pictures."""

    strong_score: float = 0.5
    px_per_module: float = PX_PER_MODULE
    photo_px_per_module: float | None = PHOTO_PX_PER_MODULE
    margin: float = 0.15
    flat_share: float = 0.6
    large_share: float = 0.25

    def decodable_size(self, detections: Detections, px_per_module: float | None = None) -> np.ndarray:
        """(N,) bool: ``qr_code`` boxes whose short side, and ``barcode`` boxes whose long side,
        span ``QR_MODULES`` / ``BARCODE_MODULES`` modules at ``px_per_module`` (default: the
        rendered-screen size)."""
        ppm = self.px_per_module if px_per_module is None else px_per_module
        labels = np.array(detections.labels, dtype=object)
        w = detections.xyxy[:, 2] - detections.xyxy[:, 0]
        h = detections.xyxy[:, 3] - detections.xyxy[:, 1]
        qr = (labels == "qr_code") & (np.minimum(w, h) >= QR_MODULES * ppm)
        bar = (labels == "barcode") & (np.maximum(w, h) >= BARCODE_MODULES * ppm)
        return qr | bar

    def unreadable(self, detections: Detections, frame: np.ndarray) -> np.ndarray:
        """(N,) bool: detector code boxes whose crop of ``frame`` decodes to no symbol, among those
        of a decodable size drawn on a rendered screen (any score), the weak ones big enough to
        decode in a photo, and those over ``large_share`` of the frame."""
        out = np.zeros(len(detections), bool)
        zxing = _zxing()
        if zxing is None or not len(detections):
            return out
        h, w = frame.shape[:2]
        large = frame_share(detections.xyxy, (h, w)) > self.large_share
        weak = detections.scores < self.strong_score
        big_in_photo = self.decodable_size(detections, self.photo_px_per_module) if self.photo_px_per_module else \
            np.zeros(len(detections), bool)  # fmt: skip
        candidates = self.decodable_size(detections) & (detections.sources == Source.DETECTOR)
        for i in np.flatnonzero(candidates):
            on_screen = drawn(frame, detections.xyxy[i], self.flat_share)
            if not (large[i] or on_screen or (weak[i] and big_in_photo[i])):
                continue
            x0, y0, x1, y1 = detections.xyxy[i]
            mx, my = self.margin * (x1 - x0), self.margin * (y1 - y0)
            crop = frame[int(max(0, y0 - my)) : int(min(h, y1 + my)), int(max(0, x0 - mx)) : int(min(w, x1 + mx))]
            out[i] = not _decodes(zxing, crop, inverted=on_screen)  # a light code on a dark theme
        return out

    def apply(self, detections: Detections, frame: np.ndarray) -> Detections:
        """``detections`` without the ``unreadable`` boxes."""
        drop = self.unreadable(detections, frame)
        if drop.any():
            log.debug("dropped %d weak code box(es) that do not decode", int(drop.sum()))
        return detections.take(~drop) if drop.any() else detections


@dataclass(frozen=True)
class RenderedCardEvidence:
    """Weak detector payment-card boxes on a rendered screen with no card number inside or not
    card-shaped (see the module). ``flat_share``: the test of ``drawn``; ``inside``: share of a
    ``card_number`` box's area that must lie within the card box; ``aspect``: long side / short
    side of a card-shaped box (ID-1 is 1.59, a loose or tight box ± 20 %)."""

    strong_score: float = 0.5
    flat_share: float = 0.6
    inside: float = 0.5
    aspect: tuple[float, float] = (1.3, 1.9)

    def numberless_ui_cards(self, detections: Detections, frame: np.ndarray) -> np.ndarray:
        """(N,) bool: weak ``payment_card`` boxes of the detector that lie on flat colour in
        ``frame`` and hold no ``card_number`` box of ``detections`` or are not card-shaped."""
        out = np.zeros(len(detections), bool)
        names = detections.class_names
        if not len(detections) or "payment_card" not in names:
            return out
        cards = (detections.class_ids == names.index("payment_card")) & (detections.scores < self.strong_score)
        cards &= detections.sources == Source.DETECTOR
        numbers = detections.xyxy[detections.class_ids == names.index("card_number")] if "card_number" in names else \
            np.zeros((0, 4), np.float32)  # fmt: skip
        for i in np.flatnonzero(cards):
            x0, y0, x1, y1 = detections.xyxy[i]
            long, short = max(x1 - x0, y1 - y0), max(min(x1 - x0, y1 - y0), 1e-6)
            shaped = self.aspect[0] <= long / short <= self.aspect[1]
            if shaped and _holds_any(detections.xyxy[i], numbers, self.inside):
                continue
            out[i] = drawn(frame, detections.xyxy[i], self.flat_share)
        return out

    def apply(self, detections: Detections, frame: np.ndarray) -> Detections:
        """``detections`` without the ``numberless_ui_cards``."""
        drop = self.numberless_ui_cards(detections, frame)
        return detections.take(~drop) if drop.any() else detections


@dataclass(frozen=True)
class CameraObjectEvidence:
    """Detector boxes of ``classes`` (objects only a camera sees) drawn on a rendered screen (see
    the module). ``flat_share``: the test of ``drawn``."""

    classes: tuple[str, ...] = ("house_number", "shop_sign", "avatar")
    flat_share: float = 0.6

    def drawn_boxes(self, detections: Detections, frame: np.ndarray) -> np.ndarray:
        """(N,) bool: detector boxes of ``classes`` whose pixels in ``frame`` are flat colour."""
        out = np.zeros(len(detections), bool)
        ids = [detections.class_names.index(c) for c in self.classes if c in detections.class_names]
        judged = np.isin(detections.class_ids, ids) & (detections.sources == Source.DETECTOR) if len(detections) else out
        for i in np.flatnonzero(judged):
            out[i] = drawn(frame, detections.xyxy[i], self.flat_share)
        return out

    def apply(self, detections: Detections, frame: np.ndarray) -> Detections:
        """``detections`` without the ``drawn_boxes``."""
        drop = self.drawn_boxes(detections, frame)
        return detections.take(~drop) if drop.any() else detections


def _holds_any(outer_xyxy: np.ndarray, boxes_xyxy: np.ndarray, share: float) -> bool:
    """True when at least ``share`` of some box's area lies inside ``outer_xyxy``."""
    return bool(len(boxes_xyxy)) and bool((inside_share(boxes_xyxy, outer_xyxy) >= share).any())
