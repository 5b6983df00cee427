"""Variable-frame-rate input keeps its timestamps through export."""

from fractions import Fraction

import av
import numpy as np

from app.core.pipeline import Pipeline
from app.core.policy import Policy
from app.media.video_export import ExportOptions, export_video
from app.media.video_synthetic import ColourKeyDetector

PTS_MS = [0, 33, 66, 150, 183, 400, 433, 466, 700, 733]


def write_vfr(path, w=160, h=96):
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=30)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        stream.codec_context.time_base = Fraction(1, 1000)
        for t in PTS_MS:
            frame = av.VideoFrame.from_ndarray(np.full((h, w, 3), 128, np.uint8), format="bgr24")
            frame.pts, frame.time_base = t, Fraction(1, 1000)
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)


def frame_times(path):
    with av.open(str(path)) as container:
        return [round(float(f.pts * f.time_base), 3) for f in container.decode(container.streams.video[0])]


def test_variable_frame_rate_timestamps_survive(tmp_path):
    src = tmp_path / "vfr.mp4"
    write_vfr(src)
    out = tmp_path / "out.mp4"
    export_video(src, out, Pipeline([ColourKeyDetector()], Policy(classes=None)), ExportOptions(keep_audio=False))
    before, after = frame_times(src), frame_times(out)
    assert len(after) == len(PTS_MS)
    gaps = lambda t: [round(b - a, 3) for a, b in zip(t, t[1:])]  # noqa: E731
    assert gaps(after) == gaps(before) and max(gaps(after)) > 0.2  # the long gaps are kept, not resampled
