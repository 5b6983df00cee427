"""A live source read by its own thread, so that the masking loop always takes the newest frame.

A camera or a screen does not wait for a slow consumer. Read on the masking loop's thread, each
frame's capture (a screen grab, a camera's decode and colour conversion, a file's decode) adds to
every loop's time, and a camera's driver queue hands out frames that waited there. Here a thread
reads the source at its own pace and keeps only the newest frame: the loop gets it as soon as it
is free, and frames it had no time for are dropped (counted in ``dropped``), as on any live
display. ``index``, ``timestamp_s`` and ``captured_at`` describe the frame ``read`` returned last.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

import numpy as np

from app.core.errors import SourceError

log = logging.getLogger(__name__)

JOIN_TIMEOUT_S = 2.0  # a camera read returns within a frame; a hung device is left to its thread


class LatestFrameSource:
    """Wraps a ``FrameSource`` (``read()``, ``size``, ``fps``, ``close()``). ``read()`` blocks until
    a frame newer than the last one returned exists and returns it (None once the source has
    ended and its last frame was taken). A source that raises is reported by ``read()`` as a
    ``SourceError`` after the frames read before it. Reads are paced to at most ``fps`` per second
    (a screen grab returns at once and would otherwise take a core); ``clock`` stamps
    ``captured_at`` and must be the clock of the loop that measures latency from it."""

    def __init__(self, source, clock: Callable[[], float] = time.perf_counter) -> None:
        self.source = source
        self.fps = float(getattr(source, "fps", 30.0) or 30.0)
        self.clock = clock
        self.index = -1  # source frame number of the frame returned last
        self.timestamp_s: float | None = None
        self.captured_at: float | None = None
        self.dropped = 0
        self._cond = threading.Condition()
        self._slot: tuple[np.ndarray, int, float | None, float] | None = None
        self._ended = False
        self._error: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._capture, name="frame-capture", daemon=True)
        self._thread.start()

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the source."""
        return self.source.size

    def _capture(self) -> None:
        n = 0
        t0 = time.perf_counter()
        while not self._stop.is_set():
            wait = t0 + n / self.fps - time.perf_counter()
            if wait > 0 and self._stop.wait(wait):
                break
            try:
                frame = self.source.read()
            except Exception as exc:  # noqa: BLE001 - a camera unplugged, a broken file: reported by read()
                log.warning("frame capture stopped: %s", exc)
                with self._cond:
                    self._error = str(exc) or type(exc).__name__
                    self._cond.notify_all()
                return
            if frame is None:
                break
            stamp = getattr(self.source, "timestamp_s", None)
            with self._cond:
                self.dropped += self._slot is not None
                self._slot = (frame, n, stamp, self.clock())
                self._cond.notify_all()
            n += 1
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def read(self) -> np.ndarray | None:
        """The newest frame not returned yet (waits for it); None at the end of the source."""
        with self._cond:
            self._cond.wait_for(lambda: self._slot is not None or self._ended or self._error is not None)
            if self._slot is None:
                if self._error is not None:
                    raise SourceError(f"the source stopped delivering frames: {self._error}")
                return None
            frame, self.index, self.timestamp_s, self.captured_at = self._slot
            self._slot = None
        return frame

    def close(self) -> None:
        """Stop the capture thread, then close the source."""
        self._stop.set()
        self._thread.join(JOIN_TIMEOUT_S)
        if self._thread.is_alive():
            log.warning("frame capture still inside the source's read after %.0f s; closing it anyway", JOIN_TIMEOUT_S)
        with self._cond:
            self._ended = True
            self._slot = None
            self._cond.notify_all()
        self.source.close()

    def __enter__(self) -> "LatestFrameSource":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
