"""Frame sources and sinks: specs, clear errors, clean endings, atomic video files."""

import shutil

import numpy as np
import pytest

from app.core.errors import OutputError, SourceError
from app.media.sinks import VideoFileSink, VirtualCameraSink
from app.media.sources import SyntheticSource, VideoFileSource, open_source
from app.media.video_synthetic import write_synthetic_clip


def test_synthetic_source_spec_and_ground_truth():
    with open_source("synthetic:64x48") as src:
        assert src.size == (64, 48)
        src.realtime = False
        f = src.read()
        assert f.shape == (48, 64, 3) and f.dtype == np.uint8
    assert src.read() is None  # closed
    xyxy, cls = SyntheticSource(64, 48).gt(0)
    assert xyxy.shape == (3, 4) and (xyxy[:, 2] <= 64).all() and set(cls) == {0, 1}


def test_video_file_source_reads_to_the_end_upright(tmp_path):
    clip = write_synthetic_clip(tmp_path / "c.mp4", SyntheticSource(64, 48, 30, None), 5, rotation=-90)
    src = open_source(str(clip))
    assert isinstance(src, VideoFileSource) and src.fps == pytest.approx(30) and src.size == (48, 64)
    frames = []
    while (f := src.read()) is not None:
        frames.append(f)
    src.close()
    assert len(frames) == 5 and frames[0].shape == (64, 48, 3)


@pytest.mark.parametrize("spec,message", [
    ("camera:7", "camera 7: no such camera"),
    ("nope/missing.mp4", "file not found"),
    ("screen:99", "no such monitor|screen capture unavailable"),
])  # fmt: skip
def test_unavailable_sources_raise_clear_errors(spec, message):
    with pytest.raises(SourceError, match=message):
        open_source(spec)


@pytest.mark.skipif(bool(shutil.which("xdotool") or shutil.which("wmctrl")), reason="window tools present")
def test_window_title_without_tools_says_what_to_install():
    with pytest.raises(SourceError, match="xdotool or wmctrl"):
        open_source("window:Some Meeting")


def test_virtual_camera_missing_is_a_clear_source_error():
    with pytest.raises(SourceError, match="no virtual camera device"):
        VirtualCameraSink(64, 48, 30)


def test_video_file_sink_is_atomic(tmp_path):
    target = tmp_path / "rec.mp4"
    with pytest.raises(RuntimeError):
        with VideoFileSink(target, 30, (63, 47)) as sink:
            sink.write(np.zeros((47, 63, 3), np.uint8))
            assert list(tmp_path.iterdir()) != [] and not target.exists()  # only the temp file
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
    with VideoFileSink(target, 30, (63, 47)) as sink:
        for _ in range(3):
            sink.write(np.zeros((47, 63, 3), np.uint8))
    assert [p.name for p in tmp_path.iterdir()] == ["rec.mp4"]
    with pytest.raises(OutputError, match="already exists"):
        VideoFileSink(target, 30, (64, 48))
    with pytest.raises(OutputError, match="unsupported video type"):
        VideoFileSink(tmp_path / "x.gif", 30, (64, 48))
