"""The review canvas: redacted preview + box overlay; zoom, pan, draw, hold Space for before."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QImage, QKeyEvent, QPainter, QPen, QPixmap, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsPixmapItem, QGraphicsRectItem, QGraphicsScene, QGraphicsView

from app.ui.box_item import BoxItem
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
        self._rubber: QGraphicsRectItem | None = None
        self._pan_from: QPointF | None = None
        self._labels = True
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
        for item in self._items.values():
            item.setVisible(not self._showing_original)

    # ----- zoom --------------------------------------------------------------------------------
    @property
    def zoom(self) -> float:
        """Current scale (1.0 = one image pixel per device-independent pixel)."""
        return self.transform().m11()

    def set_zoom(self, factor: float) -> None:
        """Absolute zoom, clamped."""
        factor = min(max(factor, ZOOM_RANGE[0]), ZOOM_RANGE[1])
        self.setTransform(self.transform().fromScale(factor, factor))
        self.zoom_changed.emit(factor)

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
        self.set_zoom(factor)
        self.centerOn(rect.center())

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
        item = self.itemAt(event.pos())
        if isinstance(item, BoxItem):
            if not item.isSelected():
                self.scene().clearSelection()
                item.setSelected(True)
            self.context_menu_requested.emit(event.globalPos())

    # ----- mouse: draw new boxes on empty space, pan with the middle button ---------------------
    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            return
        item = self.itemAt(event.position().toPoint())
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if event.button() == Qt.MouseButton.LeftButton and self.has_image and (item in (None, self._pixmap) or shift):
            if not self._showing_original:
                self.scene().clearSelection()
                self._draw_start = self.mapToScene(event.position().toPoint())
                self._rubber = self.scene().addRect(QRectF(self._draw_start, self._draw_start), _rubber_pen())
                self._rubber.setZValue(5)
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self._pan_from is not None:
            delta = event.position() - self._pan_from
            self._pan_from = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(delta.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(delta.y()))
            return
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
        if self._rubber is not None:
            r = self._rubber.rect().intersected(self.scene().sceneRect())
            self.scene().removeItem(self._rubber)
            self._rubber, self._draw_start = None, None
            if r.width() >= MIN_DRAW_PX and r.height() >= MIN_DRAW_PX:
                self.box_drawn.emit((r.left(), r.top(), r.right(), r.bottom()))
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


def _rubber_pen() -> QPen:
    pen = QPen(QColor("#2ea043"), 1.5, Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    return pen
