"""Presidio comparison helpers: entity mapping, runner JSON parsing, screenshot selection and
scoring of tiny hand-made cases. Needs neither Presidio nor Tesseract."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.commands.eval import Sample
from app.core.detections import Detections
from app.core.policy import TEXT_PII
from training import presidio_compare as pc
from training.__main__ import COMMANDS


@pytest.mark.parametrize(
    "entity, expected",
    [
        ("EMAIL_ADDRESS", "email"),
        ("PHONE_NUMBER", "phone_number"),
        ("CREDIT_CARD", "card_number"),
        ("IBAN_CODE", "bank_account"),
        ("IP_ADDRESS", "ip_address"),
        ("DATE_TIME", "date_of_birth"),
        ("US_SSN", "id_number"),
        ("PERSON", "person_name"),
        ("URL", pc.OTHER),
        ("UUID", pc.OTHER),
    ],
)
def test_presidio_entity_maps_to_our_class(entity, expected):
    assert pc.presidio_class(entity) == expected


def test_every_mapped_class_is_ours_and_pattern_classes_are_text_pii():
    assert set(pc.PRESIDIO_TO_CLASS.values()) <= set(TEXT_PII)
    assert set(pc.PATTERN_CLASSES) <= set(TEXT_PII)
    assert COMMANDS["presidio-compare"] == "training.presidio_compare"


def _rec(entity, xyxy, score=0.6, start=0, end=5):
    return {"entity_type": entity, "score": score, "start": start, "end": end, "xyxy": list(xyxy)}


def test_runner_records_become_detections():
    dets = pc.presidio_detections([_rec("EMAIL_ADDRESS", (1, 2, 30, 12), 1.0), _rec("URL", (5, 20, 9, 28), 0.5)])
    assert dets.labels == ["email", pc.OTHER]
    np.testing.assert_allclose(dets.xyxy, [[1, 2, 30, 12], [5, 20, 9, 28]])
    np.testing.assert_allclose(dets.scores, [1.0, 0.5])
    assert len(pc.presidio_detections([])) == 0


def test_words_per_finding_groups_by_span():
    boxes = [_rec("PHONE_NUMBER", (0, 0, 5, 5), start=3, end=15), _rec("PHONE_NUMBER", (6, 0, 9, 5), start=3, end=15),
             _rec("IP_ADDRESS", (0, 9, 5, 14), start=20, end=28)]  # fmt: skip
    assert sorted(pc.words_per_finding(boxes)) == [1, 2]


def _sample(name, cats):
    return Sample(Path(f"/data/images/test/{name}.jpg"), "synthetic", np.zeros((len(cats), 4), np.float32), tuple(cats))


def test_selection_skips_photos_and_images_without_text_pii(monkeypatch):
    generators = {1: "browser", 2: "photo_documents", 3: "terminal", 4: "screen_photo", 5: "mobile_chat"}
    monkeypatch.setattr(pc, "synth_generator", lambda seed, i: generators[i])
    samples = [_sample("s000001", ["email"]), _sample("s000002", ["person_name", "id_card"]),
               _sample("s000003", ["ip_address"]), _sample("s000004", ["email"]), _sample("s000005", ["avatar"]),
               _sample("real_photo", ["phone_number"]), _sample("real_plate", ["license_plate"])]  # fmt: skip
    chosen = [s.path.stem for s in pc.select_screenshots(samples, 10)]
    assert chosen == ["real_photo", "s000001", "s000003"]
    assert len(pc.select_screenshots(samples, 2)) == 2


def test_selection_spreads_over_the_pool(monkeypatch):
    monkeypatch.setattr(pc, "synth_generator", lambda seed, i: "browser")
    samples = [_sample(f"s{i:06d}", ["email"]) for i in range(10)]
    assert [s.path.stem for s in pc.select_screenshots(samples, 3)] == ["s000000", "s000004", "s000009"]


GT = np.array([[10, 10, 50, 20], [10, 40, 50, 50], [60, 60, 90, 90]], np.float32)
GT_CATS = ("email", "person_name", "avatar")


def _dets(xyxy, labels):
    return Detections(np.array(xyxy, np.float32).reshape(-1, 4), np.ones(len(labels)),
                      [pc.PRESIDIO_CLASSES.index(n) for n in labels], pc.PRESIDIO_CLASSES)  # fmt: skip


def test_tally_scores_a_hand_made_case():
    boxes = _dets([[10, 10, 50, 20], [0, 80, 10, 100], [40, 45, 80, 55]], ["email", pc.OTHER, "phone_number"])
    tally = pc.MethodTally()
    tally.add(boxes, boxes.xyxy, GT, GT_CATS, (100, 100), seconds=2.0)
    out = tally.summary()
    assert out["recall"]["pattern"]["recall_at_coverage"] == 1.0  # the one email GT is hidden
    assert out["recall"]["text_pii"]["recall_at_coverage"] == 0.5  # the name is not
    assert out["recall_per_category"]["person_name"]["hidden"] == 0
    assert "avatar" not in out["recall_per_category"]
    assert out["box_precision_overlap"] == pytest.approx(2 / 3)  # the third box touches the name
    assert out["box_precision_centre"] == pytest.approx(1 / 3)  # but its centre (60, 50) is outside
    # masked px: 400 (email, all on GT) + 200 (other, none on GT) + 400 (third, 10×5 on the name)
    assert out["fp_area"] == pytest.approx((200 + 350) / 1000)
    assert out["seconds_mean"] == 2.0


def test_tally_with_no_boxes_has_zero_recall_and_no_precision():
    tally = pc.MethodTally()
    tally.add(_dets([], []), np.zeros((0, 4), np.float32), GT, GT_CATS, (100, 100), seconds=1.0)
    out = tally.summary()
    assert out["recall"]["text_pii"]["recall_at_coverage"] == 0.0
    assert out["box_precision_overlap"] is None


def test_markdown_table_lists_every_method():
    tally = pc.MethodTally()
    tally.add(_dets([[10, 10, 50, 20]], ["email"]), GT[:1], GT, GT_CATS, (100, 100), seconds=1.5)
    summary = tally.summary()
    result = {"images": 1, "coverage": 0.9, "padding": 0.15, "paddings": {"0.15": {"a": summary, "b": summary}}}
    text = pc.markdown_tables(result)
    assert "| a | 100.0 % | 50.0 % |" in text and "| b |" in text
    assert "| email * | 1 |" in text and "| person_name | 1 |" in text


def test_missing_presidio_python_says_how_to_set_it_up(tmp_path):
    with pytest.raises(SystemExit, match="presidio-image-redactor"):
        pc.run_presidio(tmp_path / "nope" / "python", [], tmp_path / "out.json")
