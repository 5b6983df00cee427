"""Packaging hook (metadata lives in pyproject.toml): a wheel carries the runtime model files of
``models/`` as ``app/_models/`` (see app/model_files.py), so ``pip install .`` gives a working
detector. A build without the VPD model fails loudly instead of installing an app that cannot
detect."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
REQUIRED_MODEL = "vpd-n.onnx"
RUNTIME_PATTERNS = ("*.onnx", "*.npz", "*.tsv.gz")  # as app/model_files.py
MIN_MODEL_BYTES = 100_000  # a Git LFS pointer or a truncated file is far smaller


def copy_models(models: Path, build_lib: Path) -> list[Path]:
    """Copy the runtime model files into ``build_lib/app/_models``; ``SystemExit`` with the reason
    when the VPD model is missing or not a real model file."""
    required = models / REQUIRED_MODEL
    if not required.is_file() or required.stat().st_size < MIN_MODEL_BYTES:
        raise SystemExit(f"error: {required} is missing or not a model file (a Git LFS pointer?). "
                         "The app cannot detect without it: fetch it (git lfs pull) or train it "
                         "(python -m training), then install again.")  # fmt: skip
    target = build_lib / "app" / "_models"
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for pattern in RUNTIME_PATTERNS:
        for f in sorted(models.glob(pattern)):
            copied.append(Path(shutil.copyfile(f, target / f.name)))
    return copied


class BuildPyWithModels(build_py):
    """``build_py`` that also copies the model files."""

    def run(self) -> None:
        super().run()
        copy_models(HERE / "models", Path(self.build_lib))


if __name__ == "__main__":
    setup(cmdclass={"build_py": BuildPyWithModels})
