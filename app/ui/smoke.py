"""``vpd-redact gui --smoke IMAGE OUT``: a scripted run of the real window for the bundle's smoke
test: open IMAGE, wait for the detectors, save the redacted copy to OUT, quit. Every detector
must load (a bundle that lost a detector's model fails here) and exactly one file is written;
notes (e.g. text read by rules only) are printed. ``packaging/smoke_check.py`` also checks that
the bundle holds every model file."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtCore import QTimer

from app.ui.document import DocStatus


def process_age_s() -> float | None:
    """Seconds since this process started (Linux), for the start-up time; None elsewhere."""
    try:
        import os

        start_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class SmokeRun:
    """Drives a built window through open → detect → save → quit; ``exit_code`` when done."""

    def __init__(self, window, image: Path, out: Path, timeout_s: float = 300.0) -> None:
        self.window, self.image, self.out = window, Path(image), Path(out)
        self.c = window.controller.images
        self.exit_code: int | None = None
        self._opened = self._saving = False
        self._t0 = time.perf_counter()
        self._deadline = QTimer(window)
        self._deadline.setSingleShot(True)
        self._deadline.timeout.connect(lambda: self._finish(3, f"timed out after {timeout_s:.0f} s"))
        self._deadline.start(int(timeout_s * 1000))

    def start(self) -> None:
        """Begin once the event loop runs."""
        age = process_age_s()
        print(f"smoke: window shown {age:.2f} s after the process started" if age is not None
              else "smoke: window shown", flush=True)  # fmt: skip
        self.c.error.connect(lambda text: print(f"smoke: error: {text}", file=sys.stderr, flush=True))
        self.c.warning.connect(lambda text: print(f"smoke: note: {text}", flush=True))
        if self.c.detector_info.ok or self.c.detector_info.message != "Loading the detector…":
            self._on_detectors(self.c.detector_info)
        else:
            self.c.detector_changed.connect(self._on_detectors)

    def _on_detectors(self, info) -> None:
        if self._opened:
            return
        self._opened = True
        age = process_age_s()
        print(f"smoke: detectors ready {age:.2f} s after start ({info.provider}; "
              f"{len(info.class_names)} classes)" if age is not None else "smoke: detectors ready", flush=True)  # fmt: skip
        if not info.ok or info.message:
            self._finish(2, f"detection incomplete: {info.message or 'no detector'}")
            return
        [doc] = self.c.open_paths([self.image])
        self.c.document_updated.connect(lambda d: d is doc and self._on_document(doc))

    def _on_document(self, doc) -> None:
        if self._saving or self.exit_code is not None or doc.status in (DocStatus.LOADING, DocStatus.DETECTING):
            return
        if not doc.status.can_output:
            self._finish(2, f"{doc.name}: {doc.status.value} {doc.error}")
            return
        self._saving = True
        hidden = doc.hidden_ids(self.c.choice.policy())
        print(f"smoke: {len(doc.boxes)} box(es) found, {len(hidden)} hidden, "
              f"{time.perf_counter() - self._t0:.2f} s after the window", flush=True)  # fmt: skip
        if not self.c.save(doc, target=self.out, on_saved=self._on_saved, on_failed=lambda m: self._finish(1, m)):
            self._finish(1, "save refused")

    def _on_saved(self, path: Path) -> None:
        print(f"smoke: saved {path}", flush=True)
        self._finish(0, "")

    def _finish(self, code: int, why: str) -> None:
        if self.exit_code is not None:
            return
        self.exit_code = code
        if why:
            print(f"smoke: FAILED: {why}", file=sys.stderr, flush=True)
        self._deadline.stop()
        self.window.close()  # the last window: the event loop ends and run_gui returns exit_code
