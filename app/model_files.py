"""Where the shipped model files are: ``models/`` in a source checkout (training writes there),
``app/_models/`` inside an installed wheel (copied by ``setup.py`` at build time) and inside the
desktop bundle. No imports from the rest of the app, so every layer may use it."""

from __future__ import annotations

from pathlib import Path

SOURCE_MODELS = Path(__file__).resolve().parents[1] / "models"
PACKAGED_MODELS = Path(__file__).resolve().parent / "_models"
# What a wheel and the bundle carry from models/ (not the training checkpoint or the card).
RUNTIME_PATTERNS = ("*.onnx", "*.npz", "*.tsv.gz")


def model_path(name: str) -> Path:
    """``models/NAME`` of a checkout if it is there, else the installed copy. The returned path
    may not exist (callers report it by name)."""
    source = SOURCE_MODELS / name
    if source.is_file() or not (PACKAGED_MODELS / name).is_file():
        return source
    return PACKAGED_MODELS / name
