"""Synthetic video with known ground truth, for tests, the video benchmark and the leak check.

``SyntheticSource`` draws moving on-screen PII (an e-mail address on a magenta card) and a moving
physical object (a yellow licence plate) over a busy background. ``ColourKeyDetector`` is a test
oracle that finds them by their key colours; ``DropoutDetector`` wraps any detector and makes it
miss frames at random and in bursts, so tracker and gap fill are what a leak check measures.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import cv2
import numpy as np

from app.core.detections import Detections, Source

TEXT_KEY_BGR = (255, 0, 255)
PLATE_KEY_BGR = (0, 220, 255)
SYNTHETIC_CLASSES = ("email", "license_plate")


@dataclass(frozen=True)
class SyntheticObject:
    """One moving object: class index, size as a fraction of the frame, path parameters."""

    class_id: int
    w_frac: float
    h_frac: float
    text: str
    speed: float  # path cycles per 100 frames
    phase: float


DEFAULT_OBJECTS = (
    SyntheticObject(0, 0.30, 0.06, "jane.doe@example.com", 0.5, 0.0),
    SyntheticObject(0, 0.22, 0.05, "+1 555 013 0199", 0.3, 2.0),
    SyntheticObject(1, 0.16, 0.07, "AB 123 CD", 0.8, 1.0),
)


class SyntheticSource:
    """A ``FrameSource`` of (height, width, 3) BGR frames with moving PII and per-frame GT.

    ``gt(i)`` returns (xyxy (K, 4) float32 clipped to the frame, class_ids (K,)) of frame ``i``.
    With ``realtime`` the reader is paced to ``fps`` like a camera.
    """

    def __init__(self, width: int = 1280, height: int = 720, fps: float = 30.0, n_frames: int | None = 300,
                 seed: int = 0, realtime: bool = False, objects=DEFAULT_OBJECTS) -> None:  # fmt: skip
        self.width, self.height, self.fps, self.n_frames = width, height, fps, n_frames
        self.objects = objects
        self.realtime = realtime
        self.index = 0
        rng = np.random.default_rng(seed)
        bg = np.full((height, width, 3), 60, np.uint8)
        for _ in range(20):  # grey panels and lines: texture for optical flow, no key colours
            x0, y0 = int(rng.integers(0, width)), int(rng.integers(0, height))
            g = int(rng.integers(30, 200))
            cv2.rectangle(bg, (x0, y0), (x0 + int(rng.integers(20, width // 3 + 21)), y0 + int(rng.integers(10, height // 4 + 11))),
                          (g, g, g), -1)  # fmt: skip
        self._bg = bg
        self._t0: float | None = None
        self._closed = threading.Event()

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)."""
        return self.width, self.height

    def _boxes(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        boxes, classes = [], []
        for o in self.objects:
            w, h = o.w_frac * self.width, o.h_frac * self.height
            a = 2 * np.pi * (o.speed * i / 100.0) + o.phase
            cx = self.width * (0.5 + 0.45 * np.sin(a))
            cy = self.height * (0.5 + 0.4 * np.sin(1.7 * a + o.phase))
            boxes.append([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
            classes.append(o.class_id)
        return np.array(boxes, np.float32).reshape(-1, 4), np.array(classes, np.int32)

    def gt(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Ground truth of frame ``i``: boxes clipped to the frame and class ids."""
        xyxy, cls = self._boxes(i)
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, self.width)
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, self.height)
        return xyxy, cls

    def render(self, i: int) -> np.ndarray:
        """Frame ``i``: background plus every object at its position on that frame."""
        frame = self._bg.copy()
        xyxy, cls = self._boxes(i)
        for (x0, y0, x1, y1), c, o in zip(xyxy, cls, self.objects):
            p0, p1 = (int(round(x0)), int(round(y0))), (int(round(x1)) - 1, int(round(y1)) - 1)
            cv2.rectangle(frame, p0, p1, TEXT_KEY_BGR if c == 0 else PLATE_KEY_BGR, -1)
            scale = (y1 - y0) / 40.0
            cv2.putText(frame, o.text, (p0[0] + 4, p1[1] - int(0.25 * (y1 - y0))), cv2.FONT_HERSHEY_SIMPLEX, scale,
                        (10, 10, 10), max(1, int(scale * 2)), cv2.LINE_AA)  # fmt: skip
        return frame

    def read(self) -> np.ndarray | None:
        """Next frame, or None after ``n_frames`` or ``close()``."""
        if self._closed.is_set() or (self.n_frames is not None and self.index >= self.n_frames):
            return None
        if self.realtime:
            now = time.perf_counter()
            self._t0 = now if self._t0 is None else self._t0
            wait = self._t0 + self.index / self.fps - now
            if wait > 0:
                self._closed.wait(wait)
        frame = self.render(self.index)
        self.index += 1
        return frame

    def close(self) -> None:
        """End the stream: ``read`` returns None from now on."""
        self._closed.set()

    def __enter__(self) -> "SyntheticSource":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ColourKeyDetector:
    """Oracle detector for ``SyntheticSource`` frames: boxes of the key-coloured regions."""

    name = "oracle"
    provider = "CPU (oracle)"

    def __init__(self, min_area: int = 12, step: int = 2) -> None:
        self.min_area, self.step = min_area, step

    @property
    def class_names(self) -> tuple[str, ...]:
        """The synthetic classes: email and license_plate."""
        return SYNTHETIC_CLASSES

    def detect(self, frame: np.ndarray) -> Detections:
        """Boxes of magenta (email) and yellow (plate) regions in a (H, W, 3) BGR frame."""
        s = self.step
        h, w = frame.shape[:2]
        small = cv2.resize(frame, ((w + s - 1) // s, (h + s - 1) // s), interpolation=cv2.INTER_NEAREST)
        boxes, classes = [], []
        for cid, key in enumerate((TEXT_KEY_BGR, PLATE_KEY_BGR)):
            lo = np.array([max(0, k - 60) for k in key], np.uint8)
            hi = np.array([min(255, k + 60) for k in key], np.uint8)
            mask = cv2.inRange(small, lo, hi)
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 9), np.uint8))  # join text gaps
            n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
            for x, y, w, h, area in stats[1:]:
                if area * s * s >= self.min_area:
                    boxes.append([x * s - s, y * s - s, (x + w) * s + s, (y + h) * s + s])
                    classes.append(cid)
        xyxy = np.array(boxes, np.float32).reshape(-1, 4)
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, frame.shape[1])
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, frame.shape[0])
        return Detections(xyxy, np.full(len(xyxy), 0.9), classes, SYNTHETIC_CLASSES,
                          sources=np.full(len(xyxy), Source.DETECTOR))  # fmt: skip


class DropoutDetector:
    """Wraps a detector and returns no boxes on a random ``rate`` of calls and in bursts of
    ``burst_len`` calls every ``burst_every`` calls. Thread-safe counter; deterministic per seed."""

    def __init__(self, inner, rate: float = 0.3, burst_every: int = 45, burst_len: int = 6, seed: int = 0) -> None:
        self.inner, self.rate, self.burst_every, self.burst_len = inner, rate, burst_every, burst_len
        self.name = f"{inner.name}+dropout"
        self._rng = np.random.default_rng(seed)
        self._calls = 0
        self.dropped = 0
        self._lock = threading.Lock()

    @property
    def calls(self) -> int:
        """How many times ``detect`` was called."""
        return self._calls

    @property
    def class_names(self) -> tuple[str, ...]:
        """The wrapped detector's classes."""
        return self.inner.class_names

    @property
    def provider(self) -> str:
        """The wrapped detector's provider."""
        return getattr(self.inner, "provider", "CPU")

    def detect(self, frame: np.ndarray) -> Detections:
        """The inner detections, or none on a dropped call."""
        with self._lock:
            i = self._calls
            self._calls += 1
            drop = (self.burst_every and i % self.burst_every >= self.burst_every - self.burst_len) or (
                self._rng.random() < self.rate
            )
            self.dropped += bool(drop)
        if drop:
            return Detections.empty(self.class_names)
        return self.inner.detect(frame)


def write_synthetic_clip(
    path, source: SyntheticSource, n_frames: int, tone_hz: float | None = None, metadata: dict | None = None,
    rotation: int = 0, crf: int = 18,
):  # fmt: skip
    """Write ``n_frames`` of ``source`` as H.264 (+ a mono AAC sine ``tone_hz``) with optional
    container ``metadata`` (e.g. {'location': '+48.85+002.35/'}) and display ``rotation`` (deg).
    A test and benchmark fixture: it deliberately writes the tags the exporter must strip."""
    import av
    from fractions import Fraction

    fps = Fraction(source.fps).limit_denominator(1001)
    with av.open(str(path), "w", format="mp4" if str(path).endswith((".mp4", ".mov")) else None) as out:
        for k, v in (metadata or {}).items():
            out.metadata[k] = v
        vs = out.add_stream("libx264", rate=fps)
        vs.width, vs.height, vs.pix_fmt = source.width, source.height, "yuv420p"
        vs.options = {"crf": str(crf), "preset": "ultrafast"}
        if rotation:
            vs.set_display_rotation(rotation)
        astream = None
        if tone_hz:
            astream = out.add_stream("aac", rate=48000)
            astream.layout = "mono"
        for i in range(n_frames):
            frame = av.VideoFrame.from_ndarray(source.render(i), format="bgr24")
            frame.pts = i
            frame.time_base = 1 / fps
            out.mux(vs.encode(frame))
        out.mux(vs.encode(None))
        if astream is not None:
            total = int(round(48000 * n_frames / float(fps)))
            t = np.arange(total) / 48000.0
            pcm = (0.3 * np.sin(2 * np.pi * tone_hz * t)).astype(np.float32)
            for start in range(0, total, 1024):
                chunk = pcm[start : start + 1024]
                af = av.AudioFrame.from_ndarray(chunk[None, :], format="fltp", layout="mono")
                af.sample_rate = 48000
                af.pts = start
                af.time_base = Fraction(1, 48000)
                out.mux(astream.encode(af))
            out.mux(astream.encode(None))
    return path
