"""``--mirrored`` (stills only, opt-in) makes the detector read each view mirrored too; video and
live, which must keep up with the frame rate, have no such option."""

import pytest

from app.cli import build_parser
from app.commands.common import detector_config
from app.inference.factory import _load_vpd
from vpd_testkit import make_detector_onnx


def config(*argv):
    return detector_config(build_parser().parse_args(list(argv)))


def test_stills_are_read_mirrored_only_when_asked_for():
    assert not config("image", "x.png", "-o", "out").mirrored_view
    assert config("image", "x.png", "-o", "out", "--mirrored").mirrored_view
    assert config("eval", "ds", "--mirrored").mirrored_view


def test_video_and_live_read_each_view_once():
    assert not config("video", "in.mp4", "-o", "out.mp4").mirrored_view
    with pytest.raises(SystemExit):
        build_parser().parse_args(["video", "in.mp4", "-o", "out.mp4", "--mirrored"])


def test_the_config_reaches_the_detector(tmp_path):
    model = make_detector_onnx(tmp_path / "m.onnx", [(2, 10, 10, 20, 20, 0.9)])
    on = _load_vpd(config("image", "x.png", "-o", "out", "--model", str(model), "--mirrored"))
    off = _load_vpd(config("image", "x.png", "-o", "out", "--model", str(model)))
    assert on.tiling.mirrored and not off.tiling.mirrored
