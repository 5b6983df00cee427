"""Frame sinks: an H.264 video file (with optional remuxed audio) and a virtual camera.

``VideoFileSink`` writes into a temp file next to the target and renames it on ``close()``;
``abort()`` (or an exception inside ``with``) removes it, so a failed or cancelled export never
leaves a partial file. Nothing of a source's container or stream metadata is copied.
"""

from __future__ import annotations

import errno
import logging
import os
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np

from app.core.errors import OutputError, SourceError

log = logging.getLogger(__name__)

CONTAINER_FORMATS = {".mp4": "mp4", ".m4v": "mp4", ".mov": "mov", ".mkv": "matroska"}
# Audio codecs the mp4/mov muxers take as-is; anything else is re-encoded to AAC.
MP4_AUDIO_COPY = {"aac", "mp3", "alac", "ac3", "eac3", "opus", "flac"}


def even_size(width: int, height: int) -> tuple[int, int]:
    """Smallest (w, h) ≥ the input with both sides even (H.264 yuv420p needs even sides)."""
    return width + (width & 1), height + (height & 1)


def pad_to(frame: np.ndarray, width: int, height: int) -> np.ndarray:
    """Pad a (H, W, 3) frame with black on the right/bottom to (height, width)."""
    h, w = frame.shape[:2]
    if (w, h) == (width, height):
        return frame
    out = np.zeros((height, width, 3), np.uint8)
    out[:h, :w] = frame[:height, :width]
    return out


def publish(tmp: Path, target: Path) -> None:
    """Give a finished temp file its final name without replacing an existing file."""
    try:
        os.link(tmp, target)  # atomic, and fails if target appeared meanwhile
    except OSError as exc:
        if exc.errno == errno.EEXIST:
            raise OutputError(f"{target}: already exists; not overwriting") from None
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise OutputError(f"{target}: could not write ({exc.strerror or exc})") from None
        if target.exists():
            raise OutputError(f"{target}: already exists; not overwriting") from None
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


class VideoFileSink:
    """H.264 (libx264, yuv420p) writer for BGR frames, optionally muxing audio packets.

    ``time_base``: pts unit of the frames passed to ``write`` (keeps variable frame rate);
    when None, frames are numbered at ``fps``. Odd sizes are padded to even with black.
    """

    def __init__(
        self,
        target: str | Path,
        fps: float | Fraction,
        size: tuple[int, int],
        crf: int = 20,
        preset: str = "veryfast",
        time_base: Fraction | None = None,
        audio_template=None,
        audio_rate: int | None = None,
    ) -> None:
        import av

        self.target = Path(target)
        fmt = CONTAINER_FORMATS.get(self.target.suffix.lower())
        if fmt is None:
            raise OutputError(f"{self.target}: unsupported video type {self.target.suffix!r}; use .mp4, .mov or .mkv")
        if self.target.exists():
            raise OutputError(f"{self.target}: already exists; not overwriting")
        try:
            self.target.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f".{self.target.name}.", suffix=".part", dir=self.target.parent)
            os.close(fd)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(name, 0o666 & ~umask)  # mkstemp makes 0600; a video should get normal permissions
        except OSError as exc:
            raise OutputError(f"{self.target.parent}: cannot write here ({exc.strerror or exc})") from None
        self.tmp = Path(name)
        self.width, self.height = even_size(*size)
        self._closed = False
        self._index = 0
        self._last_pts: int | None = None
        try:
            self.container = av.open(str(self.tmp), "w", format=fmt)
            rate = Fraction(fps).limit_denominator(1001) if fps else Fraction(30)
            self.stream = self.container.add_stream("libx264", rate=rate)
            self.stream.width, self.stream.height = self.width, self.height
            self.stream.pix_fmt = "yuv420p"
            self.stream.options = {"crf": str(crf), "preset": preset}
            self.time_base = time_base or (1 / rate)
            self.stream.codec_context.time_base = self.time_base
            self.audio_in = audio_template
            self.audio_out = self.audio_encoder = self._resampler = None
            if audio_template is not None:
                self._add_audio(audio_template, fmt, audio_rate)
        except Exception as exc:  # noqa: BLE001 - PyAV raises many types; report ours
            self.abort()
            raise OutputError(f"{self.target}: cannot create video ({exc})") from None

    def _add_audio(self, template, fmt: str, rate: int | None) -> None:
        name = template.codec_context.name
        if fmt == "matroska" or name in MP4_AUDIO_COPY:
            self.audio_out = self.container.add_stream_from_template(template)
        else:  # e.g. pcm in mp4: re-encode
            import av

            self.audio_encoder = self.container.add_stream("aac", rate=rate or template.codec_context.sample_rate or 48000)
            self.audio_out = self.audio_encoder
            self._resampler = av.AudioResampler(format="fltp", layout=template.codec_context.layout,
                                                rate=self.audio_encoder.rate)  # fmt: skip
        self.audio_out.metadata.clear()  # no language/handler/creation tags from the source

    @property
    def copies_audio(self) -> bool:
        """True when audio packets are remuxed unchanged (False: re-encoded to AAC)."""
        return self.audio_out is not None and self.audio_encoder is None

    def write(self, frame_bgr: np.ndarray, pts: int | None = None) -> None:
        """Encode one (H, W, 3) uint8 BGR frame; ``pts`` in ``time_base`` units (default: index)."""
        import av

        frame = av.VideoFrame.from_ndarray(pad_to(frame_bgr, self.width, self.height), format="bgr24")
        frame.pts = self._index if pts is None else pts
        frame.time_base = self.time_base
        self._index += 1
        try:
            self.container.mux(self.stream.encode(frame))
        except Exception as exc:  # noqa: BLE001
            raise OutputError(f"{self.target}: encoding failed ({exc})") from None

    def write_at(self, frame_bgr: np.ndarray, seconds: float) -> None:
        """Encode one frame at ``seconds`` on the source's clock (converted to ``time_base``);
        a timestamp not after the previous one is moved one tick past it."""
        pts = int(round(seconds / float(self.time_base)))
        if self._last_pts is not None and pts <= self._last_pts:
            pts = self._last_pts + 1
        self._last_pts = pts
        self.write(frame_bgr, pts)

    def write_audio(self, packet) -> None:
        """Mux one demuxed audio packet of ``audio_template`` (copied or re-encoded)."""
        if self.audio_out is None or packet.dts is None and packet.size == 0:
            return
        try:
            if self.audio_encoder is None:
                packet.stream = self.audio_out
                self.container.mux(packet)
            else:
                for frame in packet.decode():
                    for f in self._resampler.resample(frame):
                        self.container.mux(self.audio_encoder.encode(f))
        except Exception as exc:  # noqa: BLE001
            raise OutputError(f"{self.target}: writing audio failed ({exc})") from None

    def close(self) -> Path:
        """Flush encoders, close the file and publish it under the target name."""
        if self._closed:
            return self.target
        try:
            self.container.mux(self.stream.encode(None))
            if self.audio_encoder is not None:
                for f in self._resampler.resample(None) if self._resampler else []:
                    self.container.mux(self.audio_encoder.encode(f))
                self.container.mux(self.audio_encoder.encode(None))
            self.container.close()
        except Exception as exc:  # noqa: BLE001
            self.abort()
            raise OutputError(f"{self.target}: could not finish the video ({exc})") from None
        self._closed = True
        try:
            publish(self.tmp, self.target)
        except OutputError:
            self.tmp.unlink(missing_ok=True)
            raise
        return self.target

    def abort(self) -> None:
        """Stop writing and remove the temp file; safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        try:
            container = getattr(self, "container", None)
            if container is not None:
                container.close()
        except Exception:  # noqa: BLE001 - the file is being discarded anyway
            pass
        self.tmp.unlink(missing_ok=True)

    def __enter__(self) -> "VideoFileSink":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


MS = Fraction(1, 1000)  # time base of recordings timed by a source clock


def source_timed_writer(sink: VideoFileSink, source):
    """``write(frame)`` for ``sink`` that stamps each frame with its source time
    (``source.timestamp_s``; frame number / fps for a source without one), so a 5 s file records
    as 5 s however slow or fast the masking runs. ``sink`` should use the ``MS`` time base."""
    n = [0]

    def write(frame_bgr: np.ndarray) -> None:
        t = getattr(source, "timestamp_s", None)
        sink.write_at(frame_bgr, t if t is not None else n[0] / (getattr(source, "fps", 0.0) or 30.0))
        n[0] += 1

    return write


class VirtualCameraSink:
    """Sends BGR frames to a virtual camera through pyvirtualcam (optional extra).

    Raises ``SourceError("no virtual camera device: …")`` when the package or a device is absent.
    """

    def __init__(self, width: int, height: int, fps: float) -> None:
        try:
            import pyvirtualcam
        except ImportError:
            raise SourceError(
                "no virtual camera device: pyvirtualcam is not installed (pip install 'vpd-redactor[virtualcam]')"
            ) from None
        try:
            self._cam = pyvirtualcam.Camera(width=width, height=height, fps=fps, fmt=pyvirtualcam.PixelFormat.BGR)
        except Exception as exc:  # noqa: BLE001 - pyvirtualcam raises RuntimeError with the backend's reason
            raise SourceError(
                f"no virtual camera device: {exc} (Linux: load v4l2loopback; Windows/macOS: install OBS)"
            ) from None
        self.device = getattr(self._cam, "device", "virtual camera")

    def write(self, frame_bgr: np.ndarray) -> None:
        """Send one (H, W, 3) uint8 BGR frame of the size given at creation."""
        self._cam.send(frame_bgr)

    def close(self) -> None:
        """Release the device."""
        self._cam.close()

    def __enter__(self) -> "VirtualCameraSink":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
