"""``python -m training branch``: a new run from another run's optimiser checkpoint, with its data
list and epochs replaced, ready for ``train --resume``."""

import json

import pytest

torch = pytest.importorskip("torch")

from training.__main__ import main as training_main  # noqa: E402
from training.branch import branch  # noqa: E402
from training.train import SIDECAR, TrainError  # noqa: E402


def source_run(root, optimizer=True, epoch=2, epochs=3):
    (root / "weights").mkdir(parents=True)
    ckpt = {"epoch": epoch, "optimizer": {"state": {}} if optimizer else None, "model": None,
            "train_args": {"data": "/old/data.yaml", "epochs": epochs, "save_dir": str(root), "name": root.name,
                           "lr0": 4e-5, "model": str(root / "weights" / "last.pt")}}  # fmt: skip
    torch.save(ckpt, root / "weights" / f"epoch{epoch}.pt")
    (root / SIDECAR).write_text(json.dumps({"fcl": True, "fcl_beta": 0.05, "name": root.name}))
    return root / "weights" / f"epoch{epoch}.pt"


def test_branch_rewrites_data_run_folder_and_epochs(tmp_path):
    source = source_run(tmp_path / "runs" / "a")
    data = tmp_path / "new.yaml"
    data.write_text("path: x\n")
    run_dir = tmp_path / "runs" / "b"
    last = branch(source, run_dir, data, epochs=4, hours=0.6)
    ckpt = torch.load(last, weights_only=False)
    args = ckpt["train_args"]
    assert args["data"] == str(data.resolve()) and args["epochs"] == 4 and args["lr0"] == 4e-5 and args["time"] == 0.6
    assert args["save_dir"] == str(run_dir.resolve()) and args["name"] == "b" and args["resume"] == str(last.resolve())
    assert ckpt["optimizer"] == {"state": {}} and ckpt["epoch"] == 2
    sidecar = json.loads((run_dir / SIDECAR).read_text())
    assert sidecar["fcl"] is True and sidecar["name"] == "b" and sidecar["branched_from"] == str(source)
    with pytest.raises(TrainError, match="already holds a run"):
        branch(source, run_dir, data, epochs=4)


@pytest.mark.parametrize("optimizer, epochs, hours, message", [(False, 5, None, "no optimiser state"),
                                                              (True, 3, None, "finished 3 epochs"),
                                                              (True, 5, 0.0, "must be positive")])  # fmt: skip
def test_branch_refuses_what_cannot_resume(tmp_path, optimizer, epochs, hours, message):
    source = source_run(tmp_path / "a", optimizer=optimizer)
    with pytest.raises(TrainError, match=message):
        branch(source, tmp_path / "b", None, epochs=epochs, hours=hours)
    assert not (tmp_path / "b" / "weights" / "last.pt").exists()


def test_branch_command_says_how_to_continue(tmp_path, capsys):
    source = source_run(tmp_path / "a")
    assert training_main(["branch", "--from", str(source), "--name", "b", "--project", str(tmp_path), "--epochs", "5"]) == 0
    assert "train --resume" in capsys.readouterr().out
    assert (tmp_path / "b" / "weights" / "last.pt").is_file()
    assert training_main(["branch", "--from", str(tmp_path / "missing.pt"), "--name", "c", "--project", str(tmp_path)]) == 2
