"""``python -m training choose-base``: candidates are built with our class count, one training
step really trains, and the table reports every candidate."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("ultralytics")

from training import base_choice  # noqa: E402
from training.taxonomy import CLASS_NAMES  # noqa: E402


@pytest.mark.parametrize("name", ["yolo11n", "yolov10n", "yolo26n"])
def test_candidate_has_our_classes_and_its_scale(tmp_path, name):
    from ultralytics.nn.tasks import DetectionModel

    path = base_choice.candidate_yaml(name, tmp_path)
    model = DetectionModel(str(path), nc=len(CLASS_NAMES), verbose=False)
    assert model.model[-1].nc == len(CLASS_NAMES) == 33
    params, gflops = base_choice.size_of(model)
    assert 1.5 < params < 3.5 and 3 < gflops < 12  # the n scale, not the default (largest) one


def test_train_step_times_a_real_update(tmp_path):
    timer = base_choice.TrainStepTimer(base_choice.candidate_yaml("yolo26n", tmp_path), batch=2, imgsz=64)
    before = [p.detach().clone() for p in timer.model.parameters()][-1]
    seconds = timer.step()
    after = list(timer.model.parameters())[-1]
    assert seconds > 0 and math.isfinite(seconds)
    assert not torch.equal(before, after)  # the optimiser stepped


def test_table_lists_every_candidate():
    rows = [{"name": n, "params_m": 2.5, "gflops_640": 6.0, "latency_ms_320": 20.0, "latency_ms_640": 60.0,
             "train_s_per_iter": 2.4} for n in ("yolo11n", "yolo26n")]  # fmt: skip
    md = base_choice.table(rows, iters_per_epoch=563)
    assert md.count("\n| yolo") == 2 and "| 23 |" in md  # 2.4 s × 563 / 60 ≈ 23 min


def test_ablation_latency_table_times_every_architecture(tmp_path):
    from training.ablation import latency_table

    md = latency_table([64], tmp_path, rounds=1, runs=1)
    rows = [line for line in md.splitlines()[2:] if line.startswith("|")]
    assert len(rows) == 3  # base, +FDAF without gating, +FDAF (FCL shares its graph)
    assert all(float(row.split("|")[2]) > 0 for row in rows)
    assert len(list((tmp_path / "latency").glob("*-64.onnx"))) == 3
