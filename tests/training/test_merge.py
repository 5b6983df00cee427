"""``python -m training merge``: a top-up's train split joins the main dataset under a prefix,
with its partial labels, the label caches dropped, val untouched, and a rerun copies nothing."""

import json
import os

import pytest

from training.__main__ import main as training_main
from training.merge import merge_train_split


def dataset(root, train, val=(), partial=None):
    for split, stems in (("train", train), ("val", val)):
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
        for stem in stems:
            (root / "images" / split / f"{stem}.jpg").write_bytes(b"jpg " + stem.encode())
            (root / "labels" / split / f"{stem}.txt").write_text(f"3 0.5 0.5 0.1 0.1  # {stem}\n")
    if partial is not None:
        (root / "partial_labels.json").write_text(json.dumps(partial))
    return root


def test_merge_copies_train_with_prefix_and_partial_labels(tmp_path):
    main = dataset(tmp_path / "main", ["a", "b"], val=["v"], partial={"a": ["face"]})
    (main / "labels" / "train.cache").write_text("stale")
    top = dataset(tmp_path / "top", ["a", "z"], val=["w"], partial={"z": ["license_plate"]})
    assert merge_train_split(top, main, "c1_") == 2
    names = sorted(p.name for p in (main / "images" / "train").iterdir())
    assert names == ["a.jpg", "b.jpg", "c1_a.jpg", "c1_z.jpg"]
    assert (main / "images" / "train" / "a.jpg").read_bytes() == b"jpg a"  # the main image kept
    assert "# z" in (main / "labels" / "train" / "c1_z.txt").read_text()
    assert json.loads((main / "partial_labels.json").read_text()) == {"a": ["face"], "c1_z": ["license_plate"]}
    assert not (main / "labels" / "train.cache").exists()
    assert sorted(p.name for p in (main / "images" / "val").iterdir()) == ["v.jpg"]
    assert merge_train_split(top, main, "c1_") == 0  # rerun: nothing new


def test_merge_needs_a_prefix_and_real_datasets(tmp_path):
    main = dataset(tmp_path / "main", ["a"])
    with pytest.raises(ValueError, match="prefix"):
        merge_train_split(main, main, "")
    with pytest.raises(FileNotFoundError, match="images/train"):
        merge_train_split(tmp_path / "nowhere", main, "x_")


def test_merge_command(tmp_path, capsys):
    main = dataset(tmp_path / "main", ["a"])
    top = dataset(tmp_path / "top", ["b"])
    assert training_main(["merge", "--src", str(top), "--into", str(main), "--prefix", "u1_"]) == 0
    assert "merged 1 train images" in capsys.readouterr().out
    assert (main / "images" / "train" / "u1_b.jpg").exists()


def test_merge_into_a_hard_linked_copy_leaves_the_original_alone(tmp_path):
    base = dataset(tmp_path / "base", ["a"], partial={"a": ["face"]})
    copy = tmp_path / "copy"
    for path in sorted(base.rglob("*")):  # what `cp -al base copy` makes
        target = copy / path.relative_to(base)
        target.mkdir(parents=True) if path.is_dir() else os.link(path, target)
    top = dataset(tmp_path / "top", ["z"], partial={"z": ["license_plate"]})
    assert merge_train_split(top, copy, "f2_") == 1
    assert json.loads((copy / "partial_labels.json").read_text()) == {"a": ["face"], "f2_z": ["license_plate"]}
    assert json.loads((base / "partial_labels.json").read_text()) == {"a": ["face"]}
    assert not (base / "images" / "train" / "f2_z.jpg").exists()
