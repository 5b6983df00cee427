"""bench-video: no fake detector behind the user's back, and the pan-clip scoring counts what it says."""

import cv2
import numpy as np
import pytest

from app.cli import main
from app.commands.bench_pan import FrameScore, make_pan_clip, read_frames


def test_missing_model_is_an_error_not_a_fake_detector(tmp_path, capsys):
    rc = main(["bench-video", "--parts", "export", "--model", str(tmp_path / "missing.onnx"), "--workdir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 2 and "missing.onnx" in err
    assert "fake" not in out.lower() and "oracle" not in out.lower()


def test_pan_parts_need_their_pictures(tmp_path, capsys):
    assert main(["bench-video", "--parts", "pan-export", "--workdir", str(tmp_path)]) == 2
    assert "--pan-dir" in capsys.readouterr().err


def test_pan_clip_truth_follows_the_pan_and_scoring_tells_hidden_from_leaked(tmp_path):
    rng = np.random.default_rng(0)
    img = cv2.GaussianBlur(rng.integers(0, 255, (600, 1200, 3), dtype=np.uint8), (0, 0), 3)
    img[250:300, 400:560] = 255
    clip = make_pan_clip(_write(tmp_path / "pic.png", img), np.array([[400, 250, 560, 300]]), tmp_path / "pan.mp4",
                         frames=6)  # fmt: skip
    xs = [float(t[0, 0]) for t in clip.truth]
    assert xs == sorted(xs, reverse=True) and xs[0] > xs[-1]  # the picture moves left under the view
    frames = list(read_frames(clip.path))
    assert len(frames) == 6 and frames[0].shape == (720, 1280, 3)
    raw, masked = FrameScore(), FrameScore()
    for f, truth in zip(frames, clip.truth):
        raw.add(f, f, truth)
        out = f.copy()
        for x0, y0, x1, y1 in np.round(truth).astype(int):
            out[y0:y1, x0:x1] = 0
        masked.add(f, out, truth)
    assert raw.leaked_frames == 6 and raw.hidden == 0 and max(raw.outside) == 0.0
    assert masked.leaked_frames == 0 and masked.hidden == masked.boxes == 6
    assert max(masked.outside) == 0.0 and masked.over_50 == 0


def test_ink_scoring_counts_a_name_hidden_to_its_letters_and_leaked_when_a_letter_shows():
    src = np.full((60, 200, 3), 240, np.uint8)
    src[20:32, 40:140] = 60  # the "letters" of a name; its true box has flat margins round them
    truth = np.array([[30, 12, 150, 40]], np.float32)
    tight = src.copy()
    tight[18:34, 38:142] = 0  # filled to the letters: the margins still show
    score = FrameScore()
    score.add(src, tight, truth)
    assert score.leaked_frames == 1 and score.ink_leaked_frames == 0 and score.ink_hidden == 1
    partly = tight.copy()
    partly[20:32, 120:142] = src[20:32, 120:142]  # the last letters show
    score.add(src, partly, truth)
    assert score.ink_leaked_frames == 1 and score.ink_hidden == 1
    assert "ink: 1 leaked" in score.summary()
    avatar = np.full((60, 200, 3), 240, np.uint8)
    cv2.circle(avatar, (100, 30), 20, (90, 60, 30), -1)  # a disc that fills most of its true box
    covered = avatar.copy()
    cv2.circle(covered, (100, 30), 22, (0, 0, 0), -1)  # the disc hidden, the box's corners not
    disc = FrameScore()
    disc.add(avatar, covered, np.array([[80, 10, 120, 50]], np.float32))
    assert disc.leaked_frames == 1 and disc.ink_leaked_frames == 0


def _write(path, img):
    cv2.imwrite(str(path), img)
    return path


def _plate_pan_clip(tmp_path, seed: int, frames: int):
    """A pan clip across a textured picture with one colour-key plate (the oracle's) at a known box."""
    from app.media.video_synthetic import PLATE_KEY_BGR

    rng = np.random.default_rng(seed)
    img = cv2.GaussianBlur(rng.integers(0, 255, (600, 1200, 3), dtype=np.uint8), (0, 0), 3)
    img[250:300, 400:560] = PLATE_KEY_BGR
    return make_pan_clip(_write(tmp_path / "pic.png", img), np.array([[400, 250, 560, 300]]), tmp_path / "pan.mp4",
                         frames=frames)  # fmt: skip


def test_outside_breakdown_shares_overlaps_and_adds_up_to_the_outside_share():
    from app.commands.bench_breakdown import NOT_DRAWN

    src = np.full((10, 10, 3), 128, np.uint8)
    out = src.copy()
    out[0:2, 0:2] = 0  # the true box, hidden (inside: not over-masking)
    out[2:6, 2:6] = 0  # 16 changed px outside the truth
    out[8:10, 9] = 0  # 2 changed px under no drawn region
    truth = np.array([[0, 0, 2, 2]], np.float32)
    regions = [("face held", (2, 2, 6, 6)), ("license_plate detected", (4, 4, 8, 8))]
    score = FrameScore()
    score.add(src, out, truth, regions)
    share = score.breakdown.means()
    # 96 px outside the truth; the 4 px under both boxes count half to each.
    assert share["face held"] == pytest.approx((12 + 2) / 96)
    assert share["license_plate detected"] == pytest.approx(2 / 96)
    assert share[NOT_DRAWN] == pytest.approx(2 / 96)
    assert sum(share.values()) == pytest.approx(score.outside[0]) == pytest.approx(18 / 96)
    score.add(src, src.copy(), truth, [("face held", (2, 2, 6, 6))])  # an untouched frame halves the means
    assert score.breakdown.means()["face held"] == pytest.approx(14 / 96 / 2)
    assert "face held 7.3%" in score.breakdown.summary()


def test_video_boxes_json_lists_the_drawn_boxes_per_frame(tmp_path):
    from app.commands.bench_pan import read_drawn_boxes
    from app.dev import main as dev_main
    from app.media.video_synthetic import SyntheticSource, write_synthetic_clip

    clip = write_synthetic_clip(tmp_path / "in.mp4", SyntheticSource(96, 64, 30, None), 6)
    out, boxes = tmp_path / "out.mp4", tmp_path / "boxes.jsonl"
    assert dev_main(["video", str(clip), "-o", str(out), "--fake-detector", "--stride", "2",
                     "--boxes-json", str(boxes)]) == 0  # fmt: skip
    drawn = read_drawn_boxes(boxes)
    assert sorted(drawn) == list(range(6))
    labels = {label for regions in drawn.values() for label, _ in regions}
    assert any(label.endswith(" detected") for label in labels) and any(label.endswith(" held") for label in labels)
    assert not (tmp_path / ".boxes.jsonl.part").exists()


def test_pan_looks_counts_a_true_box_hidden_only_when_a_padded_box_holds_95_percent_of_it():
    from app.commands.bench_looks import hidden_truth
    from app.core.detections import Detections
    from app.core.pipeline import Pipeline
    from app.core.policy import Policy
    from app.core.redact import RedactionSettings

    pipe = Pipeline([], Policy(classes=None), RedactionSettings(padding=0.0, min_padding_px=0))
    found = Detections(np.array([[0, 0, 100, 100]], np.float32), [0.9], [0], ("email",))
    truth = np.array([[10, 10, 50, 50], [60, 10, 110, 50], [96, 60, 196, 100]], np.float32)
    # The second box is 40/50 inside (80 %), the third 4/100.
    assert hidden_truth(pipe, found, truth, (200, 200)) == 1
    truth[1] = [60, 10, 102, 50]  # 40/42 = 95.2 % inside
    assert hidden_truth(pipe, found, truth, (200, 200)) == 2



class _CountingDetector:
    """The colour-key oracle, counting its calls (the replay must not call it again once cached)."""

    def __init__(self, blind: bool = False) -> None:
        from app.media.video_synthetic import ColourKeyDetector

        self.inner, self.blind, self.calls = ColourKeyDetector(), blind, 0
        self.name = "blind" if blind else "counting"

    @property
    def class_names(self):
        return self.inner.class_names

    def detect(self, frame):
        self.calls += 1
        found = self.inner.detect(frame)
        return found.take(np.zeros(len(found), bool)) if self.blind else found


def test_pan_replay_scores_the_export_plan_on_a_cached_first_pass(tmp_path, capsys):
    from app.commands.bench_video_replay import bench_pan_replay, first_pass_cached, replay_clip
    from app.core.pipeline import Pipeline
    from app.core.policy import Policy
    from app.media.video_export import ExportOptions

    clip = _plate_pan_clip(tmp_path, seed=1, frames=8)
    seeing = _CountingDetector()
    pipe = Pipeline([seeing], Policy(classes=None))
    first, cached = first_pass_cached(clip.path, pipe, ExportOptions(), tmp_path)
    assert not cached and seeing.calls == 4  # stride 2 over 8 frames
    score, leaks = replay_clip(clip, pipe, ExportOptions(), first)
    assert score.frames == 8 and score.leaked_frames == 0 and not leaks
    assert 0 < np.median(score.outside) < 0.05  # the padding, not the frame
    bench_pan_replay([clip], pipe, tmp_path)
    assert seeing.calls == 4 and "cached first pass" in capsys.readouterr().out
    blind = _CountingDetector(blind=True)
    blind_pipe = Pipeline([blind], Policy(classes=None))
    first, cached = first_pass_cached(clip.path, blind_pipe, ExportOptions(), tmp_path)
    assert not cached  # another detector is another cache entry
    score, leaks = replay_clip(clip, blind_pipe, ExportOptions(), first)
    assert score.leaked_frames == 8 and len(leaks[0]) == 8 and max(leaks[0]) < 0.05


def test_live_leak_breakdown_tells_the_sweep_from_held_and_detected_boxes():
    from types import SimpleNamespace

    from app.commands.bench_live_leak import _labelled
    from app.core.detections import Detections, Source
    from app.core.pipeline import Pipeline
    from app.core.policy import Policy

    names = ("email", "license_plate")
    hidden = Detections(np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], np.float32), [0.9, 0.9, 1.0],
                        [0, 1, 0], names, [4, 5, -1], [Source.DETECTOR, Source.TRACKER, Source.TRACKER])  # fmt: skip
    out = SimpleNamespace(protected=True, hidden=hidden, stale_regions=np.array([[0, 20, 5, 25]], np.float32),
                          text_regions=None, unread_text=np.array([[50, 40, 60, 45]], np.float32),
                          unseen_content=np.array([[10, 50, 20, 58]], np.float32))  # fmt: skip
    labels = [label for label, _ in _labelled(out, Pipeline([], Policy(classes=None)), (60, 80))]
    assert labels == ["email detected", "license_plate held", "email sweep", "unseen (detector behind)",
                      "text unread (OCR pending)", "unseen content (detector behind)"]
    paused = SimpleNamespace(protected=False, hidden=None, stale_regions=None, text_regions=None, unread_text=None,
                             unseen_content=None)  # fmt: skip
    assert [label for label, _ in _labelled(paused, Pipeline([]), (60, 80))] == ["paused (whole frame)"]


def test_pan_export_runs_the_export_with_the_model_it_was_given(tmp_path, monkeypatch, capsys):
    import app.commands.bench_pan as bench_pan

    img = np.full((600, 1200, 3), 128, np.uint8)
    clip = make_pan_clip(_write(tmp_path / "pic.png", img), np.array([[400, 250, 560, 300]]), tmp_path / "pan.mp4",
                         frames=3)  # fmt: skip
    commands = []

    def fake_run(cmd):
        commands.append(cmd)
        return bench_pan.RunCost(1.0, 1.0, 1.0, 1, "no export here")

    monkeypatch.setattr(bench_pan, "run_measured", fake_run)
    bench_pan.bench_pan_export([clip], tmp_path, None, 1, ["--stride 4"], ["--model", "cand.onnx"])
    assert len(commands) == 2 and all(c[c.index("--model") + 1] == "cand.onnx" for c in commands)
    assert "--stride" in commands[1] and "FAILED" in capsys.readouterr().out  # a failed export says so


def test_pan_live_scores_output_frames_against_the_source_read_again(tmp_path, capsys):
    from app.commands.bench_pan import bench_pan_live
    from app.core.live import LiveOptions
    from app.core.pipeline import Pipeline
    from app.core.policy import Policy

    clip = _plate_pan_clip(tmp_path, seed=2, frames=24)
    lines = {}
    for name, det in (("seeing", _CountingDetector()), ("blind", _CountingDetector(blind=True))):
        bench_pan_live([clip], Pipeline([det], Policy(classes=None)), LiveOptions(fps=30.0))
        lines[name] = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("pan live"))
    leaked = {k: int(v.split("leaked frames ")[1].split("/")[0]) for k, v in lines.items()}
    paused = {k: float(v.split("paused after 2 s ")[1].split("%")[0]) for k, v in lines.items()}
    assert "/24," in lines["seeing"] and leaked["seeing"] == 0
    # Blind, every protected frame shows the plate: the leaks are what the scoring read from the source again.
    assert leaked["blind"] > 0 and paused["blind"] < 100.0
