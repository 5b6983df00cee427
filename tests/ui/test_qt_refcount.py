"""Guard against the PySide6 6.12 / CPython 3.11 bug that drops a reference to None on every
void call and aborts the app after ~10^4 paint calls."""

import sys

from PySide6.QtGui import QColor, QImage, QPainter


def test_void_qt_calls_do_not_leak_none_references(qapp):
    image = QImage(32, 32, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    before = sys.getrefcount(None)
    for _ in range(2000):
        painter.setPen(QColor(1, 2, 3))
        painter.drawRect(1, 1, 5, 5)
    after = sys.getrefcount(None)
    painter.end()
    assert abs(after - before) < 500, f"None refcount moved by {after - before} over 4000 Qt calls"
