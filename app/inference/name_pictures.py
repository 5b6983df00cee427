"""The picture beside a name on a screen: a contact's avatar that the face detector did not find.

Interfaces put a person's picture just left of their name (contact and call lists, chats, comment
threads, an account menu). Where the reading found a name or user name, a compact picture on flat
interface colour that ends just before it, clearly taller than the name and vertically level with
it, is that person's avatar, whatever it shows: a washed-out photo, a cartoon, initials on a disc.
Such a picture is hidden as ``avatar`` even when no face was found in it.

What counts as a picture is what an avatar is, not figures fitted to a data set: square or round
(aspect 3:4 to 4:3, ``picture_bounds``), ``MIN_SIDE`` to ``MAX_SIDE`` name heights tall, within
``MAX_GAP`` name heights of the name, its box mostly filled (a photo or a disc; an outline icon is
mostly background) and its middle not one flat colour (a coloured chip is no one's picture), ringed
by flat colour. In a photograph nothing is flat round a blob, so nothing is found.
"""

from __future__ import annotations

import numpy as np

from app.core.detections import Detections, Source
from app.inference.picture_bounds import TOLERANCE, picture_in_window

NAME_CLASSES = ("person_name", "username")
PICTURE_CLASS = "avatar"
MAX_SIDE = 4.5  # picture side / name height (a two-line list row's avatar is about three)
MIN_SIDE = 1.25  # an avatar is clearly taller than the name's letters (a label such as "cc:" before a name is not)
MAX_GAP = 1.5  # gap between picture and name / name height
MIN_FILL = 0.45  # differing pixels / picture box (a disc fills 0.79 of its box)
MIN_CONTENT = 0.05  # share of the picture's middle that is not its main colour (a photo, letters)
SCORE = 0.5


def picture_before_name(frame: np.ndarray, name_xyxy) -> tuple[float, float, float, float] | None:
    """The box (xyxy, frame pixels) of the avatar just left of a name's box, or ``None``."""
    x0, y0, x1, y1 = (float(v) for v in name_xyxy)
    h = y1 - y0
    if h < 4 or x0 < MIN_SIDE * h:
        return None
    cy = (y0 + y1) / 2
    gap, side = MAX_GAP * h + 2, MAX_SIDE * h
    # The seed strip lies in the gap before the name, on the name's rows: the picture must reach into it.
    seed = (max(0.0, x0 - gap), y0, max(0.0, x0 - 1), y1)
    found = picture_in_window(frame, seed, side + 2, MIN_FILL)
    if found is None:
        return None
    px0, py0, px1, py1 = found
    pw, ph = px1 - px0, py1 - py0
    if not (MIN_SIDE * h <= ph <= side) or px1 > x0 + 1 or x0 - px1 > gap:
        return None
    if not (py0 - 0.25 * h <= cy <= py1 + 0.25 * h):
        return None  # not level with the name
    if not _shows_something(frame[py0 + ph // 5 : py1 - ph // 5, px0 + pw // 5 : px1 - pw // 5]):
        return None  # one flat colour: a coloured chip or an app's placeholder tile, not a picture of anyone
    return float(px0), float(py0), float(px1), float(py1)


def _shows_something(middle: np.ndarray) -> bool:
    """True when the middle of a picture is not one flat colour (a photo, or initials on a disc)."""
    if middle.size == 0:
        return False
    pixels = middle.reshape(-1, 3).astype(np.int16)
    main = np.median(pixels, axis=0)
    return float((np.abs(pixels - main).max(axis=1) > TOLERANCE).mean()) >= MIN_CONTENT


def name_pictures(found: Detections, frame: np.ndarray, class_names) -> Detections:
    """``avatar`` boxes (``Source.OCR``) for the pictures just before the names and user names in
    ``found`` (the reading's boxes of ``frame``), over ``class_names``."""
    names = found.class_names
    wanted = [names.index(c) for c in NAME_CLASSES if c in names]
    boxes = []
    for i in np.flatnonzero(np.isin(found.class_ids, wanted)):
        box = picture_before_name(frame, found.xyxy[i])
        if box is not None and not any(np.allclose(box, b) for b in boxes):
            boxes.append(np.array(box, np.float32))
    if not boxes:
        return Detections.empty(class_names)
    return Detections.from_lists(class_names, Source.OCR, boxes, [SCORE] * len(boxes),
                                 class_ids=[list(class_names).index(PICTURE_CLASS)] * len(boxes))
