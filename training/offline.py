"""Offline environment for ultralytics: call ``setup_offline`` before importing ultralytics.

Measured on ultralytics 8.4.190 (docs/FACTS.md): with these settings training, validation
and export make zero network calls.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

log = logging.getLogger(__name__)

# A real TTF stands in for the Arial.ttf ultralytics otherwise downloads for its plots.
FONT_CANDIDATES = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/TTF/DejaVuSans.ttf"),
    Path("/Library/Fonts/Arial.ttf"),
    Path("C:/Windows/Fonts/arial.ttf"),
)


def _find_font() -> Path | None:
    for p in FONT_CANDIDATES:
        if p.is_file():
            return p
    try:  # matplotlib (an ultralytics dependency) bundles DejaVuSans; found without importing pyplot.
        import matplotlib

        p = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        return p if p.is_file() else None
    except ImportError:
        return None


def setup_offline(repo_root: str | os.PathLike) -> Path:
    """Set the env for network-free ultralytics and place a font where it looks for one.

    Must run before the first ``import ultralytics`` (it reads the env at import).
    ``YOLO_OFFLINE`` stops its online checks; ``YOLO_AUTOINSTALL=0`` stops it pip-installing
    a package named after an unknown module in a checkpoint; ``YOLO_CONFIG_DIR`` is repo-local
    (git-ignored). Existing env values win, so a caller can override any of them.

    Returns:
        The ultralytics config dir.
    """
    cfg_dir = Path(os.environ.get("YOLO_CONFIG_DIR") or Path(repo_root) / ".yolo")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cfg_dir))
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "0")
    font_dir = cfg_dir / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    target = font_dir / "Arial.ttf"
    if not target.is_file():
        src = _find_font()
        if src is None:
            log.warning("no TTF font found; ultralytics may try to download Arial.ttf (install fonts-dejavu-core)")
        else:
            shutil.copyfile(src, target)
    return cfg_dir


def repo_root() -> Path:
    """The repository root (parent of the ``training`` package)."""
    return Path(__file__).resolve().parent.parent
