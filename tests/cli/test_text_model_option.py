"""`--text-model`: the text-PII classifier file can be chosen (to compare a candidate), and a bad one
stops the command with a message instead of running without it."""

import argparse

import numpy as np
import pytest
from PIL import Image

from app.cli import main
from app.commands.common import add_detection_args, detector_config


def test_the_option_reaches_the_detector_config(tmp_path):
    parser = argparse.ArgumentParser()
    add_detection_args(parser)
    assert detector_config(parser.parse_args([])).text_model is None
    named = detector_config(parser.parse_args(["--text-model", str(tmp_path / "cand.npz")])).text_model
    assert named == tmp_path / "cand.npz"


@pytest.mark.parametrize("content", [None, b"not a model"], ids=["missing", "corrupt"])
def test_a_bad_named_text_model_stops_the_command_and_writes_nothing(tmp_path, capsys, content):
    pytest.importorskip("rapidocr")
    image = tmp_path / "in.png"
    Image.fromarray(np.full((64, 96, 3), 200, np.uint8)).save(image)
    model = tmp_path / "cand.npz"
    if content is not None:
        model.write_bytes(content)
    out = tmp_path / "out"
    code = main(["image", str(image), "-o", str(out), "--no-detector", "--no-faces", "--no-codes",
                 "--text-model", str(model)])  # fmt: skip
    assert code != 0
    assert "cand.npz" in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())
