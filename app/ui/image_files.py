"""Files behind the Images view (no Qt): which files a drop or folder means, and how a redacted
copy is named and written (worker thread)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

import numpy as np

from app.core.detections import Detections
from app.core.errors import OutputError
from app.core.pipeline import Pipeline
from app.core.redact import opaque_alpha
from app.media.image_io import SUPPORTED_SUFFIXES, write_image

REDACTED_SUFFIX = "_redacted"


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given; folders searched recursively for supported images, sorted."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames.sort()
                out += [Path(dirpath, n) for n in sorted(filenames) if Path(n).suffix.lower() in SUPPORTED_SUFFIXES]
        else:
            out.append(p)
    return out


def free_target(folder: Path, stem: str, suffix: str) -> Path:
    """``folder/stem_redacted.ext``, or ``…_redacted-2.ext`` etc.: never an existing file."""
    ext = suffix.lower() if suffix.lower() in SUPPORTED_SUFFIXES else ".png"
    for n in range(1, 10_000):
        candidate = folder / f"{stem}{REDACTED_SUFFIX}{'' if n == 1 else f'-{n}'}{ext}"
        if not candidate.exists():
            return candidate
    raise OutputError(f"{folder}: no free file name for {stem}{REDACTED_SUFFIX}{ext}")


def save_redacted(pixels: np.ndarray, alpha, hidden: Detections, render: Pipeline, folder: Path, stem: str, suffix: str) -> Path:
    """Render and write a metadata-free copy under a free name (worker thread); inside hidden
    boxes the alpha channel (if any) is made opaque, so the fill shows on any background."""
    frame = render.render(pixels, hidden)
    alpha = opaque_alpha(alpha, render.padded(hidden, pixels.shape[:2]).xyxy)
    for _ in range(5):  # another program may take the name between the check and the write
        target = free_target(folder, stem, suffix)
        try:
            return write_image(frame, target, alpha)
        except OutputError:
            if not target.exists():
                raise
    raise OutputError(f"{folder}: could not find a free name for {stem}")


def replace_redacted(pixels: np.ndarray, alpha, hidden: Detections, render: Pipeline, target: Path) -> Path:
    """Render and write a metadata-free copy to ``target``, atomically replacing the file there:
    this image's own earlier output, or a path the user chose (and confirmed) in a save dialog."""
    frame = render.render(pixels, hidden)
    alpha = opaque_alpha(alpha, render.padded(hidden, pixels.shape[:2]).xyxy)
    tmp = target.with_name(f".{target.stem}.{os.getpid()}.saving{target.suffix}")
    write_image(frame, tmp, alpha)
    try:
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"{target}: cannot write ({exc.strerror or exc})") from None
    return target
