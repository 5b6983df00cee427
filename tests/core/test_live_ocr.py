"""OCR in live mode runs beside the frame loop: a busy OCR never slows ``process()``, its boxes
are merged and held once they arrive, and an OCR error is reported without blanking the output."""

import os
import sys
import threading

import numpy as np
import pytest

from app.core.detections import Detections, Source
from app.core.live import LiveMasker, LiveOptions
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from app.core.redact import RedactionSettings

NAMES = ("email", "phone_number")
WAIT = 10.0  # bounded waits on events; normally instant
FAST_BOX = (4, 4, 14, 12)  # where the fast detector finds something
OCR_BOX = (40, 30, 58, 40)  # where only OCR finds something


class FastDetector:
    name = "detector"
    class_names = NAMES

    def __init__(self):
        self.calls = 0
        self.tick = threading.Event()

    def detect(self, frame):
        self.calls += 1
        self.tick.set()
        return Detections(np.array([FAST_BOX], np.float32), [0.9], [0], NAMES)


class SlowOcr:
    """Blocks in ``detect`` until ``gate`` opens (a 'slow' OCR without timing), or raises."""

    name = "ocr"
    class_names = ("phone_number",)

    def __init__(self, fail=False):
        self.fail = fail
        self.calls = 0
        self.started = threading.Event()
        self.gate = threading.Event()

    def detect(self, frame):
        self.calls += 1
        self.started.set()
        self.gate.wait(WAIT)
        if self.fail:
            raise RuntimeError("ocr model exploded")
        return Detections(np.array([OCR_BOX], np.float32), [0.8], [0], self.class_names,
                          sources=[Source.OCR])  # fmt: skip


class Clock:  # frozen: results never go stale, so 'protected' depends on nothing but the code
    def __call__(self):
        return 0.0


def frame():
    return np.full((48, 64, 3), 200, np.uint8)


def masker(ocr, fast=None, **kw):
    fast = fast or FastDetector()
    opts = LiveOptions(optical_flow=False, banner=False, ocr_interval_s=kw.pop("ocr_interval_s", 100.0), **kw)
    return LiveMasker(Pipeline([fast, ocr], Policy(classes=None)), opts, clock=Clock()), fast


def masked(out, box):
    x0, y0, x1, y1 = box
    return out.protected and out.frame[(y0 + y1) // 2, (x0 + x1) // 2].max() == 0


def pump_until(m, fast, pred, n=500):
    """Process frames until ``pred(out)``; waits (bounded) for a detector tick between frames."""
    for _ in range(n):
        out = m.process(frame())
        if pred(out):
            return out
        fast.tick.clear()
        fast.tick.wait(0.05)
    raise AssertionError("condition never reached")


def step(m, fast):
    """One frame, then a bounded wait for the detector to tick on it."""
    fast.tick.clear()
    out = m.process(frame())
    fast.tick.wait(0.05)
    return out


def test_busy_ocr_does_not_stall_frames_and_its_box_is_held_after_it_arrives():
    ocr = SlowOcr()
    m, fast = masker(ocr)
    with m:
        pump_until(m, fast, lambda out: out.protected)  # first fast result
        assert ocr.started.wait(WAIT)  # OCR now busy on the first ticked frame, held at the gate
        calls = fast.calls
        outs = [pump_until(m, fast, lambda out: True) for _ in range(30)]
        pump_until(m, fast, lambda out: fast.calls >= calls + 3)  # the detector kept ticking too
        assert not ocr.gate.is_set() and ocr.calls == 1  # …all while OCR was still busy
        assert all(o.protected and masked(o, FAST_BOX) for o in outs)
        assert not any(masked(o, OCR_BOX) for o in outs)  # no OCR result yet
        ocr.gate.set()
        pump_until(m, fast, lambda out: masked(out, OCR_BOX))
        later = [step(m, fast) for _ in range(40)]
        assert all(masked(o, OCR_BOX) and masked(o, FAST_BOX) for o in later)
        # Re-applied as a hit on later detector ticks, not just coasted (bounded wait: a loaded
        # machine may tick less often than once per frame).
        hits = [sum(Source.OCR in o.hidden.sources for o in later)]

        def held_and_hit(out):
            assert masked(out, OCR_BOX) and masked(out, FAST_BOX)
            hits[0] += Source.OCR in out.hidden.sources
            return hits[0] >= 2

        pump_until(m, fast, held_and_hit)
        assert ocr.calls == 1  # interval 100 s: no second run; the first result is re-applied
        t = m.telemetry()
        assert t.ocr_results == 1 and t.ocr_error is None
    assert not any(t.name.startswith("async-ocr") and t.is_alive() for t in threading.enumerate())


def test_ocr_resubmitted_after_each_run_when_interval_is_zero():
    ocr = SlowOcr()
    ocr.gate.set()
    m, fast = masker(ocr, ocr_interval_s=0.0)
    with m:
        pump_until(m, fast, lambda out: ocr.calls >= 3 and masked(out, OCR_BOX))


def test_ocr_down_from_the_start_leaves_text_unprotected_so_the_frame_is_filled_and_says_so():
    ocr = SlowOcr(fail=True)
    ocr.gate.set()
    m, fast = masker(ocr)
    with m:
        pump_until(m, fast, lambda out: m.telemetry().ocr_error is not None)
        out = pump_until(m, fast, lambda out: True)
        assert out.protected and out.reason is None and masked(out, FAST_BOX)  # the fast tier still works
        assert out.text_paused is not None and "ocr model exploded" in out.text_paused
        assert out.frame.max() == 0  # OCR never read this picture: its text may be anywhere
        assert "ocr model exploded" in m.telemetry().ocr_error and m.telemetry().text_paused_frames >= 1


class FlakyOcr(SlowOcr):
    """Reads ``OCR_BOX`` once, then fails on every later call."""

    def detect(self, frame):
        if self.calls >= 1:
            self.calls += 1
            raise RuntimeError("ocr went away")
        return super().detect(frame)


def textured(seed=0):
    return np.random.default_rng(seed).integers(0, 255, (48, 64, 3), dtype=np.uint8)


def after_one_good_read(picture):
    """A live masker whose OCR read ``picture`` once and then failed, and a one-frame step for it."""
    ocr = FlakyOcr()
    ocr.gate.set()
    fast = FastDetector()
    m = LiveMasker(Pipeline([fast, ocr], Policy(classes=None)), LiveOptions(banner=False, ocr_interval_s=0.0),
                   clock=Clock())  # fmt: skip

    def step_frame(img):
        fast.tick.clear()
        out = m.process(img.copy())
        fast.tick.wait(0.05)
        return out

    for _ in range(500):
        out = step_frame(picture)
        if m.telemetry().ocr_results and m.telemetry().ocr_error and out.protected:
            break
    return m, step_frame


def test_ocr_failing_after_a_read_fills_only_the_regions_that_changed_since():
    base = textured()
    m, step_frame = after_one_good_read(base)
    with m:
        out = step_frame(base)
        assert out.text_paused is not None and "ocr went away" in out.text_paused
        assert masked(out, OCR_BOX)  # the last good read still covers the unchanged picture
        assert (out.frame[30:44, 2:30] == base[30:44, 2:30]).all()  # unchanged, unboxed: visible
        changed = base.copy()
        changed[4:20, 36:60] = 255 - changed[4:20, 36:60]  # new content OCR has not read
        out = step_frame(changed)
        assert out.frame[8:16, 40:56].max() == 0  # hidden: text there would be unprotected
        assert (out.frame[30:44, 2:14] == changed[30:44, 2:14]).all()


def test_ocr_failing_on_a_screen_hides_what_is_drawn_where_it_changed_not_the_flat_colour():
    screen = np.full((240, 320, 3), 235, np.uint8)  # a flat-colour screen with a few dark lines of "text"
    for y in (40, 160, 200):
        screen[y:y + 10, 60:200] = 30
    m, step_frame = after_one_good_read(screen)
    with m:
        typed = screen.copy()
        typed[100:112, 150:250] = 30  # a new line OCR has not read
        out = step_frame(typed)
        assert out.text_paused is not None and "ocr went away" in out.text_paused
        assert out.frame[100:112, 150:250].max() == 0  # what is drawn there is hidden
        assert (out.frame[84:94, 150:250] == 235).all()  # the flat colour round it, changed region or not, shows
        assert (out.frame[160:170, 60:200] == 30).all()  # unchanged lines the last read judged show


class TickClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_ocr_slower_than_its_deadline_pauses_text_protection_only():
    ocr = SlowOcr()  # never finishes: the gate stays shut until the end
    fast = FastDetector()
    clock = TickClock()
    m = LiveMasker(Pipeline([fast, ocr], Policy(classes=None)),
                   LiveOptions(optical_flow=False, banner=False, ocr_deadline_s=4.0), clock=clock)  # fmt: skip
    with m:
        out = pump_until(m, fast, lambda out: out.protected)
        assert out.text_paused is None and out.frame[35, 49].min() == 200  # within the deadline
        clock.t = 5.0
        out = pump_until(m, fast, lambda out: out.protected and out.text_paused is not None)
        assert "behind" in out.text_paused and out.frame.max() == 0
        ocr.gate.set()


def test_ocr_alone_runs_on_the_tick_and_drives_fail_closed():
    ocr = SlowOcr()
    m = LiveMasker(Pipeline([ocr], Policy(classes=None)), LiveOptions(optical_flow=False, banner=False), clock=Clock())
    with m:
        out = m.process(frame())
        assert not out.protected and out.reason == "starting"
        ocr.gate.set()
        assert m.wait_ready(WAIT)
        assert masked(m.process(frame()), OCR_BOX)


def test_set_settings_changes_style_and_policy_mid_session():
    ocr = SlowOcr()
    ocr.gate.set()
    fast = FastDetector()
    clock = TickClock()
    m = LiveMasker(Pipeline([fast, ocr], Policy(classes=None)),
                   LiveOptions(optical_flow=False, banner=False, ocr_interval_s=0.0), clock=clock)  # fmt: skip
    with m:
        pump_until(m, fast, lambda out: masked(out, FAST_BOX))
        m.set_settings(redaction=RedactionSettings(colour_bgr=(0, 0, 255)))
        out = m.process(frame())
        assert tuple(out.frame[8, 9]) == (0, 0, 255)
        m.set_settings(policy=Policy(classes=frozenset({"phone_number"})))
        assert m.settings()[0].classes == frozenset({"phone_number"})

        def later(out):  # time passes on the capture clock; the hold is counted in it
            clock.t += 0.05
            return out.frame[8, 9].min() == 200

        # The email box is no longer selected; the tracker lets it go after its hold.
        pump_until(m, fast, later)


class ScriptedRunner:
    """An ``AsyncDetector`` stand-in driven by the test: ``finish()`` completes the pending run."""

    class_names = ("phone_number",)

    def __init__(self):
        self.pending, self.done = None, None

    def submit(self, frame, index):
        self.pending = index

    @property
    def idle(self):
        return self.pending is None

    def latest(self):
        return self.done

    def finish(self):
        from app.core.async_detector import AsyncResult

        self.done, self.pending = AsyncResult(Detections.empty(self.class_names), self.pending), None


def test_ocr_deadline_stretches_to_a_slow_but_working_ocr():
    from app.core.live_ocr import OcrTier
    from app.core.motion import MotionEstimator

    clock, runner = TickClock(), ScriptedRunner()
    tier = OcrTier(runner, 0.0, 4.0, clock, MotionEstimator(), lambda d, *a: d)
    tier.tick(0, frame(), 0.0, None)  # submits frame 0
    for k, t in enumerate([3.0, 6.0, 9.0], start=1):  # each run takes 3 s
        clock.t = t
        runner.finish()
        tier.tick(k, frame(), t, None)  # collects the run, submits frame k
    assert tier.read.captured == 6.0 and tier.deadline() == 7.5  # 2.5 cycles of 3 s
    assert tier.gaps((48, 64), None, 6.0 + 5.0) == (None, None)  # 5 s old: over 4 s, within 2.5 cycles
    why, regions = tier.gaps((48, 64), None, 6.0 + 8.0)
    assert "behind" in why and regions.tolist() == [[0, 0, 64, 48]]


class NothingPrivateOcr(SlowOcr):
    """Reads the frame (after ``gate`` opens) and finds nothing private on it."""

    def detect(self, frame):
        super().detect(frame)
        return Detections.empty(self.class_names)


def test_text_no_ocr_read_has_seen_is_covered_line_by_line_until_one_judges_it():
    import cv2

    screen = np.full((360, 640, 3), 245, np.uint8)
    cv2.putText(screen, "Priya Sharma", (60, 100), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2, cv2.LINE_AA)
    ocr, fast = NothingPrivateOcr(), FastDetector()
    m = LiveMasker(Pipeline([fast, ocr], Policy(classes=None)), LiveOptions(banner=False, ocr_interval_s=0.0),
                   clock=Clock())  # fmt: skip

    def step_screen():
        fast.tick.clear()
        out = m.process(screen.copy())
        fast.tick.wait(0.05)
        return out

    text, blank = (slice(82, 98), slice(66, 128)), (slice(200, 300), slice(300, 600))  # "Priya"; empty screen
    with m:
        for _ in range(500):  # OCR held at its gate: nothing has been read yet
            out = step_screen()
            if out.protected and out.unread_text is not None:
                break
        assert out.frame[text].max() == 0  # the unread line is covered…
        assert (out.frame[blank] == screen[blank]).all()  # …and nothing else
        ocr.gate.set()
        for _ in range(500):  # the read judged it not private: the line shows again
            out = step_screen()
            if m.telemetry().ocr_results and out.protected and out.unread_text is None:
                break
        assert (out.frame[text] == screen[text]).all()


def test_a_line_read_half_out_of_view_is_carried_with_its_hidden_part():
    """OCR read the top half of a line cut by the frame's bottom edge; as the list scrolls up,
    the box it carries must cover the rest of the line that comes into view."""
    from app.core.async_detector import AsyncResult
    from app.core.live_ocr import OcrTier
    from app.core.motion import MotionEstimator

    clock, runner = TickClock(), ScriptedRunner()
    tier = OcrTier(runner, 0.0, 4.0, clock, MotionEstimator(), lambda d, *a: d)
    tier.tick(0, frame(), 0.0, None)
    cut = Detections(np.array([[10, 40, 50, 48]], np.float32), [0.8], [0], ("phone_number",), sources=[Source.OCR])
    runner.done, runner.pending = AsyncResult(cut, runner.pending), None
    boxes = tier.tick(1, frame(), 0.0, None)
    np.testing.assert_allclose(boxes.xyxy[0], [10, 40, 50, 56])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
@pytest.mark.parametrize("nice_step", [3, 6])
def test_the_ocr_worker_runs_at_the_priority_step_the_options_give(nice_step):
    """OCR's worker takes ``ocr_priority_step`` (a step far below the fast tier's starved it on a
    loaded machine), never the frame loop's own priority."""
    seen = {}

    class NiceOcr(SlowOcr):
        def detect(self, frame):
            seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            return super().detect(frame)

    ocr = NiceOcr()
    ocr.gate.set()
    start = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    m, fast = masker(ocr, ocr_priority_step=nice_step)
    try:
        pump_until(m, fast, lambda out: "nice" in seen)
    finally:
        m.close()
    assert seen["nice"] == min(19, start + nice_step)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == start


def _read_twice(second_frame, first_found, second_found):
    """An OCR tier that read a still screen (frame 0) finding ``first_found``, then a second read
    (of ``second_frame``) finding ``second_found``; the boxes it holds after the second read."""
    import cv2

    from app.core.async_detector import AsyncResult
    from app.core.live_ocr import OcrTier
    from app.core.motion import MotionEstimator, to_flow_gray

    motion, runner = MotionEstimator(), ScriptedRunner()
    tier = OcrTier(runner, 0.0, 4.0, TickClock(), motion, lambda d, *a: d)
    screen = np.full((120, 320, 3), 245, np.uint8)
    cv2.putText(screen, "Carter Blake", (20, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2, cv2.LINE_AA)
    frames = [screen, second_frame(screen)]
    for seq, (f, found) in enumerate(zip(frames, (first_found, second_found))):
        motion.step(f, seq)
        tier.tick(seq, f, float(seq), to_flow_gray(f))  # collects the last run (if any), submits this frame
        runner.done, runner.pending = AsyncResult(found, runner.pending), None
    motion.step(frames[1], 2)
    return tier.tick(2, frames[1], 2.0, to_flow_gray(frames[1]))


NAME_BOX = Detections(np.array([[20, 35, 235, 68]], np.float32), [0.8], [0], ("phone_number",), sources=[Source.OCR])


def test_a_line_judged_private_stays_hidden_when_a_later_read_of_the_same_pixels_judges_it_otherwise():
    held = _read_twice(lambda s: s.copy(), NAME_BOX, Detections.empty(("phone_number",)))
    assert held is not None and len(held) == 1
    np.testing.assert_allclose(held.xyxy[0], NAME_BOX.xyxy[0])


def test_a_line_that_changed_since_it_was_judged_goes_with_the_new_reading():
    def typed_over(s):
        s = s.copy()
        s[30:75, 15:240] = 245  # the line was deleted
        return s

    held = _read_twice(typed_over, NAME_BOX, Detections.empty(("phone_number",)))
    assert held is not None and len(held) == 0


def _line_reading(text, xyxy, p_private, spans=()):
    """A hand-made verdict on one line: every word ``p_private``, the given private spans."""
    from app.text.classifier import LineReading
    from app.text.layout import LineContext
    from app.text.lines import TextLine
    from app.text.recognisers import PiiSpan

    x0, y0, x1, y1 = xyxy
    quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    bounds, at = [], 0
    for word in text.split(" "):
        bounds.append((at, at + len(word)))
        at += len(word) + 1
    return LineReading(TextLine(text, quad), tuple(PiiSpan(s, e, "person_name", 0.9, "test") for s, e in spans),
                       tuple(bounds), np.full(len(bounds), 1.0 - p_private, np.float32), ("person_name",) * len(bounds),
                       LineContext())  # fmt: skip


def _judged_after_a_read(change_after_read=None, ink=False):
    """An OCR tier that read a still screen with a headline ("Inbox", ordinary) over a name line
    ("Carter Blake", private), then the fast detector's person-name boxes on a later frame, one
    tall box on each line, judged by that read; ``change_after_read`` edits the later frame."""
    from app.core.async_detector import AsyncResult
    from app.core.live_ocr import OcrTier
    from app.core.motion import MotionEstimator, to_flow_gray
    from app.text.screen import ScreenReading, span_box_function

    motion, runner = MotionEstimator(), ScriptedRunner()
    tier = OcrTier(runner, 0.0, 4.0, TickClock(), motion, lambda d, *a: d)
    screen = _list_screen()
    reading = ScreenReading([_line_reading("Inbox", (18, 12, 100, 34), 0.01),
                             _line_reading("Carter Blake", (18, 66, 200, 100) if ink else (18, 72, 200, 94), 0.95,
                                           spans=((0, 12),))], weak=0.25)  # fmt: skip
    if ink:  # as the OCR detector gives it: with the frame read, to trim a box to a line's ink
        reading = ScreenReading(reading.readings, frame=screen, span_box=span_box_function(screen), weak=0.25)
    later = screen.copy() if change_after_read is None else change_after_read(screen.copy())
    for seq, f in enumerate((screen, later)):
        motion.step(f, seq)
        tier.tick(seq, f, float(seq), to_flow_gray(f))
        if seq == 0:
            runner.done, runner.pending = AsyncResult(Detections.empty(("phone_number",)), 0, reading=reading), None
    boxes = np.array([[14, 8, 106, 40], [14, 64, 206, 102]], np.float32)  # each far taller than its line
    dets = Detections(boxes, [0.8, 0.8], [0, 0], ("person_name",), sources=[Source.DETECTOR] * 2)
    motion.step(later, 2)
    tier.tick(2, later, 2.0, to_flow_gray(later))
    return tier.judge(dets, 2, to_flow_gray(later))


def test_the_detectors_text_boxes_are_judged_by_the_newest_read_as_in_a_still():
    judged = _judged_after_a_read()
    assert len(judged) == 1  # the headline's box went
    x0, y0, x1, y1 = judged.xyxy[0]
    assert y0 >= 64 and y1 <= 102 and y1 - y0 <= 24  # the name's box cut to its line's rows
    assert x0 <= 18 and x1 >= 200


def test_a_detector_box_over_pixels_that_changed_since_the_read_stands():
    def new_headline(s):
        import cv2

        s[8:40, 10:130] = 245
        cv2.putText(s, "Dana Reyes", (20, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2, cv2.LINE_AA)
        return s

    judged = _judged_after_a_read(new_headline)
    assert len(judged) == 2
    assert any(np.allclose(b, [14, 8, 106, 40]) for b in judged.xyxy)


def test_a_judged_box_is_cut_to_the_ink_of_its_line_measured_on_the_frame_read():
    judged = _judged_after_a_read(ink=True)
    ys = np.flatnonzero((_list_screen([("Carter Blake", 90)]).min(axis=2) < 128).any(axis=1))  # rows of its ink
    assert len(judged) == 1
    _, y0, _, y1 = judged.xyxy[0]
    assert ys[0] - 4 <= y0 and y1 <= ys[-1] + 4  # the line's box (66-100) is far taller than its ink


def _list_screen(lines=(("Inbox", 30), ("Carter Blake", 90))):
    """A headline over a name, as the judging tests' read saw them."""
    import cv2

    screen = np.full((120, 320, 3), 245, np.uint8)
    for text, y in lines:
        cv2.putText(screen, text, (20, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2, cv2.LINE_AA)
    return screen


def test_a_line_a_read_saw_cut_by_the_frames_edge_counts_as_unread():
    """A read drops a line the frame's bottom edge cuts (it read a part of its text) and so judges
    it not at all: its pixels must still count as unread, while a line it read whole counts as read."""
    from app.core.async_detector import AsyncResult
    from app.core.live_ocr import OcrTier
    from app.core.motion import MotionEstimator, to_flow_gray
    from app.text.screen import ScreenReading

    motion, runner = MotionEstimator(), ScriptedRunner()
    tier = OcrTier(runner, 0.0, 4.0, TickClock(), motion, lambda d, *a: d)
    screen = _list_screen([("Inbox", 30), ("Carter Blake", 118)])  # the name's lower part is below the frame
    reading = ScreenReading([_line_reading("Inbox", (18, 12, 100, 34), 0.01),
                             _line_reading("Carter Blake", (18, 100, 200, 120), 0.95, spans=((0, 12),))], weak=0.25)
    motion.step(screen, 0)
    tier.tick(0, screen, 0.0, to_flow_gray(screen))
    runner.done, runner.pending = AsyncResult(Detections.empty(("phone_number",)), 0, reading=reading), None
    motion.step(screen, 1)
    tier.tick(1, screen, 1.0, to_flow_gray(screen))  # the read of frame 0 lands
    unread = tier.unread(screen.shape[:2], 1, to_flow_gray(screen))
    assert len(unread) == 1  # nothing changed since the read: only the cut line
    x0, y0, x1, y1 = unread[0]
    assert y0 <= 100 and y1 >= 119 and x0 <= 18 and x1 >= 200
    assert y0 > 34  # the headline it read whole is not in it
