"""One open image and its editable boxes, with undo/redo. Pure state: no pixel work here."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage, QUndoCommand, QUndoStack

from app.core.detections import Detections, Source
from app.core.geometry import iou_matrix
from app.core.policy import Policy

MANUAL_CLASS = "manual"
SOURCE_LABELS = {Source.DETECTOR: "detector", Source.FACE: "face", Source.OCR: "OCR",
                 Source.MANUAL: "manual", Source.TRACKER: "tracker"}  # fmt: skip


def pretty(name: str) -> str:
    """'onscreen_pii' → 'Onscreen PII', 'phone_number' → 'Phone number'."""
    fixed = {"pii": "PII", "ip": "IP", "id": "ID", "qr": "QR"}
    words = [fixed.get(w, w) for w in name.split("_") if w]
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]]) if words else name


class DocStatus(str, Enum):
    """Where an image is in its life; shown on its thumbnail."""

    LOADING = "loading…"
    DETECTING = "detecting…"
    READY = "ready"
    SAVED = "saved"
    ERROR = "error"
    # A detector failed or is missing: the boxes may not cover everything. Blocks Save, Save all
    # and Copy until detection succeeds or the user marks the image as checked by hand.
    INCOMPLETE = "detection incomplete"

    @property
    def can_output(self) -> bool:
        """True when a redacted copy of an image in this state may be saved or copied."""
        return self in (DocStatus.READY, DocStatus.SAVED)


@dataclass(frozen=True)
class Box:
    """One editable box in image pixels. ``enabled`` False = the user chose not to hide it."""

    id: int
    xyxy: tuple[float, float, float, float]
    class_name: str
    score: float
    source: Source
    enabled: bool = True

    @property
    def label(self) -> str:
        """'Email · detector 87%' or 'Manual'."""
        if self.source is Source.MANUAL:
            return "Manual" if self.class_name == MANUAL_CLASS else f"{pretty(self.class_name)} · manual"
        return f"{pretty(self.class_name)} · {SOURCE_LABELS.get(self.source, '?')} {self.score:.0%}"


class _Command(QUndoCommand):
    def __init__(self, text: str, redo: Callable[[], None], undo: Callable[[], None]) -> None:
        super().__init__(text)
        self._redo, self._undo = redo, undo

    def redo(self) -> None:
        self._redo()

    def undo(self) -> None:
        self._undo()


class ImageDocument(QObject):
    """An image being reviewed: pixels (set by a worker), detector boxes and manual boxes.

    ``boxes_changed`` fires after every edit; edits go through ``undo_stack``.
    """

    boxes_changed = Signal()
    status_changed = Signal()

    _ids = itertools.count(1)

    def __init__(self, name: str, path: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc_id = next(ImageDocument._ids)
        self.name = name
        self.path = path
        self.pixels: np.ndarray | None = None  # (H, W, 3) uint8 BGR, read-only after load
        self.alpha: np.ndarray | None = None
        self.original: QImage | None = None
        self.thumb: QImage | None = None
        self.status = DocStatus.LOADING
        self.error = ""
        self.saved_path: Path | None = None
        self.undo_stack = QUndoStack(self)
        self._boxes: dict[int, Box] = {}
        self._box_ids = itertools.count(1)
        self._preliminary: dict[int, Box] = {}  # the boxes of a first look, as it gave them

    # ----- state -------------------------------------------------------------------------------
    @property
    def boxes(self) -> list[Box]:
        """All boxes, in insertion order."""
        return list(self._boxes.values())

    def box(self, box_id: int) -> Box | None:
        """The box with this id, if it still exists."""
        return self._boxes.get(box_id)

    @property
    def size(self) -> tuple[int, int] | None:
        """(width, height) once loaded."""
        return None if self.pixels is None else (self.pixels.shape[1], self.pixels.shape[0])

    def set_status(self, status: DocStatus, error: str = "") -> None:
        """Update status (and error text) and notify."""
        self.status, self.error = status, error
        self.status_changed.emit()

    def set_loaded(self, pixels: np.ndarray, alpha: np.ndarray | None, original: QImage, thumb: QImage) -> None:
        """Pixels and their QImages, all produced in a worker."""
        self.pixels, self.alpha, self.original, self.thumb = pixels, alpha, original, thumb

    def set_detections(self, detections: Detections, preliminary: bool = False) -> None:
        """Replace the automatic boxes with fresh detector output; manual boxes stay. Not undoable
        (it is not an edit), so the undo history is cleared. ``preliminary``: a first look (the
        fast detectors) shown while the slower ones still run. What the user did to its boxes
        meanwhile is their decision: the next call keeps a changed box as they left it and leaves
        out a deleted one, in place of the box it finds there (same class, IoU ≥ 0.5)."""
        found = [Box(next(self._box_ids), tuple(float(v) for v in xyxy), name, float(score), Source(int(src)))
                 for xyxy, score, name, src in zip(detections.xyxy, detections.scores, detections.labels,
                                                   detections.sources)]  # fmt: skip
        kept = {i: b for i, b in self._boxes.items() if b.source is Source.MANUAL}
        decided = self._decisions()
        iou = iou_matrix(np.array([b.xyxy for b in found], np.float32).reshape(-1, 4),
                         np.array([given.xyxy for given, _ in decided], np.float32).reshape(-1, 4))  # fmt: skip
        instead: dict[int, Box | None] = {}  # found box index → the user's decision in its place
        for k, (given, now) in enumerate(decided):
            j = next((j for j, b in enumerate(found) if j not in instead and b.class_name == given.class_name
                      and iou[j, k] >= 0.5), None)  # fmt: skip
            if j is not None:
                instead[j] = now
            elif now is not None:  # changed, and not found again: as the user left it
                kept[now.id] = now
        for j, box in enumerate(found):
            if j not in instead:
                kept[box.id] = box
            elif instead[j] is not None:
                kept[box.id] = replace(instead[j], id=box.id)
        self._boxes = kept
        self._preliminary = {i: b for i, b in kept.items() if b.source is not Source.MANUAL} if preliminary else {}
        self.undo_stack.clear()
        self.boxes_changed.emit()

    def _decisions(self) -> list[tuple[Box, Box | None]]:
        """(box as the preliminary look gave it, as the user left it or None if deleted) for each
        preliminary box the user changed."""
        out = []
        for box_id, given in self._preliminary.items():
            now = self._boxes.get(box_id)
            if now != given:
                out.append((given, now))
        return out

    def as_detections(self, only_enabled: bool = True) -> Detections:
        """Boxes as ``Detections``; ``track_ids`` carry box ids so policy output maps back to boxes."""
        boxes = [b for b in self._boxes.values() if b.enabled or not only_enabled]
        names = tuple(dict.fromkeys([b.class_name for b in boxes])) or (MANUAL_CLASS,)
        index = {n: i for i, n in enumerate(names)}
        return Detections(
            np.array([b.xyxy for b in boxes], np.float32).reshape(-1, 4),
            np.array([b.score for b in boxes], np.float32),
            np.array([index[b.class_name] for b in boxes], np.int32),
            names,
            track_ids=np.array([b.id for b in boxes], np.int32),
            sources=np.array([int(b.source) for b in boxes], np.int8),
        )

    def hidden(self, policy: Policy) -> Detections:
        """The boxes that will be hidden: enabled, and kept by ``policy`` (manual boxes always)."""
        return policy.select(self.as_detections())

    def hidden_ids(self, policy: Policy) -> set[int]:
        """Ids of the boxes ``hidden`` returns."""
        return {int(i) for i in self.hidden(policy).track_ids}

    # ----- edits (undoable) --------------------------------------------------------------------
    def add_manual_box(self, xyxy: Iterable[float], class_name: str = MANUAL_CLASS) -> int:
        """Add a hand-drawn box (clipped to the image); returns its id."""
        x0, y0, x1, y1 = _normalised(xyxy, self.size)
        box = Box(next(self._box_ids), (x0, y0, x1, y1), class_name, 1.0, Source.MANUAL)
        self.undo_stack.push(_Command("Add box", lambda: self._put(box), lambda: self._drop([box.id])))
        return box.id

    def delete_boxes(self, box_ids: Iterable[int]) -> None:
        """Remove boxes (any source)."""
        removed = [self._boxes[i] for i in box_ids if i in self._boxes]
        if not removed:
            return
        text = "Delete box" if len(removed) == 1 else f"Delete {len(removed)} boxes"
        self.undo_stack.push(_Command(text, lambda: self._drop([b.id for b in removed]), lambda: self._put(*removed)))

    def set_enabled(self, box_ids: Iterable[int], enabled: bool) -> None:
        """Switch boxes on (hidden in the output) or off (left visible)."""
        before = [self._boxes[i] for i in box_ids if i in self._boxes and self._boxes[i].enabled != enabled]
        if not before:
            return
        what = f"{pretty(before[0].class_name)} box" if len(before) == 1 else f"{len(before)} boxes"
        text = f"Hide {what} again" if enabled else f"Leave {what} visible (not hidden)"
        self._push_change(text, before, [replace(b, enabled=enabled) for b in before])

    def toggle(self, box_ids: Iterable[int]) -> None:
        """Flip boxes: if any is on, all go off; else all go on."""
        ids = [i for i in box_ids if i in self._boxes]
        if ids:
            self.set_enabled(ids, not any(self._boxes[i].enabled for i in ids))

    def set_class(self, box_ids: Iterable[int], class_name: str) -> None:
        """Relabel boxes (e.g. name what a hand-drawn box covers); shown and written to reports."""
        before = [self._boxes[i] for i in box_ids if i in self._boxes and self._boxes[i].class_name != class_name]
        if not before:
            return
        text = f"Set class {pretty(class_name)}" if len(before) == 1 else f"Set {len(before)} boxes to {pretty(class_name)}"
        self._push_change(text, before, [replace(b, class_name=class_name) for b in before])

    def set_geometry(self, box_id: int, xyxy: Iterable[float]) -> None:
        """Move or resize a box."""
        old = self._boxes.get(box_id)
        if old is None:
            return
        new = replace(old, xyxy=_normalised(xyxy, self.size))
        if new.xyxy == old.xyxy:
            return
        self._push_change("Move/resize box", [old], [new])

    def _push_change(self, text: str, before: list[Box], after: list[Box]) -> None:
        """An undoable edit that replaces ``before`` boxes by their changed copies ``after``."""
        self.undo_stack.push(_Command(text, lambda: self._put(*after), lambda: self._put(*before)))

    def _put(self, *boxes: Box) -> None:
        for b in boxes:
            self._boxes[b.id] = b
        self._boxes = dict(sorted(self._boxes.items()))
        self.boxes_changed.emit()

    def _drop(self, box_ids: list[int]) -> None:
        for i in box_ids:
            self._boxes.pop(i, None)
        self.boxes_changed.emit()


def _normalised(xyxy: Iterable[float], size: tuple[int, int] | None) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = (float(v) for v in xyxy)
    x0, x1 = sorted((x0, x1))
    y0, y1 = sorted((y0, y1))
    if size is not None:
        w, h = size
        x0, x1 = min(max(x0, 0.0), w), min(max(x1, 0.0), w)
        y0, y1 = min(max(y0, 0.0), h), min(max(y1, 0.0), h)
    return (round(x0, 1), round(y0, 1), round(x1, 1), round(y1, 1))
