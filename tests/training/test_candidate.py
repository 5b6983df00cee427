"""``python -m training candidate``: the steps run in order with the card's settings, the row is
read from the app's eval JSON, and a missing input or a failing step stops it clearly."""

import json

import pytest

import app.cli
from training import calibrate, candidate, export


def _tallies(recall, fp, negatives, source):
    return {"tallies": [
        {"source": source, "group": "all", "name": "all", "recall_at_coverage": recall, "fp_area": fp},
        {"source": source, "group": "kind", "name": "negative", "recall_at_coverage": None, "fp_area": None,
         "negative_area_redacted": negatives},
    ]}  # fmt: skip


@pytest.fixture
def inputs(tmp_path):
    weights = tmp_path / "e36.pt"
    weights.write_bytes(b"x")
    data = tmp_path / "render"
    data.mkdir()
    (data / "data.yaml").write_text("path: .\n")
    dev = tmp_path / "real-dev"
    dev.mkdir()
    (dev / "annotations.json").write_text("{}")
    return weights, data, dev, tmp_path / "out"


def test_runs_export_calibrate_and_both_evaluations_then_prints_the_card_row(inputs, monkeypatch, capsys):
    weights, data, dev, out = inputs
    calls = []

    def fake_eval(argv):
        calls.append(("eval", argv))
        dev_run = argv[1] == str(dev)
        result = _tallies(0.807, 0.428, None, "fusion") if dev_run else _tallies(0.37, 0.518, None, "detector")
        if dev_run:
            result["tallies"][1]["negative_area_redacted"] = 0.049
        path = argv[argv.index("--json") + 1]
        with open(path, "w") as f:
            json.dump(result, f)
        return 0

    monkeypatch.setattr(export, "main", lambda argv: calls.append(("export", argv)) or 0)
    monkeypatch.setattr(calibrate, "main", lambda argv: calls.append(("calibrate", argv)) or 0)
    monkeypatch.setattr(app.cli, "main", fake_eval)
    assert candidate.main(["--weights", str(weights), "--data", str(data), "--out-dir", str(out), "--real-dev", str(dev)]) == 0
    assert [c[0] for c in calls] == ["export", "calibrate", "eval", "eval"]
    assert calls[0][1][calls[0][1].index("--tile-size") + 1] == "640"
    assert calls[0][1][calls[0][1].index("--imgsz") + 1] == "320"
    assert "--write" in calls[1][1] and calls[1][1][calls[1][1].index("--beta") + 1] == "0.5"
    assert {"--no-faces", "--no-ocr", "--no-codes"} <= set(calls[2][1]) and "real_test" in calls[2][1]
    assert "--max-box-share" in calls[3][1] and "--no-ocr" not in calls[3][1]
    assert capsys.readouterr().out.strip().splitlines()[-1] == "real_test 37.0 / 51.8 | real-dev fused 80.7 / 42.8 / 4.9"


def test_missing_inputs_and_a_failing_step_stop_with_a_reason(inputs, monkeypatch):
    weights, data, dev, out = inputs
    with pytest.raises(SystemExit, match="no checkpoint"):
        candidate.main(["--weights", str(out / "none.pt"), "--data", str(data), "--out-dir", str(out), "--real-dev", str(dev)])
    with pytest.raises(SystemExit, match="no annotations.json"):
        candidate.main(["--weights", str(weights), "--data", str(data), "--out-dir", str(out), "--real-dev", str(out)])
    monkeypatch.setattr(export, "main", lambda argv: 1)
    with pytest.raises(SystemExit, match="export failed"):
        candidate.main(["--weights", str(weights), "--data", str(data), "--out-dir", str(out), "--real-dev", str(dev)])


def test_a_listed_large_box_is_not_a_failing_step(inputs, monkeypatch, capsys):
    """``eval --max-box-share`` exits 1 when it lists a box over the share: the candidate goes on."""
    weights, data, dev, out = inputs

    def fake_eval(argv):
        path = argv[argv.index("--json") + 1]
        with open(path, "w") as f:
            json.dump(_tallies(0.8, 0.3, 0.01, "fusion" if "--max-box-share" in argv else "detector"), f)
        return 1 if "--max-box-share" in argv else 0

    monkeypatch.setattr(export, "main", lambda argv: 0)
    monkeypatch.setattr(calibrate, "main", lambda argv: 0)
    monkeypatch.setattr(app.cli, "main", fake_eval)
    assert candidate.main(["--weights", str(weights), "--data", str(data), "--out-dir", str(out), "--real-dev", str(dev)]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "real_test 80.0 / 30.0 | real-dev fused 80.0 / 30.0 / 1.0"
    with pytest.raises(SystemExit, match="real-dev failed \\(exit 2\\)"):
        candidate._run("real-dev", lambda argv: 2, [], ok=(0, 1))
    with pytest.raises(SystemExit, match="real_test failed \\(exit 1\\)"):
        candidate._run("real_test", lambda argv: 1, [])


def test_imgsz_640_exports_native_scale_tiles(inputs, monkeypatch):
    """``--imgsz 640`` (a checkpoint trained at 640) exports 640-px input for the same 640-px tiles."""
    weights, data, dev, out = inputs
    exported = []

    def fake_eval(argv):
        with open(argv[argv.index("--json") + 1], "w") as f:
            json.dump(_tallies(0.5, 0.2, 0.0, "fusion" if "--max-box-share" in argv else "detector"), f)
        return 0

    monkeypatch.setattr(export, "main", lambda argv: exported.append(argv) or 0)
    monkeypatch.setattr(calibrate, "main", lambda argv: 0)
    monkeypatch.setattr(app.cli, "main", fake_eval)
    args = ["--weights", str(weights), "--data", str(data), "--out-dir", str(out), "--real-dev", str(dev)]
    assert candidate.main(args + ["--imgsz", "640"]) == 0
    assert exported[0][exported[0].index("--imgsz") + 1] == "640"
    assert exported[0][exported[0].index("--tile-size") + 1] == "640"
    with pytest.raises(SystemExit):
        candidate.main(args + ["--imgsz", "480"])
