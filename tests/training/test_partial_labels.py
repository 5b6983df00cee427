"""Partial labels: unlabelled classes of a real source are not taught as background."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from training.nn.partial import PartialLabelBCE, load_partial_labels, unknown_class_mask  # noqa: E402
from training.synth.real import RealItem  # noqa: E402
from training.taxonomy import CLASS_INDEX, CLASS_NAMES  # noqa: E402


def test_unknown_negatives_are_dropped_and_positives_kept():
    bce = PartialLabelBCE()
    pred = torch.full((2, 3, 4), 2.0)  # confident everywhere
    target = torch.zeros((2, 3, 4))
    target[0, 1, 2] = 1.0  # one positive of class 2 in image 0
    plain = bce(pred, target)
    bce.unknown = torch.tensor([[False, False, True, True], [False, False, False, False]])
    masked = bce(pred, target)
    assert masked[0, :, 3].sum() == 0  # unknown negatives: no loss
    assert masked[0, 0, 2] == 0 and masked[0, 2, 2] == 0
    assert masked[0, 1, 2] == plain[0, 1, 2] > 0  # the positive still trains
    assert torch.equal(masked[1], plain[1])  # image 1 knows every class
    assert torch.equal(masked[0, :, :2], plain[0, :, :2])


def test_mask_is_read_from_the_dataset_sidecar(tmp_path: Path):
    (tmp_path / "images" / "train").mkdir(parents=True)
    (tmp_path / "partial_labels.json").write_text(json.dumps({"real_a": ["face", "license_plate"]}))
    load_partial_labels.cache_clear()
    files = [str(tmp_path / "images" / "train" / "real_a.jpg"), str(tmp_path / "images" / "train" / "s000001.jpg")]
    mask = unknown_class_mask(files, len(CLASS_NAMES), "cpu")
    assert mask is not None and mask.shape == (2, len(CLASS_NAMES))
    assert mask[0, CLASS_INDEX["face"]] and mask[0, CLASS_INDEX["license_plate"]]
    assert int(mask[0].sum()) == 2 and not mask[1].any()


def test_no_sidecar_means_plain_loss(tmp_path: Path):
    (tmp_path / "images" / "train").mkdir(parents=True)
    load_partial_labels.cache_clear()
    assert unknown_class_mask([str(tmp_path / "images" / "train" / "x.jpg")], 4, "cpu") is None


@pytest.mark.parametrize("source, annotated, must_contain, must_not_contain", [
    ("oi_plates", {"license_plate"}, {"face", "shop_sign"},
     {"license_plate", "email", "passport", "receipt", "street_sign", "house_number"}),
    ("facade_shop_signs", {"shop_sign"}, {"face", "street_sign", "house_number"}, {"shop_sign", "passport"}),
    ("rf_qr_xcerno30", {"qr_code"}, {"email", "barcode"}, {"qr_code", "passport", "license_plate"}),
])
def test_real_item_unknown_classes(source, annotated, must_contain, must_not_contain):
    item = RealItem(Path("x.jpg"), source, (), "train", frozenset(annotated))
    unknown = item.unknown_classes(CLASS_NAMES)
    assert must_contain <= unknown
    assert not (must_not_contain & unknown)
