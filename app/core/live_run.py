"""The live loop: pump a frame source through a ``LiveMasker`` into sinks until it ends."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:
    from app.core.live import LiveFrame, LiveMasker


@dataclass(frozen=True)
class LiveSummary:
    """How a live session ended: frames shown, how many were fully masked, and why it stopped."""

    frames: int
    paused_frames: int
    ended: str


def capture_time(source, masker: "LiveMasker") -> float:
    """When ``source``'s newest frame was captured, on the masker's clock: the source's own stamp
    when it has one (a frame read ahead by ``LatestFrameSource`` waited for the loop), else now."""
    stamp = getattr(source, "captured_at", None)
    return float(stamp) if isinstance(stamp, (int, float)) else masker.clock()


def run_live(
    source,
    masker: "LiveMasker",
    sinks: Iterable[Callable[["LiveFrame"], None]] = (),
    stop: threading.Event | None = None,
    max_frames: int | None = None,
) -> LiveSummary:
    """Pump ``source.read()`` frames through ``masker`` into each sink until the source ends,
    ``stop`` is set or ``max_frames`` is reached. A source that raises is reported, not raised."""
    sinks = list(sinks)
    n = paused = 0
    ended = "stopped"
    while stop is None or not stop.is_set():
        if max_frames is not None and n >= max_frames:
            ended = f"{max_frames} frames done"
            break
        try:
            frame = source.read()
        except Exception as exc:  # noqa: BLE001 - a camera unplugged mid-stream, a broken file
            ended = f"source failed: {exc}"
            break
        if frame is None:
            ended = "source ended"
            break
        out = masker.process(frame, capture_time(source, masker))
        paused += not out.protected
        for sink in sinks:
            sink(out)
        n += 1
    return LiveSummary(n, paused, ended)
