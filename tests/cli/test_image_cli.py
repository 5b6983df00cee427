import dataclasses
import json
import os

import numpy as np
import pytest
from PIL import Image

from app.cli import main
from vpd_testkit import make_detector_onnx, text_frame


@pytest.fixture
def model(tmp_path):
    # 'email' at input pixels (2,10)-(30,22) of a 64×64 input.
    return make_detector_onnx(tmp_path / "m.onnx", [(1, 2, 10, 30, 22, 0.9)])


def save(path, size=64):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(text_frame(size, size, "a@b.c", (4, 20, 60, 44))[..., ::-1]).save(path)
    return path


def run(*args, model=None):
    # the tiny model only: these tests are about the command, not about the face or OCR plug-ins
    extra = ["--model", str(model), "--no-tiling", "--no-faces", "--no-ocr"] if model else []
    return main(["image", *map(str, args), *extra, "--preset", "everything"])


def test_redacts_files_and_folders_recursively_with_report(tmp_path, model, capsys):
    save(tmp_path / "in" / "a.png")
    save(tmp_path / "in" / "sub" / "b.jpg")
    (tmp_path / "in" / "notes.txt").write_text("ignored")
    report = tmp_path / "boxes.json"
    assert run(tmp_path / "in", "-o", tmp_path / "out", "--report", report, model=model) == 0
    a = np.asarray(Image.open(tmp_path / "out" / "a.png"))
    assert (a[10:22, 2:30] == 0).all()  # 64×64 frame = model input: boxes land 1:1
    assert (tmp_path / "out" / "sub" / "b.jpg").exists()
    data = json.loads(report.read_text())
    assert [f["boxes"][0]["class"] for f in data["files"]] == ["email", "email"]
    assert data["files"][0]["boxes"][0]["xyxy"] == pytest.approx([2, 10, 30, 22], abs=0.6)


def test_bad_files_fail_individually_others_still_processed(tmp_path, model, capsys):
    save(tmp_path / "in" / "good.png")
    (tmp_path / "in" / "empty.png").write_bytes(b"")
    (tmp_path / "in" / "text.png").write_text("not an image")
    code = run(tmp_path / "in", "-o", tmp_path / "out", model=model)
    err = capsys.readouterr().err
    assert code == 1
    assert "empty.png: file is empty" in err and "text.png: not a recognised image" in err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["good.png"]


def test_refuses_to_write_into_input_folder_without_suffix(tmp_path, model, capsys):
    src = save(tmp_path / "a.png")
    before = src.read_bytes()
    assert run(src, "-o", tmp_path, model=model) == 1
    assert "pass --suffix" in capsys.readouterr().err
    assert src.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["a.png", "m.onnx"]
    assert run(src, "-o", tmp_path, "--suffix", "_redacted", model=model) == 0
    assert (tmp_path / "a_redacted.png").exists() and src.read_bytes() == before


def test_missing_model_is_a_clear_usage_error(tmp_path, capsys):
    save(tmp_path / "a.png")
    code = main(["image", str(tmp_path / "a.png"), "-o", str(tmp_path / "o"), "--model", str(tmp_path / "nope.onnx")])
    assert code == 2 and "nope.onnx" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_unknown_class_name_is_rejected(tmp_path, model, capsys):
    save(tmp_path / "a.png")
    assert main(["image", str(tmp_path / "a.png"), "-o", str(tmp_path / "o"), "--model", str(model), "--no-faces", "--no-ocr",
                 "--classes", "emial"]) == 2  # fmt: skip
    assert "emial" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any folder")
def test_unreadable_folder_is_reported(tmp_path, model, capsys):
    locked = tmp_path / "in" / "locked"
    save(locked / "x.png")
    locked.chmod(0)
    try:
        assert run(tmp_path / "in", "-o", tmp_path / "out", model=model) == 1
        assert "cannot read folder" in capsys.readouterr().err
    finally:
        locked.chmod(0o755)


def test_unreadable_folder_is_reported_even_as_root(tmp_path, model, capsys, monkeypatch):
    save(tmp_path / "in" / "x.png")

    def walk_fails(top, onerror=None, **kw):
        onerror(PermissionError(13, "Permission denied", str(top)))
        return iter(())

    monkeypatch.setattr("app.commands.image.os.walk", walk_fails)
    assert run(tmp_path / "in", "-o", tmp_path / "out", model=model) == 1
    assert "cannot read folder (Permission denied)" in capsys.readouterr().err


def test_unread_text_is_reported_per_image(tmp_path, model, capsys, monkeypatch):
    from app.commands import common

    class Unread:
        name, class_names = "ocr", ("email",)
        last_notes = ("OCR could not read 1 of 1 text line(s) (1 in a script it does not cover)",)

        def detect(self, frame):
            from app.core.detections import Detections

            return Detections.empty(self.class_names)

    real_build = common.build_detectors

    def with_unread(config):
        built = real_build(config)
        return dataclasses.replace(built, detectors=(*built.detectors, Unread()))

    monkeypatch.setattr(common, "build_detectors", with_unread)
    save(tmp_path / "in" / "a.png")
    report = tmp_path / "r.json"
    assert run(tmp_path / "in", "-o", tmp_path / "out", "--report", report, model=model) == 0
    assert "note:" in capsys.readouterr().err
    assert json.loads(report.read_text())["files"][0]["notes"] == list(Unread.last_notes)


def test_text_only_in_alpha_is_hidden_over_white_and_black(tmp_path, capsys):
    from vpd_testkit import ALPHA_TEXT_BOX as TEXT_BOX, alpha_text_png, over, region

    model = make_detector_onnx(tmp_path / "m.onnx", [(1, *TEXT_BOX, 0.9)])  # the box OCR would give
    src = alpha_text_png(tmp_path / "in.png")
    assert region(over(np.asarray(Image.open(src)), 255)).std() > 40  # readable in the input
    assert main(["image", str(src), "-o", str(tmp_path / "out"), "--model", str(model), "--no-tiling",
                 "--no-faces", "--no-ocr", "--preset", "everything"]) == 0  # fmt: skip
    out = np.asarray(Image.open(tmp_path / "out" / "in.png").convert("RGBA"))
    for background in (255, 0):
        assert (region(over(out, background)) == 0).all(), f"readable over {background}"
    assert out[0, 0, 3] == 0  # the transparent background outside the box stays transparent
