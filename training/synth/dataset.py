"""Dataset writer: per-index seeded scenes -> 640 crops or full views -> YOLO folders.

Sample ``i`` of a run with seed ``S`` depends only on ``(S, i)``, so any number of worker
processes produce byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing as mp
import os
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ..taxonomy import CLASS_NAMES, class_id
from . import real
from .generators import GENERATORS, Generator

log = logging.getLogger(__name__)
SPLITS = ("train", "val", "test")
MIN_VISIBLE, MIN_SIDE = 0.4, 3.0


@dataclass(frozen=True)
class SynthConfig:
    """One render: output folder, number of crops, seed, workers, tile size, class filter."""

    out: Path
    images: int
    seed: int = 0
    workers: int = 1
    imgsz: int = 640
    classes: frozenset[str] | None = None
    with_real: bool = True
    generators: frozenset[str] | None = None  # render only these generators (default: all)
    real_repeat: int = 1  # copies of each real train photo per epoch (real_test is never repeated)
    real_tiles: bool = False  # also the real train photos' tiles as the app's detector reads them


@dataclass
class Stats:
    """Per-run counters used by the dataset card."""

    boxes: Counter = field(default_factory=Counter)
    generators: Counter = field(default_factory=Counter)
    sizes: list = field(default_factory=list)
    images: Counter = field(default_factory=Counter)
    real_boxes: Counter = field(default_factory=Counter)
    real_images: Counter = field(default_factory=Counter)
    real_tiles: int = 0
    unknown: dict = field(default_factory=dict)  # image stem -> classes it may show unlabelled


def split_of(seed: int, i: int) -> str:
    """Deterministic ~85/10/5 split of sample ``i``."""
    r = int(hashlib.sha1(f"{seed}:{i}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "train" if r < 0.85 else "val" if r < 0.95 else "test"


def active_generators(classes: frozenset[str] | None, only: frozenset[str] | None = None) -> list[Generator]:
    """Generators that label at least one requested class (all when no filter), limited to ``only``."""
    gens = [g for g in GENERATORS.values() if only is None or g.name in only]
    return gens if classes is None else [g for g in gens if g.classes & classes]


def crop(scene: np.ndarray, labels, rng: np.random.Generator, imgsz: int, full_p: float):
    """Cut a native-scale ``imgsz`` tile near a label (or downscale the full view).

    Returns (BGR image, labels in its pixels); boxes < 40 % visible or < 3 px are dropped.
    """
    H, W = scene.shape[:2]
    if rng.random() < full_p or max(H, W) <= imgsz:
        s = min(1.0, imgsz / max(H, W))
        img = cv2.resize(scene, (max(1, round(W * s)), max(1, round(H * s))), interpolation=cv2.INTER_AREA) if s < 1 else scene
        return img, _clip([(c, tuple(v * s for v in b)) for c, b in labels], img.shape[1], img.shape[0], 0, 0)
    tw, th = min(imgsz, W), min(imgsz, H)
    if labels and rng.random() < 0.85:
        c, b = labels[int(rng.integers(0, len(labels)))]
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        x0, y0 = cx - rng.uniform(0.1, 0.9) * tw, cy - rng.uniform(0.1, 0.9) * th
    else:
        x0, y0 = rng.uniform(0, W - tw + 1), rng.uniform(0, H - th + 1)
    x0, y0 = int(np.clip(x0, 0, W - tw)), int(np.clip(y0, 0, H - th))
    return scene[y0 : y0 + th, x0 : x0 + tw].copy(), _clip(labels, tw, th, x0, y0)


def _clip(labels, w, h, x0, y0):
    out = []
    for c, (a, b, cc, d) in labels:
        a, b, cc, d = a - x0, b - y0, cc - x0, d - y0
        area = max(1e-6, (cc - a) * (d - b))
        na, nb, nc, nd = max(0.0, a), max(0.0, b), min(float(w), cc), min(float(h), d)
        if nc - na < MIN_SIDE or nd - nb < MIN_SIDE or (nc - na) * (nd - nb) / area < MIN_VISIBLE:
            continue
        out.append((c, (na, nb, nc, nd)))
    return out


def pick_generator(rng: np.random.Generator, classes: frozenset[str] | None = None,
                   only: frozenset[str] | None = None):
    """Draw a generator by weight: the first draw of every sample's rng."""
    gens = active_generators(classes, only)
    w = np.array([g.weight for g in gens])
    return gens[int(rng.choice(len(gens), p=w / w.sum()))]


def generator_of(seed: int, i: int, classes: frozenset[str] | None = None) -> str:
    """Name of the generator that renders sample ``i`` of a ``--seed`` run (no rendering)."""
    return pick_generator(np.random.default_rng([seed, i]), classes).name


def render_sample(seed: int, i: int, imgsz: int = 640, classes: frozenset[str] | None = None):
    """Render sample ``i``: returns (generator name, BGR crop, [(class, xyxy)])."""
    name, img, labels, _ = render_sample_with_unknown(seed, i, imgsz, classes)
    return name, img, labels


def render_sample_with_unknown(seed: int, i: int, imgsz: int = 640, classes: frozenset[str] | None = None,
                               only: frozenset[str] | None = None):
    """``render_sample`` plus the classes its real background photos may show unlabelled."""
    rng = np.random.default_rng([seed, i])
    g = pick_generator(rng, classes, only)
    real.used_backgrounds.clear()
    scene, labels = g.fn(rng)
    unknown = frozenset().union(*(item.unknown_classes(CLASS_NAMES) for item in real.used_backgrounds))
    img, labels = crop(scene, labels, rng, imgsz, g.full_view)
    if classes is not None:
        labels = [(c, b) for c, b in labels if c in classes]
    return g.name, img, labels, unknown


def yolo_lines(labels, w: int, h: int) -> str:
    """YOLO label text: ``cls cx cy w h`` normalised, one line per box."""
    rows = []
    for c, (x0, y0, x1, y1) in labels:
        rows.append(f"{class_id(c)} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}")
    return "\n".join(rows) + ("\n" if rows else "")


def _work(args):
    seed, i, imgsz, classes, out, only = args
    name, img, labels, unknown = render_sample_with_unknown(seed, i, imgsz, classes, only)
    split = split_of(seed, i)
    stem = f"s{i:06d}"
    cv2.imwrite(str(Path(out) / "images" / split / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 93])
    (Path(out) / "labels" / split / f"{stem}.txt").write_text(yolo_lines(labels, img.shape[1], img.shape[0]))
    return i, name, split, [(c, b[2] - b[0], b[3] - b[1]) for c, b in labels], (stem, sorted(unknown))


def _init_worker():
    import faulthandler

    faulthandler.enable()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def add_real(out: Path, stats: Stats, classes: frozenset[str] | None, repeat: int = 1) -> int:
    """Copy the real pack: train split into ``train`` ``repeat`` times, the held-out 20 % into
    ``real_test`` once. Returns the number of distinct photos. Copies, not links: a tool that
    rewrites a broken JPEG in place must not touch the shared pack."""
    n = 0
    for item in real.load_items():
        img = cv2.imread(str(item.path))
        if img is None:
            continue
        labels = [(c, b) for c, b in item.boxes if classes is None or c in classes]
        label_text = yolo_lines(labels, img.shape[1], img.shape[0])
        unknown = item.unknown_classes(CLASS_NAMES)
        copies = repeat if item.split == "train" else 1
        for k in range(copies):
            stem = f"real_{item.path.stem}" + (f"_x{k}" if k else "")
            shutil.copyfile(item.path, out / "images" / item.split / f"{stem}{item.path.suffix}")
            (out / "labels" / item.split / f"{stem}.txt").write_text(label_text)
            stats.real_images[item.split] += 1
            if unknown:
                stats.unknown[stem] = sorted(unknown)
            if item.split == "train":
                stats.real_boxes.update(c for c, _ in labels)
        n += 1
    return n


def add_real_tiles(out: Path, stats: Stats, classes: frozenset[str] | None, imgsz: int = 640) -> int:
    """Write the real train photos' tiles, cut as the app's detector cuts them, into ``train``.

    A small photo is read enlarged (at most 3x) and tiled at the training-crop size
    (``TilingSettings.read_plan``, the app's own plan), so at inference its plates and numbers are
    1.2-3x the size they have when the whole photo is trained at the model's input size. These
    tiles show the model that scale; a photo the app reads as one view gets none. Labels
    cut by a tile's edge follow the crops' rule (kept when at least 40 % visible). Returns the
    number of tiles written; partial labels are inherited from the photo.
    """
    from app.core.geometry import upscaled
    from app.inference.vpd_detector import TilingSettings

    settings = TilingSettings()
    written = 0
    for item in real.load_items():
        if item.split != "train":
            continue
        img = cv2.imread(str(item.path))
        if img is None:
            continue
        factor, tiles = settings.read_plan(img.shape[:2], (imgsz, imgsz))
        big = upscaled(img, factor)
        labels = [(c, tuple(v * factor for v in b)) for c, b in item.boxes if classes is None or c in classes]
        unknown = sorted(item.unknown_classes(CLASS_NAMES))
        for k, tile in enumerate(tiles):
            piece = big[tile.y0 : tile.y1, tile.x0 : tile.x1]
            kept = _clip(labels, piece.shape[1], piece.shape[0], tile.x0, tile.y0)
            stem = f"realtile_{item.path.stem}_t{k}"
            cv2.imwrite(str(out / "images" / "train" / f"{stem}.jpg"), piece, [cv2.IMWRITE_JPEG_QUALITY, 93])
            (out / "labels" / "train" / f"{stem}.txt").write_text(yolo_lines(kept, piece.shape[1], piece.shape[0]))
            if unknown:
                stats.unknown[stem] = unknown
            stats.real_boxes.update(c for c, _ in kept)
            written += 1
    stats.real_tiles += written
    return written


PARTIAL_LABELS = "partial_labels.json"


def write_partial_labels(out: Path, unknown: dict) -> None:
    """``partial_labels.json``: image stem -> classes not labelled in it (see ``training.nn.partial``)."""
    (out / PARTIAL_LABELS).write_text(json.dumps(dict(sorted(unknown.items())), separators=(",", ":")))


def write_yaml(out: Path) -> None:
    """data.yaml with every taxonomy class in taxonomy order."""
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES))
    (out / "data.yaml").write_text(f"path: {out.resolve()}\ntrain: images/train\nval: images/val\ntest: images/test\n"
                                   f"real_test: images/real_test\nnames:\n{names}\n")


def build(cfg: SynthConfig) -> tuple[Stats, float]:
    """Render the whole dataset into ``cfg.out``; returns (stats, synthetic images per second)."""
    out = cfg.out
    for kind in ("images", "labels"):
        for s in SPLITS + ("real_test",):
            (out / kind / s).mkdir(parents=True, exist_ok=True)
    stats = Stats()
    jobs = [(cfg.seed, i, cfg.imgsz, cfg.classes, str(out), cfg.generators) for i in range(cfg.images)]
    t0 = time.perf_counter()
    done: set[int] = set()
    if cfg.workers > 1:
        # spawn: a forked child must not inherit a half-initialised Qt from the parent.
        with mp.get_context("spawn").Pool(cfg.workers, initializer=_init_worker, maxtasksperchild=200) as pool:
            it = pool.imap_unordered(_work, jobs)  # chunksize 1: only its iterator has next(timeout)
            while True:
                try:
                    _collect(it.next(timeout=120), stats, done, cfg.images)
                except StopIteration:
                    break
                except mp.TimeoutError:
                    # A worker died (its tasks are lost, the pool would wait forever): finish here.
                    log.warning("worker pool stalled; rendering the remaining samples in-process")
                    break
    from .qtkit import ensure_app
    ensure_app()
    for job in jobs:
        if job[1] not in done:
            _collect(_work(job), stats, done, cfg.images)
    rate = cfg.images / max(1e-6, time.perf_counter() - t0)
    if cfg.with_real:
        add_real(out, stats, cfg.classes, cfg.real_repeat)
    if cfg.real_tiles:
        add_real_tiles(out, stats, cfg.classes, cfg.imgsz)
    write_yaml(out)
    write_partial_labels(out, stats.unknown)
    return stats, rate


def _collect(result, stats: Stats, done: set[int], total: int) -> None:
    i, name, split, boxes, (stem, unknown) = result
    done.add(i)
    if unknown:
        stats.unknown[stem] = unknown
    stats.generators[name] += 1
    stats.images[split] += 1
    for c, w, h in boxes:
        stats.boxes[c] += 1
        stats.sizes.append(max(w, h))
    if len(done) % 500 == 0:
        log.info("rendered %d/%d", len(done), total)
