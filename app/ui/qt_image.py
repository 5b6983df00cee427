"""The Qt image bridge: BGR numpy frames ↔ QImage. Call from worker threads; QPixmap is made
only in the GUI thread from the QImage these return."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage


def bgr_to_qimage(frame_bgr: np.ndarray) -> QImage:
    """(H, W, 3) uint8 BGR → RGB888 QImage that owns a copy of the pixels (safe across threads)."""
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
        raise ValueError(f"expected (H, W, 3) uint8 BGR, got {frame_bgr.shape} {frame_bgr.dtype}")
    rgb = np.ascontiguousarray(frame_bgr[..., ::-1])
    h, w = rgb.shape[:2]
    # QImage wraps the buffer without owning it; .copy() detaches before ``rgb`` is freed.
    return QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()


def qimage_to_bgr(image: QImage) -> np.ndarray:
    """Any QImage → (H, W, 3) uint8 BGR copy; transparent pixels are composited on white."""
    if image.hasAlphaChannel():
        flat = QImage(image.size(), QImage.Format.Format_RGB888)
        flat.fill(Qt.GlobalColor.white)
        from PySide6.QtGui import QPainter

        p = QPainter(flat)
        p.drawImage(0, 0, image)
        p.end()
        image = flat
    else:
        image = image.convertToFormat(QImage.Format.Format_RGB888)
    h, w, bpl = image.height(), image.width(), image.bytesPerLine()
    buf = np.frombuffer(image.constBits(), np.uint8, count=h * bpl).reshape(h, bpl)
    rgb = buf[:, : 3 * w].reshape(h, w, 3)
    return np.ascontiguousarray(rgb[..., ::-1])


def thumbnail(frame_bgr: np.ndarray, max_side: int = 160) -> QImage:
    """Small smooth-scaled QImage for the thumbnail strip (built in a worker)."""
    import cv2

    h, w = frame_bgr.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    small = cv2.resize(frame_bgr, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    return bgr_to_qimage(small)
