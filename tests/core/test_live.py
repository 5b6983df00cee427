"""LiveMasker fails closed: starting, stalled and erroring detectors never let raw pixels out."""

import sys
import threading

import numpy as np
import pytest

from app.core.detections import Detections
from app.core.live import LiveMasker, LiveOptions, run_live
from app.core.pipeline import Pipeline
from app.core.policy import Policy

NAMES = ("email",)
WAIT = 10.0  # bounded waits on events; normally instant


class BoxDetector:
    name = "fake"
    class_names = NAMES

    def __init__(self, gate: threading.Event | None = None, fail: bool = False):
        self.gate, self.fail = gate, fail
        self.calls = 0
        self.called = threading.Event()

    def detect(self, frame):
        self.calls += 1
        self.called.set()
        if self.fail:
            raise RuntimeError("model exploded")
        if self.gate is not None and self.calls > 1:
            self.gate.wait(WAIT)  # stalls after the first result
        return Detections(np.array([[10, 10, 40, 30]], np.float32), [0.9], [0], NAMES)


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def frame(v=200):
    return np.full((48, 64, 3), v, np.uint8)


def masker(det, clock=None, **kw):
    opts = LiveOptions(deadline_s=1.0, optical_flow=False, banner=False, **kw)
    return LiveMasker(Pipeline([det], Policy(classes=None)), opts, **({"clock": clock} if clock else {}))


def test_fully_masked_until_first_result_then_box_masked():
    det = BoxDetector()
    hold = threading.Event()
    det.detect = (lambda f, orig=det.detect: (hold.wait(WAIT), orig(f))[1])  # first call waits for us
    with masker(det) as m:
        out = m.process(frame())
        assert not out.protected and out.reason == "starting" and out.frame.max() == 0
        hold.set()
        assert m.wait_ready(WAIT)
        out = m.process(frame())
        assert out.protected and out.reason is None
        assert out.frame[20, 20].max() == 0 and out.frame[45, 60].min() == 200  # box hidden, rest visible


def test_detector_error_masks_every_frame_with_reason():
    det = BoxDetector(fail=True)
    with masker(det) as m:
        m.process(frame())
        assert det.called.wait(WAIT)
        for _ in range(100_000):  # until the detector thread has reported; bounded
            out = m.process(frame())
            assert not out.protected and out.frame.max() == 0
            if out.reason.startswith("error"):
                break
        assert "model exploded" in out.reason


def test_stalled_detector_masks_everything_after_deadline():
    gate = threading.Event()
    clock = Clock()
    det = BoxDetector(gate=gate)
    with masker(det, clock) as m:
        m.process(frame())
        assert m.wait_ready(WAIT)
        clock.t = 0.5
        assert m.process(frame()).protected  # result 0.5 s old: fine
        clock.t = 1.6  # detector now stuck in its second call; newest result 1.6 s old
        out = m.process(frame())
        assert not out.protected and out.reason == "stalled" and out.frame.max() == 0
        gate.set()


def test_banner_drawn_on_paused_frames():
    det = BoxDetector(fail=True)
    m = LiveMasker(Pipeline([det], Policy(classes=None)), LiveOptions(optical_flow=False))
    try:
        out = m.process(frame())
        assert not out.protected and out.frame[:4].max() > 0  # banner pixels on a black frame
        assert out.frame[-5:].max() == 0  # the picture itself stays hidden
    finally:
        m.close()


class EndingSource:
    def __init__(self, n, fail=False):
        self.n, self.fail, self.i = n, fail, 0

    def read(self):
        if self.i >= self.n:
            if self.fail:
                raise OSError("camera unplugged")
            return None
        self.i += 1
        return frame()


@pytest.mark.parametrize("fail,ended", [(False, "source ended"), (True, "source failed: camera unplugged")])
def test_run_live_stops_cleanly_when_source_ends_or_disconnects(fail, ended):
    got = []
    with masker(BoxDetector()) as m:
        summary = run_live(EndingSource(5, fail), m, [got.append])
    assert summary.frames == 5 and summary.ended == ended and len(got) == 5
    assert all(not f.protected or f.frame[20, 20].max() == 0 for f in got)
    assert not any(t.name == "live-detector" and t.is_alive() for t in threading.enumerate())


def test_late_detector_hides_only_what_changed_since_its_frame_then_stalls():
    gate = threading.Event()
    clock = Clock()
    det = BoxDetector(gate=gate)  # answers the first frame, then hangs
    base = np.random.default_rng(0).integers(0, 255, (48, 64, 3), dtype=np.uint8)
    m = LiveMasker(Pipeline([det], Policy(classes=None)), LiveOptions(deadline_s=1.0, stall_s=5.0, banner=False),
                   clock=clock)  # fmt: skip
    with m:
        m.process(base.copy())
        assert m.wait_ready(WAIT)
        clock.t = 1.5  # the newest result is 1.5 s old: past the deadline, not a stall
        out = m.process(base.copy())
        assert out.protected and out.stale is not None and "behind" in out.stale
        assert out.frame[20, 20].max() == 0  # the detected box is still hidden
        assert (out.frame[36:46, 2:14] == base[36:46, 2:14]).all()  # unchanged: the detector saw it
        changed = base.copy()
        changed[30:46, 44:62] = 255 - changed[30:46, 44:62]  # something the detector has not seen
        out = m.process(changed)
        assert out.protected and out.frame[34:42, 48:58].max() == 0
        clock.t = 6.0
        out = m.process(base.copy())
        assert not out.protected and out.reason == "stalled" and out.frame.max() == 0
        gate.set()


class QuickLookDetector(BoxDetector):
    """Records which look each call took."""

    def __init__(self):
        super().__init__()
        self.looks = []

    def detect(self, frame):
        self.looks.append("full")
        return super().detect(frame)

    def detect_quick(self, frame):
        self.looks.append("quick")
        return super().detect(frame)


@pytest.mark.parametrize("every, expected", [(1, ["full"] * 6), (2, ["full", "quick"] * 3),
                                             (3, ["full", "quick", "quick"] * 2)])
def test_live_fast_tier_alternates_full_and_quick_looks(every, expected):
    det = QuickLookDetector()
    with masker(det, full_look_every=every) as m:
        for n in range(1, 7):
            m.process(frame())
            assert m.wait_results(n, WAIT)
    assert det.looks == expected


def test_alternating_looks_passes_the_detector_through_and_rejects_a_bad_interval():
    from app.core.async_detector import AlternatingLooks

    det = QuickLookDetector()
    looks = AlternatingLooks(det, 2)
    assert looks.name == "fake" and looks.class_names == NAMES
    assert len(looks.detect(frame())) == 1 and len(looks.detect(frame())) == 1 and det.looks == ["full", "quick"]
    with pytest.raises(ValueError, match="full look interval"):
        AlternatingLooks(det, 0)


def test_live_options_reject_a_bad_look_interval():
    with pytest.raises(ValueError, match="full look interval"):
        LiveOptions(full_look_every=0)


def _scrolled_page():
    """A flat list screen 600 px tall: dark name bars every 60 px, a photo avatar at rows 250-290."""
    page = np.full((600, 320, 3), 245, np.uint8)
    for i, y in enumerate(range(20, 600, 60)):
        page[y:y + 14, 80:160 + 17 * (i % 5)] = 30
    page[250:290, 20:60] = np.random.default_rng(3).integers(0, 255, (40, 40, 3), dtype=np.uint8)
    return page


@pytest.mark.parametrize("cover", [True, False])
def test_content_scrolled_in_before_the_detector_looked_is_covered_but_not_the_flat_colour(cover):
    gate = threading.Event()
    clock = Clock()
    page = _scrolled_page()
    det = BoxDetector(gate=gate)  # answers the first frame, then hangs (within the deadline)
    opts = LiveOptions(deadline_s=1.0, stall_s=5.0, banner=False, changed_regions=None, lead=False,
                       cover_unseen_content=cover)  # fmt: skip
    with LiveMasker(Pipeline([det], Policy(classes=None)), opts, clock=clock) as m:
        m.process(page[0:240].copy())
        assert m.wait_ready(WAIT)
        clock.t = 0.2
        out = m.process(page[40:280].copy())  # scrolled 40 px: rows 240-280 of the page are new
        assert out.protected and out.stale is None
        avatar = out.frame[212:240, 22:58]  # the photo's part that scrolled in
        assert (avatar.max() == 0) == cover
        assert (out.frame[225:240, 250:310] == 245).all()  # flat colour beside it stays visible
        gate.set()


def test_a_camera_pan_covers_only_the_strip_it_brought_in():
    gate = threading.Event()
    clock = Clock()
    import cv2

    noise = np.random.default_rng(6).integers(0, 255, (600, 320, 3), dtype=np.uint8)
    scene = cv2.GaussianBlur(noise, (0, 0), 1.5)  # a 600 x 320 "photo": texture everywhere, no flat colour
    det = BoxDetector(gate=gate)
    opts = LiveOptions(deadline_s=1.0, stall_s=5.0, banner=False, changed_regions=None, lead=False)
    with LiveMasker(Pipeline([det], Policy(classes=None)), opts, clock=clock) as m:
        m.process(scene[0:240].copy())
        assert m.wait_ready(WAIT)
        clock.t = 0.2
        now = scene[40:280].copy()
        out = m.process(now)
        assert out.protected and out.unseen_content is not None
        assert out.frame[205:240, 100:300].max() == 0  # what panned in is hidden
        assert (out.frame[120:190, 100:300] == now[120:190, 100:300]).all()  # the rest shows
        gate.set()


class GatedEmptyDetector(BoxDetector):
    """Finds nothing: answers the first frame, then hangs until the gate opens."""

    def detect(self, frame):
        self.calls += 1
        if self.calls > 1:
            self.gate.wait(WAIT)
        return Detections.empty(NAMES)


def test_late_detector_after_a_diagonal_pan_hides_what_is_drawn_in_the_revealed_strips_not_their_flat_colour():
    rng = np.random.default_rng(1)
    screen = np.full((420, 640, 3), 235, np.uint8)  # a flat-colour screen with text-like blocks on it
    for x, y in [(130, 70), (330, 90), (180, 190), (420, 240), (150, 300), (380, 330), (260, 150), (470, 130)]:
        screen[y:y + 18, x:x + 90] = rng.integers(0, 90, (18, 90, 3))
    # A block at (120, 20)-(210, 90) of the second view: its top 20 px were outside the first view,
    # whose top edge it crosses, so the detector saw it cut off.
    screen[60 + 20:60 + 90, 60 + 120:60 + 210] = rng.integers(0, 90, (70, 90, 3))
    clock = Clock()
    gate = threading.Event()
    m = LiveMasker(Pipeline([GatedEmptyDetector(gate=gate)], Policy(classes=None)),
                   LiveOptions(deadline_s=1.0, stall_s=5.0, banner=False, lead=False), clock=clock)  # fmt: skip
    first, second = screen[100:280, 100:420].copy(), screen[60:240, 60:380].copy()  # content moves (+40, +40)
    with m:
        m.process(first)
        assert m.wait_ready(WAIT)
        clock.t = 1.5  # past the deadline: what changed since the result's frame is hidden
        out = m.process(second)
        gate.set()
    assert out.protected and out.stale is not None
    # The L-shaped strip brought in: the blocks drawn in it are hidden, each whole even where it
    # runs out of the strip; its flat colour holds nothing and shows.
    assert out.frame[10:28, 70:160].max() == 0 and out.frame[30:48, 270:320].max() == 0
    assert (out.frame[:4, :] == 235).all() and (out.frame[:, :40] == 235).all()
    assert out.frame[20:90, 120:210].max() == 0  # the block cut by the old view's edge, whole
    far = (slice(130, 180), slice(200, 320))  # seen by the detector and only moved: not the L's bounds
    assert np.array_equal(out.frame[far], second[far])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
def test_a_tier_gives_its_priority_to_the_threads_that_run_its_detectors():
    """ORT's pool threads keep the priority of the thread that built the session; a tier lowering
    its own priority lowers theirs to the same value, or they would compete with the frame loop."""
    import os
    import threading

    from app.core.async_detector import DetectorGroup, lower_thread_priority

    ready, release, ids, seen = threading.Event(), threading.Event(), {}, {}

    def helper():
        ids["helper"] = threading.get_native_id()
        ready.set()
        release.wait(10)

    class Plugin:
        name = "plugin"
        class_names = ("email",)

        def compute_threads(self):
            return (ids["helper"],)

    def tier():
        lower_thread_priority(7, [DetectorGroup([Plugin()])])
        seen["tier"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        seen["helper"] = os.getpriority(os.PRIO_PROCESS, ids["helper"])

    start = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    h = threading.Thread(target=helper)
    h.start()
    ready.wait(10)
    t = threading.Thread(target=tier)
    t.start()
    t.join(10)
    release.set()
    h.join(10)
    assert seen == {"tier": min(19, start + 7), "helper": min(19, start + 7)}
