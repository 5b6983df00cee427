"""bench-video: no fake detector behind the user's back, and the pan-clip scoring counts what it says."""

import cv2
import numpy as np

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


def _write(path, img):
    cv2.imwrite(str(path), img)
    return path
