"""OCR in video export runs on every ``ocr_stride``-th frame only; its boxes are linked and gap
filled so every frame between OCR frames (and before the first one to see the text) is masked."""

import json
from pathlib import Path

import numpy as np
import pytest

from app.core.detections import Detections, Source
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from app.media.video_export import ExportOptions, export_video
from app.media.video_synthetic import SyntheticSource, write_synthetic_clip

N_FRAMES = 24


class CountingOcr:
    """Fake OCR: counts calls; ``box(call)`` gives the box (or None) on the ``call``-th run."""

    name = "ocr"
    class_names = ("phone_number",)

    def __init__(self, box=lambda call: (60, 40, 100, 52)):
        self.box = box
        self.calls = 0

    def detect(self, frame):
        self.calls += 1
        b = self.box(self.calls)
        if b is None:
            return Detections.empty(self.class_names)
        return Detections(np.array([b], np.float32), [0.9], [0], self.class_names, sources=[Source.OCR])


class CountingFast:
    name = "detector"
    class_names = ("email",)

    def __init__(self):
        self.calls = 0

    def detect(self, frame):
        self.calls += 1
        return Detections.empty(self.class_names)


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("clips") / "in.mp4"
    return write_synthetic_clip(path, SyntheticSource(160, 120, 30, None), N_FRAMES)


def run(clip, tmp_path, ocr, **opts):
    fast = CountingFast()
    seen: dict[int, np.ndarray] = {}
    pipeline = Pipeline([fast, ocr], Policy(classes=None))
    options = ExportOptions(keep_audio=False, **opts)
    rep = export_video(clip, tmp_path / "out.mp4", pipeline, options, on_frame=lambda i, d: seen.__setitem__(i, d.xyxy))
    assert sorted(seen) == list(range(N_FRAMES))
    return rep, fast, seen


def covers(boxes: np.ndarray, box) -> bool:
    x0, y0, x1, y1 = box
    return any(b[0] <= x0 and b[1] <= y0 and b[2] >= x1 and b[3] >= y1 for b in boxes)


@pytest.mark.parametrize("bidirectional", [True, False])
def test_ocr_runs_every_ocr_stride_frames_and_box_is_masked_in_between(clip, tmp_path, bidirectional):
    ocr = CountingOcr()
    rep, fast, seen = run(clip, tmp_path, ocr, stride=2, ocr_stride=10, bidirectional=bidirectional)
    # frames 0, 10, 20, and in the two-pass export the last one, 23 (the one-pass export cannot wait for it)
    assert ocr.calls == rep.ocr_frames == (4 if bidirectional else 3)
    assert fast.calls == N_FRAMES // 2  # the fast detectors keep their own stride
    assert all(covers(seen[i], (60, 40, 100, 52)) for i in range(N_FRAMES))


def test_default_ocr_rate_is_about_one_second_of_frames(clip, tmp_path):
    ocr = CountingOcr()
    rep, _, seen = run(clip, tmp_path, ocr)  # 30 fps clip, 24 frames: OCR on frame 0 and the last
    assert ocr.calls == 2 and rep.ocr_frames == 2
    assert all(covers(seen[i], (60, 40, 100, 52)) for i in range(N_FRAMES))


def test_text_first_seen_by_a_later_ocr_frame_is_back_filled(clip, tmp_path):
    ocr = CountingOcr(lambda call: None if call == 1 else (60, 40, 100, 52))  # appears after frame 0
    _, _, seen = run(clip, tmp_path, ocr, stride=1, ocr_stride=10)
    assert ocr.calls == 4
    assert all(covers(seen[i], (60, 40, 100, 52)) for i in range(1, N_FRAMES))


def test_text_that_comes_into_view_after_the_last_scheduled_read_is_read_on_the_last_frame(clip, tmp_path):
    ocr = CountingOcr(lambda call: (60, 40, 100, 52) if call == 4 else None)  # only after frame 20
    _, _, seen = run(clip, tmp_path, ocr, stride=1, ocr_stride=10)
    assert ocr.calls == 4
    assert all(covers(seen[i], (60, 40, 100, 52)) for i in range(21, N_FRAMES))


def test_moving_text_is_covered_between_ocr_frames(clip, tmp_path):
    def at(frame):  # the text moves 2 px a frame to the right
        return (10 + 2 * frame, 40, 50 + 2 * frame, 52)

    ocr = CountingOcr(lambda call: at(10 * (call - 1)))
    _, _, seen = run(clip, tmp_path, ocr, stride=2, ocr_stride=10)
    assert all(covers(seen[i], at(i)) for i in range(21))  # up to the last OCR frame


@pytest.mark.parametrize(
    "stride,ocr_stride,every,fps,expected",
    [(2, None, 1.0, 30.0, 30), (2, None, 0.0, 30.0, 2), (4, 3, 1.0, 30.0, 4), (1, 7, 1.0, 25.0, 7),
     (2, None, 0.5, 0, 15)],  # fmt: skip
)
def test_ocr_frames(stride, ocr_stride, every, fps, expected):
    assert ExportOptions(stride=stride, ocr_stride=ocr_stride, ocr_every_s=every).ocr_frames(fps) == expected


@pytest.mark.parametrize("kw", [{"ocr_stride": 0}, {"ocr_every_s": -1.0}])
def test_bad_ocr_options_rejected(kw):
    with pytest.raises(ValueError):
        ExportOptions(**kw)


def test_cli_ocr_every_reaches_the_export_and_is_validated(clip, tmp_path, capsys):
    from app.dev import main  # the oracle lives in the developer entry point only

    out, rep = tmp_path / "o.mp4", tmp_path / "r.json"
    assert main(["video", str(clip), "-o", str(out), "--fake-detector", "--ocr-every", "0.5", "--report", str(rep)]) == 0
    assert json.loads(rep.read_text())["ocr_every_s"] == 0.5
    assert main(["video", str(clip), "-o", str(tmp_path / "x.mp4"), "--fake-detector", "--ocr-every", "-1"]) == 2
    assert main(["stream", "--source", "synthetic", "--record", str(tmp_path / "s.mp4"), "--fake-detector",
                 "--ocr-every", "-1"]) == 2  # fmt: skip
    assert "--ocr-every must be" in capsys.readouterr().err


def test_cli_stream_full_look_every_is_validated(tmp_path, capsys):
    from app.dev import main

    assert main(["stream", "--source", "synthetic", "--record", str(tmp_path / "s.mp4"), "--fake-detector",
                 "--full-look-every", "0"]) == 2  # fmt: skip
    assert "--full-look-every must be ≥ 1" in capsys.readouterr().err
    assert not (tmp_path / "s.mp4").exists()


def test_detector_text_boxes_are_judged_by_the_nearest_reading_moved_by_the_measured_motion(monkeypatch):
    import app.media.video_export as ve
    from app.core.gapfill import ClipMotion

    calls = []

    def judge(dets, lines, weak, to_reading, sources=(Source.DETECTOR,)):
        calls.append((lines, tuple(np.round(to_reading, 3))))
        return dets.take(np.zeros(len(dets), bool))  # the reading contradicts every box

    monkeypatch.setattr(ve, "judge_by_reading", judge)
    box = Detections(np.array([[10, 10, 50, 20]], np.float32), [0.6], [0], ("person_name",), sources=[Source.DETECTOR])
    hits = {f: box for f in range(0, 40, 2)}
    offsets = np.stack([np.zeros(40), -5.0 * np.arange(40)], 1).astype(np.float32)  # scrolling 5 px a frame
    variance = np.zeros(40)
    variance[25:] = 100.0  # frame 25 is a cut: its error is not measured
    readings = {0: ("read at 0", 0.35), 30: ("read at 30", 0.35)}
    out = ve.judged_hits(hits, readings, ClipMotion(offsets, variance), reach=16)
    judged = {f for f, d in out.items() if not len(d)}
    # Frames up to 14 take the reading of frame 0; 16-24 that of 30 across the cut, so they keep their box.
    assert judged == set(range(0, 16, 2)) | set(range(26, 40, 2))
    assert ("read at 0", (0.0, 5.0 * 4)) in calls  # frame 4's box lies 20 px lower on frame 0
    assert ("read at 30", (0.0, 5.0 * 6)) in calls  # and frame 36's lies 30 px lower on frame 30


def test_boxes_held_between_detections_are_judged_by_the_reading_too(monkeypatch):
    """A false text box detected before its line was read (it scrolled in) and held on afterwards
    goes on the held frames a reading covers, as a detected box would."""
    import app.media.video_export as ve
    from types import SimpleNamespace
    from app.core.gapfill import ClipMotion

    def judge(dets, lines, weak, to_reading, sources=(Source.DETECTOR,)):
        return dets.take(dets.sources != Source.TRACKER) if Source.TRACKER in sources else dets

    monkeypatch.setattr(ve, "judge_by_reading", judge)
    box = Detections(np.array([[10, 10, 50, 20]], np.float32), [0.6], [0], ("person_name",), sources=[Source.DETECTOR])
    motion = ClipMotion(np.zeros((12, 2), np.float32), np.zeros(12))
    read = SimpleNamespace(line=SimpleNamespace(quad=np.float32([[10, 40], [60, 40], [60, 60], [10, 60]])))
    args = ({0: box}, {}, 12, (100, 200), 30.0, ("person_name",), ExportOptions(), motion)
    held = ve.plan_boxes(*args)
    judged = ve.plan_boxes(*args, readings={6: ([read], 0.35)})
    assert len(held[0]) == len(judged[0]) == 1  # the detection itself is the detector's
    held_frames = [f for f in range(1, 12) if len(held[f])]
    assert held_frames and all(held[f].sources[0] == Source.TRACKER for f in held_frames)
    assert not any(len(judged[f]) for f in held_frames)


def test_lines_cut_by_the_frame_border_are_not_used_to_judge_other_frames():
    from types import SimpleNamespace
    from app.text.screen import whole_lines

    def reading(x0, y0, x1, y1):
        return SimpleNamespace(line=SimpleNamespace(quad=np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])))

    inside, bottom, left = reading(20, 30, 200, 60), reading(20, 690, 200, 719), reading(0, 300, 150, 330)
    assert whole_lines([inside, bottom, left], (720, 1280)) == [inside]
