"""Registry of scene generators: name -> (render function, classes it labels, weight, full-view share).

A scene generator takes a seeded ``np.random.Generator`` and returns a large BGR ``uint8``
scene plus ``[(class_name, xyxy)]`` in scene pixels; ``dataset.py`` cuts it into a crop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from . import photo, screens_cards as scards, screens_desktop as sd, screens_mobile as sm, screens_web as sw
from . import scenes_objects as so, scenes_screen as sc, scenes_street as ss
from .qtkit import Canvas
from .ui import theme, toast
from . import fakedata as fd

Scene = tuple[np.ndarray, list[tuple[str, tuple[float, float, float, float]]]]


@dataclass(frozen=True)
class Generator:
    """A scene generator and what it promises to label."""

    name: str
    fn: Callable[[np.random.Generator], Scene]
    classes: frozenset[str]
    weight: float
    full_view: float  # share of its samples emitted as a downscaled full view instead of a tile


def desktop_composite(rng: np.random.Generator) -> Scene:
    """Wallpaper with 2-3 overlapping app windows and maybe a toast (later windows occlude)."""
    W = int(rng.choice([1920, 2560, 3840]))
    H = int(W * 9 / 16)
    th = theme(rng)
    bg = photo.procedural_background(rng, W // 4, H // 4)
    scene = cv2.resize(cv2.GaussianBlur(bg, (0, 0), 6), (W, H))
    labels: list = []
    for _ in range(int(rng.integers(2, 4))):
        fn = [sw.render_browser, sd.render_terminal, sd.render_password_manager, sd.render_widget_form][int(rng.integers(0, 4))]
        img, lab = fn(rng)
        h, w = min(img.shape[0], H - 10), min(img.shape[1], W - 10)
        x, y = int(rng.integers(0, W - w + 1)), int(rng.integers(0, H - h + 1))
        labels = [(c, b) for c, b in labels if not _mostly_covered(b, (x, y, x + w, y + h))]
        scene[y : y + h, x : x + w] = img[:h, :w]
        labels += [(c, (b[0] + x, b[1] + y, min(b[2], w) + x, min(b[3], h) + y)) for c, b in lab if b[0] < w - 3 and b[1] < h - 3]
    if rng.random() < 0.5:
        c = Canvas(380, 100, th.bg)
        toast(c, 4, 4, 370, th, rng, fd.make_person(rng), mobile=False)
        img, lab = c.finish()
        x, y = W - 400, int(rng.integers(40, 200))
        labels = [(k, b) for k, b in labels if not _mostly_covered(b, (x, y, x + 380, y + 100))]
        scene[y : y + 100, x : x + 380] = img
        labels += [(k, (b[0] + x, b[1] + y, b[2] + x, b[3] + y)) for k, b in lab]
    return scene, labels


def _mostly_covered(b, r) -> bool:
    iw = max(0.0, min(b[2], r[2]) - max(b[0], r[0]))
    ih = max(0.0, min(b[3], r[3]) - max(b[1], r[1]))
    return iw * ih > 0.1 * max(1e-6, (b[2] - b[0]) * (b[3] - b[1]))


DOC_OBJECTS = ("payment_card", "id_card", "passport", "receipt", "ticket", "shipping_label", "paper_document", "qr_code", "barcode")
STREET_OBJECTS = ("license_plate", "street_sign", "house_number", "shop_sign")


def photo_documents(rng: np.random.Generator) -> Scene:
    """Documents, cards and labels where they occur: on a table, held in a hand, stuck on a parcel."""
    fn = (so.table_documents, so.held_document, so.parcel)[int(rng.choice(3, p=[0.55, 0.3, 0.15]))]
    return fn(rng)


def photo_street(rng: np.random.Generator) -> Scene:
    """Real street photos: new plates on the cars' plates, name signs and house numbers on walls and poles."""
    return (ss.street_plates if rng.random() < 0.5 else ss.wall_signs)(rng)


def screen_photo(rng: np.random.Generator) -> Scene:
    """A phone in a hand or a monitor photographed at an angle (moiré, glare, reflections)."""
    return sc.screen_filmed(rng)


_SCREEN_TEXT = {"email", "phone_number", "person_name", "postal_address", "notification", "avatar"}
GENERATORS: dict[str, Generator] = {g.name: g for g in (
    Generator("mobile_chat", sm.render_chat, frozenset({"chat_message", "person_name", "avatar", "email", "phone_number", "postal_address", "verification_code"}), 1.2, 0.2),
    Generator("mobile_contacts", sm.render_contacts, frozenset({"person_name", "avatar", "phone_number", "email", "postal_address", "date_of_birth", "username"}), 0.9, 0.2),
    Generator("mobile_2fa", sm.render_2fa, frozenset({"verification_code", "email"}), 0.7, 0.2),
    Generator("mobile_bank", sm.render_bank, frozenset({"bank_account", "person_name", "avatar"}), 0.7, 0.2),
    Generator("mobile_map", sm.render_map, frozenset({"map_view", "postal_address"}), 0.6, 0.3),
    Generator("browser", sw.render_browser, frozenset({"person_name", "email", "phone_number", "postal_address", "avatar", "bank_account", "username", "password"}), 2.0, 0.12),
    Generator("terminal", sd.render_terminal, frozenset({"username", "ip_address", "secret_key"}), 0.7, 0.1),
    Generator("password_manager", sd.render_password_manager, frozenset({"username", "password", "verification_code", "secret_key", "email"}), 0.8, 0.1),
    Generator("widget_form", sd.render_widget_form, frozenset({"person_name", "email", "phone_number", "username", "password"}), 0.5, 0.1),
    Generator("desktop_composite", desktop_composite, frozenset({"avatar"}), 0.8, 0.1),
    # Harmless cards, banners, tiles and big numbers: negatives for payment_card, notification, codes, house numbers.
    Generator("screens_cards", scards.render_cards_page, scards.CARDS_CLASSES, 1.0, 0.15),
    Generator("photo_documents", photo_documents, frozenset(DOC_OBJECTS) | {"person_name", "signature"}, 4.0, 0.55),
    Generator("photo_street", photo_street, frozenset(STREET_OBJECTS), 2.2, 0.5),
    Generator("handwritten_scan", so.handwritten_scan, frozenset({"signature"}), 0.25, 0.8),
    Generator("screen_photo", screen_photo, frozenset(), 0.6, 0.6),
    Generator("sign_closeup", ss.sign_closeup, frozenset(), 0.35, 1.0),
    Generator("distant_cars", ss.distant_cars, frozenset({"license_plate", "shop_sign"}), 0.5, 0.1),
    Generator("street_blade_signs", ss.blade_signs, frozenset({"shop_sign", "house_number"}), 0.1, 0.5),  # small share: see models/README.md, twenty-sixth session
)}
