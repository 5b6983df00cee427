"""Read images safely (orientation applied, size limits) and write clean copies atomically.

Written files are built from pixels only: no EXIF (so no GPS, no embedded thumbnail), no ICC
profile, no PNG text chunks, no XMP.
"""

from __future__ import annotations

import errno
import os
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from app.core.errors import ImageReadError, OutputError

SUPPORTED_SUFFIXES = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP", ".bmp": "BMP",
                      ".tif": "TIFF", ".tiff": "TIFF"}  # fmt: skip
MAX_PIXELS = 100_000_000  # ~12k×8k; 16k×16k would need >1 GB per copy of the frame
MIN_SIDE = 8
SAVE_OPTIONS = {
    "JPEG": {"quality": 95, "subsampling": 0},
    "WEBP": {"quality": 95, "method": 4},
    "PNG": {"optimize": False},
    "TIFF": {"compression": "tiff_lzw"},
    "BMP": {},
}


@dataclass(frozen=True)
class LoadedImage:
    """Pixels as (H, W, 3) uint8 BGR, upright; ``alpha`` (H, W) uint8 when the source had one."""

    pixels: np.ndarray
    format: str
    path: Path | None
    alpha: np.ndarray | None = None

    @property
    def visible(self) -> np.ndarray:
        """What a viewer sees, for the detectors: ``visible_pixels(pixels, alpha)``."""
        return visible_pixels(self.pixels, self.alpha)


def visible_pixels(pixels_bgr: np.ndarray, alpha: np.ndarray | None) -> np.ndarray:
    """(H, W, 3) uint8 BGR as a viewer would see the image: with an alpha channel, composited over
    the background that contrasts with the colour layer (white under dark pixels, black under
    light ones), so text drawn only in the alpha channel is visible to the detectors. Without
    alpha, ``pixels_bgr`` itself."""
    if alpha is None:
        return pixels_bgr
    a = alpha.astype(np.float32)[..., None] / 255.0
    grey = pixels_bgr.mean(axis=2, dtype=np.float32)
    weight = float(a.sum())
    ink = float((grey * a[..., 0]).sum() / weight) if weight > 0 else float(grey.mean())
    background = 255.0 if ink < 128 else 0.0
    out = pixels_bgr.astype(np.float32) * a + background * (1.0 - a)
    return np.ascontiguousarray(out.round().astype(np.uint8))


def read_image(path: str | Path) -> LoadedImage:
    """Decode ``path`` with EXIF orientation applied. Raises ``ImageReadError`` with a reason."""
    path = Path(path)
    if not path.exists():
        raise ImageReadError(f"{path}: file not found")
    if path.is_dir():
        raise ImageReadError(f"{path}: is a folder")
    if path.stat().st_size == 0:
        raise ImageReadError(f"{path}: file is empty")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                fmt = img.format or ""
                w, h = img.size
                _check_size(path, w, h)
                img.load()
                return _to_loaded(ImageOps.exif_transpose(img), fmt, path)
    except ImageReadError:
        raise
    except UnidentifiedImageError:
        raise ImageReadError(f"{path}: not a recognised image (PNG, JPEG, WebP, BMP or TIFF expected)") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageReadError(
            f"{path}: image is larger than the {MAX_PIXELS / 1e6:.0f} MP limit — split it into parts first"
        ) from None
    except PermissionError:
        raise ImageReadError(f"{path}: permission denied") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageReadError(f"{path}: image data is truncated or corrupt ({exc})") from None


def _check_size(path: Path, w: int, h: int) -> None:
    if w * h > MAX_PIXELS:
        raise ImageReadError(
            f"{path}: image is {w}×{h} ({w * h / 1e6:.0f} MP); the limit is {MAX_PIXELS / 1e6:.0f} MP — "
            "split it into parts first"
        )
    if min(w, h) < MIN_SIDE:
        raise ImageReadError(f"{path}: image is {w}×{h} px, too small to hold anything to redact")


def _to_loaded(img: Image.Image, fmt: str, path: Path | None) -> LoadedImage:
    alpha = None
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        rgba = np.asarray(img.convert("RGBA"))
        rgb, alpha = rgba[..., :3], np.ascontiguousarray(rgba[..., 3])
    else:
        rgb = np.asarray(img.convert("RGB"))
    return LoadedImage(np.ascontiguousarray(rgb[..., ::-1]), fmt, path, alpha)


def image_from_array(pixels_bgr: np.ndarray, fmt: str = "PNG") -> LoadedImage:
    """Wrap in-memory pixels (e.g. a pasted screenshot) as a ``LoadedImage``."""
    if pixels_bgr.ndim != 3 or pixels_bgr.shape[2] != 3 or pixels_bgr.dtype != np.uint8:
        raise ImageReadError(f"expected (H, W, 3) uint8 pixels, got {pixels_bgr.shape} {pixels_bgr.dtype}")
    return LoadedImage(np.ascontiguousarray(pixels_bgr), fmt, None)


def format_for(path: Path) -> str:
    """Pillow format name for an output path's suffix; ``OutputError`` for unknown suffixes."""
    try:
        return SUPPORTED_SUFFIXES[path.suffix.lower()]
    except KeyError:
        raise OutputError(f"{path}: unsupported output type {path.suffix!r}") from None


def encode_clean(pixels_bgr: np.ndarray, fmt: str, alpha: np.ndarray | None = None) -> Image.Image:
    """A fresh Pillow image from pixels only: nothing of the source's metadata can ride along."""
    rgb = np.ascontiguousarray(pixels_bgr[..., ::-1])
    if alpha is not None and fmt in ("PNG", "WEBP", "TIFF"):
        return Image.fromarray(np.dstack([rgb, alpha]), "RGBA")
    return Image.fromarray(rgb, "RGB")


def _publish(tmp: Path, out_path: Path) -> None:
    """Give the finished temp file its final name without ever replacing an existing file."""
    try:
        os.link(tmp, out_path)  # atomic, and fails if out_path appeared meanwhile
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        if out_path.exists():  # file systems without hard links (FAT, some shares)
            raise FileExistsError(errno.EEXIST, "already exists") from None
        os.replace(tmp, out_path)


def write_image(pixels_bgr: np.ndarray, out_path: str | Path, alpha: np.ndarray | None = None) -> Path:
    """Write a metadata-free image atomically (temp file in the same folder, fsync, rename).

    Refuses to replace an existing file; on any failure nothing is left behind.
    """
    out_path = Path(out_path)
    fmt = format_for(out_path)
    if out_path.exists():
        raise OutputError(f"{out_path}: already exists; not overwriting")
    try:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".part", dir=out_path.parent)
    except OSError as exc:
        raise OutputError(f"{out_path.parent}: cannot write here ({exc.strerror or exc})") from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            encode_clean(pixels_bgr, fmt, alpha).save(fh, format=fmt, **SAVE_OPTIONS[fmt])
            fh.flush()
            os.fsync(fh.fileno())
        _publish(tmp, out_path)
    except OSError as exc:
        reason = "disk full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        raise OutputError(f"{out_path}: could not write ({reason})") from None
    finally:
        tmp.unlink(missing_ok=True)
    return out_path
