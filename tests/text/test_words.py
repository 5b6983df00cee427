"""The word-frequency table (feature version 5) and the span rule that a single glyph is no
personal data."""

import logging

import numpy as np

from app.text import words as words_module
from app.text.classifier import TextPiiClassifier
from app.text.features import token_features, tokens
from app.text.gazetteer import NameTable
from app.text.layout import LineContext
from app.text.lines import TextLine
from app.text.model import FORMAT, TextPiiModel
from app.text.words import WordTable, read_table, write_table

NAMES = NameTable({"grace": 100, "cafeteria": 5000}, {"nienow": 2000}, "test")
WORDS = WordTable({"cafeteria": 3, "grace": 4, "title": 5}, {"cafeteria": 3, "grace": 4, "maxime": 4}, "test")


def test_word_table_round_trip_and_lookup(tmp_path):
    path = tmp_path / "words.tsv.gz"
    write_table(path, WORDS.en, WORDS.other)
    table = read_table(path)
    assert table.en == WORDS.en and table.other == WORDS.other
    assert table.zipf("Cafeteria") == (3, 3) and table.zipf("Maxime") == (0, 4) and table.zipf("Nienow") == (0, 0)


def test_a_missing_word_table_reads_every_word_as_rare_and_says_so(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(words_module, "SHIPPED", tmp_path / "absent.tsv.gz")
    words_module.word_table.cache_clear()
    try:
        with caplog.at_level(logging.WARNING):
            table = words_module.word_table()
    finally:
        words_module.word_table.cache_clear()
    assert table.zipf("the") == (0, 0) and "absent.tsv.gz" in caplog.text


def features_of(text: str, k: int, version: int) -> list[str]:
    toks = tokens(text)
    return token_features(toks[k], toks, k, text, LineContext(), NAMES, [], ["Recipient"] * len(toks), version, WORDS)


def test_version_5_tells_a_dictionary_word_from_a_surname():
    cafeteria, nienow = features_of("Cafeteria", 0, 5), features_of("Nienow", 0, 5)
    assert "wf=3/3" in cafeteria and "wfn=3/top5k/none" in cafeteria and "wf_title=3/3" in cafeteria
    assert "wf=0/0" in nienow and "wfn=0/none/top2k" in nienow
    assert "line_common=0/1" in nienow and "line_common=4/2" in features_of("Title Grace", 0, 5)
    assert not any(f.startswith(("wf", "line_common")) for f in features_of("Cafeteria", 0, 4))  # version-4 files


def everything_is_a_name_model() -> TextPiiModel:
    """A model that calls every token a person name (p ≈ 1)."""
    weights = np.zeros((64, 2), np.float32)
    return TextPiiModel(weights, np.array([0.0, 12.0], np.float32), ("none", "person_name"),
                        {"format": FORMAT, "feature_version": 5, "dim": 64})


def test_a_single_glyph_or_a_short_count_is_never_a_span():
    quad = np.array([[0, 0], [300, 0], [300, 30], [0, 30]], np.float32)
    texts = ["t", "品", "5", "123", "Al", "品牌", "12345"]
    reader = TextPiiClassifier(everything_is_a_name_model(), NAMES, WORDS)
    readings = reader.read([TextLine(t, quad, 0.9) for t in texts])
    found = {r.line.text for r in readings if r.spans}
    assert found == {"Al", "品牌", "12345"}


def test_version_5_tells_hyphenated_syllables_from_joined_handles():
    from app.text.features import part_features

    names = NameTable({"maxime": 50}, {"nienow": 1500}, "test")
    assert {"joined_hy", "syllables"} <= set(part_features("ju-bi-lant", names, 5))  # a dictionary headword
    assert "joined_us" in part_features("Maxime_Nienow", names, 5) and "syllables" not in part_features("Maxime_Nienow", names, 5)
    assert "joined_dot" in part_features("Elwyn.Skiles", names, 5)
    assert "joined_sep" in part_features("ju-bi-lant", names, 4) and "syllables" not in part_features("ju-bi-lant", names, 4)


def test_the_classifier_uses_the_threshold_its_training_command_wrote():
    model = everything_is_a_name_model()
    assert TextPiiClassifier(model, NAMES, WORDS).threshold == 0.5  # files without one
    model.meta["metrics"] = {"threshold": 0.7}
    assert TextPiiClassifier(model, NAMES, WORDS).threshold == 0.7
    assert TextPiiClassifier(model, NAMES, WORDS, threshold=0.3).threshold == 0.3  # an explicit choice wins
