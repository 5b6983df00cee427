"""speed_checks: the free-batch copy of a detector gives the same outputs; edit distance; rendered screens."""


from training import speed_checks as sc
from vpd_testkit import make_detector_onnx


def test_edit_distance():
    assert sc.edit_distance("kitten", "sitting") == 3 and sc.edit_distance("", "ab") == 2 and sc.edit_distance("a", "a") == 0


def test_vpd_batch_copy_matches_one_by_one(tmp_path, capsys):
    model = make_detector_onnx(tmp_path / "m.onnx", [(1, 2, 10, 30, 22, 0.9)], layout="e2e")
    args = type("A", (), {"model": model, "out": tmp_path})()
    sc.vpd_batch(args)
    out = capsys.readouterr().out
    assert "max difference 0" in out and out.count("in one call") == 3


def test_rendered_screen_lines_lie_on_the_ink():
    img, lines = sc.render_screen(3, (640, 360), (12, 16))
    assert img.shape == (360, 640, 3) and lines
    ink = (img.min(axis=2) < 120).any(axis=1)
    assert all(ink[int(y) - 3 : int(y) + 4].any() for _, y in lines)
