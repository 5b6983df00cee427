"""Per-class redaction policy: which classes are hidden and at what confidence.

Classes are referred to by name only; the model's metadata maps names to indices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping

import numpy as np

from app.core.detections import Detections, Source

TEXT_PII = (
    "email", "phone_number", "person_name", "postal_address", "card_number", "bank_account",
    "id_number", "date_of_birth", "username", "password", "verification_code", "secret_key",
    "ip_address",
)  # fmt: skip
DOCUMENT_OBJECTS = ("id_card", "passport", "payment_card", "receipt", "ticket", "shipping_label")  # a receipt names a place, a time, a card
CODE_CLASSES = ("qr_code", "barcode")  # machine-readable codes (decoded by zxing, padded thinly)
CODES = CODE_CLASSES + ("signature",)
LOCATION = ("street_sign", "house_number", "shop_sign", "map_view")  # a shop sign names the street a photo was taken in

# Named presets. A demanding user's defaults: hide what identifies someone, but do not black out
# whole people, chat bubbles or documents unless asked (those hide the content being shared).
PRESETS: Mapping[str, frozenset[str] | None] = MappingProxyType(
    {
        "screenshots": frozenset(TEXT_PII + ("avatar", "face", "license_plate") + DOCUMENT_OBJECTS + CODES + LOCATION),
        "streaming": frozenset(TEXT_PII + ("notification", "license_plate") + DOCUMENT_OBJECTS + CODES + LOCATION),
        "documents": frozenset(TEXT_PII + ("face", "signature", "qr_code", "barcode")),
        "faces": frozenset({"face"}),
        "everything": None,  # every class the detectors know
    }
)
DEFAULT_PRESET = "screenshots"
# The preset each front end starts with, shared by the GUI tabs and the CLI commands so they agree.
# Images and video export hide faces; live starts with "streaming" (the streamer's own face stays)
# and shows on screen what it does not hide (``Policy.shown``).
DEFAULT_PRESETS: Mapping[str, str] = MappingProxyType({"images": "screenshots", "video": "screenshots", "live": "streaming"})


@dataclass(frozen=True)
class Policy:
    """Which classes to hide (``None`` = all) and the minimum score, globally and per class.

    Manual boxes are always kept: the user drew them.
    """

    classes: frozenset[str] | None = PRESETS[DEFAULT_PRESET]
    conf: float = 0.25
    class_conf: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def preset(cls, name: str, conf: float = 0.25) -> "Policy":
        """Policy from a named preset; raises ``KeyError`` listing the presets."""
        if name not in PRESETS:
            raise KeyError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
        return cls(classes=PRESETS[name], conf=conf)

    def with_classes(self, names: Iterable[str] | None) -> "Policy":
        """Same thresholds, other class set."""
        return Policy(frozenset(names) if names is not None else None, self.conf, self.class_conf)

    def hides(self, class_name: str) -> bool:
        """True if boxes of ``class_name`` are hidden under this policy."""
        return self.classes is None or class_name in self.classes

    def shown(self, class_names: Iterable[str]) -> tuple[str, ...]:
        """The classes among ``class_names`` this policy leaves visible, in the given order."""
        return tuple(n for n in dict.fromkeys(class_names) if not self.hides(n))

    def select(self, detections: Detections) -> Detections:
        """Keep the boxes this policy hides: enabled class and score ≥ its threshold."""
        if not len(detections):
            return detections
        names = detections.class_names
        enabled = np.array([self.hides(n) for n in names], bool)
        thresholds = np.array([self.class_conf.get(n, self.conf) for n in names], np.float32)
        ids = detections.class_ids
        keep = enabled[ids] & (detections.scores >= thresholds[ids])
        keep |= detections.sources == Source.MANUAL
        return detections.take(keep)
