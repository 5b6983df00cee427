"""``vpd-redact eval`` on tiny generated datasets (YOLO and JSON) with a fixed-output model."""

import json

import cv2
import numpy as np
import pytest

from app.cli import main
from vpd_testkit import make_detector_onnx


@pytest.fixture
def model(tmp_path):
    # One "email" box at (16, 16)-(48, 32) in a 64x64 input; images are 64x64 so no letterbox.
    return make_detector_onnx(tmp_path / "m.onnx", [(1, 16, 16, 48, 32, 0.9)])


def write_yolo(root, n=2):
    (root / "images" / "val").mkdir(parents=True)
    (root / "labels" / "val").mkdir(parents=True)
    (root / "data.yaml").write_text(f"path: {root}\ntrain: images/val\nval: images/val\nnames:\n  0: face\n  1: email\n  2: license_plate\n")
    for i in range(n):
        cv2.imwrite(str(root / "images" / "val" / f"{i}.png"), np.full((64, 64, 3), 200, np.uint8))
    # image 0: GT exactly the model's box (hidden) + one GT elsewhere (missed)
    (root / "labels" / "val" / "0.txt").write_text("1 0.5 0.375 0.5 0.25\n0 0.125 0.875 0.125 0.125\n")
    (root / "labels" / "val" / "1.txt").write_text("")  # a negative


def test_eval_yolo_reports_recall_fp_and_map(tmp_path, model, capsys):
    write_yolo(tmp_path / "ds")
    out = tmp_path / "r.json"
    rc = main(["eval", str(tmp_path / "ds"), "--model", str(model), "--no-faces", "--no-ocr", "--no-tiling",
               "--json", str(out)])  # fmt: skip
    assert rc == 0
    r = json.loads(out.read_text())
    fused = {(t["group"], t["name"]): t for t in r["tallies"] if t["source"] == "fusion"}
    assert fused[("all", "all")]["gt_boxes"] == 2 and fused[("all", "all")]["recall_at_coverage"] == 0.5
    assert fused[("category", "email")]["recall_at_coverage"] == 1.0
    assert fused[("category", "face")]["recall_at_coverage"] == 0.0
    # padding (15 % of 16 px = 2.4 px per side) lies outside the GT: FP area is small but not zero
    assert 0 < fused[("all", "all")]["fp_area"] < 0.4
    # the negative image gets the same fixed box: 100 % of it is a false positive
    assert fused[("kind", "negative")]["negative_area_redacted"] > 0.1
    assert r["ap"]["per_class_AP50"]["email"] == 1.0 and r["ap"]["per_class_AP50"]["face"] == 0.0
    assert "recall-at-coverage" in capsys.readouterr().out
    faces_only = {(t["group"], t["name"]): t for t in r["tallies"] if t["source"] == "faces"}
    assert faces_only[("all", "all")]["recall_at_coverage"] == 0.0


def _email_and_phone_screenshot(root):
    """A one-image data set: a 64x64 screenshot with an e-mail box the test detector finds and a phone box it misses."""
    (root / "images").mkdir()
    cv2.imwrite(str(root / "images" / "a.png"), np.full((64, 64, 3), 200, np.uint8))
    ann = [{"file": "images/a.png", "width": 64, "height": 64, "kind": "screenshot",
            "boxes": [{"category": "email", "box": [16, 16, 48, 32]}, {"category": "phone", "box": [0, 50, 20, 60]}]}]
    (root / "annotations.json").write_text(json.dumps(ann))


def test_eval_json_format(tmp_path, model):
    _email_and_phone_screenshot(tmp_path)
    out = tmp_path / "r.json"
    assert main(["eval", str(tmp_path), "--model", str(model), "--no-faces", "--no-ocr", "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    by = {(t["source"], t["group"], t["name"]): t for t in r["tallies"]}
    assert by[("detector", "kind", "screenshot")]["recall_at_coverage"] == 0.5
    assert by[("detector", "category", "phone")]["recall_at_coverage"] == 0.0
    assert "ap" not in r


def test_eval_missing_dataset_is_a_usage_error(tmp_path, capsys):
    assert main(["eval", str(tmp_path / "nope.json"), "--no-faces", "--no-ocr"]) == 2
    assert "error" in capsys.readouterr().err


@pytest.mark.parametrize("box, share, rc", [((0, 0, 40, 40), 0.25, 1),   # 39 % of the 64x64 frame, padded more
                                             ((16, 16, 48, 32), 0.25, 0),  # 12.5 % (15 % with padding)
                                             ((16, 16, 48, 32), 0.10, 1)])
def test_eval_max_box_share_lists_large_boxes_and_fails(tmp_path, capsys, box, share, rc):
    model = make_detector_onnx(tmp_path / "m.onnx", [(1, *box, 0.9)])
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "neg.png"), np.full((64, 64, 3), 200, np.uint8))
    cv2.imwrite(str(tmp_path / "images" / "doc.png"), np.full((64, 64, 3), 200, np.uint8))
    ann = [{"file": "images/neg.png", "width": 64, "height": 64, "kind": "negative", "boxes": []},
           {"file": "images/doc.png", "width": 64, "height": 64, "kind": "photo", "boxes": []}]
    (tmp_path / "annotations.json").write_text(json.dumps(ann))
    out = tmp_path / "r.json"
    assert main(["eval", str(tmp_path), "--model", str(model), "--no-faces", "--no-ocr", "--no-codes", "--no-tiling",
                 "--kind", "negative", "--max-box-share", str(share), "--json", str(out)]) == rc  # fmt: skip
    r = json.loads(out.read_text())
    assert r["images"] == 1  # --kind keeps the negative only
    assert len(r["oversized_boxes"]) == rc and all(b["share"] > share for b in r["oversized_boxes"])
    assert ("neg.png" in capsys.readouterr().out) == bool(rc)


def test_eval_max_box_share_exempts_a_box_that_matches_a_large_gt_box(tmp_path):
    model = make_detector_onnx(tmp_path / "m.onnx", [(1, 0, 0, 40, 40, 0.9)])
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.png"), np.full((64, 64, 3), 200, np.uint8))
    ann = [{"file": "images/a.png", "width": 64, "height": 64, "kind": "document",
            "boxes": [{"category": "email", "box": [0, 0, 42, 42]}]}]
    (tmp_path / "annotations.json").write_text(json.dumps(ann))
    assert main(["eval", str(tmp_path), "--model", str(model), "--no-faces", "--no-ocr", "--no-codes",
                 "--no-tiling", "--max-box-share", "0.25"]) == 0  # fmt: skip
    assert main(["eval", str(tmp_path), "--model", str(model), "--no-faces", "--no-ocr", "--no-codes",
                 "--no-tiling", "--max-box-share", "1.5"]) == 2  # fmt: skip


def test_eval_per_image_records_coverage_and_false_share(tmp_path, model):
    _email_and_phone_screenshot(tmp_path)
    out = tmp_path / "r.json"
    assert main(["eval", str(tmp_path), "--model", str(model), "--no-faces", "--no-ocr", "--no-codes", "--no-tiling",
                 "--per-image", "--json", str(out)]) == 0  # fmt: skip
    (rec,) = json.loads(out.read_text())["per_image"]
    assert rec["file"].endswith("a.png") and rec["kind"] == "screenshot"
    cov = {g["category"]: g["coverage"] for g in rec["gt"]}
    assert cov["email"] == 1.0 and cov["phone"] == 0.0
    (box,) = rec["hidden"]
    assert box["class"] == "email" and box["source"] == "detector"
    # only the padding around the 32x16 email box lies outside the GT: ≈ 350 of 4096 px
    assert 0.05 < box["false_share"] < 0.1


@pytest.mark.parametrize("width, bucket", [(0, "<25px"), (24.9, "<25px"), (25, "25-50px"), (99, "50-100px"), (100, ">=100px")])
def test_width_bucket_edges(width, bucket):
    from app.commands.eval import width_bucket

    assert width_bucket(width) == bucket


def test_eval_by_size_tallies_each_category_by_box_width(tmp_path, model, capsys):
    # one hidden 32-px e-mail box (25-50 px) and one missed 20-px phone box (under 25 px)
    _email_and_phone_screenshot(tmp_path)
    out = tmp_path / "r.json"
    assert main(["eval", str(tmp_path), "--model", str(model), "--no-faces", "--no-ocr", "--no-tiling",
                 "--by-size", "--json", str(out)]) == 0  # fmt: skip
    sizes = {t["name"]: t for t in json.loads(out.read_text())["tallies"] if t["source"] == "fusion" and t["group"] == "size"}
    assert set(sizes) == {"email 25-50px", "phone <25px"}
    assert sizes["email 25-50px"]["recall_at_coverage"] == 1.0 and sizes["phone <25px"]["recall_at_coverage"] == 0.0
    assert "size      email 25-50px" in capsys.readouterr().out
