"""Export to ONNX with VPD metadata, ORT-vs-torch parity, and the app-side parity check."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("ultralytics")
pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
cv2 = pytest.importorskip("cv2")

from training.export import ExportError, ParityReport, match_boxes, vpd_metadata  # noqa: E402
from training.taxonomy import CLASS_NAMES, DOMAINS, SCHEMA_VERSION  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "training" / "models"
IMGSZ = 96


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    """An untrained FDAF model saved as an ultralytics checkpoint with the taxonomy's class names."""
    from training.offline import repo_root, setup_offline

    setup_offline(repo_root())
    from training.nn import register

    register()
    from ultralytics import YOLO

    torch.manual_seed(0)  # the YAML build draws the initial weights from the global RNG
    model = YOLO(str(MODELS / "vpd-yolo26n-fdaf.yaml"), task="detect")
    model.model.names = dict(enumerate(CLASS_NAMES))
    # An untrained head scores every anchor and class alike (ties make ORT and torch pick different rows);
    # random head weights give distinct scores and real boxes, and a non-zero FDAF fuse exercises the spectrum path.
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        head = model.model.model[-1]
        for seq, w_std in ((head.one2one_cv2, 0.0), (head.one2one_cv3, 0.002)):
            for branch in seq:
                last = branch[-1]
                last.weight.copy_(torch.randn(last.weight.shape, generator=g) * w_std)
                if seq is head.one2one_cv3:
                    last.bias.zero_()  # box bias stays 2.0: valid boxes ~4 strides wide
        for m in model.model.modules():
            if type(m).__name__ == "FDAF":
                m.fuse[1].weight.fill_(1.0)
        # Default BN running stats shrink activations ~3x per layer, so an untrained neck outputs ~1e-6 and every
        # score ties. One train-mode pass with momentum 1 sets the stats to real batch statistics.
        bns = [m for m in model.model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
        for bn in bns:
            bn.momentum = 1.0
        model.model.train()(torch.rand(4, 3, IMGSZ, IMGSZ, generator=g))
        for bn in bns:
            bn.momentum = 0.03
        model.model.eval()
    path = tmp_path_factory.mktemp("ckpt") / "fdaf.pt"
    model.save(str(path))
    return path


@pytest.fixture(scope="module")
def exported(checkpoint, tmp_path_factory):
    from training.export import export_onnx

    out = tmp_path_factory.mktemp("models")
    return export_onnx(checkpoint, out, "vpd-test", IMGSZ)


def test_export_leaves_the_files_beside_the_weights_alone(checkpoint, tmp_path):
    """Exporting a checkpoint that sits beside a shipped ONNX file (models/vpd-n.pt and
    models/vpd-n.onnx) must not overwrite or move that file."""
    from training.export import export_onnx

    shipped = tmp_path / "models"
    shipped.mkdir()
    weights = shipped / "vpd-n.pt"
    weights.write_bytes(checkpoint.read_bytes())
    (shipped / "vpd-n.onnx").write_bytes(b"the shipped model")
    onnx_path, _ = export_onnx(weights, tmp_path / "candidate", "vpd-n", IMGSZ)
    assert (shipped / "vpd-n.onnx").read_bytes() == b"the shipped model"
    assert sorted(p.name for p in shipped.iterdir()) == ["vpd-n.onnx", "vpd-n.pt"]
    assert onnx_path.is_file() and sorted(p.name for p in onnx_path.parent.iterdir()) == ["vpd-n.onnx", "vpd-n.pt"]


def test_metadata_written(exported):
    import onnx

    onnx_path, pt_path = exported
    assert onnx_path.name == "vpd-test.onnx" and pt_path.is_file()
    meta = {p.key: p.value for p in onnx.load(str(onnx_path)).metadata_props}
    assert meta["vpd_schema_version"] == str(SCHEMA_VERSION)
    assert json.loads(meta["vpd_class_names"]) == list(CLASS_NAMES)
    assert json.loads(meta["vpd_domains"]) == {d: list(n) for d, n in DOMAINS.items()}
    assert json.loads(meta["imgsz"]) == [IMGSZ, IMGSZ]
    assert meta["stride"] == "32"
    assert "names" in meta  # ultralytics' own keys are kept


def test_no_dft_op_in_graph(exported):
    import onnx

    ops = {n.op_type for n in onnx.load(str(exported[0])).graph.node}
    assert "DFT" not in ops and "MatMul" in ops


def test_ort_matches_torch(exported, checkpoint):
    """Raw (1, 300, 6) outputs agree; rows are compared as sets because near-tied scores may reorder."""
    from ultralytics import YOLO

    model = YOLO(str(checkpoint)).model.float().eval()
    head = model.model[-1]
    head.export = True
    head.end2end = True  # as the exporter does for an end-to-end head: (1, K, 6) one-to-one output
    x = torch.from_numpy(np.random.default_rng(0).random((1, 3, IMGSZ, IMGSZ), dtype=np.float32))
    with torch.no_grad():
        ref = model(x)
    ref = (ref[0] if isinstance(ref, (tuple, list)) else ref).numpy()[0]
    sess = ort.InferenceSession(str(exported[0]), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})[0][0]
    assert got.shape == ref.shape and got.shape[1] == 6
    top = got[np.argsort(-got[:, 4])[:50]]
    dist = np.abs(top[:, None, :] - ref[None, :, :]).max(axis=2).min(axis=1)  # nearest torch row per ORT row
    assert dist.max() < 1e-2, dist.max()
    assert top[:, 4].max() < 0.999  # unsaturated scores, or the set comparison could hide a mismatch among ties


def test_app_detector_reads_export_and_parity_runs(exported, tmp_path):
    pytest.importorskip("app.inference.vpd_detector")
    from app.inference.vpd_detector import VpdDetector
    from training.export import check_parity

    onnx_path, pt_path = exported
    det = VpdDetector.from_path(onnx_path, providers=["CPUExecutionProvider"], tiling=False)
    assert det.class_names == CLASS_NAMES and det.metadata.input_hw == (IMGSZ, IMGSZ)
    # Noise like the BN calibration input keeps the random head's scores unsaturated; non-square tests letterboxing.
    img = (np.random.default_rng(1).random((IMGSZ, IMGSZ + 20, 3)) * 255).astype(np.uint8)
    cv2.imwrite(str(tmp_path / "a.png"), img)
    report = check_parity(onnx_path, pt_path, [tmp_path / "a.png"], conf=0.5)
    assert report.images == 1 and report.ref_boxes > 0
    assert report.match_rate >= 0.95, report


@pytest.mark.parametrize(
    "ref, ref_cls, got, got_cls, expected",
    [
        ([[0, 0, 10, 10]], [1], [[0, 0, 10, 10]], [1], 1),
        ([[0, 0, 10, 10]], [1], [[0, 0, 10, 10]], [2], 0),  # class must agree
        ([[0, 0, 10, 10]], [1], [[0, 0, 10, 11.5]], [1], 0),  # IoU 0.87 < 0.9
        ([[0, 0, 10, 10], [0, 0, 10, 10]], [1, 1], [[0, 0, 10, 10]], [1], 1),  # one-to-one
        ([], [], [[0, 0, 1, 1]], [0], 0),
    ],
)
def test_match_boxes(ref, ref_cls, got, got_cls, expected):
    scores = np.linspace(1, 0.5, len(ref))
    ref = np.asarray(ref, np.float32).reshape(-1, 4)
    assert match_boxes(ref, ref_cls, scores, np.asarray(got, np.float32), got_cls) == expected


def test_match_rate_uses_larger_set():
    assert ParityReport(1, 10, 12, 10).match_rate == pytest.approx(10 / 12)
    assert ParityReport(1, 0, 0, 0).match_rate == 1.0


def test_metadata_rejects_foreign_names():
    with pytest.raises(ExportError, match="taxonomy"):
        vpd_metadata(["face", "cat"], (640, 640), 32)
