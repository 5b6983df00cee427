"""QR codes and barcodes found by decoding them (zxing-cpp, Apache-2.0).

A code that decodes is certain, and its corner points are exact, so these boxes carry score 1.0
and need no threshold. A QR code whose three finder patterns and format zxing locates but whose
data fails its checksum (blur, glare, a crease) is just as certainly a QR code, and still carries
what it encodes for a better reader: it is kept too (``_found_codes``). Other formats found only
with errors are dropped: a damaged Data Matrix or barcode "found" that way is often a texture
(measured on the real pack's 1,061 train photos: 43 false boxes, none of them a QR code).
Codes that are too blurred or cut to be found at all are left to the VPD detector,
except a detector code box over a quarter of the frame: a code that large decodes, so where
nothing decoded it is no code (``refine``, ``box_plausibility.undecoded_large_codes``; a QR code
found only with errors has its own box and vouches for no other). Video and live never call
``refine``; the VPD detector applies the same rule to its own boxes by decoding their crops
(``box_evidence.CodeEvidence``), and there also drops weak code boxes drawn on a screen that do
not decode.
"""

from __future__ import annotations

import logging

import numpy as np

from app.core.detections import Detections, Source
from app.core.errors import DetectorUnavailable
from app.core.geometry import SMALL_FRAME_LONG_SIDE, box_area, intersection_matrix, upscale_factor, upscaled
from app.core.policy import CODE_CLASSES
from app.inference.box_plausibility import undecoded_large_codes

log = logging.getLogger(__name__)

INSTALL_HINT = "pip install zxing-cpp"
# Two-dimensional symbols are "qr_code" in our taxonomy; stacked/linear symbols are "barcode".
MATRIX_FORMATS = ("QRCode", "MicroQRCode", "RMQRCode", "Aztec", "DataMatrix", "MaxiCode")
# zxing reports a linear code by the scan lines it read, which can be a sliver of the bars' height;
# the bars of retail/industrial codes are at least about half as tall as the code is wide.
LINEAR_MIN_HEIGHT = 0.45


def _found_codes(zxing, image: np.ndarray) -> list:
    """zxing's results for a BGR or grey ``image``: every decoded symbol, plus QR codes located
    but not decoded (checksum or format errors). ``zxing`` is the imported ``zxingcpp`` module."""
    # try_invert (light-on-dark codes) doubles the time and found nothing more on real pictures.
    found = zxing.read_barcodes(np.ascontiguousarray(image), try_invert=False, return_errors=True)
    return [c for c in found if not c.error or _format_name(c.format) == "QRCode"]


def _corners(code) -> np.ndarray:
    """A zxing result's corner points (4, 2) float32, clockwise from top-left."""
    p = code.position
    return np.array([[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                     [p.bottom_right.x, p.bottom_right.y], [p.bottom_left.x, p.bottom_left.y]], np.float32)  # fmt: skip


def found_symbols(zxing, image: np.ndarray, min_long_side: int = SMALL_FRAME_LONG_SIDE, max_factor: float = 2.0) -> list[tuple]:
    """(corners (4, 2) in ``image`` pixels, format, decoded) of every symbol ``_found_codes`` finds in
    ``image``, and, for an image whose longest side is under ``min_long_side``, also in a copy
    upscaled towards it (by at most ``max_factor``): zxing samples a module from about 2 px, so a
    small photo's code is often read only at twice its size (562 QR codes on 400 of the real pack's
    train photos: decoded 256 → 295, found at all 310 → 337; 8 → 23 ms CPU per photo). A symbol
    found both ways is kept once, decoded if it was either way."""
    out = [(_corners(c), c.format, not c.error) for c in _found_codes(zxing, image)]
    f = upscale_factor(image.shape[:2], min_long_side, max_factor)
    if f <= 1.25:
        return out
    for c in _found_codes(zxing, upscaled(image, f)):
        pts = _corners(c) / f
        same = [k for k, (q, _, _) in enumerate(out) if _same_symbol(pts, q)]
        if not same:
            out.append((pts, c.format, not c.error))
        elif not c.error and not any(out[k][2] for k in same):  # decoded only at the larger size
            out = [o for k, o in enumerate(out) if k not in same] + [(pts, c.format, True)]
    return out


def _same_symbol(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two corner sets (4, 2) outline the same symbol: their bounds overlap by half the smaller."""
    boxes = np.stack([np.concatenate([c.min(0), c.max(0)]) for c in (a, b)]).astype(np.float32)
    return bool(intersection_matrix(boxes[:1], boxes[1:])[0, 0] > 0.5 * box_area(boxes).min())


def _format_name(fmt) -> str:
    return getattr(fmt, "name", str(fmt)).split(".")[-1]


def _format_class(fmt) -> str:
    return "qr_code" if _format_name(fmt) in MATRIX_FORMATS else "barcode"


def code_box_xyxy(points: np.ndarray, cls: str, width: int, height: int) -> np.ndarray:
    """Axis-aligned box around a decoded symbol's corner ``points`` (4, 2), in frame pixels.

    Linear codes are grown across their bars to ``LINEAR_MIN_HEIGHT`` of their length; every
    box gets a 2 % margin (the corner points sit on the outermost modules). Clipped to the frame.
    """
    x0, y0 = points.min(0)
    x1, y1 = points.max(0)
    w, h = x1 - x0, y1 - y0
    if cls == "barcode":
        if h < LINEAR_MIN_HEIGHT * w:  # horizontal bars
            cy = (y0 + y1) / 2
            y0, y1 = cy - LINEAR_MIN_HEIGHT * w / 2, cy + LINEAR_MIN_HEIGHT * w / 2
        elif w < LINEAR_MIN_HEIGHT * h:  # a code rotated by 90 degrees
            cx = (x0 + x1) / 2
            x0, x1 = cx - LINEAR_MIN_HEIGHT * h / 2, cx + LINEAR_MIN_HEIGHT * h / 2
    m = 0.02 * max(x1 - x0, y1 - y0)
    return np.array([max(0.0, x0 - m), max(0.0, y0 - m), min(float(width), x1 + m), min(float(height), y1 + m)],
                    np.float32)


class CodeDetector:
    """Decodes QR codes and barcodes in a frame; emits their boxes as ``qr_code`` / ``barcode``."""

    name = "codes"

    def __init__(self):
        try:
            import zxingcpp
        except ImportError as exc:
            raise DetectorUnavailable(f"code decoding is off: the zxing-cpp package is not installed; {INSTALL_HINT}") from exc
        self._zxing = zxingcpp
        self._last: tuple[np.ndarray, tuple[int, int]] | None = None  # decoded boxes and frame size of the last detect

    @property
    def class_names(self) -> tuple[str, ...]:
        """``("qr_code", "barcode")``."""
        return CODE_CLASSES

    def detect(self, frame: np.ndarray) -> Detections:
        """Codes in ``frame`` (H, W, 3) uint8 BGR (``_found_codes``); boxes xyxy in frame pixels, score 1."""
        h, w = frame.shape[:2]
        boxes, ids, decoded = [], [], []
        for pts, fmt, ok in found_symbols(self._zxing, frame):
            cls = _format_class(fmt)
            box = code_box_xyxy(pts, cls, w, h)
            if box[2] - box[0] < 4 or box[3] - box[1] < 4:
                continue
            boxes.append(box)
            ids.append(CODE_CLASSES.index(cls))
            decoded.append(ok)
        # Only a decoded symbol vouches for a large detector code box around it (``refine``): one
        # found with errors has its own exact box, and the loose box around it would only add area.
        self._last = (np.array(boxes, np.float32).reshape(-1, 4)[np.array(decoded, bool)], (h, w))
        if not boxes:
            return Detections.empty(CODE_CLASSES)
        n = len(boxes)
        return Detections(np.stack(boxes), np.ones(n, np.float32), np.array(ids, np.int32), CODE_CLASSES,
                          sources=np.full(n, int(Source.DETECTOR), np.int8))

    def refine(self, fused: Detections) -> Detections:
        """``fused`` (every detector's boxes for the frame last passed to ``detect``) without the VPD
        detector's QR/barcode boxes that cover over a quarter of the frame where nothing decoded:
        a code that large would have been read (``undecoded_large_codes``)."""
        if self._last is None or not len(fused):
            return fused
        drop = undecoded_large_codes(fused, *self._last)
        if drop.any():
            log.info("dropped %d large detector code box(es) that do not decode", int(drop.sum()))
        return fused.take(~drop) if drop.any() else fused
