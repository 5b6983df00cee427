"""``vpd-redact eval DATASET``: how much personal data each source hides, and at what cost.

DATASET is a YOLO folder (``data.yaml`` + images/labels, pick ``--split``) or a JSON annotation
file / folder holding ``annotations.json`` (``[{file, width, height, kind, boxes: [{category,
box: xyxy}]}]``). Every loaded detector runs once per image; the figures are then computed for
each source alone (detector, faces, OCR) and for their fusion, from the same raw detections:

* recall-at-coverage: share of GT boxes ≥ 90 % covered by the padded redaction mask (any class);
* FP area: share of redacted pixels outside all GT boxes; on negative images, share redacted;
* for YOLO datasets also mAP50, mAP50-95 and per-class AP of the fused detections;
* with ``--max-box-share S``: every hidden box (padded, all sources) covering more than ``S`` of its
  frame, unless it matches a GT box (a true large object); the exit status is 1 if there is any;
* with ``--per-image`` (and ``--json``): for each image, every GT box with its fused coverage and
  every fused hidden box (class, source, score, share of the frame outside the GT boxes), to see
  which boxes are missed and which false boxes cost the most.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from app.commands.common import add_detection_args, load_detectors, policy_from_args, redaction_from_args
from app.core.detections import Detections, Source
from app.core.errors import VpdError
from app.core.geometry import frame_share
from app.core.metrics import APAccumulator, CoverageTally, outside_mask, oversized, redaction_mask
from app.core.pipeline import Pipeline, detect_all_timed
from app.media.image_io import SUPPORTED_SUFFIXES, read_image

SOURCE_VARIANTS = {"detector": (Source.DETECTOR,), "faces": (Source.FACE,), "ocr": (Source.OCR,),
                   "fusion": (Source.DETECTOR, Source.FACE, Source.OCR)}  # fmt: skip


@dataclass(frozen=True)
class Sample:
    """One labelled image: path, kind (screenshot/photo/document/negative/…), GT boxes xyxy px, categories."""

    path: Path
    kind: str
    gt_xyxy: np.ndarray
    categories: tuple[str, ...]


def add_parser(sub) -> None:
    """Register the ``eval`` sub-command."""
    p = sub.add_parser("eval", help="measure recall-at-coverage, FP area and mAP on a labelled dataset",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("dataset", type=Path, help="YOLO folder with data.yaml, or annotations.json (or its folder)")
    p.add_argument("--split", default="val", help="YOLO split to evaluate (default: %(default)s)")
    p.add_argument("--limit", type=int, default=None, help="evaluate at most this many images")
    p.add_argument("--coverage", type=float, default=0.9, help="share of a GT box that must be hidden (default: %(default)s)")
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write all figures to this JSON file")
    p.add_argument("--kind", action="append", default=None, metavar="KIND",
                   help="evaluate only images of this kind (screenshot, photo, document, negative, …); repeatable")
    p.add_argument("--max-box-share", type=float, default=None, metavar="S",
                   help="list every hidden box covering more than S (0-1) of its frame and exit 1 if there is any "
                        "(boxes matching a GT box are exempt)")  # fmt: skip
    p.add_argument("--by-size", action="store_true",
                   help="also tally each category by GT box width (under 25, 25-50, 50-100, 100 px and over)")
    p.add_argument("--per-image", action="store_true",
                   help="with --json: also record each image's GT coverage and fused hidden boxes")
    add_detection_args(p)
    p.set_defaults(run=run)


def load_json_dataset(path: Path) -> list[Sample]:
    """Samples from a real-dev style ``annotations.json``."""
    root = path.parent
    records = json.loads(path.read_text())
    return [
        Sample(root / r["file"], r.get("kind", "unknown"),
               np.array([b["box"] for b in r.get("boxes", [])], np.float32).reshape(-1, 4),
               tuple(b["category"] for b in r.get("boxes", [])))  # fmt: skip
        for r in records
    ]


def _yaml_names(data: dict) -> list[str]:
    names = data.get("names", [])
    return [names[k] for k in sorted(names)] if isinstance(names, dict) else list(names)


def load_yolo_dataset(folder: Path, split: str) -> tuple[list[Sample], list[str]]:
    """Samples of ``split`` from a YOLO dataset and its class names (GT converted to pixels)."""
    import yaml

    yaml_path = folder / "data.yaml" if folder.is_dir() else folder
    data = yaml.safe_load(yaml_path.read_text())
    names = _yaml_names(data)
    root = Path(data.get("path") or yaml_path.parent)
    if not root.is_absolute():
        root = (yaml_path.parent / root).resolve()
    if not root.exists():
        root = yaml_path.parent
    image_dir = root / str(data.get(split, f"images/{split}"))
    if not image_dir.is_dir():
        raise VpdError(f"{yaml_path}: split {split!r} folder {image_dir} does not exist")
    samples = []
    for img in sorted(p for p in image_dir.rglob("*") if p.suffix.lower() in SUPPORTED_SUFFIXES):
        rel = img.relative_to(root)
        parts = list(rel.parts)
        if "images" in parts:
            parts[parts.index("images")] = "labels"
        label = (root / Path(*parts)).with_suffix(".txt")
        rows = np.loadtxt(label, ndmin=2) if label.is_file() and label.stat().st_size else np.zeros((0, 5))
        samples.append(Sample(img, "negative" if not len(rows) else "synthetic", rows[:, 1:5].astype(np.float32),
                              tuple(names[int(c)] for c in rows[:, 0])))  # fmt: skip
    return samples, names


def gt_to_pixels(sample: Sample, hw: tuple[int, int], normalised: bool) -> np.ndarray:
    """Ground-truth boxes of ``sample`` as xyxy pixels (YOLO labels are normalised cx, cy, w, h)."""
    if not normalised or not len(sample.gt_xyxy):
        return sample.gt_xyxy
    h, w = hw
    c = sample.gt_xyxy
    return np.stack([(c[:, 0] - c[:, 2] / 2) * w, (c[:, 1] - c[:, 3] / 2) * h,
                     (c[:, 0] + c[:, 2] / 2) * w, (c[:, 1] + c[:, 3] / 2) * h], axis=1).astype(np.float32)  # fmt: skip


def evaluate(pipeline: Pipeline, samples: list[Sample], normalised: bool, class_names: list[str] | None,
             coverage: float = 0.9, progress: bool = True, max_box_share: float | None = None,
             per_image: bool = False, by_size: bool = False) -> dict:  # fmt: skip
    """Run every detector once per sample and tally each source variant; returns a JSON-able dict.
    With ``by_size``, group ``size`` tallies each category by GT box width (:func:`width_bucket`).
    With ``max_box_share``, ``result["oversized_boxes"]`` lists the fused hidden boxes (padded)
    covering more than that share of their frame, GT-matched boxes excepted. With ``per_image``,
    ``result["per_image"]`` holds :func:`image_record` for every sample."""
    big_boxes: list[dict] = []
    records: list[dict] = []
    tallies: dict[tuple[str, str, str], CoverageTally] = {}
    seconds = {d.name: 0.0 for d in pipeline.detectors}
    ap = APAccumulator(tuple(class_names)) if class_names else None

    def tally(*key: str) -> CoverageTally:
        return tallies.setdefault(key, CoverageTally(coverage))

    for sample in tqdm(samples, desc="evaluating", unit="img", file=sys.stderr, disable=not progress or None):
        pixels = read_image(sample.path).pixels
        hw = pixels.shape[:2]
        gt = gt_to_pixels(sample, hw, normalised)
        raw, took = detect_all_timed(pipeline.detectors, pixels)
        cats = np.array(sample.categories)
        widths = np.array([width_bucket(w) for w in gt[:, 2] - gt[:, 0]]) if by_size else None
        for name, secs in took.items():
            seconds[name] += secs
        for variant, sources in SOURCE_VARIANTS.items():
            chosen = raw.take(np.isin(raw.sources, [int(s) for s in sources]))
            hidden = pipeline.padded(pipeline.select(chosen), hw)
            mask = redaction_mask(hidden.xyxy, hw)
            if variant == "fusion" and max_box_share is not None:
                big_boxes += _oversized_records(sample, hidden, hw, gt, max_box_share)
            cov = tally(variant, "all", "all").add(gt, mask)
            if variant == "fusion" and per_image:
                records.append(image_record(sample, gt, cov, hidden, hw))
            tally(variant, "kind", sample.kind).add(gt, mask)
            for cat in sorted(set(sample.categories)):
                tally(variant, "category", cat).add_boxes(cov[cats == cat])
            if widths is not None:
                for cat, bucket in sorted(set(zip(sample.categories, widths))):
                    tally(variant, "size", f"{cat} {bucket}").add_boxes(cov[(cats == cat) & (widths == bucket)])
        if ap is not None:
            _add_ap(ap, raw, gt, sample.categories, class_names)
    n = max(len(samples), 1)
    result = {
        "images": len(samples),
        "coverage": coverage,
        "seconds_per_image": {k: v / n for k, v in seconds.items()},
        "tallies": [{"source": k[0], "group": k[1], "name": k[2], **t.as_dict()} for k, t in sorted(tallies.items())],
    }
    if ap is not None:
        result["ap"] = ap.summary()
    if max_box_share is not None:
        result.update(max_box_share=max_box_share, oversized_boxes=big_boxes)
    if per_image:
        result["per_image"] = records
    return result


WIDTH_EDGES = (25, 50, 100)  # px in the source image; a plate under 25 px has characters of 3 px or less


def width_bucket(width: float) -> str:
    """The width bucket of a GT box in source pixels: "<25px", "25-50px", "50-100px" or ">=100px"."""
    lo = 0
    for hi in WIDTH_EDGES:
        if width < hi:
            return f"<{hi}px" if lo == 0 else f"{lo}-{hi}px"
        lo = hi
    return f">={lo}px"


def image_record(sample: Sample, gt: np.ndarray, coverage: np.ndarray, hidden: Detections, hw: tuple[int, int]) -> dict:
    """One image's diagnosis: its GT boxes with their fused coverage, and each hidden box with the
    share of the frame it redacts outside every GT box (its own false area)."""
    outside = outside_mask(gt, hw)
    labels = hidden.labels
    boxes = []
    for i in range(len(hidden)):
        own = redaction_mask(hidden.xyxy[i : i + 1], hw)
        boxes.append({"class": labels[i], "source": Source(int(hidden.sources[i])).name.lower(),
                      "score": round(float(hidden.scores[i]), 3), "xyxy": [round(float(v), 1) for v in hidden.xyxy[i]],
                      "false_share": round(float((own & outside).sum()) / own.size, 4)})  # fmt: skip
    return {"file": str(sample.path), "kind": sample.kind,
            "gt": [{"category": c, "xyxy": [round(float(v), 1) for v in b], "coverage": round(float(v), 3)}
                   for c, b, v in zip(sample.categories, gt, coverage)],
            "hidden": boxes}  # fmt: skip


def _oversized_records(sample: Sample, hidden: Detections, hw: tuple[int, int], gt: np.ndarray, max_share: float) -> list[dict]:
    share = frame_share(hidden.xyxy, hw)
    labels = hidden.labels
    return [{"file": str(sample.path), "kind": sample.kind, "class": labels[i], "source": Source(hidden.sources[i]).name.lower(),
             "score": round(float(hidden.scores[i]), 3), "share": round(float(share[i]), 4),
             "xyxy": [round(float(v), 1) for v in hidden.xyxy[i]]}
            for i in oversized(hidden.xyxy, hw, max_share, gt)]  # fmt: skip


def format_oversized(result: dict) -> str:
    """One line per box over ``--max-box-share`` and a count."""
    boxes = result["oversized_boxes"]
    lines = [f"{100 * b['share']:5.1f} %  {b['class']:14} {b['source']:8} score {b['score']:.2f}  {b['kind']:10} {b['file']}"
             for b in boxes]  # fmt: skip
    images = len({b["file"] for b in boxes})
    lines.append(f"boxes over {100 * result['max_box_share']:.0f} % of the frame: {len(boxes)} in {images} of "
                 f"{result['images']} images")  # fmt: skip
    return "\n".join(lines)


def _add_ap(ap: APAccumulator, raw: Detections, gt: np.ndarray, categories, class_names: list[str]) -> None:
    index = {n: i for i, n in enumerate(class_names)}
    labels = raw.labels
    keep = np.array([lab in index for lab in labels], bool)
    pred_cls = np.array([index[lab] for lab, k in zip(labels, keep) if k], np.int64)
    ap.add(raw.xyxy[keep], raw.scores[keep], pred_cls, gt, np.array([index[c] for c in categories], np.int64))


def _fmt(v) -> str:
    return "    -" if v is None else f"{100 * v:5.1f}"


def format_table(result: dict) -> str:
    """Plain-text table: one row per (group, name), recall and FP area per source variant."""
    rows: dict[tuple[str, str], dict] = {}
    for t in result["tallies"]:
        rows.setdefault((t["group"], t["name"]), {})[t["source"]] = t
    variants = list(SOURCE_VARIANTS)
    head = f"{'group':9} {'name':24} {'GT':>5} " + " ".join(f"{v[:8]:>8} R%  FP%" for v in variants)
    lines = [f"recall-at-coverage (≥{100 * result['coverage']:.0f} % of a GT box hidden) and FP area "
             f"(negatives: % of image redacted), {result['images']} images", head, "-" * len(head)]  # fmt: skip
    order = {"all": 0, "kind": 1, "category": 2, "size": 3}
    for (group, name), by_source in sorted(rows.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
        any_t = next(iter(by_source.values()))
        cells = []
        for v in variants:
            t = by_source.get(v, {})
            fp = t.get("negative_area_redacted") if name == "negative" else t.get("fp_area")
            cells.append(f"{'':8} {_fmt(t.get('recall_at_coverage'))} {_fmt(fp) if group in ('all', 'kind') else '    -'}")
        lines.append(f"{group:9} {name[:24]:24} {any_t['gt_boxes']:5d} " + " ".join(cells))
    lines.append("seconds per image: " + ", ".join(f"{k} {v:.2f}" for k, v in result["seconds_per_image"].items()))
    if "ap" in result and result["ap"]["mAP50"] is not None:
        a = result["ap"]
        lines.append(f"fused detections: mAP50 {a['mAP50']:.3f}  mAP50-95 {a['mAP50-95']:.3f}")
        lines += [f"  AP50-95 {k:18} {v:.3f}" for k, v in sorted(a["per_class_AP50-95"].items())]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Evaluate; exit 0 on success, 1 when boxes exceed --max-box-share, 2 on a usage or model error."""
    try:
        path = args.dataset
        if path.is_dir() and (path / "data.yaml").is_file() or path.suffix in (".yaml", ".yml"):
            samples, names = load_yolo_dataset(path, args.split)
            normalised = True
        else:
            samples = load_json_dataset(path / "annotations.json" if path.is_dir() else path)
            names, normalised = None, False
        if args.kind:
            samples = [s for s in samples if s.kind in args.kind]
        if args.limit:
            samples = samples[: args.limit]
        if args.max_box_share is not None and not 0.0 < args.max_box_share <= 1.0:
            raise ValueError(f"--max-box-share must be in (0, 1], got {args.max_box_share}")
        built = load_detectors(args)  # figures for an incomplete detector set only with --allow-missing-detector
        pipeline = Pipeline(built.detectors, policy_from_args(args), redaction_from_args(args))
    except (VpdError, ValueError, OSError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for warning in built.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    result = evaluate(pipeline, samples, normalised, names, args.coverage, max_box_share=args.max_box_share,
                      per_image=args.per_image, by_size=args.by_size)
    result.update({"dataset": str(path), "providers": built.providers, "preset": args.preset, "conf": args.conf,
                   "padding": args.padding, "detectors": [d.name for d in built.detectors]})  # fmt: skip
    print(format_table(result))
    if args.max_box_share is not None:
        print(format_oversized(result))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
    return 1 if result.get("oversized_boxes") else 0
