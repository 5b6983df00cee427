"""Recordings keep the source's timing: frame times come from the source clock, not the wall clock."""

import av
import numpy as np

from app.media.sinks import MS, VideoFileSink, source_timed_writer
from app.media.sources import VideoFileSource
from app.media.video_synthetic import SyntheticSource, write_synthetic_clip


def frame_times(path):
    with av.open(str(path)) as container:
        return [float(f.pts * f.time_base) for f in container.decode(container.streams.video[0])]


def test_file_source_reports_the_files_own_timestamps(tmp_path):
    clip = tmp_path / "clip.mp4"
    write_synthetic_clip(clip, SyntheticSource(160, 96, 30, None), 15)
    with VideoFileSource(clip) as src:
        times = []
        while src.read() is not None:
            times.append(src.timestamp_s)
    assert len(times) == 15
    assert np.allclose(times, np.arange(15) / 30, atol=1e-3)


class TimedSource:
    """A source whose clock says 30 fps however irregularly it is read."""

    fps = 30.0

    def __init__(self):
        self.timestamp_s = 0.0


def test_recording_is_as_long_as_the_source_not_the_processing(tmp_path):
    src = TimedSource()
    out = tmp_path / "rec.mp4"
    sink = VideoFileSink(out, 30.0, (64, 48), time_base=MS)
    write = source_timed_writer(sink, src)
    for i in range(150):  # 5 s of source; how long masking took does not matter
        src.timestamp_s = i / 30
        write(np.full((48, 64, 3), i % 255, np.uint8))
    sink.close()
    times = frame_times(out)
    assert len(times) == 150 and abs(times[-1] - 149 / 30) < 0.002


def test_source_without_a_clock_is_timed_by_frame_number(tmp_path):
    class Plain:
        fps = 25.0

    out = tmp_path / "rec.mp4"
    sink = VideoFileSink(out, 25.0, (64, 48), time_base=MS)
    write = source_timed_writer(sink, Plain())
    for i in range(50):
        write(np.zeros((48, 64, 3), np.uint8))
    sink.close()
    assert abs(frame_times(out)[-1] - 49 / 25) < 0.002


def test_stream_cli_records_a_5_s_file_as_5_s(tmp_path):
    from app.dev import main  # the oracle detector lives in the developer entry point only

    clip, out = tmp_path / "five.mp4", tmp_path / "rec.mp4"
    write_synthetic_clip(clip, SyntheticSource(160, 96, 30, None), 150)  # 5 s at 30 fps
    assert main(["stream", "--source", str(clip), "--record", str(out), "--fake-detector"]) == 0
    times = frame_times(out)
    # Every source frame is recorded at its own time, whatever masking cost (the first ones are
    # fully masked while the detector starts: still frames of the recording).
    # Exactly the source's frame times (the wall clock would add model loading and jitter).
    assert len(times) == 150 and np.allclose(times, np.arange(150) / 30, atol=0.002)
