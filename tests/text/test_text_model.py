"""The classifier file: round trip, and a clear typed error for every way it can be bad."""

import json

import numpy as np
import pytest

from app.core.errors import ModelError
from app.text.features import FEATURE_VERSION
from app.text.model import FORMAT, TextModelError, TextPiiModel, load_model


def tiny_model(classes=("none", "person_name", "email"), dim=64, version=FEATURE_VERSION, fmt=FORMAT):
    rng = np.random.default_rng(0)
    return TextPiiModel(rng.normal(size=(dim, len(classes))).astype(np.float32), np.zeros(len(classes), np.float32),
                        tuple(classes), {"format": fmt, "feature_version": version, "dim": dim})


def test_round_trip_and_probabilities(tmp_path):
    path = tmp_path / "m.npz"
    tiny_model().save(path)
    model = load_model(path)
    p = model.probabilities([[1, 2, 3], [], [5]])
    assert p.shape == (3, 3) and np.allclose(p.sum(axis=1), 1.0, atol=1e-5)
    assert np.allclose(p[1], np.full(3, 1 / 3), atol=1e-5)  # no features: the (zero) bias alone
    assert model.classes == ("none", "person_name", "email") and model.dim == 64


@pytest.mark.parametrize("make, message", [
    (lambda p: None, "does not exist"),
    (lambda p: p.write_bytes(b"not a zip at all"), "cannot be read"),
    (lambda p: np.savez(p, weights=np.zeros((4, 2))), "lacks the array"),
    (lambda p: tiny_model(version=FEATURE_VERSION + 1).save(p), "features"),
    (lambda p: tiny_model(fmt="something-else").save(p), "format"),
    (lambda p: tiny_model(classes=("person_name", "none")).save(p), "inconsistent"),
])  # fmt: skip
def test_bad_model_files_give_a_clear_typed_error(tmp_path, make, message):
    path = tmp_path / "text-pii.npz"
    make(path)
    with pytest.raises(TextModelError, match=message) as info:
        load_model(path)
    assert isinstance(info.value, ModelError)  # front ends report it like any model error
    assert "python -m training text-classifier" in str(info.value)


def test_unreadable_metadata(tmp_path):
    path = tmp_path / "m.npz"
    np.savez(path, weights=np.zeros((4, 2), np.float16), bias=np.zeros(2, np.float32), classes=np.array(["none", "email"]),
             meta=np.array("{not json"))
    with pytest.raises(TextModelError, match="metadata"):
        load_model(path)


def test_ocr_uses_rules_with_a_note_when_the_default_file_is_broken(tmp_path, monkeypatch):
    from app.inference.ocr_rapid import OcrPiiDetector, OcrSettings

    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"\x00" * 10)
    with pytest.raises(TextModelError):  # a file the user named must load
        OcrPiiDetector.load_classifier(OcrSettings(classifier_path=broken))
    monkeypatch.setattr("app.text.model.DEFAULT_MODEL", broken)
    classifier, warning = OcrPiiDetector.load_classifier(OcrSettings())
    assert classifier is None and "rules only" in warning and "cannot be read" in warning
    assert json.loads(json.dumps(warning))  # plain text for the user


def test_a_version_1_file_reads_without_the_parser_features(tmp_path, monkeypatch):
    from app.text import classifier as clf_module
    from app.text.classifier import TextPiiClassifier
    from app.text.gazetteer import NameTable
    from app.text.lines import TextLine

    path = tmp_path / "v1.npz"
    tiny_model(version=1).save(path)
    model = load_model(path)
    assert model.feature_version == 1

    def no_parsers(*_):
        raise AssertionError("a version-1 model must not get address-parser features")

    monkeypatch.setattr(clf_module, "address_tags", no_parsers)
    line = TextLine("Liam Becker", np.array([[0, 0], [100, 0], [100, 20], [0, 20]], np.float32), 0.99)
    reading = TextPiiClassifier(model, NameTable({}, {}, "test")).read([line])
    assert len(reading[0].token_bounds) == 2


def test_word_parts_describe_joined_usernames():
    from app.text.features import part_features
    from app.text.gazetteer import NameTable

    names = NameTable({"maxime": 50}, {"nienow": 1500}, "test")
    f = part_features("Maxime_Nienow", names)
    assert "parts=2" in f and "joined_sep" in f and "pfn=top100" in f and "pln=top2k" in f
    assert "camel" in part_features("@SocialName", names)
    assert part_features("Hello", names) == [] and part_features("Wright,", names) == []
    assert "pd=1" in part_features("jdoe84", names)  # a two-digit run
