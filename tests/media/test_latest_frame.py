"""``LatestFrameSource``: a live source read by its own thread, the newest frame handed out."""

import threading

import numpy as np
import pytest

from app.core.errors import SourceError
from app.core.live_run import capture_time
from app.media.sources import LatestFrameSource


class CountingSource:
    """Frames whose pixels are their number; ``gate`` (a Semaphore) releases one read at a time
    when given, so a test decides how far the capture thread gets. Raises at ``fail_at``."""

    fps = 1000.0
    size = (4, 2)

    def __init__(self, n: int, gate: threading.Semaphore | None = None, fail_at: int | None = None) -> None:
        self.n, self.gate, self.fail_at = n, gate, fail_at
        self.i = 0
        self.timestamp_s = None
        self.closed = threading.Event()
        self.reads = threading.Semaphore(0)  # released after each read that returned a frame

    def read(self):
        if self.gate is not None:
            self.gate.acquire()
        if self.fail_at is not None and self.i == self.fail_at:
            raise OSError("device unplugged")
        if self.i >= self.n:
            return None
        frame = np.full((2, 4, 3), self.i, np.uint8)
        self.timestamp_s = self.i / 30
        self.i += 1
        self.reads.release()
        return frame

    def close(self) -> None:
        self.closed.set()


def test_every_frame_when_the_reader_keeps_up():
    gate = threading.Semaphore(0)
    src = CountingSource(4, gate)
    with LatestFrameSource(src) as latest:
        got = []
        for _ in range(4):
            gate.release()
            got.append(int(latest.read()[0, 0, 0]))
            assert latest.timestamp_s == pytest.approx(got[-1] / 30) and latest.index == got[-1]
        gate.release()  # the read that finds the end
        assert latest.read() is None and latest.dropped == 0
    assert got == [0, 1, 2, 3] and src.closed.is_set()


def test_a_slow_reader_gets_the_newest_frame_and_the_skipped_ones_are_counted():
    src = CountingSource(6)
    with LatestFrameSource(src) as latest:
        for _ in range(6):  # the capture thread reads all six before the loop asks
            assert src.reads.acquire(timeout=5)
        frame = latest.read()
        assert int(frame[0, 0, 0]) == 5 and latest.index == 5 and latest.timestamp_s == pytest.approx(5 / 30)
        assert latest.dropped == 5
        assert latest.read() is None  # nothing newer: the source has ended


def test_a_failing_source_hands_out_what_it_read_then_a_clear_error():
    gate = threading.Semaphore(0)
    src = CountingSource(10, gate, fail_at=1)
    with LatestFrameSource(src) as latest:
        gate.release()
        assert int(latest.read()[0, 0, 0]) == 0
        gate.release()
        with pytest.raises(SourceError, match="stopped delivering frames: device unplugged"):
            latest.read()


def test_capture_stamp_is_the_latency_start_of_a_read_ahead_frame():
    class Masker:
        clock = staticmethod(lambda: 99.0)

    src = CountingSource(1)
    with LatestFrameSource(src, clock=lambda: 12.5) as latest:
        latest.read()
        assert capture_time(latest, Masker()) == 12.5
    assert capture_time(src, Masker()) == 99.0  # a source read on the loop's thread: captured now


def test_close_stops_the_capture_thread_and_closes_the_source():
    gate = threading.Semaphore(0)
    src = CountingSource(1000, gate)
    latest = LatestFrameSource(src)
    gate.release()
    assert latest.read() is not None
    gate.release(5)  # the thread reads on; close() must stop it mid-stream
    latest.close()
    assert src.closed.is_set() and not latest._thread.is_alive() and src.i < 1000
    assert latest.read() is None
