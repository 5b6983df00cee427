"""Stills read each detector view mirrored too (``--single-view`` turns it off); video and live,
which must keep up with the frame rate, read each view once."""

import pytest

from app.cli import build_parser
from app.commands.common import detector_config
from app.inference.factory import _load_vpd
from vpd_testkit import make_detector_onnx


def config(*argv):
    return detector_config(build_parser().parse_args(list(argv)))


def test_stills_are_read_mirrored_unless_single_view_is_asked_for():
    assert config("image", "x.png", "-o", "out").mirrored_view
    assert not config("image", "x.png", "-o", "out", "--single-view").mirrored_view
    assert config("eval", "ds").mirrored_view


def test_video_and_live_read_each_view_once():
    assert not config("video", "in.mp4", "-o", "out.mp4").mirrored_view
    with pytest.raises(SystemExit):
        build_parser().parse_args(["video", "in.mp4", "-o", "out.mp4", "--single-view"])


def test_the_config_reaches_the_detector(tmp_path):
    model = make_detector_onnx(tmp_path / "m.onnx", [(2, 10, 10, 20, 20, 0.9)])
    on = _load_vpd(config("image", "x.png", "-o", "out", "--model", str(model)))
    off = _load_vpd(config("image", "x.png", "-o", "out", "--model", str(model), "--single-view"))
    assert on.tiling.mirrored and not off.tiling.mirrored
