"""The text-PII classifier's weights: a multinomial logistic regression over hashed token features,
stored as plain NumPy arrays in one ``.npz`` (no pickle, no scikit-learn at run time).

File layout (``np.savez_compressed``): ``weights`` (dim, C) float16, ``bias`` (C,) float32,
``classes`` (C,) str with ``"none"`` first, ``meta`` a JSON string (``format``, ``feature_version``,
``dim``, ``trained``, metrics). ``TextModelError`` explains what is wrong with a bad file.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.errors import ModelError
from app.model_files import model_path
from app.text.features import FEATURE_VERSION, READABLE_VERSIONS

FORMAT = "vpd-text-pii/1"
NONE = "none"
DEFAULT_MODEL = model_path("text-pii.npz")  # models/ of a checkout, or the copy in the wheel/bundle


class TextModelError(ModelError):
    """The text-PII classifier file is missing, unreadable or of another format/version."""


@dataclass(frozen=True)
class TextPiiModel:
    """Weights (dim, C) float32, bias (C,), class names (``none`` first) and the file's metadata."""

    weights: np.ndarray
    bias: np.ndarray
    classes: tuple[str, ...]
    meta: dict

    @property
    def feature_version(self) -> int:
        """Version of the features the weights were trained on (``app.text.features``)."""
        return int(self.meta.get("feature_version", FEATURE_VERSION))

    @property
    def dim(self) -> int:
        """Size of the hashed feature space."""
        return int(self.weights.shape[0])

    def probabilities(self, indices: list[list[int]]) -> np.ndarray:
        """Class probabilities (N, C) float32 of N tokens, each given as its hashed feature indices."""
        if not indices:
            return np.zeros((0, len(self.classes)), np.float32)
        lengths = np.array([len(i) for i in indices])
        flat = np.fromiter((j for i in indices for j in i), np.int64, int(lengths.sum()))
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        logits = np.add.reduceat(self.weights[flat], starts, axis=0) + self.bias
        logits[lengths == 0] = self.bias
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)

    def save(self, path: Path) -> None:
        """Write the model atomically (a ``.tmp`` sibling renamed into place)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, weights=self.weights.astype(np.float16), bias=self.bias.astype(np.float32),
                            classes=np.array(self.classes), meta=np.array(json.dumps(self.meta)))  # fmt: skip
        tmp.replace(path)


def load_model(path: Path | None = None) -> TextPiiModel:
    """Read a classifier file (default ``models/text-pii.npz``); ``TextModelError`` when it is
    missing, not an ``.npz`` of this format, or made for another feature version."""
    path = Path(path) if path is not None else DEFAULT_MODEL
    hint = "retrain it with `python -m training text-classifier` or reinstall the app"
    if not path.is_file():
        raise TextModelError(f"text-PII classifier {path} does not exist; {hint}")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in ("weights", "bias", "classes", "meta")}
    except KeyError as exc:
        raise TextModelError(f"text-PII classifier {path} lacks the array {exc}; {hint}") from exc
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise TextModelError(f"text-PII classifier {path} cannot be read ({type(exc).__name__}: {exc}); {hint}") from exc
    try:
        meta = json.loads(str(arrays["meta"]))
    except json.JSONDecodeError as exc:
        raise TextModelError(f"text-PII classifier {path} has unreadable metadata; {hint}") from exc
    if meta.get("format") != FORMAT or meta.get("feature_version") not in READABLE_VERSIONS:
        raise TextModelError(f"text-PII classifier {path} is format {meta.get('format')!r} / features "
                             f"v{meta.get('feature_version')}, this app reads {FORMAT} / v{READABLE_VERSIONS}; {hint}")  # fmt: skip
    weights, bias, classes = arrays["weights"], arrays["bias"], tuple(str(c) for c in arrays["classes"])
    if weights.ndim != 2 or weights.shape[1] != len(classes) or bias.shape != (len(classes),) or classes[:1] != (NONE,):
        raise TextModelError(f"text-PII classifier {path} has inconsistent shapes "
                             f"(weights {weights.shape}, bias {bias.shape}, {len(classes)} classes); {hint}")  # fmt: skip
    return TextPiiModel(weights.astype(np.float32), bias.astype(np.float32), classes, meta)
