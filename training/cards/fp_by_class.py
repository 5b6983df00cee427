"""Detector-alone FP area by class on real-dev (measurement only): summed area of calibrated detector
boxes outside every GT box, as a share of the frame, per kind and class. Usage:
``python training/cards/fp_by_class.py [--preset] MODEL.onnx…``; ``--preset`` counts only the classes
of the default ("screenshots") preset (the ninth session's table counted every class)."""
import json, sys
from collections import defaultdict
import cv2, numpy as np
from app.inference.vpd_detector import VpdDetector
from app.core.policy import PRESETS
args = sys.argv[1:]
PRESET = PRESETS["screenshots"] if "--preset" in args else None
args = [a for a in args if a != "--preset"]
root = "../shared/data/real-dev/"
ann = json.load(open(root + "annotations.json"))
for path in args:
    det = VpdDetector.from_path(path)
    tot = defaultdict(float); n = defaultdict(int)
    for e in ann:
        img = cv2.imread(root + e["file"])
        h, w = img.shape[:2]
        gt = np.zeros((h, w), bool)
        for b in e["boxes"]:
            x0, y0, x1, y1 = map(int, b["box"]); gt[y0:y1, x0:x1] = True
        n[e["kind"]] += 1
        d = det.detect(img)
        for box, c in zip(d.xyxy, d.class_ids):
            if PRESET is not None and d.class_names[c] not in PRESET: continue
            x0, y0, x1, y1 = [int(max(0, v)) for v in box]
            m = np.zeros((h, w), bool); m[y0:y1, x0:x1] = True
            tot[(e["kind"], d.class_names[c])] += float((m & ~gt).sum()) / (h * w)
    print("==", path)
    for (k, c), v in sorted(tot.items(), key=lambda kv: -kv[1])[:30]:
        print(f"  {k:10s} {c:16s} summed share {v:.2f} over {n[k]} images")
