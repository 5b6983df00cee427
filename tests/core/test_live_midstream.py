"""Text and a face that appear mid-stream, with a detector as slow as the real one (0.3–1 s a
tick) on a fake capture clock: how long each is visible before its first mask, and never after.

The fake detector answers a frame only once the fake clock has passed that frame's capture time
plus its latency, so timing is the clock's, not the machine's (no sleeps)."""

import itertools

import cv2
import numpy as np
import pytest

from app.core.detections import Detections
from app.core.live import LiveMasker, LiveOptions
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from vpd_testkit import FakeClock as Clock
from vpd_testkit import settle_live_detector

NAMES = ("email", "face")
FPS = 30.0
H, W = 180, 320
WAIT = 10.0
TEXT = (40, 30, 140, 46, 20)  # x0, y0, x1, y1, first frame
FACE = (200, 60, 250, 120, 50)


def background():
    rng = np.random.default_rng(0)
    return cv2.GaussianBlur(rng.integers(0, 255, (H, W, 3), dtype=np.uint8), (0, 0), 2)


def render(i, bg, fps=FPS):
    f = bg.copy()
    for x0, y0, x1, y1, start in (TEXT, FACE):
        if i >= start * fps / FPS:  # the same moment in seconds at any frame rate
            f[y0:y1, x0:x1] = (255, 0, 255) if (x0, y0) == TEXT[:2] else (0, 200, 255)
            f[y0 + 4 : y1 - 4 : 3, x0 + 4 : x1 - 4 : 5] = 0  # some texture, like glyphs or eyes
    f[0, 0], f[0, 1] = i % 256, i // 256  # the oracle reads the frame number from here
    return f


class SlowOracle:
    """Finds whatever is on the image it is given (the frame, or a changed region of it, by
    colour), but answers only ``latency`` s (fake clock) after the capture of the frame."""

    name = "detector"
    class_names = NAMES

    def __init__(self, clock, latencies, fps=FPS):
        self.clock, self.latencies, self.fps = clock, itertools.cycle(latencies), fps
        self.calls = 0
        self.waiting_until = None  # the fake time this call answers at, while it waits for it

    def detect(self, frame):
        # The newest frame is the one being looked at: its capture time is the clock's now.
        due = self.clock.t + next(self.latencies)
        self.calls += 1
        self.waiting_until = due
        with self.clock.cond:
            self.clock.cond.wait_for(lambda: self.clock.t >= due, WAIT)
        self.waiting_until = None
        boxes, ids = [], []
        for k, colour in enumerate(((255, 0, 255), (0, 200, 255))):
            key = cv2.dilate(np.all(frame == colour, axis=2).astype(np.uint8), np.ones((5, 5), np.uint8))
            n, _, stats, _ = cv2.connectedComponentsWithStats(key)
            for x, y, w, h, area in stats[1:n]:
                if area >= 20:
                    boxes.append([x, y, x + w, y + h])
                    ids.append(k)
        return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.full(len(ids), 0.9), ids, NAMES)


def covered(out, box):
    x0, y0, x1, y1 = box[:4]
    return out.frame[y0:y1, x0:x1].max() == 0


def detected(out, box):
    """A hidden box (a detection, moved and held) covers ``box`` — not just a filled region."""
    x0, y0, x1, y1 = box[:4]
    b = out.hidden.xyxy if out.hidden is not None else np.zeros((0, 4))
    return bool(np.any((b[:, 0] <= x0) & (b[:, 1] <= y0) & (b[:, 2] >= x1) & (b[:, 3] >= y1)))


@pytest.mark.parametrize("latencies,fps", [((0.3,), 30.0), ((1.0,), 30.0), ((0.3, 0.7, 1.0, 0.5), 30.0),
                                          ((0.5, 1.0), 60.0)])  # an unpaced 60 fps capture, slow ticks
def test_pii_appearing_mid_stream_is_visible_at_most_two_ticks_and_never_after(latencies, fps):
    clock = Clock()
    det = SlowOracle(clock, latencies, fps)
    bg = background()
    visible = {TEXT: [], FACE: []}
    first_masked = {TEXT: None, FACE: None}
    outs = []
    with LiveMasker(Pipeline([det], Policy(classes=None)), LiveOptions(banner=False, fps=fps), clock=clock) as m:
        for i in range(int(5 * fps)):
            clock.advance(i / fps)
            settle_live_detector(m, det, clock, WAIT)  # every answer due by now lands before this frame is masked
            out = m.process(render(i, bg, fps), captured_at=i / fps)
            settle_live_detector(m, det, clock, WAIT)  # an idle detector takes this frame, however late its thread runs
            outs.append(out)
            for box in (TEXT, FACE):
                if i < box[4] * fps / FPS or not out.protected:  # a paused frame hides everything
                    continue
                if detected(out, box):
                    first_masked[box] = first_masked[box] if first_masked[box] is not None else i
                if not covered(out, box):
                    visible[box].append(i)
        clock.advance(1e9)
    worst = max(latencies)
    for box in (TEXT, FACE):
        assert first_masked[box] is not None
        # Visible only before its first detection, and never once detected (held between ticks).
        assert all(i < first_masked[box] for i in visible[box]), (box, visible[box])
        # The detector was busy with an older frame (≤ one tick), then needs one tick on a new one.
        assert len(visible[box]) <= int(np.ceil(2 * worst * fps)) + 2
    after = outs[int(2 * fps):]
    paused = sum(not o.protected for o in after) / len(after)
    assert paused <= 0.05  # the stall guard allows 2.5 typical ticks: a slow detector is no stall
