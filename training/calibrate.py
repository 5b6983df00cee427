"""``python -m training calibrate``: per-class score thresholds, written into the model's metadata.

The app's own detector (``VpdDetector.detect_raw``, tiled like the app) runs on the synthetic
validation split and the held-out real photos (``real_test``); never on real-dev. For each class
the threshold is the score in [``floor``, 0.6] that maximises F1. The floor is the app's default
confidence (0.25): calibration only ever *raises* a class's bar. These splits hold few of the hard
negatives of real pictures (stop signs, bridges, forests, posters), so their F1 optimum sits too
low: with a floor of 0.1 it lowered 20 of 31 classes and the blacked-out area on real pictures
without private content grew from 11 % to 17 % of the frame. (F2, which weights recall four
times, put 29 of 31 classes at the 0.1 floor on these splits: it would trade every false box for
any recall, and a picture blacked out is a tool switched off.) Classes with fewer than
``min_gt`` boxes keep the app's default. Predictions of a class that an image's source did not
label (``partial_labels.json``) are ignored there rather than counted as false.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from app.core.geometry import iou_matrix
from training.nn.partial import load_partial_labels
from training.offline import repo_root

log = logging.getLogger("training.calibrate")

GRID = np.round(np.arange(0.05, 0.801, 0.025), 3)
T_MIN, T_MAX = 0.25, 0.6


def _f_beta(scores: np.ndarray, is_tp: np.ndarray, n_gt: int, t: float, beta: float) -> tuple[float, float, float]:
    keep = scores >= t
    tp, n = float(is_tp[keep].sum()), float(keep.sum())
    p = tp / n if n else 1.0
    r = tp / n_gt if n_gt else 0.0
    return ((1 + beta**2) * p * r / (beta**2 * p + r) if p + r else 0.0), p, r


def f_beta_threshold(scores: np.ndarray, is_tp: np.ndarray, n_gt: int, beta: float = 1.0,
                     floor: float = T_MIN) -> tuple[float, float, float, float]:
    """The F-beta-best threshold on ``GRID`` for one class, clipped to [``floor``, ``T_MAX``]:
    ``(threshold, F-beta, precision, recall)``, the figures measured at the clipped threshold.

    ``scores``/``is_tp``: every prediction of the class and whether it matched a GT box.
    """
    best_t, best_f = float(floor), -1.0
    for t in GRID:
        f = _f_beta(scores, is_tp, n_gt, float(t), beta)[0]
        if f > best_f + 1e-9:
            best_t, best_f = float(t), f
    t = float(np.clip(best_t, floor, T_MAX))
    return (t, *_f_beta(scores, is_tp, n_gt, t, beta))


def match_class(pred_xyxy, pred_scores, gt_xyxy, iou_min: float = 0.5) -> np.ndarray:
    """Greedy by score: (P,) bool, True where a prediction takes a still-free GT at IoU ≥ ``iou_min``."""
    is_tp = np.zeros(len(pred_xyxy), bool)
    if not len(pred_xyxy) or not len(gt_xyxy):
        return is_tp
    iou = iou_matrix(pred_xyxy.astype(np.float32), gt_xyxy.astype(np.float32))
    free = np.ones(len(gt_xyxy), bool)
    for i in np.argsort(-pred_scores):
        cand = np.where(free, iou[i], 0.0)
        j = int(np.argmax(cand))
        if cand[j] >= iou_min:
            is_tp[i], free[j] = True, False
    return is_tp


def _labels(label_path: Path, w: int, h: int):
    rows = [r.split() for r in label_path.read_text().splitlines() if r.strip()] if label_path.exists() else []
    cls = np.array([int(r[0]) for r in rows], int)
    xywh = np.array([[float(v) for v in r[1:5]] for r in rows], np.float32).reshape(-1, 4)
    xyxy = np.stack([(xywh[:, 0] - xywh[:, 2] / 2) * w, (xywh[:, 1] - xywh[:, 3] / 2) * h,
                     (xywh[:, 0] + xywh[:, 2] / 2) * w, (xywh[:, 1] + xywh[:, 3] / 2) * h], 1) if len(rows) else xywh
    return cls, xyxy


def collect(model: Path, data_root: Path, splits: tuple[str, ...], limit: int | None = None):
    """Run the detector over ``splits``; returns ``{class id: (scores, is_tp)}``, GT counts, names."""
    from app.core.decode import DecodeSettings
    from app.inference.vpd_detector import VpdDetector

    det = VpdDetector.from_path(model, providers=["CPUExecutionProvider"], decode=DecodeSettings(conf=GRID[0]))
    unknown = load_partial_labels(str(data_root))
    scores, tps = defaultdict(list), defaultdict(list)
    n_gt: dict[int, int] = defaultdict(int)
    for split in splits:
        images = sorted((data_root / "images" / split).glob("*"))[:limit]
        for path in images:
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                continue
            h, w = frame.shape[:2]
            gt_cls, gt_xyxy = _labels(data_root / "labels" / split / f"{path.stem}.txt", w, h)
            d = det.detect_raw(frame)
            skip = set(unknown.get(path.stem, ()))
            for c in set(d.class_ids.tolist()) | set(gt_cls.tolist()):
                g = gt_xyxy[gt_cls == c]
                n_gt[c] += len(g)
                sel = d.class_ids == c
                if c in skip and not len(g):
                    continue
                scores[c].append(d.scores[sel])
                tps[c].append(match_class(d.xyxy[sel], d.scores[sel], g))
    out = {c: (np.concatenate(scores[c]), np.concatenate(tps[c])) for c in scores}
    return out, dict(n_gt), det.class_names


def calibrate(model: Path, data_root: Path, splits=("val", "real_test"), min_gt: int = 20, limit: int | None = None,
              floor: float = T_MIN, beta: float = 1.0) -> dict:
    """Per-class thresholds and their F-beta/precision/recall on ``splits`` (see module doc);
    ``beta`` < 1 weighs precision more (fewer false boxes), > 1 recall."""
    preds, n_gt, names = collect(model, data_root, splits, limit)
    report = {}
    for c, name in enumerate(names):
        g = n_gt.get(c, 0)
        s, tp = preds.get(c, (np.zeros(0), np.zeros(0, bool)))
        if g < min_gt:
            report[name] = {"gt": g, "threshold": None}
            continue
        t, f, p, r = f_beta_threshold(s, tp, g, beta=beta, floor=floor)
        report[name] = {"gt": g, "threshold": t, "f_beta": round(f, 4), "beta": beta, "precision": round(p, 4), "recall": round(r, 4)}
    return report


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = argparse.ArgumentParser(prog="python -m training calibrate", description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, default=repo_root() / "models" / "vpd-n.onnx")
    p.add_argument("--data", type=Path, default=repo_root() / "data" / "synth-10k")
    p.add_argument("--splits", nargs="+", default=["val", "real_test"])
    p.add_argument("--min-gt", type=int, default=20)
    p.add_argument("--limit", type=int, default=None, help="at most this many images per split")
    p.add_argument("--floor", type=float, default=T_MIN, help="lowest threshold a class may get (default: the app's 0.25)")
    p.add_argument("--beta", type=float, default=1.0,
                   help="F-beta weighting: below 1 favours precision (default: %(default)s, F1)")
    p.add_argument("--json", type=Path, help="write the per-class report here")
    p.add_argument("--write", action="store_true", help="store the thresholds in the model's vpd_class_conf metadata")
    a = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if a.beta <= 0:
        p.error(f"--beta must be > 0, got {a.beta}")
    report = calibrate(a.model, a.data, tuple(a.splits), a.min_gt, a.limit, a.floor, a.beta)
    for name, r in report.items():
        log.info("%-18s gt %5d  threshold %s", name, r["gt"], r.get("threshold"))
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(report, indent=1))
    if a.write:
        from training.export import write_metadata

        conf = {n: r["threshold"] for n, r in report.items() if r.get("threshold") is not None}
        write_metadata(a.model, {"vpd_class_conf": json.dumps(conf, sort_keys=True)})
        log.info("wrote vpd_class_conf for %d classes into %s", len(conf), a.model)
    return 0
