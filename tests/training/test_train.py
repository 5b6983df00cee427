"""``python -m training train`` end to end on a tiny synthetic YOLO dataset (1 epoch, imgsz 64)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ultralytics")
cv2 = pytest.importorskip("cv2")

from training.taxonomy import CLASS_NAMES  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "training" / "models"


def make_tiny_dataset(root: Path, n_train: int = 8, n_val: int = 4, size: int = 96, seed: int = 0) -> Path:
    """Write a YOLO dataset of ``size``x``size`` BGR images with filled rectangles of classes 0-2; return data.yaml.

    Labels are the drawn rectangles (normalised xywh), so the data is learnable but tiny.
    """
    rng = np.random.default_rng(seed)
    for split, n in (("train", n_train), ("val", n_val)):
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
        for i in range(n):
            img = np.full((size, size, 3), 200, np.uint8)
            rows = []
            for _ in range(int(rng.integers(1, 4))):
                cls = int(rng.integers(0, 3))
                w, h = (int(v) for v in rng.integers(size // 8, size // 2, 2))
                x, y = int(rng.integers(0, size - w)), int(rng.integers(0, size - h))
                cv2.rectangle(img, (x, y), (x + w - 1, y + h - 1), [(0, 0, 255), (0, 255, 0), (255, 0, 0)][cls], -1)
                rows.append(f"{cls} {(x + w / 2) / size:.6f} {(y + h / 2) / size:.6f} {w / size:.6f} {h / size:.6f}")
            cv2.imwrite(str(root / "images" / split / f"{i:03d}.png"), img)
            (root / "labels" / split / f"{i:03d}.txt").write_text("\n".join(rows) + "\n")
    data = root / "data.yaml"
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES))
    data.write_text(f"path: {root}\ntrain: images/train\nval: images/val\ntest: images/val\nnames:\n{names}\n")
    return data


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory) -> Path:
    return make_tiny_dataset(tmp_path_factory.mktemp("tiny"))


def test_train_one_epoch_with_fcl_then_resume_guard(tiny_data, tmp_path):
    from training.train import TrainConfig, TrainError, train

    cfg = TrainConfig(
        data=str(tiny_data), model=str(MODELS / "vpd-yolo26n-fdaf.yaml"), epochs=1, imgsz=64, batch=4,
        workers=0, fcl=True, project=str(tmp_path), name="run", device="cpu", extra={"mosaic": 0.0},
    )
    run_dir = train(cfg)
    assert (run_dir / "weights" / "last.pt").is_file()
    progress = [json.loads(line) for line in (run_dir / "progress.jsonl").read_text().splitlines()]
    assert [p.get("epoch") for p in progress] == [1, None]  # one epoch, then the final validation of best.pt
    assert progress[-1]["final_best"]
    assert "freq_loss" in progress[0]["train_loss"]  # FCL was active
    assert "epoch 1/1" in (run_dir / "train.log").read_text()
    # A finished run cannot be resumed (no optimizer state): fail with a message, not a fresh run.
    with pytest.raises(TrainError, match="finished"):
        train(cfg, resume=True)
    with pytest.raises(TrainError, match="already holds a run"):
        train(cfg)


def test_cli_requires_data(capsys):
    from training.train import main

    with pytest.raises(SystemExit):
        main(["--epochs", "1"])


def test_interrupted_run_resumes_from_last(tiny_data, tmp_path, monkeypatch):
    """Kill a 2-epoch run after epoch 1 (last.pt already saved), then --resume finishes epoch 2."""
    import training.train as tr

    real = tr._callbacks

    class Interrupted(Exception):
        pass

    def interrupting(cfg, run_dir):
        cbs = real(cfg, run_dir)
        log_epoch = cbs["on_fit_epoch_end"]

        def on_fit_epoch_end(trainer):
            log_epoch(trainer)
            raise Interrupted

        return {**cbs, "on_fit_epoch_end": on_fit_epoch_end}

    cfg = tr.TrainConfig(
        data=str(tiny_data), model=str(MODELS / "vpd-yolo26n.yaml"), epochs=2, imgsz=64, batch=4,
        workers=0, project=str(tmp_path), name="run", device="cpu", val=False, extra={"mosaic": 0.0},
    )
    monkeypatch.setattr(tr, "_callbacks", interrupting)
    with pytest.raises(Interrupted):
        tr.train(cfg)
    monkeypatch.setattr(tr, "_callbacks", real)
    assert tr.main(["--project", str(tmp_path), "--name", "run", "--resume", "--workers", "0"]) == 0
    epochs = [json.loads(x).get("epoch") for x in (tmp_path / "run" / "progress.jsonl").read_text().splitlines()]
    assert [e for e in epochs if e] == [1, 2]
