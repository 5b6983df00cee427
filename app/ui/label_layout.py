"""Where box tags go on the canvas: inside the image and never on top of each other."""

from __future__ import annotations

from typing import Iterable, Iterator

from PySide6.QtCore import QPointF, QRectF

from app.ui.box_item import BoxItem


def label_priority(item: BoxItem) -> tuple:
    """Selected boxes first, then hidden ones, then those the user left visible, then candidates;
    reading order within a group."""
    if item.isSelected():
        group = 0
    elif not item.box.enabled:
        group = 2
    else:
        group = 3 if item.is_candidate else 1
    return group, round(item.rect.top()), item.rect.left()


def place_labels(items: Iterable[BoxItem], zoom: float, image: QRectF) -> Iterator[tuple[BoxItem, QPointF | None]]:
    """(item, bottom-left corner of its tag in scene pixels, or None when there is no room).

    A tag is ``label_size_px`` screen pixels (it ignores the zoom), so ``size / zoom`` scene
    pixels. It goes above its box, else just inside the box's top, else below it, shifted to stay
    inside ``image``; a tag that would overlap one already placed tries the next spot.
    """
    z = max(zoom, 1e-6)
    placed: list[QRectF] = []
    for item in sorted(items, key=label_priority):
        w_px, h_px = item.label_size_px()
        w, h = w_px / z, h_px / z
        r, spot = item.rect, None
        if w <= image.width() and h <= image.height():
            for x, bottom in ((r.left(), r.top()), (r.left(), r.top() + h), (r.left(), r.bottom() + h)):
                x = min(max(x, image.left()), image.right() - w)
                bottom = min(max(bottom, image.top() + h), image.bottom())
                tag = QRectF(x, bottom - h, w, h)
                if not any(tag.intersects(other) for other in placed):
                    placed.append(tag)
                    spot = QPointF(x, bottom)
                    break
        yield item, spot
