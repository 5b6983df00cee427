"""The VPD taxonomy: the one definition of class names, their order and their domains.

The class index of a name is its position in ``CLASS_NAMES``. It is written into the
ONNX metadata at export, so the app never hard-codes an index.
"""

from __future__ import annotations

from types import MappingProxyType

SCHEMA_VERSION = 1

DOMAINS: "MappingProxyType[str, tuple[str, ...]]" = MappingProxyType(
    {
        "human_presence": ("face", "person"),
        "onscreen_pii": (
            "email",
            "phone_number",
            "person_name",
            "postal_address",
            "card_number",
            "bank_account",
            "id_number",
            "date_of_birth",
            "username",
            "password",
            "verification_code",
            "secret_key",
            "ip_address",
            "chat_message",
            "notification",
            "avatar",
        ),
        "physical_identifiers": (
            "id_card",
            "passport",
            "payment_card",
            "receipt",
            "ticket",
            "shipping_label",
            "license_plate",
            "paper_document",
            "signature",
            "qr_code",
            "barcode",
        ),
        "location_indicators": ("street_sign", "house_number", "shop_sign", "map_view"),
    }
)

CLASS_NAMES: tuple[str, ...] = tuple(name for names in DOMAINS.values() for name in names)
CLASS_INDEX: "MappingProxyType[str, int]" = MappingProxyType({n: i for i, n in enumerate(CLASS_NAMES)})
DOMAIN_OF: "MappingProxyType[str, str]" = MappingProxyType(
    {name: domain for domain, names in DOMAINS.items() for name in names}
)

# Text classes are redacted with solid fill by default (pixelated text can be recovered).
TEXT_CLASSES: frozenset[str] = frozenset(DOMAINS["onscreen_pii"]) - {"avatar"}


def class_id(name: str) -> int:
    """Return the class index of ``name``; raise ``KeyError`` naming the valid classes."""
    try:
        return CLASS_INDEX[name]
    except KeyError:
        raise KeyError(f"unknown class {name!r}; known classes: {', '.join(CLASS_NAMES)}") from None
