"""Thumbnail strip of the open images with per-image status; ``Save all`` lives next to it.
Each thumbnail shows the boxes that will be hidden as black, so the batch can be checked at a glance."""

from __future__ import annotations

from typing import Callable, Sequence

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem, QMenu, QStyle

from app.ui.document import DocStatus, ImageDocument

STATUS_COLOURS = {DocStatus.LOADING: "#8b949e", DocStatus.DETECTING: "#d29922", DocStatus.READY: "#2f81f7",
                  DocStatus.SAVED: "#2ea043", DocStatus.ERROR: "#f85149", DocStatus.INCOMPLETE: "#db6d28"}  # fmt: skip
ICON = QSize(112, 72)
ITEM = QSize(ICON.width() + 16, ICON.height() + 44)  # icon + two text lines


class ThumbStrip(QListWidget):
    """Data in: ``set_documents``, ``update_document``, ``set_current``. Intent out: ``activated``, ``close_requested``."""

    activated = Signal(int)  # doc id
    close_requested = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setFlow(QListView.Flow.LeftToRight)
        self.setWrapping(False)
        self.setIconSize(ICON)
        self.setMovement(QListView.Movement.Static)
        self.setSpacing(4)
        # Room for a whole item plus the scroll bar that appears once the strip overflows, so the
        # status lines are never cut off.
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)
        self.setFixedHeight(ITEM.height() + 2 * self.spacing() + 2 * self.frameWidth() + bar + 2)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.currentItemChanged.connect(lambda cur, _: cur is not None and self.activated.emit(self._id(cur)))
        self._updating = False
        # Set by the view: the image-pixel boxes that the current policy hides in ``doc``.
        self.hidden_boxes: Callable[[ImageDocument], Sequence[tuple[float, float, float, float]]] = lambda doc: ()

    def set_documents(self, docs: list[ImageDocument]) -> None:
        """Rebuild for a new list of documents."""
        self._updating = True
        current = self._id(self.currentItem()) if self.currentItem() else None
        self.blockSignals(True)
        self.clear()
        for doc in docs:
            item = QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, doc.doc_id)
            item.setSizeHint(ITEM)
            self.addItem(item)
            self._fill(item, doc)
            if doc.doc_id == current:
                self.setCurrentItem(item)
        self.blockSignals(False)
        self._updating = False

    def update_document(self, doc: ImageDocument) -> None:
        item = self._item(doc.doc_id)
        if item is not None:
            self._fill(item, doc)

    def refresh(self, docs: Sequence[ImageDocument]) -> None:
        """Redraw every thumbnail (after a policy change)."""
        for doc in docs:
            self.update_document(doc)

    def set_current(self, doc: ImageDocument | None) -> None:
        self.blockSignals(True)
        item = self._item(doc.doc_id) if doc else None
        self.setCurrentItem(item)
        if item is not None:
            self.scrollToItem(item)
        self.blockSignals(False)

    def status_text(self, doc_id: int) -> str:
        item = self._item(doc_id)
        return item.text() if item else ""

    def _fill(self, item: QListWidgetItem, doc: ImageDocument) -> None:
        status = doc.status.value
        if doc.status in (DocStatus.READY, DocStatus.SAVED):
            status = f"{len(doc.boxes)} box{'es' if len(doc.boxes) != 1 else ''}"
            if doc.status is DocStatus.SAVED:
                status += " · saved"
            elif doc.saved_path is not None:  # saved once, changed since
                status += " · unsaved"
        name = doc.name if len(doc.name) <= 18 else doc.name[:8] + "…" + doc.name[-8:]
        item.setText(f"{name}\n{status}")
        item.setToolTip(doc.error or str(doc.path or doc.name))
        item.setIcon(QIcon(_icon(doc, self.hidden_boxes(doc))))

    def _item(self, doc_id: int) -> QListWidgetItem | None:
        for row in range(self.count()):
            if self._id(self.item(row)) == doc_id:
                return self.item(row)
        return None

    @staticmethod
    def _id(item: QListWidgetItem) -> int:
        return int(item.data(Qt.ItemDataRole.UserRole))

    def _menu(self, pos) -> None:
        item = self.itemAt(pos)
        if item is None:
            return
        menu = QMenu(self)
        menu.addAction("Close image", lambda: self.close_requested.emit(self._id(item)))
        menu.exec(self.viewport().mapToGlobal(pos))


def _icon(doc: ImageDocument, hidden: Sequence[tuple[float, float, float, float]] = ()) -> QPixmap:
    """Thumbnail on a fixed canvas, ``hidden`` boxes blacked out, with a status dot (GUI thread:
    the thumb is already tiny)."""
    pm = QPixmap(ICON)
    pm.fill(QColor("#2d333b"))
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    if doc.thumb is not None and not doc.thumb.isNull():
        thumb = QPixmap.fromImage(doc.thumb).scaled(ICON, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
        x, y = (ICON.width() - thumb.width()) // 2, (ICON.height() - thumb.height()) // 2
        p.drawPixmap(x, y, thumb)
        if hidden and doc.size:
            k = thumb.width() / doc.size[0]
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor("black"))
            for x0, y0, x1, y1 in hidden:
                p.drawRect(QRectF(x + x0 * k, y + y0 * k, max(1.0, (x1 - x0) * k), max(1.0, (y1 - y0) * k)))
    elif doc.status is DocStatus.ERROR:
        p.setPen(QColor("#f85149"))
        p.drawText(pm.rect(), Qt.AlignmentFlag.AlignCenter, "cannot open")
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(STATUS_COLOURS[doc.status]))
    p.drawEllipse(ICON.width() - 14, 4, 10, 10)
    p.end()
    return pm
