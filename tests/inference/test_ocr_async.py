"""AsyncDetector: non-blocking submit, latest result with its frame index, errors reported."""

import threading

import numpy as np

from app.core.detections import Detections
from app.inference.ocr_async import AsyncDetector


class GatedDetector:
    name = "slow"
    class_names = ("email",)

    def __init__(self):
        self.gate = threading.Event()
        self.seen = []

    def detect(self, frame):
        self.gate.wait(5)
        self.seen.append(int(frame[0, 0, 0]))
        if frame[0, 0, 0] == 99:
            raise RuntimeError("boom")
        return Detections(np.array([[0, 0, 1, 1]]), [0.9], [0], self.class_names)


def frame(v):
    return np.full((4, 4, 3), v, np.uint8)


def test_submit_does_not_block_and_latest_frame_wins():
    det = GatedDetector()
    a = AsyncDetector(det)
    try:
        a.submit(frame(1), 1)  # starts (blocked on the gate)
        a.submit(frame(2), 2)
        a.submit(frame(3), 3)  # replaces 2
        assert a.latest() is None
        det.gate.set()
        assert a.wait_idle(5)
        r = a.latest()
        assert r.frame_index == 3 and len(r.detections) == 1
        assert det.seen[-1] == 3 and len(det.seen) <= 2  # at most one stale frame ran
    finally:
        a.close()


def test_error_is_reported_and_worker_survives():
    det = GatedDetector()
    det.gate.set()
    a = AsyncDetector(det)
    try:
        a.submit(frame(99), 7)
        assert a.wait_idle(5)
        assert a.latest().error.startswith("RuntimeError") and a.latest().frame_index == 7
        a.submit(frame(5), 8)
        assert a.wait_idle(5)
        assert a.latest().error is None
    finally:
        a.close()
