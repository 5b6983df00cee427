"""Render the README screenshots of the desktop app under a real X display (Xvfb) at 1366×768,
the smallest screen it supports:

    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python assets/screenshots/make_screenshots.py

The mail-client screenshot it opens is drawn here with Qt (made-up names and numbers). The Images
shots use the shipped detectors (``--detectors real``, the default: the VPD model, CenterFace,
OCR); ``--detectors fake`` uses an oracle that knows where the demo drew its PII. The Video and
Live shots run a colour-key test detector on a synthetic clip (they show the controls, not
detection quality).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from PySide6.QtCore import QRect, QSettings, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter
from PySide6.QtWidgets import QApplication

from app.core.detections import Detections, Source
from app.inference.factory import BuiltDetectors

HERE = Path(__file__).resolve().parent
CLASSES = ("email", "phone_number", "person_name", "card_number", "face", "license_plate", "postal_address")
DOMAINS = {"onscreen_pii": ("email", "phone_number", "person_name", "card_number", "postal_address"),
           "human_presence": ("face",), "physical_identifiers": ("license_plate",)}  # fmt: skip

ROWS = [
    ("Marta Kowalczyk", "marta.kowalczyk@postbox.example", "Invoice 2291 for the March order", "+48 512 907 336"),
    ("Jonas Bergström", "j.bergstrom@fjordmail.example", "Re: flat viewing on Saturday", "+46 70 318 44 12"),
    ("Aisha Rahman", "aisha.r@quickmail.example", "Your parcel is on its way", "+44 7700 900 418"),
    ("Pedro Almeida", "pedro.almeida@correio.example", "Photos from the trip", "+351 912 554 020"),
    ("Chen Wei", "chen.wei@lotus.example", "Quarterly numbers (draft)", "+86 138 0013 8000"),
]


def render_demo(path: Path) -> list[tuple[tuple[int, int, int, int], str, float]]:
    """Draw a mail-client screenshot (1280×800); return the PII boxes it drew."""
    w, h = 1280, 800
    img = QImage(w, h, QImage.Format.Format_RGB888)
    img.fill(QColor("#f6f8fa"))
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    boxes: list[tuple[tuple[int, int, int, int], str, float]] = []

    def text(x, y, s, size=11, bold=False, colour="#1f2328", cls=None, score=0.9):
        f = QFont("DejaVu Sans", size)
        f.setBold(bold)
        p.setFont(f)
        p.setPen(QColor(colour))
        r = p.boundingRect(QRect(x, y, 900, 40), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, s)
        p.drawText(r, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, s)
        if cls:
            boxes.append(((r.left(), r.top() + 2, r.right() + 1, r.bottom() - 1), cls, score))
        return r

    p.fillRect(0, 0, w, 44, QColor("#24292f"))
    text(18, 11, "Mail", 13, True, "#ffffff")
    p.fillRect(0, 44, 220, h - 44, QColor("#eaeef2"))
    for i, s in enumerate(("Inbox  (12)", "Starred", "Sent", "Drafts", "Archive")):
        text(24, 70 + 34 * i, s, 11, i == 0)
    text(24, 300, "Signed in as", 9, colour="#57606a")
    text(24, 318, "sam.doe@homemail.example", 10, cls="email", score=0.93)
    y = 60
    for k, (name, email, subject, phone) in enumerate(ROWS):
        p.fillRect(236, y, 420, 92, QColor("#ffffff" if k else "#ddf4ff"))
        p.setBrush(QColor(["#f4a261", "#2a9d8f", "#e76f51", "#8ab17d", "#6d597a"][k]))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawEllipse(250, y + 14, 40, 40)
        text(300, y + 10, name, 11, True, cls="person_name", score=0.88)
        text(300, y + 32, email, 10, colour="#57606a", cls="email", score=0.95 - 0.05 * k)
        text(300, y + 56, subject, 10)
        y += 100
    # reading pane
    p.fillRect(672, 60, 590, 720, QColor("#ffffff"))
    text(696, 80, "Invoice 2291 for the March order", 15, True)
    text(696, 116, "Marta Kowalczyk", 11, True, cls="person_name", score=0.91)
    text(696, 138, "<marta.kowalczyk@postbox.example>", 10, colour="#57606a", cls="email", score=0.96)
    body = ["Hi Sam,", "", "thanks for the order. Please find the invoice attached.",
            "The amount was charged to your card", "", "", "If anything is unclear, call me on", "",
            "or drop by the office:", "", "", "Best regards,", "Marta"]  # fmt: skip
    yy = 186
    for line in body:
        text(696, yy, line, 11)
        yy += 24
    text(696, 186 + 24 * 4, "4929 1234 5678 9012", 12, True, cls="card_number", score=0.97)
    text(696, 186 + 24 * 7, "+48 512 907 336", 12, True, cls="phone_number", score=0.94)
    text(696, 186 + 24 * 9, "ul. Długa 14/3, 00-238 Warszawa", 11, cls="postal_address", score=0.72)
    text(696, 186 + 24 * 10, "Last login from 10.0.0.12 (low confidence sample)", 9, colour="#8c959f")
    boxes.append(((888, 186 + 24 * 10 + 1, 950, 186 + 24 * 10 + 15), "phone_number", 0.18))  # a weak false hit
    p.end()
    img.save(str(path))
    return boxes


class OracleDetector:
    """Fake detector for the demo: returns the boxes ``render_demo`` drew."""

    name = "detector"
    class_names = CLASSES
    domains = DOMAINS
    provider = "CPU"

    def __init__(self, boxes) -> None:
        self.boxes = boxes

    def detect(self, frame: np.ndarray) -> Detections:
        if frame.shape[:2] != (800, 1280):
            return Detections.empty(CLASSES)
        xyxy = np.array([b for b, _, _ in self.boxes], np.float32)
        ids = np.array([CLASSES.index(c) for _, c, _ in self.boxes])
        scores = np.array([s for _, _, s in self.boxes], np.float32)
        return Detections(xyxy, scores, ids, CLASSES, sources=np.full(len(ids), Source.DETECTOR))


def wait(app: QApplication, condition, timeout_s: float = 60.0) -> None:
    import time

    t0 = time.perf_counter()
    while not condition():
        app.processEvents()
        if time.perf_counter() - t0 > timeout_s:
            raise TimeoutError("screenshot step timed out")
        time.sleep(0.02)
    for _ in range(10):
        app.processEvents()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--detectors", choices=["fake", "real"], default="real")
    ap.add_argument("--out", type=Path, default=HERE)
    ap.add_argument("--size", default="1366x768", help="window size (default: the smallest supported)")
    args = ap.parse_args()

    from app.ui.app import build_window, make_application
    from app.ui.settings import Preferences

    app = make_application(sys.argv[:1])
    tmp = Path(tempfile.mkdtemp(prefix="vpd-shots-"))
    demo = tmp / "inbox.png"
    boxes = render_demo(demo)
    factory = (lambda: BuiltDetectors((OracleDetector(boxes),), ())) if args.detectors == "fake" else None
    prefs = Preferences(QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat))
    window = build_window(prefs, factory)
    width, height = (int(v) for v in args.size.split("x"))
    window.setGeometry(window.screen().availableGeometry().intersected(QRect(0, 0, width, height)))
    window.show()
    try:
        shoot(app, window, args, demo, boxes, tmp)
    finally:
        window.close()
    print("\n".join(str(p) for p in sorted(args.out.glob("*.png"))))
    return 0


def shoot(app, window, args, demo, boxes, tmp) -> None:
    from app.media.video_synthetic import ColourKeyDetector, SyntheticSource, write_synthetic_clip
    from app.ui.document import DocStatus
    from app.ui.live_worker import LiveConfig

    c = window.controller
    wait(app, lambda: c.images.detector_info.ok or "Loading" not in c.images.detector_info.message)

    c.images.open_paths([demo])
    wait(app, lambda: c.images.current is not None and c.images.current.status is DocStatus.READY and not c.images.busy, 120)
    doc = c.images.current
    doc.add_manual_box((1040, 690, 1240, 760))  # a hand-drawn box
    view = window.views["Images"]
    view.side.setCurrentIndex(0)
    view.canvas.fit()
    wait(app, lambda: not c.images.busy)
    ids = [b.id for b in doc.boxes]
    if len(ids) > 3:
        view.canvas.select_boxes([ids[-2]])
    window.grab().save(str(args.out / "images.png"))
    view.side.setCurrentIndex(1)
    wait(app, lambda: True)
    window.grab().save(str(args.out / "images-boxes.png"))

    clip = tmp / "street.mp4"
    write_synthetic_clip(clip, SyntheticSource(640, 360, 25.0, n_frames=75), 75, tone_hz=440)
    c.video._factory_getter = lambda: (lambda: BuiltDetectors((ColourKeyDetector(),), ()))
    c.video.set_input(clip)
    window.show_view("Video")
    c.video.start()
    wait(app, lambda: not c.video.running, 180)
    wait(app, lambda: True)
    window.grab().save(str(args.out / "video.png"))

    window.show_view("Live")
    c.live._factory_getter = lambda: (lambda: BuiltDetectors((ColourKeyDetector(),), ()))
    c.live.opener = lambda spec: SyntheticSource(1280, 720, 30.0, n_frames=None, realtime=True)
    c.live.start(LiveConfig("synthetic:1280x720"))
    wait(app, lambda: c.live.last_status is not None and c.live.last_status.protected and c.live.last_status.frames > 30, 60)
    window.grab().save(str(args.out / "live.png"))
    c.live.stop()

    class Broken(ColourKeyDetector):
        def detect(self, frame):
            raise RuntimeError("detector crashed (demo)")

    c.live._factory_getter = lambda: (lambda: BuiltDetectors((Broken(),), ()))
    c.live.last_status = None
    c.live.start(LiveConfig("synthetic:1280x720"))
    wait(app, lambda: c.live.last_status is not None and (c.live.last_status.reason or "").startswith("error"), 60)
    window.grab().save(str(args.out / "live-paused.png"))
    c.live.stop()


if __name__ == "__main__":
    sys.exit(main())
