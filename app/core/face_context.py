"""What a confidently found face says about the detector's object boxes around it.

The VPD detector learned plates, codes, signs and documents from façades, streets and desks. On
people it boxes what looks like them: a shirt number as a house number, a sponsor's name as a
shop sign, a face and beard as a QR code. Those are steady from frame to frame, so a video
holds them over the whole upper body (a football clip had almost a third of each frame black).
A face that a face detector finds with confidence is evidence against two kinds of box:

* **Worn print** (``TorsoRule``): a house number, shop sign or street sign lying on the torso
  under the face. Such a sign on a wall behind the person is hidden by the person's body there,
  so what is seen is what the person wears. The torso is placed from the face by the
  proportions of an upright adult: shoulders about three head widths across, the trunk about
  three and a half head heights below the chin. Cards, documents and badge-sized codes are not
  dropped this way (an ID badge or a card held in front of the chest is private).
* **Worn plate** (``CHEST_PLATES``, a narrower ``TorsoRule``): a licence plate on the chest (down to
  two face heights below the chin) that is narrower than two face widths. A car plate is 30–52 cm
  wide, two to four face widths at the person's own depth and wider when nearer the camera; one
  behind the person is hidden by the body; a car's plate is at hip height or lower (three or more
  face heights below the chin). What is left is a sponsor's name or a number printed on a shirt.
* **Worn code print** (``LARGE_CODES``): an undecoded QR code or barcode on the torso at least two
  face widths wide. A badge's or a held card's code is a few centimetres, under one face width
  even held toward the camera; one that spans the chest is a print on the shirt (or a poster),
  and a code meant to be scanned there decodes (decoded codes are never judged).
* **Covered face** (``FaceCoverRule``): a box of a class that never shows a face (a code, a plate,
  a house number, a street sign, a receipt, a parcel label, a signature, a payment card) that
  holds most of the face. An object in front of a face hides it, so the face would not be found;
  a box holding a visible face is the detector mistaking the person for the object. Classes that
  may carry a face (ID cards, passports, documents, tickets, shop signs, avatars) are never
  judged this way.

Only confident faces (``min_face_score``) count, so a false face on a façade cannot take a real
house number with it. People who are not upright (lying, upside down) keep every box. Boxes
from the VPD detector and OCR's boxes of these classes (the sign and plate readers' inferences
from text in a photo) are judged; manual boxes and decoded codes never are. Boxes are xyxy
float32 in frame pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.core.detections import Detections, Source
from app.core.geometry import inside_share

WORN_CLASSES = ("house_number", "shop_sign", "street_sign")
FACELESS_CLASSES = ("qr_code", "barcode", "license_plate", "house_number", "street_sign", "receipt",
                    "shipping_label", "signature", "payment_card")  # fmt: skip
MIN_FACE_SCORE = 0.5
# The VPD detector, what the tracker holds of it, and OCR's inferences from text in photos (a
# sponsor's name read as a shop sign); manual boxes are never judged.
JUDGED_SOURCES = (Source.DETECTOR, Source.TRACKER, Source.OCR)
# A box of score 1 is certain: the code decoder (``codes_zxing``) tags what it decoded so, in the
# detector's source; a decoded symbol is a code, whatever face detector fires on its pattern.
CERTAIN_SCORE = 1.0


@dataclass(frozen=True)
class TorsoRule:
    """Where a torso lies under a face (xyxy), in face widths (``half_width``, either side of the
    face's centre) and face heights (``collar`` above the chin, ``depth`` below it), and how much
    of a box (``inside``) must lie there to count as worn."""

    classes: tuple[str, ...] = WORN_CLASSES
    half_width: float = 1.5
    collar: float = 0.25
    depth: float = 3.5
    inside: float = 0.8
    max_width: float = float("inf")  # only boxes narrower than this many face widths count
    min_width: float = 0.0  # only boxes at least this many face widths wide count

    def torsos(self, faces_xyxy: np.ndarray) -> np.ndarray:
        """(F, 4) torso regions under (F, 4) face boxes."""
        f = np.asarray(faces_xyxy, np.float32).reshape(-1, 4)
        w, h = f[:, 2] - f[:, 0], f[:, 3] - f[:, 1]
        cx = (f[:, 0] + f[:, 2]) / 2
        return np.stack([cx - self.half_width * w, f[:, 3] - self.collar * h, cx + self.half_width * w,
                         f[:, 3] + self.depth * h], axis=1)  # fmt: skip

    def judged(self, boxes: np.ndarray, faces_xyxy: np.ndarray) -> np.ndarray:
        """(N,) bool: (N, 4) ``boxes`` that lie on the torso under one of (F, 4) faces (and are
        narrower than ``max_width`` and at least ``min_width`` of that face's widths)."""
        faces = np.asarray(faces_xyxy, np.float32).reshape(-1, 4)
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        worn = inside_share(boxes, self.torsos(faces)) >= self.inside
        widths, face_widths = boxes[:, 2:3] - boxes[:, 0:1], (faces[:, 2] - faces[:, 0])[None]
        if np.isfinite(self.max_width):
            worn &= widths < self.max_width * face_widths
        if self.min_width > 0:
            worn &= widths >= self.min_width * face_widths
        return worn.any(axis=1)


CHEST_PLATES = TorsoRule(classes=("license_plate",), depth=2.0, max_width=2.0)
LARGE_CODES = TorsoRule(classes=("qr_code", "barcode"), min_width=2.0)


@dataclass(frozen=True)
class FaceCoverRule:
    """Boxes of ``classes`` holding at least ``holds`` of a face's area."""

    classes: tuple[str, ...] = FACELESS_CLASSES
    holds: float = 0.6

    def judged(self, boxes: np.ndarray, faces_xyxy: np.ndarray) -> np.ndarray:
        """(N,) bool: (N, 4) ``boxes`` that hold most of one of (F, 4) faces."""
        return (inside_share(faces_xyxy, boxes) >= self.holds).any(axis=0)


@dataclass(frozen=True)
class FaceContext:
    """The four rules (any may be None), judged against faces of at least ``min_face_score``."""

    torso: TorsoRule | None = TorsoRule()
    cover: FaceCoverRule | None = FaceCoverRule()
    chest: TorsoRule | None = CHEST_PLATES
    codes: TorsoRule | None = LARGE_CODES
    min_face_score: float = MIN_FACE_SCORE

    def contradicted(self, detections: Detections, faces: Detections | None = None) -> np.ndarray:
        """(N,) bool: boxes of ``JUDGED_SOURCES`` in ``detections`` that a confident face of
        ``detections``, or of ``faces`` (found on the same frame), shows to be wrong."""
        out = np.zeros(len(detections), bool)
        rules = [r for r in (self.torso, self.cover, self.chest, self.codes) if r is not None]
        if not len(detections) or not rules:
            return out
        face_xyxy = np.concatenate([_confident_faces(d, self.min_face_score) for d in (detections, faces) if d is not None])
        if not len(face_xyxy):
            return out
        judged_sources = np.isin(detections.sources, JUDGED_SOURCES) & (detections.scores < CERTAIN_SCORE)
        names = detections.class_names
        for rule in rules:
            ids = [names.index(c) for c in rule.classes if c in names]
            candidates = judged_sources & np.isin(detections.class_ids, ids)
            if candidates.any():
                out[candidates] |= rule.judged(detections.xyxy[candidates], face_xyxy)
        return out

    def apply(self, detections: Detections, faces: Detections | None = None) -> Detections:
        """``detections`` without the ``contradicted`` boxes."""
        drop = self.contradicted(detections, faces)
        return detections.take(~drop) if drop.any() else detections

    def release_held(self, tracker, tracked: Detections, faces: Detections | None) -> Detections:
        """``tracked`` (a tracker's output on a frame the detectors looked at, ``faces`` their
        result) without the held boxes (``Source.TRACKER``) that this look's confident faces
        contradict; their tracks end in ``tracker`` (``forget``), so they do not come back on the
        frames after. A box held from before a face was found (a shirt number boxed while the
        player looked away) goes as a hit on the face's own frame would."""
        drop = self.contradicted(tracked, faces) & (tracked.sources == Source.TRACKER) if len(tracked) else None
        if drop is None or not drop.any():
            return tracked
        tracker.forget(tracked.track_ids[drop & (tracked.track_ids >= 0)])
        return tracked.take(~drop)


def _confident_faces(detections: Detections, min_score: float) -> np.ndarray:
    """(F, 4) boxes of ``detections`` that a face detector found with at least ``min_score``."""
    if "face" not in detections.class_names:
        return np.zeros((0, 4), np.float32)
    keep = (detections.class_ids == detections.class_names.index("face")) & (detections.sources == Source.FACE)
    keep &= detections.scores >= min_score
    return detections.xyxy[keep]
