"""Live and file frame sources behind one small interface.

``open_source(spec)``: ``camera:N`` (OpenCV), ``screen`` / ``screen:N`` (mss), ``window:TITLE``
or a bare window title (X11 via xdotool/wmctrl), ``synthetic[:WxH]``, or a video file (PyAV).
Every source yields (H, W, 3) uint8 BGR frames from ``read()`` and None at the end.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Protocol, runtime_checkable

import numpy as np

from app.core.errors import SourceError
from app.media.video_export import decoded_frames, open_video_input, upright
from app.media.video_synthetic import SyntheticSource

log = logging.getLogger(__name__)

__all__ = ["FrameSource", "open_source", "CameraSource", "ScreenSource", "VideoFileSource", "SyntheticSource",
           "LatestFrameSource"]


@runtime_checkable
class FrameSource(Protocol):
    """``read()`` → (H, W, 3) uint8 BGR or None at end/disconnect; ``fps``; ``size`` = (w, h).
    Sources also set ``timestamp_s``: the time of the frame ``read()`` returned last, in seconds
    on the source's own clock from its first frame (a file's timestamps; a device's capture
    clock), so recordings keep the source's timing."""

    fps: float

    @property
    def size(self) -> tuple[int, int]: ...

    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


class _ContextMixin:
    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class CameraSource(_ContextMixin):
    """A camera through OpenCV. ``read()`` returns None once the device stops delivering."""

    def __init__(self, index: int, width: int | None = None, height: int | None = None) -> None:
        import cv2

        try:  # OpenCV prints backend errors for a missing camera; we raise a clear one instead
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
        except AttributeError:
            pass
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"camera {index}: no such camera or it is in use by another program")
        if width and height:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        ok, first = self._cap.read()
        if not ok or first is None:
            self._cap.release()
            raise SourceError(f"camera {index}: opened but delivers no frames")
        self._first: np.ndarray | None = first
        self.fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 30.0) or 30.0
        self._size = (first.shape[1], first.shape[0])
        self.index = index
        self._t0 = time.perf_counter()
        self.timestamp_s = 0.0

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    def read(self) -> np.ndarray | None:
        if self._first is not None:
            frame, self._first = self._first, None
            return frame
        ok, frame = self._cap.read()
        self.timestamp_s = time.perf_counter() - self._t0  # capture clock
        return frame if ok else None

    def close(self) -> None:
        self._cap.release()


class ScreenSource(_ContextMixin):
    """A monitor (1-based as in mss; 0 = all monitors) or a region ``(left, top, width, height)``."""

    def __init__(self, monitor: int = 1, region: tuple[int, int, int, int] | None = None, fps: float = 30.0) -> None:
        try:
            import mss

            self._sct = (getattr(mss, "MSS", None) or mss.mss)()
        except Exception as exc:  # noqa: BLE001 - mss raises ScreenShotError and friends
            raise SourceError(f"screen capture unavailable: {exc} (no display?)") from None
        monitors = self._sct.monitors
        if region is not None:
            left, top, w, h = region
            self._box = {"left": left, "top": top, "width": w + (w & 1), "height": h + (h & 1)}
        elif 0 <= monitor < len(monitors):
            self._box = dict(monitors[monitor])
        else:
            self._sct.close()
            raise SourceError(f"screen {monitor}: no such monitor; {len(monitors) - 1} found")
        self.fps = fps
        self._t0: float | None = None
        self.timestamp_s = 0.0

    @property
    def size(self) -> tuple[int, int]:
        return self._box["width"], self._box["height"]

    def read(self) -> np.ndarray | None:
        now = time.perf_counter()
        self._t0 = now if self._t0 is None else self._t0
        self.timestamp_s = now - self._t0  # capture clock
        try:
            shot = self._sct.grab(self._box)
        except Exception as exc:  # noqa: BLE001
            log.warning("screen capture stopped: %s", exc)
            return None
        return np.ascontiguousarray(np.asarray(shot)[..., :3])

    def close(self) -> None:
        self._sct.close()


def window_region(title: str) -> tuple[int, int, int, int]:
    """(left, top, width, height) of the first X11 window whose title contains ``title``."""
    if shutil.which("xdotool"):
        try:
            wid = subprocess.run(["xdotool", "search", "--name", title], capture_output=True, text=True, timeout=5)
            ids = wid.stdout.split()
            if ids:
                geo = subprocess.run(["xdotool", "getwindowgeometry", "--shell", ids[0]], capture_output=True,
                                     text=True, timeout=5).stdout  # fmt: skip
                vals = dict(line.split("=", 1) for line in geo.splitlines() if "=" in line)
                return int(vals["X"]), int(vals["Y"]), int(vals["WIDTH"]), int(vals["HEIGHT"])
        except (OSError, subprocess.SubprocessError, KeyError, ValueError) as exc:
            raise SourceError(f"window {title!r}: xdotool failed ({exc})") from None
    elif shutil.which("wmctrl"):
        out = subprocess.run(["wmctrl", "-lG"], capture_output=True, text=True, timeout=5).stdout
        for line in out.splitlines():
            parts = line.split(None, 7)
            if len(parts) == 8 and title.lower() in parts[7].lower():
                return int(parts[2]), int(parts[3]), int(parts[4]), int(parts[5])
    else:
        raise SourceError(
            f"window {title!r}: cannot find windows by title here (install xdotool or wmctrl on X11), "
            "or capture a screen with --source screen"
        )
    raise SourceError(f"window {title!r}: no window with that title is open")


class VideoFileSource(_ContextMixin):
    """Frames of a video file, upright (display rotation applied); None at the end. With
    ``realtime`` reads are paced to the file's frame rate, like a camera."""

    def __init__(self, path: str | Path, realtime: bool = False) -> None:
        self.path = Path(path)
        self._inp = open_video_input(self.path, want_audio=False)
        self.fps = self._inp.fps
        self._frames = decoded_frames(self._inp, self.path)
        first = next(self._frames, None)
        if first is None:
            self.close()
            raise SourceError(f"{self.path}: no video frames could be decoded")
        self._first: np.ndarray | None = upright(first)[0]
        self._start = float(first.time or 0.0)
        self.timestamp_s = 0.0
        self._size = (self._first.shape[1], self._first.shape[0])  # upright size
        self.realtime = realtime
        self._t0: float | None = None
        self._n = 0

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    def read(self) -> np.ndarray | None:
        if self._first is not None:
            pixels, self._first = self._first, None
            self.timestamp_s = 0.0
        else:
            frame = next(self._frames, None)
            if frame is None:
                return None
            pixels = upright(frame)[0]
            # The file's own timestamps (variable frame rate kept); index / fps when it has none.
            t = frame.time
            self.timestamp_s = (float(t) - self._start) if t is not None else (self._n / (self.fps or 30.0))
        if self.realtime:
            now = time.perf_counter()
            self._t0 = now if self._t0 is None else self._t0
            wait = self._t0 + self._n / (self.fps or 30.0) - now
            if wait > 0:
                time.sleep(wait)  # pacing like a camera; bounded by one frame interval
        self._n += 1
        return pixels

    def close(self) -> None:
        self._frames.close()
        self._inp.container.close()


JOIN_TIMEOUT_S = 2.0  # a camera read returns within a frame; a hung device is left to its thread


class LatestFrameSource(_ContextMixin):
    """A live source read by its own thread, so that the live loop always takes the newest frame.

    A camera or a screen does not wait for a slow consumer. Read on the loop's thread, each frame's
    capture (a screen grab, a camera's decode, a file's decode) adds to every loop's time, and a
    camera's driver queue hands out frames that waited there. Frames the loop had no time for are
    dropped (counted in ``dropped``), as on any live display; ``index``, ``timestamp_s`` and
    ``captured_at`` describe the frame ``read`` returned last.

    Wraps a ``FrameSource`` (``read()``, ``size``, ``fps``, ``close()``). ``read()`` blocks until
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


def camera_indices(dev: Path = Path("/dev"), sysfs: Path = Path("/sys/class/video4linux")) -> list[int] | None:
    """Indices of the cameras this machine has, for ``camera:N``: on Linux the V4L2 devices
    (``/dev/videoN``) except a camera's second, metadata-only node (sysfs ``index`` ≠ 0).
    None where devices cannot be listed without opening each (Windows, macOS)."""
    if not sys.platform.startswith("linux"):
        return None
    found = []
    for node in dev.glob("video*"):
        if m := re.fullmatch(r"video(\d+)", node.name):
            index_file = sysfs / node.name / "index"
            try:
                if index_file.is_file() and index_file.read_text().strip() != "0":
                    continue
            except OSError:
                pass
            found.append(int(m.group(1)))
    return sorted(found)


def open_source(spec: str) -> FrameSource:
    """Open a source from its command-line spelling; ``SourceError`` with a reason if impossible.
    Cameras, screens and windows are read by their own thread (``LatestFrameSource``): the live
    loop takes the newest frame and skips those it had no time for. Files and the synthetic
    source hand out every frame."""
    spec = spec.strip()
    if m := re.fullmatch(r"camera(?::(\d+))?", spec):
        return LatestFrameSource(CameraSource(int(m.group(1) or 0)))
    if m := re.fullmatch(r"screen(?::(\d+))?", spec):
        return LatestFrameSource(ScreenSource(int(m.group(1) or 1)))
    if m := re.fullmatch(r"synthetic(?::(\d+)x(\d+))?", spec):
        w, h = (int(m.group(1)), int(m.group(2))) if m.group(1) else (1280, 720)
        return SyntheticSource(w, h, 30.0, n_frames=None, realtime=True)
    if spec.startswith("window:"):
        return LatestFrameSource(ScreenSource(region=window_region(spec[len("window:"):])))
    path = Path(spec)
    if path.exists():
        return VideoFileSource(path, realtime=True)
    if path.suffix:  # looks like a file name
        raise SourceError(f"{spec}: file not found")
    return LatestFrameSource(ScreenSource(region=window_region(spec)))
