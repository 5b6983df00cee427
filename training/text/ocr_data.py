"""Rendered screens read by the app's real OCR, each line labelled by overlap with the drawn boxes.

One JSON file per scene under ``data/text_ocr/<seed>/`` (git-ignored) caches what RapidOCR read, so
training runs again in seconds and the costly OCR (≈1 s per screen on a CPU) runs once. A line's
characters get the class of the text-PII box their centre falls in (with vertical overlap); the
rest are "not private" — UI labels, headlines, message bodies, prices, order numbers and dates.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from app.core.policy import TEXT_PII
from app.text.lines import TextLine, char_boxes

log = logging.getLogger(__name__)

DEFAULT_DIR = Path("data/text_ocr")


@dataclass(frozen=True)
class ReadScene:
    """What OCR read on one rendered scene, with the scene's drawn labels ``[(class, xyxy)]``;
    ``char_classes``: the class of each character of each line when known directly (text-level
    variants, ``training.text.augment``), else None and the labels decide (``char_labels``)."""

    name: str
    width: int
    height: int
    lines: tuple[TextLine, ...]
    labels: tuple[tuple[str, tuple[float, float, float, float]], ...]
    char_classes: tuple[tuple[str | None, ...], ...] | None = None


def _line_json(line: TextLine) -> dict:
    return {"text": line.text, "quad": np.round(line.quad, 1).tolist(), "score": round(line.score, 4),
            "words": [[w, np.round(q, 1).tolist()] for w, q in line.words]}  # fmt: skip


def _line_from(d: dict) -> TextLine:
    return TextLine(d["text"], np.array(d["quad"], np.float32), float(d["score"]),
                    tuple((w, np.array(q, np.float32)) for w, q in d["words"]))  # fmt: skip


def load_scene(path: Path) -> ReadScene:
    """One cached scene."""
    d = json.loads(path.read_text())
    return ReadScene(d["name"], d["width"], d["height"], tuple(_line_from(x) for x in d["lines"]),
                     tuple((c, tuple(b)) for c, b in d["labels"]))  # fmt: skip


def char_labels(line: TextLine, labels) -> list[str | None]:
    """Text-PII class of each character of ``line.text`` (None: not private). A character belongs to
    a box when its centre lies inside it horizontally and the line and box overlap vertically by at
    least half the smaller height."""
    out: list[str | None] = [None] * len(line.text)
    if not line.text:
        return out
    boxes = char_boxes(line)
    cx = (boxes[:, 0] + boxes[:, 2]) / 2
    ly0, ly1 = float(boxes[:, 1].min()), float(boxes[:, 3].max())
    for cls, (x0, y0, x1, y1) in labels:
        if cls not in TEXT_PII:
            continue
        overlap = min(ly1, y1) - max(ly0, y0)
        if overlap < 0.5 * min(ly1 - ly0, y1 - y0):
            continue
        pad = 0.15 * (y1 - y0)
        for k in np.flatnonzero((cx >= x0 - pad) & (cx <= x1 + pad)):
            if not line.text[k].isspace():
                out[k] = cls
    return out


def scene_folder(out_dir: Path, seed: int, varied: bool = False, ordinary: bool = False) -> Path:
    """Cache folder of one seed: ``<out_dir>/<seed>``, ``<out_dir>/varied-<seed>`` for the restyled
    scenes or ``<out_dir>/ordinary-<seed>`` for the ordinary-text ones (other scene tables, so
    never mixed with the plain ones)."""
    return out_dir / (f"ordinary-{seed}" if ordinary else f"varied-{seed}" if varied else str(seed))


def generate(out_dir: Path, seed: int, count: int, progress: bool = True, extra: bool = False, varied: bool = False,
             ordinary: bool = False) -> Path:  # fmt: skip
    """Render ``count`` scenes of ``seed`` (from ``EXTRA_SCENES`` when ``extra``, from
    ``VARIED_SCENES`` with restyled people when ``varied``, from ``ORDINARY_SCENES`` when
    ``ordinary``), OCR them with the app's plug-in,
    cache one JSON each (scenes already cached are skipped). Returns the folder."""
    from app.inference.ocr_rapid import OcrPiiDetector
    from training.text.scenes import scene_of

    folder = scene_folder(out_dir, seed, varied, ordinary)
    folder.mkdir(parents=True, exist_ok=True)
    ocr = OcrPiiDetector.from_package()
    t0, done = time.perf_counter(), 0
    for i in range(count):
        path = folder / f"{i:05d}.json"
        if path.exists():
            continue
        name, image, labels = scene_of(seed, i, extra, varied, ordinary)
        lines = ocr.read_lines(image)
        record = {"name": name, "width": int(image.shape[1]), "height": int(image.shape[0]),
                  "labels": [[c, [round(v, 1) for v in b]] for c, b in labels], "lines": [_line_json(l) for l in lines]}  # fmt: skip
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record))
        tmp.replace(path)
        done += 1
        if progress and done % 10 == 0:
            log.warning("text data: %d/%d scenes read (%.1f s/scene)", i + 1, count, (time.perf_counter() - t0) / done)
    return folder


def iter_scenes(out_dir: Path, seed: int, varied: bool = False, ordinary: bool = False) -> Iterator[ReadScene]:
    """Every cached scene of ``seed`` (of the restyled table when ``varied``, of the ordinary-text
    table when ``ordinary``) in index order."""
    for path in sorted(scene_folder(out_dir, seed, varied, ordinary).glob("*.json")):
        yield load_scene(path)
