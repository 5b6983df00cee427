"""``python -m training evaluate``: COCO-style mAP50-95, mAP50, small-object AP and ORT CPU latency.

Predictions come from the ``.pt`` through ultralytics with the head the ONNX export uses
(one-to-one, ``nms=False``, for end-to-end models; the export parity check ties the two).
AP follows COCO: 101-point interpolated precision, IoU 0.50:0.95, up to 100 detections per
image and class, areas in *model-input* pixels (source area times the letterbox scale
squared), "small" = area < 32^2 with other GTs ignored.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.metrics import AREA_ALL, AREA_SMALL, APAccumulator

from training.offline import repo_root, setup_offline

log = logging.getLogger("training.evaluate")

MAX_DETS = 100


@dataclass(frozen=True)
class ImageEval:
    """Ground truth and detections of one image, boxes xyxy in model-input pixels."""

    gt_xyxy: np.ndarray  # (G, 4) float32
    gt_cls: np.ndarray  # (G,) int
    det_xyxy: np.ndarray  # (D, 4) float32
    det_cls: np.ndarray  # (D,) int
    det_scores: np.ndarray  # (D,) float


def coco_ap(images: list[ImageEval], num_classes: int, area_rng=AREA_ALL) -> tuple[float, float]:
    """Return ``(AP50-95, AP50)`` averaged over classes that have GTs in ``area_rng`` (NaN if none),
    computed by the app's own ``APAccumulator`` (COCO rules, 100 detections per image and class)."""
    acc = APAccumulator(tuple(str(c) for c in range(num_classes)), area_range=area_rng, max_dets=MAX_DETS)
    for im in images:
        acc.add(im.det_xyxy, im.det_scores, im.det_cls, im.gt_xyxy, im.gt_cls)
    s = acc.summary()
    return (float("nan"), float("nan")) if s["mAP50"] is None else (s["mAP50-95"], s["mAP50"])


def _split_images(data_yaml: Path, split: str) -> list[Path]:
    import yaml

    d = yaml.safe_load(Path(data_yaml).read_text())
    root = Path(d.get("path") or Path(data_yaml).parent)
    root = root if root.is_absolute() else Path(data_yaml).parent / root
    folder = Path(d[split]) if Path(d[split]).is_absolute() else root / d[split]
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in {".jpg", ".jpeg", ".png", ".bmp", ".webp"})


def _labels_for(image: Path) -> np.ndarray:
    """YOLO label rows ``(G, 5)`` [cls, cx, cy, w, h] normalised, for an image under .../images/..."""
    parts = list(image.parts)
    i = len(parts) - 1 - parts[::-1].index("images")
    label = Path(*parts[:i], "labels", *parts[i + 1 :]).with_suffix(".txt")
    if not label.is_file() or not label.read_text().strip():
        return np.zeros((0, 5), np.float32)
    return np.loadtxt(label, ndmin=2, dtype=np.float32)[:, :5]


def predict_split(weights: Path, data_yaml: Path, split: str, imgsz: int, max_images: int | None = None,
                  conf: float = 0.001) -> tuple[list[ImageEval], int]:
    """Run the model over a split; return per-image GT/detections in model-input pixels and the class count."""
    import cv2

    setup_offline(repo_root())
    from training.nn import register

    register()
    from ultralytics import YOLO

    model = YOLO(str(weights), task="detect")
    end2end = getattr(model.model.model[-1], "one2one_cv2", None) is not None
    out = []
    for path in _split_images(data_yaml, split)[:max_images]:
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        h, w = frame.shape[:2]
        scale = imgsz / max(h, w)  # letterbox scale: source px -> input px
        lab = _labels_for(path)
        gt = np.stack([(lab[:, 1] - lab[:, 3] / 2) * w, (lab[:, 2] - lab[:, 4] / 2) * h,
                       (lab[:, 1] + lab[:, 3] / 2) * w, (lab[:, 2] + lab[:, 4] / 2) * h], 1) * scale
        r = model.predict(frame, imgsz=imgsz, conf=conf, rect=False, device="cpu", verbose=False, max_det=300,
                          nms=False if end2end else None)[0].boxes
        out.append(ImageEval(gt.astype(np.float32), lab[:, 0].astype(int), r.xyxy.cpu().numpy() * scale,
                             r.cls.cpu().numpy().astype(int), r.conf.cpu().numpy()))
    return out, len(model.names)


def measure_latency(onnx_path: Path, imgsz: int, runs: int = 30, threads: int = 2) -> float:
    """Median ORT CPU latency in ms of one (1, 3, imgsz, imgsz) inference, ``threads`` intra-op threads."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    sess = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).random((1, 3, imgsz, imgsz), dtype=np.float32)
    name = sess.get_inputs()[0].name
    for _ in range(3):
        sess.run(None, {name: x})
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        sess.run(None, {name: x})
        times.append((time.perf_counter() - t) * 1000)
    return float(np.median(times))


def evaluate(weights: Path, data_yaml: Path, split: str, imgsz: int, max_images: int | None = None,
             onnx_path: Path | None = None) -> dict:
    """Metrics dict: ``map50_95``, ``map50``, ``ap_small`` (COCO small, input px), ``images``, ``latency_ms``."""
    images, nc = predict_split(weights, data_yaml, split, imgsz, max_images)
    m, m50 = coco_ap(images, nc, AREA_ALL)
    ms, _ = coco_ap(images, nc, AREA_SMALL)
    res = {"weights": str(weights), "split": split, "imgsz": imgsz, "images": len(images),
           "map50_95": m, "map50": m50, "ap_small": ms}
    if onnx_path is not None:
        res["latency_ms"] = measure_latency(onnx_path, imgsz)
    return res


def main(argv: list[str] | None = None) -> int:
    """CLI entry: prints nothing; logs the metrics and writes them to --out (JSON) if given."""
    p = argparse.ArgumentParser(prog="python -m training evaluate", description=__doc__.splitlines()[0])
    p.add_argument("--weights", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--split", default="val")
    p.add_argument("--imgsz", type=int, default=640)
    p.add_argument("--max-images", type=int, default=None)
    p.add_argument("--onnx", help="exported model to time on ORT CPU")
    p.add_argument("--out", help="write the metrics JSON here")
    a = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    res = evaluate(Path(a.weights), Path(a.data), a.split, a.imgsz, a.max_images, Path(a.onnx) if a.onnx else None)
    log.info("%s", json.dumps(res))
    if a.out:
        Path(a.out).write_text(json.dumps(res, indent=2))
    return 0
