"""``video`` and ``stream`` end to end with the fake (oracle) detector, which only the developer
entry point ``python -m app.dev`` offers."""

import json

import av
import pytest

from app.dev import main
from app.media.video_synthetic import SyntheticSource, write_synthetic_clip


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return write_synthetic_clip(tmp_path_factory.mktemp("c") / "in.mp4", SyntheticSource(96, 64, 30, None), 12,
                                tone_hz=300, metadata={"location": "+10.0000+020.0000/"})  # fmt: skip


def test_video_command_writes_redacted_file_and_report(clip, tmp_path, capsys):
    out, rep = tmp_path / "out.mp4", tmp_path / "rep.json"
    assert main(["video", str(clip), "-o", str(out), "--fake-detector", "--stride", "3", "--report", str(rep)]) == 0
    data = json.loads(rep.read_text())
    assert data["frames"] == 12 and data["audio"] == "copied" and data["detected_frames"] == 4
    with av.open(str(out)) as c:
        assert c.streams.audio and "location" not in c.metadata
    assert "metadata stripped" in capsys.readouterr().err


def test_video_command_to_folder_and_errors(clip, tmp_path, capsys):
    assert main(["video", str(clip), "-o", str(tmp_path), "--fake-detector", "--no-audio"]) == 0
    assert (tmp_path / "in_redacted.mp4").exists()
    assert main(["video", str(tmp_path / "missing.mp4"), "-o", str(tmp_path / "x.mp4"), "--fake-detector"]) == 1
    assert "file not found" in capsys.readouterr().err and not (tmp_path / "x.mp4").exists()
    assert main(["video", str(clip), "-o", str(tmp_path / "y.mp4"), "--fake-detector", "--stride", "0"]) == 2


def test_stream_from_file_records_until_source_ends(clip, tmp_path, capsys):
    rec = tmp_path / "rec.mp4"
    assert main(["stream", "--source", str(clip), "--record", str(rec), "--fake-detector"]) == 0
    err = capsys.readouterr().err
    assert "source ended: 12 frames" in err
    with av.open(str(rec)) as c:
        assert sum(1 for _ in c.decode(video=0)) == 12


def test_stream_needs_an_output_and_reports_missing_devices(tmp_path, capsys):
    assert main(["stream", "--source", "synthetic", "--fake-detector"]) == 2
    assert main(["stream", "--source", "synthetic", "--virtual-camera", "--fake-detector"]) == 2
    assert main(["stream", "--source", "camera:9", "--record", str(tmp_path / "r.mp4"), "--fake-detector"]) == 2
    err = capsys.readouterr().err
    assert "nothing to show" in err and "no virtual camera device" in err and "camera 9" in err
    assert list(tmp_path.iterdir()) == []
