"""A reviewable box on the canvas: coloured by source, labelled, toggled by clicking its label,
moved by dragging, resized by eight handles. Emits intent; the document applies it (undoable)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from app.core.detections import Source
from app.ui.document import Box

SOURCE_COLOURS = {
    Source.DETECTOR: QColor("#2f81f7"),
    Source.FACE: QColor("#e3a008"),
    Source.OCR: QColor("#a371f7"),
    Source.MANUAL: QColor("#2ea043"),
    Source.TRACKER: QColor("#8b949e"),
}
MUTED = QColor("#8b949e")
HANDLE_PX = 9.0
LABEL_H_PX = 15.0  # tag height in screen pixels
MIN_SIZE = 2.0


class _Handle(QGraphicsItem):
    """A square grip drawn at a fixed screen size whatever the zoom."""

    def __init__(self, parent: "BoxItem", role: str) -> None:
        super().__init__(parent)
        self.role = role  # any of "l", "r", "t", "b" combined, e.g. "tl"
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        cursors = {"tl": Qt.CursorShape.SizeFDiagCursor, "br": Qt.CursorShape.SizeFDiagCursor,
                   "tr": Qt.CursorShape.SizeBDiagCursor, "bl": Qt.CursorShape.SizeBDiagCursor,
                   "t": Qt.CursorShape.SizeVerCursor, "b": Qt.CursorShape.SizeVerCursor}  # fmt: skip
        self.setCursor(cursors.get(role, Qt.CursorShape.SizeHorCursor))
        self.setZValue(2)

    def boundingRect(self) -> QRectF:
        h = HANDLE_PX / 2 + 1
        return QRectF(-h, -h, 2 * h, 2 * h)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        h = HANDLE_PX / 2
        painter.setPen(QPen(self.parentItem().colour, 1.5))
        painter.setBrush(QColor("white"))
        painter.drawRect(QRectF(-h, -h, 2 * h, 2 * h))

    def mousePressEvent(self, event) -> None:
        self.parentItem().begin_drag(self.role, event.scenePos())

    def mouseMoveEvent(self, event) -> None:
        self.parentItem().drag_to(event.scenePos())

    def mouseReleaseEvent(self, event) -> None:
        self.parentItem().end_drag()


class _Label(QGraphicsItem):
    """'☑ email · detector 87%' tag above the box; clicking it toggles the box."""

    def __init__(self, parent: "BoxItem") -> None:
        super().__init__(parent)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setZValue(3)
        self.setOpacity(0.85)
        self.font = QFont()
        self.font.setPointSizeF(7.5)
        self.text = ""

    def set_text(self, text: str) -> None:
        self.prepareGeometryChange()
        self.text = text

    def boundingRect(self) -> QRectF:
        w = QFontMetricsF(self.font).horizontalAdvance(self.text) + 24
        return QRectF(0, -LABEL_H_PX, w, LABEL_H_PX)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        box: BoxItem = self.parentItem()
        r = self.boundingRect()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour = box.colour if (box.box.enabled and box.hidden) else MUTED
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        path = QPainterPath()
        path.addRoundedRect(r, 3, 3)
        painter.drawPath(path)
        check = QRectF(r.left() + 4, r.top() + 3, 9, 9)
        painter.setPen(QPen(QColor("white"), 1.4))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(check)
        if box.box.enabled:
            painter.drawLine(QPointF(check.left() + 2, check.center().y()), QPointF(check.center().x() - 0.5, check.bottom() - 2))
            painter.drawLine(QPointF(check.center().x() - 0.5, check.bottom() - 2), QPointF(check.right() - 1.5, check.top() + 2))
        painter.setFont(self.font)
        painter.drawText(r.adjusted(17, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter, self.text)

    def mousePressEvent(self, event) -> None:
        event.accept()

    def mouseReleaseEvent(self, event) -> None:
        if self.boundingRect().contains(event.pos()):
            self.parentItem().toggle_requested()


class BoxItem(QGraphicsObject):
    """One box; ``rect`` is in image pixels (the scene's coordinates)."""

    edited = Signal(int, tuple)  # box id, new xyxy
    toggled = Signal(int)

    def __init__(self, box: Box, hidden: bool) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsFocusable)
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.CursorShape.SizeAllCursor)
        self.setZValue(1)
        self._label = _Label(self)
        self._handles = [_Handle(self, r) for r in ("tl", "t", "tr", "r", "br", "b", "bl", "l")]
        self._drag: tuple[str, QPointF, QRectF] | None = None
        self._labels_on, self._hovered, self._label_room = True, False, True
        self.box = box
        self.hidden = hidden
        self.rect = QRectF()
        self.update_box(box, hidden)

    @property
    def colour(self) -> QColor:
        """Colour of the box's source."""
        return SOURCE_COLOURS.get(self.box.source, MUTED)

    def update_box(self, box: Box, hidden: bool) -> None:
        """Apply new state from the document."""
        self.box, self.hidden = box, hidden
        x0, y0, x1, y1 = box.xyxy
        self._set_rect(QRectF(QPointF(x0, y0), QPointF(x1, y1)))
        note = "" if hidden or not box.enabled else " · not hidden"
        self._label.set_text(box.label + note)
        self._sync_label()
        self.update()

    @property
    def is_candidate(self) -> bool:
        """Enabled but not hidden by the policy (below the threshold or its class is off)."""
        return self.box.enabled and not self.hidden

    def place_label(self, bottom_left: QPointF | None) -> None:
        """Anchor the tag's bottom-left corner at ``bottom_left`` (scene pixels); None = no room
        for it, so it shows only while the box is hovered or selected. The canvas lays the tags
        out (``ImageCanvas.layout_labels``)."""
        self._label_room = bottom_left is not None
        if bottom_left is not None:
            self._label.setPos(bottom_left)
        self._sync_label()

    def label_size_px(self) -> tuple[float, float]:
        """(width, height) of the tag in screen pixels (it ignores the zoom)."""
        r = self._label.boundingRect()
        return r.width(), r.height()

    def label_anchor(self) -> QPointF:
        """The tag's bottom-left corner in scene pixels."""
        return self._label.scenePos()

    @property
    def label_shown(self) -> bool:
        """True when the tag is drawn."""
        return self._label.isVisible() and self.isVisible()

    def _sync_label(self) -> None:
        # A tag the canvas found no room for appears on hover or selection only, so tags never
        # pile up or hide each other.
        self._label.setVisible(self._labels_on and (self._label_room or self._hovered or self.isSelected()))

    def _set_rect(self, rect: QRectF) -> None:
        self.prepareGeometryChange()
        self.rect = rect.normalized()
        self._label.setPos(self.rect.topLeft())  # until the canvas lays the tags out again
        r = self.rect
        points = {"tl": r.topLeft(), "t": QPointF(r.center().x(), r.top()), "tr": r.topRight(),
                  "r": QPointF(r.right(), r.center().y()), "br": r.bottomRight(),
                  "b": QPointF(r.center().x(), r.bottom()), "bl": r.bottomLeft(),
                  "l": QPointF(r.left(), r.center().y())}  # fmt: skip
        for h in self._handles:
            h.setPos(points[h.role])
            h.setVisible(self.isSelected())

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-2, -2, 2, 2)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self.rect)
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        active = self.box.enabled and self.hidden
        pen = QPen(self.colour if active else MUTED, 2.0 if self.isSelected() else 1.5)
        pen.setCosmetic(True)  # same width at every zoom
        if not active:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        fill = QColor(self.colour if active else MUTED)
        fill.setAlpha(40 if self.isSelected() else 0)
        painter.setBrush(QBrush(fill))
        painter.drawRect(self.rect)

    def itemChange(self, change, value):
        if change == QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
            for h in self._handles:
                h.setVisible(bool(value))
            self.setZValue(1.5 if value else 1)  # the selected box and its label come to the front
            self._sync_label()
        return super().itemChange(change, value)

    def set_label_visible(self, on: bool) -> None:
        """Show or hide the class/source tags (View → Labels)."""
        self._labels_on = on
        self._sync_label()

    def hoverEnterEvent(self, event) -> None:
        self.setZValue(1.6)
        self._hovered = True
        self._sync_label()
        self._label.setOpacity(1.0)

    def hoverLeaveEvent(self, event) -> None:
        self.setZValue(1.5 if self.isSelected() else 1)
        self._hovered = False
        self._sync_label()
        self._label.setOpacity(0.85)

    # ----- interaction -------------------------------------------------------------------------
    def toggle_requested(self) -> None:
        """The label was clicked."""
        self.toggled.emit(self.box.id)

    def mousePressEvent(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            event.ignore()
            return
        if not (event.modifiers() & Qt.KeyboardModifier.ControlModifier):
            if not self.isSelected():
                self.scene().clearSelection()
        self.setSelected(True)
        self.begin_drag("move", event.scenePos())

    def mouseMoveEvent(self, event) -> None:
        self.drag_to(event.scenePos())

    def mouseReleaseEvent(self, event) -> None:
        self.end_drag()

    def mouseDoubleClickEvent(self, event) -> None:
        self.toggled.emit(self.box.id)

    def begin_drag(self, role: str, scene_pos: QPointF) -> None:
        """Start moving ("move") or resizing (a handle role) from ``scene_pos``."""
        self._drag = (role, scene_pos, QRectF(self.rect))

    def drag_to(self, scene_pos: QPointF) -> None:
        """Follow the mouse during a move or resize (visual only until release)."""
        if self._drag is None:
            return
        role, start, r0 = self._drag
        d = scene_pos - start
        r = QRectF(r0)
        if role == "move":
            r.translate(d)
        else:
            if "l" in role:
                r.setLeft(min(r0.left() + d.x(), r0.right() - MIN_SIZE))
            if "r" in role:
                r.setRight(max(r0.right() + d.x(), r0.left() + MIN_SIZE))
            if "t" in role:
                r.setTop(min(r0.top() + d.y(), r0.bottom() - MIN_SIZE))
            if "b" in role:
                r.setBottom(max(r0.bottom() + d.y(), r0.top() + MIN_SIZE))
        self._set_rect(r)

    def end_drag(self) -> None:
        """Commit the move/resize as one undoable edit."""
        if self._drag is None:
            return
        _, _, r0 = self._drag
        self._drag = None
        if self.rect != r0:
            r = self.rect
            self.edited.emit(self.box.id, (r.left(), r.top(), r.right(), r.bottom()))
