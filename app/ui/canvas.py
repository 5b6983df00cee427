"""The review canvas: redacted preview + box overlay; zoom, pan, draw, hold Space for before."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QImage, QKeyEvent, QPainter, QPen, QPixmap, QWheelEvent
from PySide6.QtWidgets import (QApplication, QFrame, QGraphicsItem, QGraphicsPixmapItem, QGraphicsRectItem,
                               QGraphicsScene, QGraphicsView)  # fmt: skip

from app.ui.box_item import BoxItem
from app.ui.label_layout import place_labels
from app.ui.document import Box

MIN_DRAW_PX = 3.0
ZOOM_STEP = 1.25
ZOOM_RANGE = (0.05, 32.0)


class ImageCanvas(QGraphicsView):
    """Shows one image. Data in: ``show_image``, ``set_preview``, ``set_boxes``; intent out as signals."""

    box_drawn = Signal(tuple)  # xyxy in image pixels
    box_edited = Signal(int, tuple)
    box_toggled = Signal(int)
    delete_requested = Signal(list)
    selection_changed = Signal(list)
    zoom_changed = Signal(float)
    before_after_changed = Signal(bool)  # True while the original is shown
    context_menu_requested = Signal(object)  # QPoint (global): right-click on a box

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setBackgroundBrush(QColor("#1e2227"))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAcceptDrops(False)  # drops go to the window, which routes them
        self.viewport().setAcceptDrops(False)
        self._pixmap = QGraphicsPixmapItem()
        self._pixmap.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self.scene().addItem(self._pixmap)
        self._items: dict[int, BoxItem] = {}
        self._preview = QPixmap()
        self._original = QPixmap()
        self._showing_original = False
        self._draw_start: QPointF | None = None
        self._press: tuple[QPointF, BoxItem | None] | None = None  # a click or the start of a draw
        self._rubber: QGraphicsRectItem | None = None
        self._pan_from: QPointF | None = None
        self._labels = True
        self._show_candidates = False
        self._fitted = False
        self.empty_hint = "Drop images or folders here\nCtrl+O to open  ·  Ctrl+V to paste a screenshot"
        self.scene().selectionChanged.connect(self._emit_selection)

    # ----- data in -----------------------------------------------------------------------------
    def show_image(self, original: QImage | None, fit: bool = True) -> None:
        """A new image (or None for the empty state); the preview follows via ``set_preview``."""
        self.clear_boxes()
        self._original = QPixmap.fromImage(original) if original is not None else QPixmap()
        self._preview = self._original
        self._show_current()
        self.scene().setSceneRect(QRectF(self._original.rect()))
        if fit:
            self.fit()

    def set_preview(self, image: QImage) -> None:
        """The redacted render of the current image (made in a worker)."""
        self._preview = QPixmap.fromImage(image)
        self._show_current()

    def set_boxes(self, boxes: list[Box], hidden_ids: set[int]) -> None:
        """Sync the overlay with the document's boxes."""
        seen = set()
        for box in boxes:
            seen.add(box.id)
            item = self._items.get(box.id)
            if item is None:
                item = BoxItem(box, box.id in hidden_ids)
                item.set_label_visible(self._labels)
                item.edited.connect(self.box_edited)
                item.toggled.connect(self.box_toggled)
                self.scene().addItem(item)
                self._items[box.id] = item
            else:
                item.update_box(box, box.id in hidden_ids)
        for box_id in [i for i in self._items if i not in seen]:
            self.scene().removeItem(self._items.pop(box_id))
        self._sync_visibility()

    def clear_boxes(self) -> None:
        """Remove every box item."""
        for item in self._items.values():
            self.scene().removeItem(item)
        self._items.clear()

    def select_boxes(self, box_ids: list[int]) -> None:
        """Select these boxes (e.g. from the box list)."""
        self.scene().clearSelection()
        for i in box_ids:
            if i in self._items:
                self._items[i].setSelected(True)
                self.ensureVisible(self._items[i], 40, 40)

    def set_labels_visible(self, on: bool) -> None:
        """Show or hide every box's class/source tag."""
        self._labels = on
        for item in self._items.values():
            item.set_label_visible(on)
        self.layout_labels()

    def set_candidates_visible(self, on: bool) -> None:
        """Show boxes the policy does not hide (below the threshold, class off) as faint dashed
        outlines; off by default, so the canvas shows what will be hidden and what the user chose."""
        self._show_candidates = on
        self._sync_visibility()

    @property
    def candidates_visible(self) -> bool:
        """True when below-threshold / class-off boxes are drawn."""
        return self._show_candidates

    def layout_labels(self) -> None:
        """Place every shown tag inside the image without overlapping another tag: above its box,
        else just inside its top, else below it; a tag with no room appears on hover only.
        Selected boxes, then hidden ones (reading order) get room first."""
        if self._labels and self._items:
            shown = [i for i in self._items.values() if self._wanted(i)]
            for item, spot in place_labels(shown, self.zoom, self.scene().sceneRect()):
                item.place_label(spot)

    def label_rect_px(self, box_id: int) -> QRectF | None:
        """Where a box's tag is drawn, in viewport pixels; None when it is not drawn (tests)."""
        item = self._items.get(box_id)
        if item is None or not item.label_shown:
            return None
        w, h = item.label_size_px()
        anchor = self.mapFromScene(item.label_anchor())
        return QRectF(anchor.x(), anchor.y() - h, w, h)

    def image_rect_px(self) -> QRectF:
        """The image's rectangle in viewport pixels."""
        return QRectF(self.mapFromScene(self.scene().sceneRect()).boundingRect())

    def _wanted(self, item: BoxItem) -> bool:
        return not self._showing_original and (self._show_candidates or not item.is_candidate)

    def _sync_visibility(self) -> None:
        for item in self._items.values():
            item.setVisible(self._wanted(item))
        self.layout_labels()

    @property
    def has_image(self) -> bool:
        """True when an image is shown."""
        return not self._original.isNull()

    @property
    def showing_original(self) -> bool:
        """True while the before view is shown."""
        return self._showing_original

    def selected_ids(self) -> list[int]:
        """Ids of the selected boxes."""
        return [i for i, item in self._items.items() if item.isSelected()]

    def box_item(self, box_id: int) -> BoxItem | None:
        """The item drawing a box (tests and keyboard nudging)."""
        return self._items.get(box_id)

    # ----- before / after ----------------------------------------------------------------------
    def set_show_original(self, on: bool) -> None:
        """Show the unredacted image (and hide the overlay) while ``on``."""
        if on == self._showing_original:
            return
        self._showing_original = on
        self._show_current()
        self.before_after_changed.emit(on)

    def _show_current(self) -> None:
        self._pixmap.setPixmap(self._original if self._showing_original else self._preview)
        self._sync_visibility()

    # ----- zoom --------------------------------------------------------------------------------
    @property
    def zoom(self) -> float:
        """Current scale (1.0 = one image pixel per device-independent pixel)."""
        return self.transform().m11()

    def set_zoom(self, factor: float, fitted: bool = False) -> None:
        """Absolute zoom, clamped; ``fitted`` = the view refits when it is resized."""
        factor = min(max(factor, ZOOM_RANGE[0]), ZOOM_RANGE[1])
        self._fitted = fitted
        self.setTransform(self.transform().fromScale(factor, factor))
        self.layout_labels()
        self.zoom_changed.emit(factor)

    @property
    def fitted(self) -> bool:
        """True while the zoom follows the view's size (after Fit, until the user zooms)."""
        return self._fitted

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom * ZOOM_STEP)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom / ZOOM_STEP)

    def fit(self) -> None:
        """Fit the whole image in the view (never enlarge beyond 100%)."""
        if not self.has_image:
            return
        rect = self.scene().sceneRect()
        view = self.viewport().rect().adjusted(12, 12, -12, -12)
        factor = min(view.width() / max(rect.width(), 1), view.height() / max(rect.height(), 1), 1.0)
        self.set_zoom(factor, fitted=True)
        self.centerOn(rect.center())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._fitted:
            self.fit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.set_zoom(self.zoom * (ZOOM_STEP if event.angleDelta().y() > 0 else 1 / ZOOM_STEP))
            event.accept()
        else:
            super().wheelEvent(event)

    # ----- keyboard ----------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self.set_show_original(True)
        elif event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self.selected_ids():
            self.delete_requested.emit(self.selected_ids())
        elif event.key() == Qt.Key.Key_T and self.selected_ids():
            for i in self.selected_ids():
                self.box_toggled.emit(i)
        else:
            super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self.set_show_original(False)
        else:
            super().keyReleaseEvent(event)

    def focusOutEvent(self, event) -> None:
        self.set_show_original(False)  # a Space release we never see must not leave "before" on
        super().focusOutEvent(event)

    def contextMenuEvent(self, event) -> None:
        item = _box_of(self.itemAt(event.pos()))  # the box, its tag or a handle
        if item is not None:
            if not item.isSelected():
                self.scene().clearSelection()
                item.setSelected(True)
            self.context_menu_requested.emit(event.globalPos())

    # ----- mouse: a drag anywhere draws a new box; a click selects; a selected box moves ---------
    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            return
        if event.button() != Qt.MouseButton.LeftButton or not self.has_image:
            super().mousePressEvent(event)
            return
        if self._showing_original:
            return
        item = self.itemAt(event.position().toPoint())
        box = _box_of(item)
        mods = event.modifiers()
        shift = bool(mods & Qt.KeyboardModifier.ShiftModifier)
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        # Tags toggle, handles resize, a selected box moves, Ctrl extends the selection; anything
        # else (empty image, an unselected box) waits: a drag adds a box, a click selects.
        if box is not None and not shift and (item is not box or box.isSelected() or ctrl):
            super().mousePressEvent(event)
            return
        self._press = (event.position(), box)

    def mouseMoveEvent(self, event) -> None:
        if self._pan_from is not None:
            delta = event.position() - self._pan_from
            self._pan_from = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(delta.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(delta.y()))
            return
        if self._press is not None and self._rubber is None:
            start = self._press[0]
            if (event.position() - start).manhattanLength() >= QApplication.startDragDistance():
                self.scene().clearSelection()
                self._draw_start = self.mapToScene(start.toPoint())
                self._rubber = self.scene().addRect(QRectF(self._draw_start, self._draw_start), _rubber_pen())
                self._rubber.setZValue(5)
        if self._rubber is not None:
            end = self.mapToScene(event.position().toPoint())
            self._rubber.setRect(QRectF(self._draw_start, end).normalized())
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._pan_from is not None and event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = None
            self.viewport().unsetCursor()
            return
        press, self._press = self._press, None
        if self._rubber is not None:
            r = self._rubber.rect().intersected(self.scene().sceneRect())
            self.scene().removeItem(self._rubber)
            self._rubber, self._draw_start = None, None
            if r.width() >= MIN_DRAW_PX and r.height() >= MIN_DRAW_PX:
                self.box_drawn.emit((r.left(), r.top(), r.right(), r.bottom()))
            return
        if press is not None:  # a click without a drag: select the box under it, or nothing
            self.scene().clearSelection()
            if press[1] is not None:
                press[1].setSelected(True)
            return
        super().mouseReleaseEvent(event)

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        if self.has_image:
            return
        painter.save()
        painter.resetTransform()
        area = self.viewport().rect()
        painter.setPen(QPen(QColor("#6e7681"), 2, Qt.PenStyle.DashLine))
        painter.drawRoundedRect(area.adjusted(24, 24, -24, -24), 14, 14)
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.4)
        painter.setFont(font)
        painter.setPen(QColor("#c9d1d9"))
        painter.drawText(area, Qt.AlignmentFlag.AlignCenter, self.empty_hint)
        painter.restore()

    def _emit_selection(self) -> None:
        self.selection_changed.emit(self.selected_ids())


def _box_of(item: QGraphicsItem | None) -> BoxItem | None:
    """The box an item belongs to (the box itself, its tag or a handle)."""
    while item is not None and not isinstance(item, BoxItem):
        item = item.parentItem()
    return item


def _rubber_pen() -> QPen:
    pen = QPen(QColor("#2ea043"), 1.5, Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    return pen
