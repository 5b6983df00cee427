"""Privacy tracker and bidirectional gap fill, on synthetic detections."""

import numpy as np
import pytest

from app.core.detections import Detections, Source
from app.core.gapfill import GapFillSettings, fill_gaps
from app.core.tracking import PrivacyTracker, TrackerSettings

NAMES = ("email", "face")
HW = (120, 160)


def dets(*boxes, cls=0):
    return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.full(len(boxes), 0.9), np.full(len(boxes), cls), NAMES)


def contains(outer: np.ndarray, inner: np.ndarray) -> bool:
    """True if some row of ``outer`` contains box ``inner``."""
    return bool(np.any((outer[:, 0] <= inner[0] + 1e-4) & (outer[:, 1] <= inner[1] + 1e-4)
                       & (outer[:, 2] >= inner[2] - 1e-4) & (outer[:, 3] >= inner[3] - 1e-4)))


def frame():
    return np.zeros((*HW, 3), np.uint8)


@pytest.mark.parametrize("flow", [False, True])
def test_output_is_superset_of_input_every_frame(flow):
    rng = np.random.default_rng(0)
    tr = PrivacyTracker(TrackerSettings(hold=5, optical_flow=flow))
    for _ in range(40):
        n = int(rng.integers(0, 4))
        xy = rng.uniform(0, 80, (n, 2))
        boxes = [[x, y, x + rng.uniform(5, 30), y + rng.uniform(5, 20)] for x, y in xy]
        d = dets(*boxes) if n else Detections.empty(NAMES)
        out = tr.update(d, frame())
        for b in d.xyxy:
            assert contains(out.xyxy, b)
        assert np.all(out.sources[: len(d)] == Source.DETECTOR)


def test_new_detection_masked_on_its_first_frame_and_gets_track_id():
    tr = PrivacyTracker(TrackerSettings(optical_flow=False))
    assert len(tr.update(None, frame())) == 0
    out = tr.update(dets([10, 10, 40, 30]), frame())
    assert len(out) == 1 and out.track_ids[0] >= 0 and contains(out.xyxy, np.array([10, 10, 40, 30]))


def test_lost_box_coasts_with_velocity_dilates_and_expires_after_hold():
    tr = PrivacyTracker(TrackerSettings(hold=4, optical_flow=False), NAMES)
    for i in range(3):  # moving right 5 px/frame
        out = tr.update(dets([10 + 5 * i, 10, 40 + 5 * i, 30]), frame())
    tid = out.track_ids[0]
    widths = []
    for k in range(1, 5):
        out = tr.update(Detections.empty(NAMES), frame())
        assert len(out) == 1 and out.sources[0] == Source.TRACKER and out.track_ids[0] == tid
        assert out.class_ids[0] == 0
        expected = np.array([20 + 5 * k, 10, 50 + 5 * k, 30], np.float32)  # where it would be now
        assert contains(out.xyxy, expected)
        widths.append(out.xyxy[0, 2] - out.xyxy[0, 0])
    assert widths == sorted(widths) and widths[-1] > widths[0]  # dilates with age
    assert len(tr.update(Detections.empty(NAMES), frame())) == 0  # hold over


def test_stride_frames_carry_boxes_and_reacquire_same_track():
    tr = PrivacyTracker(TrackerSettings(hold=6, optical_flow=False), NAMES)
    out1 = tr.update(dets([10, 10, 40, 30]), frame())
    assert len(tr.update(None, frame())) == 1
    out3 = tr.update(dets([14, 10, 44, 30]), frame())
    assert out3.track_ids[0] == out1.track_ids[0]


def test_fast_motion_gets_more_padding():
    def width_after(step):
        tr = PrivacyTracker(TrackerSettings(optical_flow=False), NAMES)
        for i in range(3):
            out = tr.update(dets([10 + step * i, 10, 30 + step * i, 30]), frame())
        return out.xyxy[0, 2] - out.xyxy[0, 0]
    assert width_after(8) > width_after(1) >= 20


def test_optical_flow_follows_a_textured_box():
    img = np.zeros((*HW, 3), np.uint8)
    rng = np.random.default_rng(1)
    patch = rng.integers(0, 255, (20, 30, 3), dtype=np.uint8)
    tr = PrivacyTracker(TrackerSettings(hold=10, optical_flow=True), NAMES)
    f0 = img.copy(); f0[20:40, 20:50] = patch
    tr.update(dets([20, 20, 50, 40]), f0)
    f1 = img.copy(); f1[20:40, 26:56] = patch  # moved 6 px right, not detected
    out = tr.update(Detections.empty(NAMES), f1)
    assert abs((out.xyxy[0, 0] + out.xyxy[0, 2]) / 2 - 41) < 1.0  # centred where the patch went
    assert contains(out.xyxy, np.array([26, 20, 56, 40])) and out.xyxy[0, 2] - out.xyxy[0, 0] < 30 + 2 * 12


def test_gap_fill_masks_every_frame_between_hits_both_directions():
    # An object moving 4 px/frame, detected only on frames 5 and 15 (a 9-frame gap).
    truth = {f: np.array([10 + 4 * f, 20, 40 + 4 * f, 40], np.float32) for f in range(25)}
    hits = {5: dets(truth[5]), 15: dets(truth[15])}
    hits.update({f: Detections.empty(NAMES) for f in range(25) if f not in hits})
    plan = fill_gaps(hits, 25, (200, 400), NAMES, GapFillSettings(max_gap_frames=20, hold_frames=5))
    for f in range(0, 21):  # hold 5 before the first and after the last hit
        assert contains(plan[f].xyxy, truth[f]), f
    assert len(plan[22]) == 0
    ids = {int(t) for f in range(5, 16) for t in plan[f].track_ids}
    assert len(ids) == 1 and -1 not in ids  # one track
    assert plan[10].sources[0] == Source.TRACKER and plan[5].sources[0] == Source.DETECTOR


def test_gap_fill_keeps_separate_objects_and_classes_apart():
    hits = {0: dets([0, 0, 10, 10]), 4: dets([0, 0, 10, 10])}
    hits[2] = dets([100, 100, 110, 110], cls=1)
    plan = fill_gaps(hits, 5, HW, NAMES, GapFillSettings(max_gap_frames=10, hold_frames=1))
    assert contains(plan[2].xyxy, np.array([0, 0, 10, 10]))  # filled between 0 and 4
    assert contains(plan[2].xyxy, np.array([100, 100, 110, 110]))
    assert not contains(plan[0].xyxy, np.array([100, 100, 110, 110]))  # hold 1 only


def test_gap_fill_covers_a_turnaround_between_two_hits():
    # Right at 3 px/frame until frame 16, then back: hits at 6 and 26 coincide, so a lerp stays put;
    # the speed-bounded corridor (speed seen between the earlier hits 0, 3, 6) covers the excursion.
    def truth(f):
        x = 100 + 3 * (f if f <= 16 else 32 - f)
        return np.array([x, 20, x + 30, 40], np.float32)

    hits = {f: dets(truth(f)) for f in (0, 3, 6, 26, 29)}
    plan = fill_gaps(hits, 40, (200, 400), NAMES, GapFillSettings(max_gap_frames=30, hold_frames=3))
    for f in range(0, 30):
        assert contains(plan[f].xyxy, truth(f)), f


def textured(seed=0, hw=(180, 320)):
    return np.random.default_rng(seed).integers(0, 255, (*hw, 3), dtype=np.uint8)


def test_held_box_on_a_still_picture_does_not_grow_with_age():
    img = textured()
    tr = PrivacyTracker(TrackerSettings(hold=60, optical_flow=True), NAMES)
    tr.update(dets([100, 60, 160, 90]), img)
    for _ in range(50):
        out = tr.update(Detections.empty(NAMES), img)
    # The same pixels measure no motion and no error: the box stays the size it was found.
    assert len(out) == 1 and np.allclose(out.xyxy[0], [100, 60, 160, 90])


def test_held_box_on_a_still_picture_with_a_little_noise_grows_only_where_pixels_change():
    rng = np.random.default_rng(3)
    img = textured()
    tr = PrivacyTracker(TrackerSettings(hold=60, optical_flow=True), NAMES)
    tr.update(dets([100, 60, 160, 90]), img)
    for _ in range(50):  # compression noise of a grey level or two: still the same picture
        noisy = np.clip(img.astype(int) + rng.integers(-1, 2, img.shape), 0, 255).astype(np.uint8)
        out = tr.update(Detections.empty(NAMES), noisy)
    assert np.allclose(out.xyxy[0], [100, 60, 160, 90])
    for _ in range(10):  # a real change under the box: measured, with the flow's error again
        out = tr.update(Detections.empty(NAMES), np.roll(img, 1, axis=1))
        img = np.roll(img, 1, axis=1)
    assert contains(out.xyxy, np.array([110, 60, 170, 90])) and out.xyxy[0, 2] - out.xyxy[0, 0] > 60


def test_held_box_moves_with_a_measured_pan():
    big = textured(1, (240, 560))
    tr = PrivacyTracker(TrackerSettings(hold=60, optical_flow=True), NAMES)
    tr.update(dets([100, 60, 160, 90]), np.ascontiguousarray(big[:180, 100:420]))
    for k in range(1, 21):  # the camera pans: content moves 4 px left per frame
        out = tr.update(Detections.empty(NAMES), np.ascontiguousarray(big[:180, 100 + 4 * k : 420 + 4 * k]))
    truth = np.array([20, 60, 80, 90], np.float32)
    assert contains(out.xyxy, truth)
    assert out.xyxy[0, 2] - out.xyxy[0, 0] < 60 + 2 * 16  # followed, not grown into a slab


def test_a_flat_box_no_flow_can_hold_moves_with_a_measured_pan_from_its_first_frame():
    big = textured(1, (240, 560))
    big[40:110, 180:280] = 128  # flat colour: the box's own flow finds nothing to hold
    tr = PrivacyTracker(TrackerSettings(hold=60, optical_flow=True), NAMES)
    tr.update(dets([100, 60, 160, 90]), np.ascontiguousarray(big[:180, 100:420]))
    for k in range(1, 21):  # the picture pans 4 px left a frame; the object has never been seen moving
        out = tr.update(Detections.empty(NAMES), np.ascontiguousarray(big[:180, 100 + 4 * k : 420 + 4 * k]))
    assert contains(out.xyxy, np.array([20, 60, 80, 90], np.float32))
    # It went with the picture (plus half a frame of its motion a side) instead of staying and growing.
    assert out.xyxy[0, 2] - out.xyxy[0, 0] < 60 + 2 * 10


def test_a_flat_box_seen_moving_with_a_scroll_stops_when_the_scroll_stops():
    big = textured(1, (240, 560))
    big[40:110, 180:280] = 128
    view_at = lambda k: np.ascontiguousarray(big[:180, 100 + 4 * k : 420 + 4 * k])  # noqa: E731
    tr = PrivacyTracker(TrackerSettings(hold=60, optical_flow=True), NAMES)
    for k in range(0, 11):  # found every fifth frame while the picture scrolls: its speed is the picture's
        tr.update(dets([100 - 4 * k, 60, 160 - 4 * k, 90]) if k % 5 == 0 else Detections.empty(NAMES), view_at(k))
    for _ in range(20):  # the scroll stops
        out = tr.update(Detections.empty(NAMES), view_at(10))
    assert contains(out.xyxy, np.array([60, 60, 120, 90], np.float32))
    assert out.xyxy[0, 2] - out.xyxy[0, 0] < 60 + 2 * 8


def test_a_held_box_the_border_cut_keeps_covering_what_the_picture_brings_into_view():
    big = textured(1, (240, 560))
    view_at = lambda k: np.ascontiguousarray(big[:180, 180 - 4 * k : 500 - 4 * k])  # noqa: E731
    tr = PrivacyTracker(TrackerSettings(hold=60, optical_flow=True), NAMES)
    # An object 100 px wide (x 130-230 of the picture) is half past the left border when found.
    tr.update(dets([0, 60, 50, 90]), view_at(0))
    for k in range(1, 11):  # the picture moves 4 px right a frame: more of the object comes into view
        out = tr.update(Detections.empty(NAMES), view_at(k))
    assert contains(out.xyxy, np.array([0, 60, 90, 90], np.float32))


def test_a_held_box_the_measured_motion_carried_is_not_linked_to_an_object_rows_away():
    img = textured(2, (240, 320))
    tr = PrivacyTracker(TrackerSettings(hold=60, optical_flow=True), NAMES)
    tr.update(dets([40, 20, 200, 40]), img)
    for _ in range(30):  # a name held on a still list, unseen for a second
        tr.update(Detections.empty(NAMES), img)
    out = tr.update(dets([40, 120, 200, 140]), img)  # another name, five rows down
    assert len(out) == 2 and np.allclose(out.xyxy[0], [40, 120, 200, 140])  # not the union of the two rows
    assert contains(out.xyxy, np.array([40, 20, 200, 40], np.float32))  # the held one stays until its hold ends
    assert (out.xyxy[:, 3] - out.xyxy[:, 1]).max() <= 20


def test_timed_hold_counts_detector_time_not_calls():
    tr = PrivacyTracker(TrackerSettings(hold=0.5, optical_flow=False), NAMES)
    tr.update(dets([10, 10, 40, 30]), frame(), t=0.0)
    for _ in range(100):  # a fast source, no new detector result: nothing expires
        assert len(tr.update(None, frame())) == 1
    assert len(tr.update(Detections.empty(NAMES), frame(), t=0.4)) == 1  # missed, within the hold
    assert len(tr.update(Detections.empty(NAMES), frame(), t=0.6)) == 0  # missed 0.6 s after its hit


def test_gap_fill_in_scene_coordinates_follows_a_measured_pan_tightly():
    from app.core.gapfill import ClipMotion

    n = 60
    offsets = np.stack([-6.0 * np.arange(n), np.zeros(n)], 1).astype(np.float32)  # pan: 6 px/frame left
    motion = ClipMotion(offsets, np.full(n, 0.0))
    truth = {f: np.array([300 - 6 * f, 50, 360 - 6 * f, 70], np.float32) for f in range(n)}
    hits = {f: (dets(truth[f]) if f in (0, 30) else Detections.empty(NAMES)) for f in range(n)}
    plan = fill_gaps(hits, n, (200, 400), NAMES, GapFillSettings(max_gap_frames=40, hold_frames=10), motion)
    for f in range(0, 41):
        assert contains(plan[f].xyxy, np.clip(truth[f], 0, 400)), f
        union_w = plan[f].xyxy[:, 2].max() - plan[f].xyxy[:, 0].min()
        assert union_w < 60 + 2 * 4, f  # still about the object's size: nothing grown by age


def test_boxes_of_different_size_in_both_sides_are_not_one_track():
    # Two false boxes a few frames apart, near each other but twice the size on both sides: two
    # tracks (linked, gap filling would sweep one box between them over the whole gap).
    tr = PrivacyTracker(TrackerSettings(hold=30, optical_flow=False))
    a = tr.update(dets([100, 40, 160, 100]), None)
    for _ in range(5):
        tr.update(None, None)
    b = tr.update(dets([110, 50, 230, 170]), None)
    assert a.track_ids[0] != b.track_ids[0]


def test_object_entering_past_the_frame_edge_stays_one_track():
    # Cut by the left edge: its width triples while its height stays; still the same object.
    tr = PrivacyTracker(TrackerSettings(hold=30, optical_flow=False))
    ids = {int(tr.update(dets([0, 40, w, 80]), None).track_ids[0]) for w in (10, 20, 30)}
    assert len(ids) == 1


@pytest.mark.parametrize("growth, tracks", [(0.25, 1), (0.0, 2)])
def test_gap_fill_link_growth_keeps_lines_read_a_second_apart_apart(growth, tracks):
    # Two text lines 60 px apart (three line heights), read 30 frames apart on a still picture:
    # with a gate that widens with time they are linked into one track, without it they stay two.
    hits = {f: Detections.empty(NAMES) for f in range(40)}
    hits[0], hits[30] = dets([20, 20, 120, 40]), dets([20, 80, 120, 100])
    plan = fill_gaps(hits, 40, (200, 400), NAMES, GapFillSettings(max_gap_frames=40, hold_frames=5,
                                                                   link_growth=growth))  # fmt: skip
    assert len({int(t) for p in plan for t in p.track_ids}) == tracks
    if not growth:  # nothing filled between the lines
        assert not any(contains(plan[f].xyxy, np.array([20, 50, 120, 70])) for f in range(40))


@pytest.mark.parametrize("baseline, tight", [(1, False), (8, True)])
def test_box_jitter_between_close_hits_is_not_speed(baseline, tight):
    # A still object whose detected box jitters by 6 px between hits two frames apart, then a
    # 20-frame gap: measured over 8 frames the jitter is no speed, so the gap stays box-sized.
    box = np.array([100, 100, 160, 130], np.float32)
    hits = {f: Detections.empty(NAMES) for f in range(60)}
    for f in range(0, 20, 2):
        hits[f] = dets(box + (6 if f % 4 else -6) * np.array([1, 0, 1, 0], np.float32))
    for f in range(40, 60, 2):
        hits[f] = dets(box)
    plan = fill_gaps(hits, 60, (400, 400), NAMES, GapFillSettings(hold_frames=10, speed_baseline=baseline))
    widths = [p.xyxy[:, 2].max() - p.xyxy[:, 0].min() for p in plan[20:40]]
    core = box + np.array([6, 0, -6, 0], np.float32)  # where every detection agrees it is
    assert all(contains(plan[f].xyxy, core) for f in range(20, 40))
    assert (max(widths) < 60 + 2 * 6 + 1) == tight, max(widths)


def test_a_gap_gets_the_interpolation_and_the_corridor_but_no_extrapolated_holds():
    from app.core.gapfill import TrackHits, fill_track

    # An object moving 3 px/frame right, hit on frames 0, 3, 6 and 16: the gap 6 → 16 gets one
    # interpolated box and one corridor per frame; the holds are only before 0 and after 16.
    frames = np.array([0, 3, 6, 16])
    xyxy = np.array([[100 + 3 * f, 20, 130 + 3 * f, 40] for f in frames], np.float32)
    added = fill_track(TrackHits(0, 0, 0.9, frames, xyxy), 30, GapFillSettings(hold_frames=4))
    for g in range(7, 16):
        assert len(added[g]) == 2, g
        truth = np.array([100 + 3 * g, 20, 130 + 3 * g, 40], np.float32)
        assert contains(np.stack(added[g]), truth)
    assert all(len(added[g]) == 1 for g in (17, 18, 19, 20)) and 21 not in added


@pytest.mark.parametrize("hit_frames, probe, masked", [
    # A weak box seen on three scattered frames is masked around each hit (4 frames), not for the
    # seconds between them.
    ((0, 40, 80), 20, False),
    ((0, 40, 80), 44, True),
    ((0, 40, 80), 45, False),
    # An object seen every 2nd frame, lost for 14 frames (a burst of missed looks): bridged.
    ((0, 2, 4, 6, 8, 10, 24, 26, 28, 30, 32, 34), 17, True),
    # Four hits earn a hold of 16 frames: 32 frames between two hits are bridged, 33 are not
    # (frame 19 lies beyond both holds).
    ((0, 2, 35, 37), 19, True),
    ((0, 2, 36, 38), 19, False),
])  # fmt: skip
def test_a_weak_track_is_bridged_where_its_hold_from_both_sides_covers_it(hit_frames, probe, masked):
    from app.core.gapfill import TrackHits, bridged_segments

    weak = {f: Detections.empty(NAMES) for f in range(100)}
    for f in hit_frames:
        weak[f] = Detections(np.array([[100, 100, 140, 130]], np.float32), [0.3], [0], NAMES)
    s = GapFillSettings(hold_frames=30, hold_per_hit=4)
    plan = fill_gaps(weak, 100, (400, 400), NAMES, s)
    assert contains(plan[probe].xyxy, np.array([100, 100, 140, 130])) if masked else not len(plan[probe])
    frames = np.array(hit_frames)
    track = TrackHits(0, 0, 0.3, frames, np.zeros((len(frames), 4), np.float32))
    parts = bridged_segments(track, s)
    assert np.array_equal(np.concatenate([p.frames for p in parts]), frames)  # cut, nothing lost
    assert len(bridged_segments(track, GapFillSettings())) == 1  # without hold_per_hit: bridged up to max_gap
    # One confident hit (score >= sure_score) keeps every gap bridged.
    sure = dict(weak)
    sure[hit_frames[-1]] = dets([100, 100, 140, 130])
    plan = fill_gaps(sure, 100, (400, 400), NAMES, s)
    assert contains(plan[probe].xyxy, np.array([100, 100, 140, 130]))


def _still_then_still(gap_start: int, gap_end: int, far: float):
    """One column's object seen still on frames 0..gap_start, another ``far`` px lower from gap_end."""
    hits = {f: Detections.empty(NAMES) for f in range(80)}
    for f in range(0, gap_start + 1, 2):
        hits[f] = dets([100, 100 + f % 4, 140, 140 + f % 4])  # a few px of detector jitter
    for f in range(gap_end, 80, 2):
        hits[f] = dets([100, 100 + far + f % 4, 140, 140 + far + f % 4])
    return hits


def test_two_still_objects_linked_across_a_long_gap_are_not_interpolated_between():
    """Two avatars of a scrolled list's column, each still in scene coordinates, linked across
    30 unseen frames: the rows between them are not masked as if one object crossed them."""
    from app.core.gapfill import link_tracks

    hits = _still_then_still(20, 50, 300)
    s = GapFillSettings(max_gap_frames=60, hold_frames=4, link_growth=0.5, speed_baseline=4)
    assert len(link_tracks(hits, s.max_gap_frames, s.link_growth)) == 1  # the tracker did link them
    plan = fill_gaps(hits, 80, (600, 400), NAMES, s)
    between = np.array([100, 250, 140, 290], np.float32)
    assert not any(contains(plan[f].xyxy, between) for f in range(80))
    assert all(contains(plan[f].xyxy, np.array([100, 103, 140, 140])) for f in range(0, 25))  # held 4 frames
    assert all(contains(plan[f].xyxy, np.array([100, 403, 140, 440])) for f in range(46, 80))


def test_an_object_moving_at_its_own_speed_across_a_gap_stays_bridged():
    def truth(f):
        return np.array([20 + 5 * f, 100, 60 + 5 * f, 140], np.float32)

    hits = {f: Detections.empty(NAMES) for f in range(70)}
    hits.update({f: dets(truth(f)) for f in list(range(0, 21, 2)) + list(range(40, 61, 2))})
    plan = fill_gaps(hits, 70, (300, 600), NAMES, GapFillSettings(max_gap_frames=30, hold_frames=4, speed_baseline=4))
    assert all(contains(plan[f].xyxy, truth(f)) for f in range(0, 61))


def test_a_side_cut_by_the_frame_border_is_no_motion():
    """A box pinned to the top edge of a list scrolling up shrinks there: only its uncut bottom
    side moves with the object (the live tracker's velocities)."""
    from app.core.tracking import cut_sides, object_velocity

    boxes = np.array([[0, 0, 100, 200], [0, 0, 100, 180]], np.float32)  # two frames apart
    cut = cut_sides(boxes, (720, 1280))
    assert cut[:, 0].all() and cut[:, 1].all() and not cut[:, 2:].any()
    v = (boxes[1] - boxes[0]) / 2
    assert np.allclose(object_velocity(v, cut[0] | cut[1]), [0, -10])  # the object's speed, not the centre's -5
    assert np.allclose(object_velocity(v, None), [0, -5])
    assert np.allclose(object_velocity(np.array([2, 3, 4, 5], np.float32), np.array([True, True, True, False])), [0, 5])


def test_boxes_cut_by_the_frame_border_reach_past_it_by_their_own_size():
    from app.core.tracking import extend_cut_sides

    boxes = np.array([[100, 690, 400, 720], [0, 100, 50, 140], [200, 200, 300, 240]], np.float32)
    out = extend_cut_sides(boxes, (720, 1280))
    np.testing.assert_allclose(out[0], [100, 690, 400, 750])  # half a line at the bottom: its rest below
    np.testing.assert_allclose(out[1], [-50, 100, 50, 140])
    np.testing.assert_allclose(out[2], boxes[2])  # inside the view: unchanged


def _avatars_scrolled_up(speed: float, n: int = 80):
    """A list scrolled up ``speed`` px/frame (measured): avatar A (page y 150-210) leaves through
    the top edge, seen every 2nd frame while in view; avatar B (page y 650-710) of the same column
    is seen from frame 40. Returns the hits (frame px), the motion and each avatar's frame box."""
    from app.core.gapfill import ClipMotion

    offsets = np.stack([np.zeros(n), -speed * np.arange(n)], 1).astype(np.float32)
    motion = ClipMotion(offsets, np.zeros(n))
    page = {"a": np.array([100, 150, 140, 210], np.float32), "b": np.array([100, 650, 140, 710], np.float32)}
    at = {k: {f: v + motion.shift4(f) for f in range(n)} for k, v in page.items()}
    hits = {f: Detections.empty(NAMES) for f in range(n)}
    for f in range(0, n, 2):
        seen = [np.clip(at["a"][f], 0, 400)] if at["a"][f][3] > 4 else []
        seen += [at["b"][f]] if f >= 40 and at["b"][f][1] >= 0 else []
        if seen:
            hits[f] = dets(*seen)
    return hits, motion, at


def test_an_avatar_scrolled_out_of_view_is_held_where_it_is_not_where_its_cut_box_drifts():
    """The box of an avatar leaving through the top edge shrinks; its centre drifts down the page
    at half the scroll while the avatar stands still there. Measured speeds leave the cut side out:
    the held box stays on the avatar, and A is not bridged to B across the rows between them."""
    hits, motion, at = _avatars_scrolled_up(12.0)
    s = GapFillSettings(max_gap_frames=60, hold_frames=12, link_growth=0.5, speed_baseline=4)
    plan = fill_gaps(hits, 80, (400, 400), NAMES, s, motion)
    last_a = max(f for f, d in hits.items() if len(d) and d.xyxy[0, 1] <= 1)
    for f in range(last_a + 1, last_a + 5):  # A's visible rest stays hidden, and no more than that
        visible = np.clip(at["a"][f], 0, 400)
        if visible[3] > 0:
            assert contains(plan[f].xyxy, visible), f
    for f in range(last_a + 1, 40):  # held on the avatar, not drifting down the page with its cut box's centre
        assert all(b[3] <= max(at["a"][f][3], 0) + 30 for b in plan[f].xyxy if b[1] < 150), (f, plan[f].xyxy)
    rows_between = {f: np.array([100, 230, 140, 630], np.float32) + motion.shift4(f) for f in range(80)}
    for f in range(20, 40):
        middle = np.clip(rows_between[f] + np.array([0, 200, 0, -200], np.float32), 0, 400)
        if middle[3] - middle[1] > 4:
            assert not contains(plan[f].xyxy, middle), f


def test_a_hit_boxed_short_of_both_its_neighbours_also_gets_their_interpolation():
    """A picture the detector boxes well on frames 0 and 4 and badly (half of it) on frame 2: the
    mask on frame 2 also holds what its neighbours agree on; a steady track adds nothing there."""
    from app.core.gapfill import TrackHits, fill_track

    frames = np.array([0, 2, 4])
    good = np.array([100, 100, 200, 200], np.float32)
    short = np.array([[100, 100, 200, 200], [100, 150, 200, 200], [100, 100, 200, 200]], np.float32)
    added = fill_track(TrackHits(0, 0, 0.9, frames, short), 10, GapFillSettings(hold_frames=2))
    assert contains(np.stack(added[2]), good)
    steady = fill_track(TrackHits(0, 0, 0.9, frames, np.stack([good] * 3)), 10, GapFillSettings(hold_frames=2))
    assert 2 not in steady
