"""Qt drawing kit: a labelled canvas over a ``QImage`` whose boxes come from real Qt geometry.

Text boxes are measured with ``QFontMetrics`` / ``QTextDocument`` layouts and then shrunk to
the ink actually drawn (so labels are tight on the PII span). Widget-level boxes (bubbles,
toasts, avatars, maps) are the painted rectangles themselves.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPointF, QRectF, Qt  # noqa: E402
from PySide6.QtGui import (  # noqa: E402
    QColor, QFont, QFontDatabase, QFontMetricsF, QImage, QPainter, QPainterPath, QPen, QTextDocument,
)
from PySide6.QtWidgets import QApplication  # noqa: E402

SANS = ("DejaVu Sans", "Liberation Sans", "Noto Sans")
SERIF = ("DejaVu Serif", "Liberation Serif", "Noto Serif")
MONO = ("DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono")

_APP: QApplication | None = None


def _pin_none() -> None:
    # PySide6 6.12 on CPython 3.11 drops one reference to None on every void call
    # (QPainter.setPen, drawRect, ...); after ~10^5 calls CPython aborts with
    # "none_dealloc". CPython 3.12+ makes None immortal; emulate that here.
    import ctypes
    import sys

    if sys.version_info < (3, 12):
        ctypes.c_ssize_t.from_address(id(None)).value += 1 << 40


def ensure_app() -> QApplication:
    """Create the (offscreen) QApplication once per process."""
    global _APP
    if _APP is None:
        _pin_none()
        _APP = QApplication.instance() or QApplication(["synth"])
    return _APP


def available(families: tuple[str, ...]) -> tuple[str, ...]:
    """Subset of ``families`` installed on this machine (falls back to the first)."""
    ensure_app()
    have = set(QFontDatabase.families())
    return tuple(f for f in families if f in have) or families[:1]


def make_font(family: str, px: float, bold: bool = False, italic: bool = False) -> QFont:
    """A QFont at ``px`` pixel size (pixel sizes keep text at its real size in the crop)."""
    f = QFont(family)
    # Full hinting: with the default, the first text drawn at a new size in a process could differ
    # by a few grey levels from later draws, so a sample depended on what its worker drew before.
    f.setHintingPreference(QFont.HintingPreference.PreferFullHinting)
    f.setPixelSize(max(6, int(round(px))))
    f.setBold(bold)
    f.setItalic(italic)
    return f


def qimage_to_bgr(img: QImage) -> np.ndarray:
    """Copy a QImage into a ``uint8 (H, W, 3)`` BGR array."""
    img = img.convertToFormat(QImage.Format.Format_RGB32)
    h, w = img.height(), img.width()
    arr = np.frombuffer(img.constBits(), np.uint8, count=img.sizeInBytes()).reshape(h, img.bytesPerLine())
    return arr[:, : w * 4].reshape(h, w, 4)[:, :, :3].copy()


def bgr_to_qimage(arr: np.ndarray) -> QImage:
    """Wrap a BGR ``uint8 (H, W, 3)`` array as an owned QImage (RGB32)."""
    h, w = arr.shape[:2]
    rgba = np.empty((h, w, 4), np.uint8)
    rgba[:, :, :3] = arr
    rgba[:, :, 3] = 255
    return QImage(rgba.data, w, h, w * 4, QImage.Format.Format_RGB32).copy()


@dataclass
class Box:
    """A label in canvas pixels; ``tight`` boxes are shrunk to drawn ink at the end."""

    cls: str
    xyxy: tuple[float, float, float, float]
    tight: bool = False


class Canvas:
    """A QImage plus QPainter that records labelled boxes while drawing."""

    def __init__(self, w: float, h: float, bg: str | QColor = "#ffffff", scale: float = 1.0):
        """A ``w`` x ``h`` logical-pixel canvas drawn at ``scale`` (the DPI factor)."""
        ensure_app()
        self.s = float(scale)
        self.lw, self.lh = float(w), float(h)
        self.w, self.h = int(round(w * scale)), int(round(h * scale))
        self.img = QImage(self.w, self.h, QImage.Format.Format_RGB32)
        self.img.fill(QColor(bg))
        self.p = QPainter(self.img)
        self.p.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        self.p.scale(self.s, self.s)
        self.boxes: list[Box] = []

    # -- shapes -------------------------------------------------------------------------
    def rect(self, x, y, w, h, fill=None, radius=0.0, border=None, width=1.0, cls=None) -> QRectF:
        """Fill/stroke a (rounded) rect; label the whole rect as ``cls`` if given."""
        r = QRectF(x, y, w, h)
        self.p.setPen(QPen(QColor(border), width) if border else Qt.PenStyle.NoPen)
        self.p.setBrush(QColor(fill) if fill else Qt.BrushStyle.NoBrush)
        if radius:
            self.p.drawRoundedRect(r, radius, radius)
        else:
            self.p.drawRect(r)
        if cls:
            self.label(cls, (x, y, x + w, y + h))
        return r

    def ellipse(self, x, y, w, h, fill, border=None, cls=None) -> None:
        """Filled ellipse in the rect; labelled as ``cls`` if given."""
        self.p.setPen(QPen(QColor(border), 1) if border else Qt.PenStyle.NoPen)
        self.p.setBrush(QColor(fill))
        self.p.drawEllipse(QRectF(x, y, w, h))
        if cls:
            self.label(cls, (x, y, x + w, y + h))

    def line(self, x0, y0, x1, y1, color, width=1.0) -> None:
        """A straight line."""
        self.p.setPen(QPen(QColor(color), width))
        self.p.drawLine(QPointF(x0, y0), QPointF(x1, y1))

    def label(self, cls: str, xyxy, tight: bool = False) -> None:
        """Record a label box given in logical pixels (stored in image pixels)."""
        self.boxes.append(Box(cls, tuple(float(v) * self.s for v in xyxy), tight))

    def occlude(self, x, y, w, h) -> None:
        """Forget labels hidden by an overlay about to be drawn at this logical rect."""
        x, y, w, h = x * self.s, y * self.s, w * self.s, h * self.s
        keep = []
        for b in self.boxes:
            x0, y0, x1, y1 = b.xyxy
            iw = max(0.0, min(x1, x + w) - max(x0, x))
            ih = max(0.0, min(y1, y + h) - max(y0, y))
            area = max(1e-6, (x1 - x0) * (y1 - y0))
            if iw * ih / area <= 0.1 or (x0 <= x and y0 <= y and x1 >= x + w and y1 >= y + h and b.cls == "map_view"):
                keep.append(b)
        self.boxes = keep

    # -- text ---------------------------------------------------------------------------
    def text(self, x, y, s: str, font: QFont, color, cls: str | None = None) -> float:
        """Draw ``s`` with its top-left at (x, y); return the advance width."""
        return self.spans(x, y, [(s, cls)], font, color)

    def spans(self, x, y, parts, font: QFont, color) -> float:
        """Draw consecutive ``(text, cls_or_None)`` parts on one line; label the classed ones."""
        fm = QFontMetricsF(font)
        self.p.setFont(font)
        self.p.setPen(QColor(color))
        base = y + fm.ascent()
        cx = x
        for s, cls in parts:
            adv = fm.horizontalAdvance(s)
            self.p.drawText(QPointF(cx, base), s)
            if cls:
                self.label(cls, (cx - 1, y, cx + adv + 1, y + fm.height()), tight=True)
            cx += adv
        return cx - x

    def html(self, x, y, width, html: str, font: QFont, css: str = "", clip_h: float | None = None) -> float:
        """Render rich text; ``<a href="c:CLASS">`` spans become tight boxes. Returns height."""
        doc = QTextDocument()
        doc.setDefaultFont(font)
        doc.setDocumentMargin(0)
        doc.setDefaultStyleSheet("a{text-decoration:none}" + css)
        doc.setTextWidth(width)
        doc.setHtml(html)
        h = doc.size().height() if clip_h is None else min(clip_h, doc.size().height())
        self.p.save()
        self.p.translate(x, y)
        doc.drawContents(self.p, QRectF(0, 0, width, h))
        self.p.restore()
        for cls, (x0, y0, x1, y1) in doc_spans(doc):
            if y1 <= h:
                self.label(cls, (x + x0, y + y0, x + x1, y + y1), tight=True)
        return h

    def image(self, x, y, img: QImage) -> None:
        """Draw a QImage at (x, y)."""
        self.p.drawImage(QPointF(x, y), img)

    def finish(self) -> tuple[np.ndarray, list[tuple[str, tuple[float, float, float, float]]]]:
        """End painting; return BGR image and labels, text boxes shrunk to their ink."""
        self.p.end()
        arr = qimage_to_bgr(self.img)
        out = []
        for b in self.boxes:
            xyxy = clip_xyxy(b.xyxy, self.w, self.h)
            if xyxy is None:
                continue
            if b.tight:
                xyxy = ink_box(arr, xyxy)
                if xyxy is None:
                    continue
            out.append((b.cls, xyxy))
        return arr, out


def doc_spans(doc: QTextDocument):
    """Yield ``(cls, xyxy)`` per line of every ``c:CLASS`` anchor in a laid-out document."""
    lay = doc.documentLayout()
    block = doc.begin()
    while block.isValid():
        br = lay.blockBoundingRect(block)
        tl = block.layout()
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            href = frag.charFormat().anchorHref() if frag.charFormat().isAnchor() else ""
            if href.startswith("c:"):
                start = frag.position() - block.position()
                end = start + frag.length()
                for i in range(tl.lineCount()):
                    ln = tl.lineAt(i)
                    a, b = max(start, ln.textStart()), min(end, ln.textStart() + ln.textLength())
                    if a >= b:
                        continue
                    x0, _ = ln.cursorToX(a)
                    x1, _ = ln.cursorToX(b)
                    yield href[2:], (br.x() + x0 - 1, br.y() + ln.y(), br.x() + x1 + 1, br.y() + ln.y() + ln.height())
            it += 1
        block = block.next()


def clip_xyxy(xyxy, w, h):
    """Clip a box to the image; None if it is degenerate afterwards."""
    x0, y0, x1, y1 = max(0.0, xyxy[0]), max(0.0, xyxy[1]), min(float(w), xyxy[2]), min(float(h), xyxy[3])
    return (x0, y0, x1, y1) if x1 - x0 >= 2 and y1 - y0 >= 2 else None


def ink_box(arr: np.ndarray, xyxy, thresh: int = 40):
    """Shrink ``xyxy`` to pixels that differ from the box's border colour (the text ink)."""
    x0, y0, x1, y1 = (int(np.floor(xyxy[0])), int(np.floor(xyxy[1])), int(np.ceil(xyxy[2])), int(np.ceil(xyxy[3])))
    patch = arr[y0:y1, x0:x1].astype(np.int16)
    if patch.size == 0:
        return None
    border = np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]])
    bg = np.median(border, axis=0)
    ink = np.abs(patch - bg).max(axis=2) > thresh
    ys, xs = np.nonzero(ink)
    if len(xs) < 3:
        return None
    return (float(x0 + xs.min()), float(y0 + ys.min()), float(x0 + xs.max() + 1), float(y0 + ys.max() + 1))


def rounded_path(x, y, w, h, r) -> QPainterPath:
    """A rounded-rect path (for clipping avatars/cards)."""
    path = QPainterPath()
    path.addRoundedRect(QRectF(x, y, w, h), r, r)
    return path
