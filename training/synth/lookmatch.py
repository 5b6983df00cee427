"""Make a pasted object look photographed by the same camera as its background photo.

A background photo is measured once (``measure``): its sharpness, sensor noise, JPEG blockiness,
white point, black level and colour cast. ``blend`` then gives a warped, perfectly sharp render the
same blur, noise, exposure and illuminant, shades it with the photo's local brightness, and pastes
it. ``finish`` re-encodes the whole composite with the JPEG quality the photo shows, so object and
background carry the same block artefacts. All images are BGR ``uint8`` (H, W, 3).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

RENDER_SIGMA = 0.5  # blur a warped render already has (bilinear resampling, antialiased text)


@dataclass(frozen=True)
class Look:
    """Camera properties measured on a photo (or drawn at random for a fully synthetic scene)."""

    blur_sigma: float  # Gaussian-equivalent blur of edges, px
    noise_sigma: float  # sensor noise std, grey levels
    jpeg_quality: int  # quality whose block artefacts match the photo's
    white: float  # luminance a white surface reaches (grey levels)
    black: float  # luminance a black surface reaches (flare, lifted shadows)
    cast: tuple[float, float, float]  # B, G, R gains of the illuminant (mean 1)


def _grey(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)


def blur_sigma(grey: np.ndarray) -> float:
    """Edge blur of a photo, in px: an edge blurred by s has gradient energy ~ 1/s, so one more
    blur by 1 px scales that energy by ``r = s / sqrt(s^2 + 1)``, hence ``s = r / sqrt(1 - r^2)``."""
    def energy(g):
        gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
        return float(np.mean(gx * gx + gy * gy))
    e0 = energy(grey)
    if e0 < 1e-3:
        return 1.0
    r = min(0.995, energy(cv2.GaussianBlur(grey, (0, 0), 1.0)) / e0)
    return float(np.clip(r / np.sqrt(1 - r * r), 0.3, 4.0))


def noise_sigma(grey: np.ndarray) -> float:
    """Sensor noise std (Immerkaer's Laplacian-difference estimator) over the flattest half of the
    photo, so texture and edges do not count as noise."""
    k = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
    resp = np.abs(cv2.filter2D(grey, cv2.CV_32F, k))[1:-1, 1:-1]
    grad = cv2.Sobel(grey, cv2.CV_32F, 1, 0) ** 2 + cv2.Sobel(grey, cv2.CV_32F, 0, 1) ** 2
    flat = grad[1:-1, 1:-1] <= np.percentile(grad, 50)
    if not flat.any():
        return 2.0
    return float(np.clip(np.sqrt(np.pi / 2) * resp[flat].mean() / 6, 0.5, 12.0))


def jpeg_quality(grey: np.ndarray) -> int:
    """JPEG quality whose 8x8 block edges are as visible as the photo's: the ratio of grey steps
    across block borders to steps inside blocks is ~1.0 for clean images and grows as quality falls."""
    d = np.abs(np.diff(grey, axis=1))
    cols = np.arange(d.shape[1]) % 8 == 7
    if cols.sum() == 0 or (~cols).sum() == 0:
        return 92
    ratio = d[:, cols].mean() / max(d[:, ~cols].mean(), 1e-3)
    return int(np.interp(ratio, [1.0, 1.1, 1.3, 1.6], [94, 86, 70, 50]))


def measure(img: np.ndarray) -> Look:
    """Measure a background photo's camera look (see ``Look``)."""
    grey = _grey(img)
    means = img.reshape(-1, 3).mean(0) + 1e-3
    cast = np.clip(means / means.mean(), 0.85, 1.15)
    lo, hi = np.percentile(grey, [2, 98])
    return Look(blur_sigma(grey), noise_sigma(grey), jpeg_quality(grey), float(np.clip(hi, 120, 255)),
                float(np.clip(lo, 0, 60)), tuple(float(c) for c in cast))


def random_look(rng: np.random.Generator) -> Look:
    """A plausible phone-camera look for scenes that have no background photo."""
    cast = np.clip(1 + rng.normal(0, 0.05, 3), 0.88, 1.12)
    return Look(float(rng.uniform(0.4, 1.6)), float(rng.uniform(1.0, 5.0)), int(rng.integers(55, 95)),
                float(rng.uniform(170, 250)), float(rng.uniform(0, 25)), tuple(float(c) for c in cast / cast.mean()))


def illumination(bg: np.ndarray, strength: float = 0.6) -> np.ndarray:
    """Local brightness of the photo relative to its median, softened: float32 (H, W) around 1.0.
    Multiplying a pasted object by it continues the photo's shade and light patches onto it."""
    H, W = bg.shape[:2]
    small = cv2.resize(_grey(bg), (max(8, W // 8), max(8, H // 8)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), max(1.0, min(small.shape) * 0.04))
    rel = np.clip(small / max(float(np.median(small)), 1.0), 0.4, 1.6) ** strength
    return cv2.resize(rel, (W, H), interpolation=cv2.INTER_LINEAR)


def expose(obj: np.ndarray, look: Look, cast_strength: float = 0.6) -> np.ndarray:
    """Map render levels 0..255 onto the photo's black..white range and tint by its illuminant (float32)."""
    cast = np.asarray(look.cast, np.float32) ** cast_strength
    lut = (look.black + np.arange(256, dtype=np.float32)[:, None] * ((look.white - look.black) / 255.0)) * cast
    if obj.dtype == np.uint8 and obj.ndim == 3 and obj.shape[2] == 3:
        return cv2.LUT(obj, lut.reshape(256, 1, 3).astype(np.float32))  # a table lookup: far cheaper than float maths
    return (look.black + obj.astype(np.float32) * ((look.white - look.black) / 255.0)) * cast


def blend(dst: np.ndarray, warped: np.ndarray, mask: np.ndarray, look: Look, rng: np.random.Generator,
          shade: np.ndarray | None = None, exposed: bool = False) -> np.ndarray:
    """Paste ``warped`` (BGR, dst-sized) where ``mask`` (uint8 0..255) is set, with the photo's look.

    ``shade`` (float32 (H, W)) multiplies the object (local light); ``exposed`` means the colours
    were already matched (e.g. by colour transfer). Returns the new BGR ``uint8`` image.
    """
    extra = float(np.sqrt(max(0.0, look.blur_sigma ** 2 - RENDER_SIGMA ** 2)))
    ys, xs = np.nonzero(mask)
    if ys.size == 0:
        return dst.copy()
    # work on the object's bounding box only (plus room for the blur): whole-frame float maths is slow
    pad = int(np.ceil(3 * extra)) + 2
    y0, y1 = max(0, ys.min() - pad), min(dst.shape[0], ys.max() + pad + 1)
    x0, x1 = max(0, xs.min() - pad), min(dst.shape[1], xs.max() + pad + 1)
    out = dst.copy()
    roi = (slice(y0, y1), slice(x0, x1))
    out[roi] = _blend_roi(dst[roi], warped[roi], mask[roi], look, rng, None if shade is None else shade[roi], exposed, extra)
    return out


def _blend_roi(dst, warped, mask, look, rng, shade, exposed, extra) -> np.ndarray:
    obj = warped.astype(np.float32) if exposed else expose(warped, look)
    if shade is not None:
        obj *= shade[..., None]
    m = mask.astype(np.float32) / 255.0
    if extra > 0.15:
        # blur object and its edge together so the cut-out edge is as soft as the photo's edges
        obj = cv2.GaussianBlur(obj * m[..., None], (0, 0), extra)
        m = cv2.GaussianBlur(m, (0, 0), extra)
        obj = obj / np.maximum(m, 1e-3)[..., None]
    if look.noise_sigma > 0.05:
        obj += sensor_noise(rng, obj.shape[:2], look.noise_sigma)
    out = dst.astype(np.float32) * (1 - m[..., None]) + obj * m[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def soft_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; wide ones are done on a downscaled copy (same look, a fraction of the time)."""
    if sigma <= 3:
        return cv2.GaussianBlur(img, (0, 0), sigma)
    f = sigma / 2.0
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(1, int(w / f)), max(1, int(h / f))), interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.GaussianBlur(small, (0, 0), 2.0), (w, h), interpolation=cv2.INTER_LINEAR)


@lru_cache(maxsize=1)
def _noise_tile() -> np.ndarray:
    # Drawing fresh Gaussian noise for every megapixel was a large share of the render time; a fixed
    # tile at a random offset and orientation per image looks the same to a detector.
    return np.random.default_rng(12345).standard_normal((1024, 1024), np.float32)


def sensor_noise(rng: np.random.Generator, shape: tuple[int, int], sigma: float) -> np.ndarray:
    """Float32 (h, w, 3) camera noise: grey noise per pixel plus weaker, coarser colour noise."""
    h, w = shape
    tile = _noise_tile()
    if rng.random() < 0.5:
        tile = tile.T
    y, x = (int(v) for v in rng.integers(0, 1024, 2))
    reps = (-(-(y + h) // 1024), -(-(x + w) // 1024))
    luma = np.tile(tile, reps)[y : y + h, x : x + w] * sigma if reps != (1, 1) else tile[y : y + h, x : x + w] * sigma
    chroma = rng.standard_normal((max(1, h // 4), max(1, w // 4), 3), np.float32) * (sigma * 0.3)
    return luma[..., None] + cv2.resize(chroma, (w, h), interpolation=cv2.INTER_NEAREST)


def colour_transfer(obj: np.ndarray, ref: np.ndarray, obj_mask: np.ndarray | None = None) -> np.ndarray:
    """Reinhard colour transfer in Lab: give ``obj`` the mean and spread of ``ref`` (both BGR uint8).

    Used for a plate pasted over a real plate: the real plate's pixels carry the scene's light.
    Returns float32 BGR.
    """
    a = cv2.cvtColor(obj, cv2.COLOR_BGR2LAB).astype(np.float32)
    b = cv2.cvtColor(ref, cv2.COLOR_BGR2LAB).astype(np.float32).reshape(-1, 3)
    sel = a.reshape(-1, 3) if obj_mask is None else a[obj_mask > 127]
    ma, sa = sel.mean(0), sel.std(0) + 1e-3
    mb, sb = b.mean(0), b.std(0) + 1e-3
    scale = np.clip(sb / sa, 0.3, 1.5)  # a real plate far away has less contrast; never amplify noise much
    out = (a - ma) * scale + mb
    return cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR).astype(np.float32)


def finish(img: np.ndarray, look: Look) -> np.ndarray:
    """Re-encode the composite at the photo's JPEG quality (object and photo share block artefacts)."""
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(look.jpeg_quality)])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR) if ok else img
