"""A flat card moving at constant speed under a detector that answers 0.3 s (9 frames) late, on a
fake capture clock: once its velocity is measured (two detections), no frame shows any of it.

Flat colour gives optical flow nothing to follow, so without the measured-velocity sweep of
``app.core.live_lead`` the box stays where the card was found and its leading edge shows."""


import cv2
import numpy as np
import pytest

from app.core.detections import Detections
from app.core.live import LiveMasker, LiveOptions
from app.core.live_lead import LeadTracker
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from vpd_testkit import FakeClock as Clock
from vpd_testkit import settle_live_detector

NAMES = ("email",)
FPS = 30.0
H, W = 180, 320
CARD_W, CARD_H, SPEED = 60, 20, 4.0  # px, px, px per frame
LATENCY = 0.3  # s (fake clock)
FRAMES = 60
WAIT = 10.0
MAGENTA = (255, 0, 255)


def card_box(i):
    x0 = 10 + SPEED * i
    return int(x0), 80, int(x0) + CARD_W, 80 + CARD_H


def render(i, bg):
    f = bg.copy()
    x0, y0, x1, y1 = card_box(i)
    f[y0:y1, x0:x1] = MAGENTA  # flat: nothing for optical flow to hold on to
    return f


class LateOracle:
    """Finds the magenta card on the image it is given, answering ``LATENCY`` s (fake clock) after
    the capture of that frame (the newest frame: the clock's now)."""

    name = "detector"
    class_names = NAMES

    def __init__(self, clock):
        self.clock, self.calls = clock, 0
        self.waiting_until = None  # the fake time this call answers at, while it waits for it

    def detect(self, frame):
        due = self.clock.t + LATENCY
        self.calls += 1
        self.waiting_until = due
        with self.clock.cond:
            self.clock.cond.wait_for(lambda: self.clock.t >= due, WAIT)
        self.waiting_until = None
        key = np.all(frame == MAGENTA, axis=2).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(key)
        boxes = [[x, y, x + w, y + h] for x, y, w, h, area in stats[1:n] if area >= 20]
        return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.full(len(boxes), 0.9), [0] * len(boxes),
                          NAMES)  # fmt: skip


def shown_card_frames(lead: bool) -> tuple[list[int], int]:
    """Frames (after the second detection was applied) where any card pixel is unmasked, and the
    frame the second detection was applied on."""
    clock = Clock()
    det = LateOracle(clock)
    rng = np.random.default_rng(0)
    bg = cv2.GaussianBlur(rng.integers(0, 200, (H, W, 3), dtype=np.uint8), (0, 0), 2)  # texture: a measured still picture
    shown, applied, second = [], 0, None
    opts = LiveOptions(banner=False, fps=FPS, changed_regions=None, lead=lead)
    with LiveMasker(Pipeline([det], Policy(classes=None)), opts, clock=clock) as m:
        for i in range(FRAMES):
            clock.advance(i / FPS)
            settle_live_detector(m, det, clock, WAIT)  # answers due by now land
            out = m.process(render(i, bg), captured_at=i / FPS)
            settle_live_detector(m, det, clock, WAIT)  # an idle detector takes this frame
            applied = m.telemetry().detections
            if applied >= 2 and second is None:
                second = i
            if second is None or not out.protected:
                continue
            x0, y0, x1, y1 = card_box(i)
            if out.frame[y0:y1, x0:x1].max() != 0:
                shown.append(i)
        clock.advance(1e9)
    assert second is not None and second < FRAMES // 2
    return shown, second


def test_moving_flat_card_is_never_shown_once_its_velocity_is_measured():
    shown, _ = shown_card_frames(lead=True)
    assert shown == []


def test_without_the_sweep_the_leading_edge_of_a_lagging_card_shows():
    # The failure the sweep fixes: it must exist in this set-up, or the test above proves nothing.
    shown, second = shown_card_frames(lead=False)
    assert len(shown) >= (FRAMES - second) // 2


@pytest.mark.parametrize("pan", [(0.0, 0.0), (3.0, -2.0)])
def test_sweep_runs_from_the_last_detection_to_one_frame_past_now(pan):
    class Pan:  # a measured global motion of ``pan`` px per frame
        def between(self, a, b):
            return np.array(pan, np.float32) * (b - a), 0.0

    lead = LeadTracker(Pan())
    for k, seq in enumerate((0, 9)):  # the card moves 5 px/frame against the picture
        x = 10 + (5 + pan[0]) * seq
        y = 50 + pan[1] * seq
        lead.observe(seq, seq / FPS, Detections(np.array([[x, y, x + 40, y + 10]], np.float32), [0.9], [0], NAMES), 1.0)
    sweep = lead.sweeps(20, NAMES, (1000, 1000))[0].xyxy
    assert sweep.shape == (1, 4)
    here = np.array([10 + (5 + pan[0]) * 9 + pan[0] * 11, 50 + pan[1] * 20])  # last detection, moved by the pan
    assert np.allclose(sweep[0], [here[0], here[1], here[0] + 40 + 5 * 12, here[1] + 10], atol=1e-3)


def test_a_static_object_adds_no_sweep():
    lead = LeadTracker(None)
    box = np.array([[10, 10, 50, 20]], np.float32)
    for seq in (0, 9, 18):
        lead.observe(seq, seq / FPS, Detections(box, [0.9], [0], NAMES), 1.0)
    assert len(lead.sweeps(30, NAMES, (1000, 1000))[0]) == 0


def test_untrusted_picture_motion_is_reported_and_the_growth_capped():
    class Cut:  # frame 15 is a cut: the picture motion since the detection is not known
        def between(self, a, b):
            return np.zeros(2, np.float32), (float("inf") if a < 15 <= b else 0.2)

    lead = LeadTracker(Cut())
    for seq in (0, 9):
        x = 10 + 5 * seq
        lead.observe(seq, seq / FPS, Detections(np.array([[x, 50, x + 40, 60]], np.float32), [0.9], [0], NAMES), 1.0)
    before, untrusted = lead.sweeps(12, NAMES, (H, W))
    assert before.xyxy[0, 2] - before.xyxy[0, 0] < W / 2 and not untrusted.any()  # a measured still picture
    after, untrusted = lead.sweeps(16, NAMES, (H, W))
    assert untrusted.tolist() == [True]  # the caller hides what changed around it
    assert after.xyxy[0, 3] - after.xyxy[0, 1] <= 10 + 2 * 48  # the growth itself stays capped


def test_a_list_row_is_not_continued_by_the_next_row_down():
    class Still:
        def between(self, a, b):
            return np.zeros(2, np.float32), 0.0

    lead = LeadTracker(Still())
    name = lambda y: Detections(np.array([[100, y, 500, y + 30]], np.float32), [0.6], [0], NAMES)  # noqa: E731
    lead.observe(0, 0.0, name(200), 1.0)  # one name row, then only the row below it (130 px down)
    lead.observe(9, 9 / FPS, name(330), 1.0)
    sweeps, _ = lead.sweeps(12, NAMES, (1000, 1000))
    assert len(sweeps) == 0  # nothing moves on this still list: no sweep down the rows


def test_a_still_object_coming_into_view_at_the_edge_is_not_moving():
    class Pan:  # the picture scrolls up 10 px a frame: a card enters from the bottom edge
        def between(self, a, b):
            return np.array([0.0, -10.0], np.float32) * (b - a), 0.0

    lead = LeadTracker(Pan())
    # Its top edge moves with the picture; the frame's edge (y = 300) cuts its bottom.
    for seq, top in ((0, 200), (3, 170)):
        box = np.array([[50, top, 250, 300]], np.float32)
        lead.observe(seq, seq / FPS, Detections(box, [0.9], [0], NAMES), 1.0, (300, 400))
    sweeps, _ = lead.sweeps(6, NAMES, (300, 400))
    assert len(sweeps) == 0  # the visible part grew, the card did not move against the picture


def test_rows_scrolled_in_while_the_detector_lagged_do_not_continue_rows_that_scrolled_out():
    class Scroll:  # a list scrolls up 19 px a frame; the detector answers once per 33 frames
        def between(self, a, b):
            return np.array([0.0, -19.0], np.float32) * (b - a), 0.0

    lead = LeadTracker(Scroll())
    rows = lambda *ys: Detections(np.array([[130, y, 560, y + 60] for y in ys], np.float32), [0.6] * len(ys),
                                  [0] * len(ys), NAMES)  # fmt: skip
    lead.observe(1, 1 / FPS, rows(520, 650), 1.0, (720, 1280))  # both scroll out of view by frame 34
    lead.observe(34, 34 / FPS, rows(170, 300, 430), 1.0, (720, 1280))  # rows that scrolled in meanwhile
    lead.observe(67, 67 / FPS, rows(190, 320), 1.0, (720, 1280))
    sweeps, _ = lead.sweeps(70, NAMES, (720, 1280))
    assert len(sweeps) == 0  # nothing moves against the scroll: no sweep down the list


class _StillPicture:
    def between(self, a, b):
        return np.zeros(2, np.float32), 0.0


def _avatar_list(moved_first_by: int = 0):
    """A still list's grey frame (flow pixels, scale 1): two textured avatars 130 px apart, the
    first one ``moved_first_by`` px down (where it was is then plain background)."""
    grey = np.full((400, 300), 230, np.uint8)
    for y, seed in ((40 + moved_first_by, 1), (170, 2)):
        face = cv2.GaussianBlur(np.random.default_rng(seed).integers(0, 255, (60, 60), dtype=np.uint8), (0, 0), 2)
        grey[y : y + 60, 20:80] = face
    return grey


def test_a_row_whose_avatar_is_still_in_place_is_not_continued_by_the_next_rows_avatar():
    # The detector found the first row's avatar, then 20 frames later only the second's (it missed
    # the first): the first is still where it was, so the second is another object, not it moved.
    lead = LeadTracker(_StillPicture())
    avatar = lambda y: Detections(np.array([[20, y, 80, y + 60]], np.float32), [0.6], [0], NAMES)  # noqa: E731
    grey = _avatar_list()
    lead.observe(0, 0.0, avatar(40), 1.0, (400, 300), (grey, 1.0))
    lead.observe(20, 20 / FPS, avatar(170), 1.0, (400, 300), (grey, 1.0))
    assert len(lead.sweeps(25, NAMES, (400, 300))[0]) == 0


def test_a_textured_object_that_did_move_is_still_followed():
    lead = LeadTracker(_StillPicture())
    avatar = lambda y: Detections(np.array([[20, y, 80, y + 60]], np.float32), [0.6], [0], NAMES)  # noqa: E731
    lead.observe(0, 0.0, avatar(40), 1.0, (400, 300), (_avatar_list(), 1.0))
    lead.observe(20, 20 / FPS, avatar(80), 1.0, (400, 300), (_avatar_list(moved_first_by=40), 1.0))
    sweeps = lead.sweeps(25, NAMES, (400, 300))[0]
    assert len(sweeps) == 1 and sweeps.xyxy[0, 3] >= 80 + 60 + 2 * 6  # it moves 2 px a frame: swept ahead
