"""``python -m training export``: .pt -> models/<name>.onnx with VPD metadata, then a parity check.

The parity check runs the exported ONNX through the app's own ``VpdDetector`` (tiling off:
letterbox, ORT, decode and NMS from ``app/``) and compares it with ultralytics' predictions
from the ``.pt`` on held-back images: a reference box counts as matched when an app box of
the same class overlaps it with IoU >= 0.9. Below ``min_match`` (95%) the export fails.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.geometry import iou_matrix

from training.offline import repo_root, setup_offline
from training.taxonomy import DOMAINS, SCHEMA_VERSION

log = logging.getLogger("training.export")

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}


class ExportError(RuntimeError):
    """Export or its parity check failed; the message says why."""


@dataclass(frozen=True)
class ParityReport:
    """Outcome of ``check_parity``: counts of reference/app boxes and the matched ones (IoU >= iou_min, same class)."""

    images: int
    ref_boxes: int
    app_boxes: int
    matched: int

    @property
    def match_rate(self) -> float:
        """Matched share of the larger of the two box sets (1.0 when both are empty)."""
        denom = max(self.ref_boxes, self.app_boxes)
        return 1.0 if denom == 0 else self.matched / denom


def vpd_metadata(
    class_names: list[str], imgsz: tuple[int, int], stride: int, tile_size: int | None = None
) -> dict[str, str]:
    """The ONNX metadata the app requires (see ``app/inference/metadata.py``).

    Raises ``ExportError`` when a class is not in the taxonomy: the app resolves redaction
    policy by name and domain, so an unknown name would silently never be redacted by domain.
    """
    domain_of = {n: d for d, names in DOMAINS.items() for n in names}
    unknown = [n for n in class_names if n not in domain_of]
    if unknown:
        raise ExportError(f"classes not in training/taxonomy.py: {unknown}; train on a dataset with taxonomy names")
    domains = {d: [n for n in names if n in class_names] for d, names in DOMAINS.items()}
    return {
        "vpd_schema_version": str(SCHEMA_VERSION),
        "vpd_class_names": json.dumps(list(class_names)),
        "vpd_domains": json.dumps({d: n for d, n in domains.items() if n}),
        "imgsz": json.dumps([int(imgsz[0]), int(imgsz[1])]),
        "stride": str(int(stride)),
        # Native-pixel size of the training crops: the app tiles large frames at this size.
        **({"vpd_tile_size": str(int(tile_size))} if tile_size else {}),
    }


def write_metadata(onnx_path: Path, props: dict[str, str]) -> None:
    """Add/overwrite ``metadata_props`` in place (keeps ultralytics' own keys)."""
    import onnx

    model = onnx.load(str(onnx_path))
    existing = {p.key: p for p in model.metadata_props}
    for key, value in props.items():
        if key in existing:
            existing[key].value = value
        else:
            entry = model.metadata_props.add()
            entry.key, entry.value = key, value
    onnx.save(model, str(onnx_path))


def export_onnx(
    weights: Path, out_dir: Path, name: str, imgsz: int, tile_size: int | None = None
) -> tuple[Path, Path]:
    """Export ``weights`` to ``out_dir/<name>.onnx`` (fixed ``imgsz`` square input, batch 1, opset from
    ultralytics, NMS-free for end-to-end heads) with VPD metadata; copy the .pt to ``out_dir/<name>.pt``.

    Returns ``(onnx_path, pt_path)``.
    """
    setup_offline(repo_root())
    from training.nn import register

    register()
    from ultralytics import YOLO

    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path, pt_path = out_dir / f"{name}.onnx", out_dir / f"{name}.pt"
    # ultralytics writes <weights stem>.onnx beside the weights: export a private copy, so that a
    # checkpoint in models/ never has the shipped ONNX file beside it overwritten or moved away.
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        private = Path(tmp) / Path(weights).name
        shutil.copyfile(weights, private)
        model = YOLO(str(private), task="detect")
        names = [model.names[i] for i in range(len(model.names))]
        # simplify=False: onnxslim is not a dependency and ultralytics would try to install it.
        produced = Path(model.export(format="onnx", imgsz=imgsz, nms=False, simplify=False, dynamic=False, device="cpu"))
        stride = int(max(model.model.stride.tolist()))
        write_metadata(produced, vpd_metadata(names, (imgsz, imgsz), stride, tile_size))
        shutil.move(str(produced), onnx_path)
    if Path(weights).resolve() != pt_path.resolve():
        shutil.copyfile(weights, pt_path)
    log.info("wrote %s and %s", onnx_path, pt_path)
    return onnx_path, pt_path


def match_boxes(ref_xyxy, ref_cls, ref_scores, got_xyxy, got_cls, iou_min: float = 0.9) -> int:
    """Greedy one-to-one matching by descending reference score; same class and IoU >= ``iou_min``."""
    if len(ref_xyxy) == 0 or len(got_xyxy) == 0:
        return 0
    iou = iou_matrix(np.asarray(ref_xyxy, np.float32), np.asarray(got_xyxy, np.float32))
    iou[np.asarray(ref_cls)[:, None] != np.asarray(got_cls)[None, :]] = 0.0
    used = np.zeros(len(got_xyxy), bool)
    matched = 0
    for i in np.argsort(-np.asarray(ref_scores)):
        cand = np.where(~used, iou[i], 0.0)
        j = int(cand.argmax())
        if cand[j] >= iou_min:
            used[j] = True
            matched += 1
    return matched


def held_back_images(data_yaml: Path, n: int, splits=("test", "val")) -> list[Path]:
    """The first ``n`` images of the first existing split in ``splits`` of a YOLO data.yaml."""
    import yaml

    d = yaml.safe_load(Path(data_yaml).read_text())
    root = Path(d.get("path") or Path(data_yaml).parent)
    root = root if root.is_absolute() else Path(data_yaml).parent / root
    for split in splits:
        entry = d.get(split)
        if not entry:
            continue
        folder = Path(entry) if Path(entry).is_absolute() else root / entry
        if folder.is_dir():
            images = sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
            if images:
                return images[:n]
    raise ExportError(f"no held-back images in {data_yaml} (splits {splits}); pass --images DIR")


def check_parity(onnx_path: Path, pt_path: Path, images: list[Path], conf: float = 0.25, iou: float = 0.7,
                 iou_min: float = 0.9) -> ParityReport:
    """Compare the app's ``VpdDetector`` on the ONNX (tiling off) with ultralytics' predictions from the .pt.

    Both use the same ``conf`` and NMS ``iou``; ultralytics letterboxes square (``rect=False``)
    as the fixed-size ONNX does.
    """
    import cv2

    setup_offline(repo_root())
    from training.nn import register

    register()
    from ultralytics import YOLO

    from app.core.decode import DecodeSettings
    from app.inference.vpd_detector import VpdDetector

    det = VpdDetector.from_path(onnx_path, providers=["CPUExecutionProvider"],
                                decode=DecodeSettings(conf=conf, iou=iou), tiling=False)
    ref_model = YOLO(str(pt_path), task="detect")
    imgsz = det.metadata.input_hw
    # An end-to-end export (K, 6) runs the one-to-one head; ultralytics selects it for the .pt with nms=False
    # (its default, nms=None, predicts with the one-to-many head plus NMS: a different model).
    out_shape = det.session.get_outputs()[0].shape
    end2end = out_shape[-1] == 6 and out_shape[1] != 4 + len(det.class_names)
    n_ref = n_app = n_match = 0
    for path in images:
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise ExportError(f"cannot read image {path}")
        r = ref_model.predict(frame, imgsz=list(imgsz), conf=conf, iou=iou, rect=False, device="cpu",
                              verbose=False, max_det=300, nms=False if end2end else None)[0].boxes
        got = det.detect_raw(frame)  # the model itself: calibration is checked separately
        ref_xyxy, ref_cls, ref_s = r.xyxy.cpu().numpy(), r.cls.cpu().numpy().astype(int), r.conf.cpu().numpy()
        n_ref += len(ref_xyxy)
        n_app += len(got.xyxy)
        n_match += match_boxes(ref_xyxy, ref_cls, ref_s, got.xyxy, got.class_ids, iou_min)
    report = ParityReport(len(images), n_ref, n_app, n_match)
    log.info("parity on %d images: ultralytics %d boxes, app %d, matched %d (IoU>=%.2f, same class): %.1f%%",
             report.images, n_ref, n_app, n_match, iou_min, 100 * report.match_rate)
    return report


def _data_from_checkpoint(pt_path: Path) -> Path | None:
    import torch

    ckpt = torch.load(pt_path, map_location="cpu", weights_only=False)
    data = (ckpt.get("train_args") or {}).get("data")
    return Path(data) if data and Path(data).is_file() else None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training export", description=__doc__.splitlines()[0])
    p.add_argument("--weights", required=True, help="trained checkpoint, e.g. runs/train/exp/weights/best.pt")
    p.add_argument("--name", default="vpd-n", help="output stem: models/<name>.onnx and .pt")
    p.add_argument("--imgsz", type=int, default=640)
    p.add_argument("--tile-size", type=int, default=None,
                   help="native-pixel crop size the model was trained on (default: imgsz); the app tiles at it")
    p.add_argument("--out-dir", default="models")
    p.add_argument("--data", help="data.yaml for held-back parity images (default: the checkpoint's)")
    p.add_argument("--images", help="folder of parity images (overrides --data)")
    p.add_argument("--parity-images", type=int, default=16)
    p.add_argument("--conf", type=float, default=0.25)
    p.add_argument("--min-match", type=float, default=0.95)
    p.add_argument("--no-parity", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    """CLI entry; exit code 1 when the parity check fails, 2 on an export error."""
    a = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    root = repo_root()
    out_dir = Path(a.out_dir) if Path(a.out_dir).is_absolute() else root / a.out_dir
    try:
        onnx_path, pt_path = export_onnx(Path(a.weights), out_dir, a.name, a.imgsz, a.tile_size)
        if a.no_parity:
            return 0
        if a.images:
            images = sorted(p for p in Path(a.images).rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
            images = images[: a.parity_images]
        else:
            data = Path(a.data) if a.data else _data_from_checkpoint(pt_path)
            if data is None:
                raise ExportError("cannot find the training data.yaml for parity images; pass --data or --images")
            images = held_back_images(data, a.parity_images)
        report = check_parity(onnx_path, pt_path, images, conf=a.conf)
    except ExportError as e:
        log.error("%s", e)
        return 2
    if report.ref_boxes + report.app_boxes == 0:
        log.warning("parity check vacuous: no boxes at conf %.2f on %d images (untrained model?)", a.conf, report.images)
    if report.match_rate < a.min_match:
        log.error("PARITY FAILED: match rate %.1f%% < %.0f%%", 100 * report.match_rate, 100 * a.min_match)
        return 1
    return 0
