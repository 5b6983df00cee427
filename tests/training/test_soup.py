"""Weight averaging of checkpoints (``python -m training soup``)."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from training.soup import average_state_dicts, main  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "training" / "models"


def _sd(value: float, count: int = 3) -> dict:
    return {"w": torch.full((2, 2), value, dtype=torch.float16), "n": torch.tensor(count)}


def test_weighted_average_of_floats_keeps_dtype_and_takes_counters_from_the_last():
    got = average_state_dicts([_sd(1.0, 5), _sd(3.0, 9)], [3.0, 1.0])
    assert got["w"].dtype == torch.float16
    assert torch.allclose(got["w"].float(), torch.full((2, 2), 1.5))
    assert int(got["n"]) == 9


@pytest.mark.parametrize("weights", [[1.0], [0.0, 0.0], [-1.0, 2.0]])
def test_bad_weights_are_refused(weights):
    with pytest.raises(ValueError):
        average_state_dicts([_sd(1.0), _sd(2.0)], weights)


def test_different_architectures_are_refused():
    other = {"w": torch.zeros(3, 2), "n": torch.tensor(1)}
    with pytest.raises(ValueError, match="shape"):
        average_state_dicts([_sd(1.0), other], [1, 1])
    with pytest.raises(ValueError, match="layers"):
        average_state_dicts([_sd(1.0), {"v": torch.zeros(2, 2)}], [1, 1])


def test_soup_of_two_checkpoints_is_their_midpoint_and_loads(tmp_path):
    from training.offline import repo_root, setup_offline

    setup_offline(repo_root())
    from training.nn import register

    register()
    from ultralytics import YOLO

    paths = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        model = YOLO(str(MODELS / "vpd-yolo26n-fdaf.yaml"), task="detect")
        path = tmp_path / f"m{seed}.pt"
        model.save(str(path))
        paths.append(path)
    out = tmp_path / "soup.pt"
    assert main([str(p) for p in paths] + ["--out", str(out)]) == 0
    a, b, mixed = (torch.load(p, map_location="cpu", weights_only=False)["model"].state_dict() for p in (*paths, out))
    key = next(k for k, v in a.items() if v.is_floating_point() and v.numel() > 100 and not torch.equal(v, b[k]))
    assert torch.allclose(mixed[key].float(), (a[key].float() + b[key].float()) / 2, atol=1e-3)
    assert YOLO(str(out), task="detect").model is not None


def test_cli_names_a_missing_checkpoint(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([str(tmp_path / "nope.pt"), "--out", str(tmp_path / "o.pt")])
    assert "no such checkpoint" in capsys.readouterr().err
