"""Training of the text classifier: OCR lines are labelled by the drawn boxes, and the command trains
on a cache of read scenes into a model file the app loads."""

import json

import numpy as np

from app.text.lines import TextLine
from app.text.model import load_model
from training.text import cli
from training.text.ocr_data import char_labels
from training.text.train import token_label


def line(text, x0, y0, h=20.0, cw=10.0):
    return TextLine(text, np.array([[x0, y0], [x0 + cw * len(text), y0], [x0 + cw * len(text), y0 + h], [x0, y0 + h]], np.float32))


def test_characters_take_the_class_of_the_box_they_lie_in():
    ln = line("Name: Ann Lee", 0, 0)  # 10 px per character
    labels = [("person_name", (58, 2, 132, 18)), ("avatar", (0, 0, 200, 20)), ("email", (0, 40, 100, 60))]
    got = char_labels(ln, labels)
    assert "".join("p" if c else "." for c in got) == "......ppp.ppp"  # spaces stay unlabelled
    assert token_label(got, 6, 9) == "person_name" and token_label(got, 0, 5) is None


def scene(i: int, rng: np.random.Generator) -> dict:
    """A list screen: a title, name rows (person_name) with a type label under each."""
    first = ["Anna", "Jonas", "Maria", "Lucas", "Emma", "Noah", "Sofia", "Liam"]
    last = ["Schmidt", "Garcia", "Martin", "Rossi", "Nowak", "Silva", "Jansen", "Dubois"]
    lines, labels = [{"text": "Contacts", "quad": line("Contacts", 20, 20, 36, 18).quad.tolist(), "score": 0.99, "words": []}], []
    for r in range(5):
        name = f"{first[rng.integers(8)]} {last[rng.integers(8)]}"
        y = 90 + 70 * r
        ln = line(name, 80, y, 26, 13)
        lines.append({"text": name, "quad": ln.quad.tolist(), "score": 0.98, "words": []})
        labels.append(["person_name", [80, y, 80 + 13 * len(name), y + 26]])
        sub = str(rng.choice(["Mobile", "Work", "Home"]))
        lines.append({"text": sub, "quad": line(sub, 80, y + 30, 18, 9).quad.tolist(), "score": 0.98, "words": []})
    return {"name": "fake_list", "width": 600, "height": 500, "labels": labels, "lines": lines}


def test_the_command_trains_on_cached_reads_into_a_loadable_model(tmp_path):
    rng = np.random.default_rng(0)
    folder = tmp_path / "cache" / "7"
    folder.mkdir(parents=True)
    for i in range(14):
        (folder / f"{i:05d}.json").write_text(json.dumps(scene(i, rng)))
    out = tmp_path / "m.npz"
    argv = ["--cached-only", "--seed", "7", "--data", str(tmp_path / "cache"), "--out", str(out), "--dim", "4096",
            "--epochs", "8", "--scenes", "14"]  # fmt: skip
    assert cli.main(argv) == 0
    model = load_model(out)
    result = json.loads(out.with_suffix(".json").read_text())
    assert model.meta["metrics"]["test_scenes"] == result["test_scenes"] == 2
    assert result["classifier"]["token_recall"] >= 0.9 and result["classifier"]["token_precision"] >= 0.9
    assert cli.main(["--cached-only", "--data", str(tmp_path / "empty"), "--out", str(out)]) == 2  # no data: clear exit


def test_extra_scenes_only_train_and_leave_the_held_out_scenes_alone(tmp_path):
    rng = np.random.default_rng(1)
    for seed, count in (("7", 14), ("8", 5)):
        folder = tmp_path / "cache" / seed
        folder.mkdir(parents=True)
        for i in range(count):
            (folder / f"{i:05d}.json").write_text(json.dumps(scene(i, rng)))
    out = tmp_path / "m.npz"
    base = ["--cached-only", "--seed", "7", "--data", str(tmp_path / "cache"), "--out", str(out), "--dim", "4096",
            "--epochs", "4", "--scenes", "14"]  # fmt: skip
    assert cli.main(base + ["--extra-seed", "8", "--extra-scenes", "5"]) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    assert result["extra_scenes"] == 5 and result["train_scenes"] == 12 + 5 and result["test_scenes"] == 2


def test_extra_scenes_render_credentials_tables_and_varied_usernames():
    from training.text.scenes import EXTRA_SCENES, scene_of

    names, usernames = set(), []
    for i in range(8):
        name, image, labels = scene_of(3, i, extra=True)
        names.add(name)
        assert image.ndim == 3 and labels
        usernames += [b for c, b in labels if c == "username"]
    assert names <= set(EXTRA_SCENES) and len(names) >= 2 and usernames
