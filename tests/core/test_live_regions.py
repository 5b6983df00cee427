"""Changed-region detection: during a scroll, only the newly revealed part is detected again, and
the result still covers everything a whole-frame detection finds."""

import cv2
import numpy as np

from app.core.detections import Detections
from app.core.live_regions import ChangedRegionDetector, RegionSettings
from app.core.motion import MotionEstimator, to_flow_gray

NAMES = ("email",)
H, W, PAGE_H = 180, 240, 1200
CARD = (255, 0, 255)


def page():
    rng = np.random.default_rng(1)
    img = cv2.GaussianBlur(rng.integers(0, 255, (PAGE_H, W, 3), dtype=np.uint8), (0, 0), 2)
    img[img.sum(axis=2) > 600] = 0  # nothing in the background looks like a card
    for k, y in enumerate(range(40, PAGE_H - 40, 70)):
        x = 20 + (k * 37) % 120
        img[y : y + 22, x : x + 90] = CARD
        img[y + 6 : y + 16 : 3, x + 5 : x + 85 : 4] = 0  # glyph-like texture
    return img


class CardOracle:
    """Finds the cards (magenta blobs) in whatever it is given; records the input sizes."""

    name = "oracle"
    class_names = NAMES

    def __init__(self):
        self.shapes = []

    def detect(self, frame):
        self.shapes.append(frame.shape[:2])
        key = np.all(frame == CARD, axis=2).astype(np.uint8)
        key = cv2.dilate(key, np.ones((3, 5), np.uint8))  # the glyph texture is part of the card
        n, _, stats, _ = cv2.connectedComponentsWithStats(key)
        boxes = [[x, y, x + w, y + h] for x, y, w, h, _ in stats[1:n]]
        return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.full(len(boxes), 0.9), np.zeros(len(boxes)),
                          NAMES)  # fmt: skip


def covers(found, truth):
    b = found.xyxy
    return all(bool(np.any((b[:, 0] <= t[0] + 1) & (b[:, 1] <= t[1] + 1) & (b[:, 2] >= t[2] - 1) & (b[:, 3] >= t[3] - 1)))
               for t in truth)  # fmt: skip


def run_scroll(frames, settings=RegionSettings(full_every=1000, min_look_s=0.0), step_px=5, every=3, cut_at=None):
    img = page()
    oracle = CardOracle()
    reference = CardOracle()
    motion = MotionEstimator()
    det = ChangedRegionDetector([oracle], NAMES, motion, settings)
    results = []
    for i in range(frames):
        y = i * step_px
        view = np.ascontiguousarray(img[y : y + H]) if i != cut_at else np.full((H, W, 3), 90, np.uint8)
        motion.step(view, i)
        if i % every == 0:
            found = det.detect(i, view, to_flow_gray(view))
            truth = reference.detect(view).xyxy
            truth = truth[(truth[:, 1] > 0) & (truth[:, 3] < H)]  # wholly in view
            results.append((i, found, truth, oracle.shapes[-1]))
    return det, results


def test_scroll_detects_only_the_revealed_band_and_misses_nothing():
    det, results = run_scroll(60)
    assert det.full_calls == 1 and det.partial_calls == len(results) - 1
    for i, found, truth, shape in results:
        assert covers(found, truth), i
    # Later calls looked at a band, not the frame: 15 px revealed, rounded up to whole 16 px blocks
    # with one block around them, plus the margin (0.2 of the short side).
    heights = [shape[0] for *_, shape in results[1:]]
    assert max(heights) <= 16 + 2 * 16 + 0.2 * H + 1 < H / 2


def test_a_cut_or_the_refresh_period_detects_the_whole_frame():
    det, results = run_scroll(30, cut_at=15)
    assert det.full_calls >= 2  # the first look and the one after the cut (frame 15 is a tick)
    assert all(covers(found, truth) for _, found, truth, _ in results)
    det, _ = run_scroll(30, settings=RegionSettings(full_every=3, min_look_s=0.0))
    assert det.full_calls == 4 and det.partial_calls == 6


def test_without_a_grey_copy_every_call_is_whole_frame():
    oracle = CardOracle()
    det = ChangedRegionDetector([oracle], NAMES, MotionEstimator())
    view = np.ascontiguousarray(page()[:H])
    det.detect(0, view, None)
    det.detect(1, view, None)
    assert det.full_calls == 2 and oracle.shapes == [(H, W), (H, W)]


def test_live_ocr_reads_only_the_scrolled_in_band_and_its_boxes_cover_every_line():
    from app.core.live import LiveMasker, LiveOptions
    from app.core.pipeline import Pipeline
    from app.core.policy import Policy

    class Nothing:
        name, class_names = "detector", NAMES

        def detect(self, frame):
            return Detections.empty(NAMES)

    ocr = CardOracle()
    ocr.name = "ocr"
    img = page()
    opts = LiveOptions(banner=False, ocr_interval_s=0.0, deadline_s=1e9, stall_s=1e9, ocr_deadline_s=1e9,
                       changed_regions=RegionSettings(min_look_s=0.0))  # the card oracle is fast
    misses, checked = [], 0
    with LiveMasker(Pipeline([Nothing(), ocr], Policy(classes=None)), opts) as m:
        for i in range(40):
            view = np.ascontiguousarray(img[5 * i : 5 * i + H])
            m.process(view)
            assert m.wait_results(i + 1, 10.0)
            assert m._ocr.runner.wait_idle(10.0)
            # This tick took in the previous read and carried it onto this frame: it must cover
            # every line wholly in view (carried from earlier reads or read in the band).
            truth = CardOracle().detect(view).xyxy
            truth = truth[(truth[:, 1] > 2) & (truth[:, 3] < H - 2)]
            if i >= 2 and m._ocr._seq == i + 1:
                checked += 1
                if not covers(m._ocr._boxes, truth):
                    misses.append(i)
    assert any(shape[0] < H for shape in ocr.shapes) and ocr.shapes[0] == (H, W)  # bands after the first read
    assert sum(shape[0] < H for shape in ocr.shapes) >= 10 and checked >= 30 and not misses


def test_a_detector_faster_than_the_change_check_looks_at_whole_frames():
    det, results = run_scroll(30, settings=RegionSettings(full_every=1000, min_look_s=10.0))
    assert det.partial_calls == 0 and all(shape == (H, W) for *_, shape in results)


def test_a_still_picture_keeps_its_boxes_without_a_detector_call_and_is_looked_at_whole_now_and_then():
    now = [0.0]
    oracle, motion = CardOracle(), MotionEstimator()
    det = ChangedRegionDetector([oracle], NAMES, motion, RegionSettings(min_look_s=0.0, still_look_s=1.0), clock=lambda: now[0])
    frame = np.ascontiguousarray(page()[:H])
    gray = to_flow_gray(frame)
    first = None
    for seq in range(6):  # six ticks within a second of the whole look: one detector call
        motion.step(frame, seq)
        found = det.detect(seq, frame, gray)
        first = found if first is None else first
        np.testing.assert_allclose(np.sort(found.xyxy, 0), np.sort(first.xyxy, 0))
        now[0] += 0.1
    assert len(oracle.shapes) == 1 and len(first) > 0
    now[0] = 1.2
    motion.step(frame, 6)
    det.detect(6, frame, gray)
    assert len(oracle.shapes) == 2 and oracle.shapes[-1] == (H, W)  # a whole look again after still_look_s
    moved = np.ascontiguousarray(page()[20 : 20 + H])  # and a scroll is looked at where it changed
    motion.step(moved, 7)
    det.detect(7, moved, to_flow_gray(moved))
    assert len(oracle.shapes) == 3 and oracle.shapes[-1][0] < H
