"""Name gazetteer: the shipped compact table, its file format, and the fallbacks."""

import gzip

import pytest

from app.text import gazetteer as gz


def test_shipped_table_knows_names_across_countries_and_not_ui_words():
    table = gz.name_table()
    assert table.source.startswith("names-dataset")
    for first in ("john", "anna", "aisha", "priya", "kwame"):
        assert table.first_rank(first) is not None, first
    for last in ("müller", "nguyen", "garcía", "khan"):
        assert table.last_rank(last) is not None, last
    assert table.first_rank("John") == table.first_rank("john") <= 100  # case-insensitive, bucketed
    for word in ("settings", "search", "apply", "breaking"):
        assert table.first_rank(word) is None and table.last_rank(word) is None, word


def test_compact_file_round_trip_keeps_the_best_bucket(tmp_path):
    path = tmp_path / "names.tsv.gz"
    gz._write(path, {"anna": 3, "zoe": 1500}, {"smith": 40, "rare": 4999})
    first, last = gz._read(path)
    assert first == {"anna": 100, "zoe": 2000} and last == {"smith": 100, "rare": 5000}
    assert gzip.open(path, "rt").read().count("\n") == 4  # one line per (kind, bucket)


def test_without_names_dataset_faker_lists_stand_in(monkeypatch, tmp_path):
    monkeypatch.setattr(gz, "SHIPPED", tmp_path / "absent.tsv.gz")
    monkeypatch.setattr(gz, "_wheel_tables", lambda: None)
    gz.name_table.cache_clear()
    try:
        table = gz.name_table()
        assert table.source == "Faker name lists" and table.first_rank("james") == gz.UNRANKED
    finally:
        gz.name_table.cache_clear()


@pytest.mark.parametrize("rank, bucket", [(1, 100), (100, 100), (101, 1000), (2000, 2000), (5000, 5000)])
def test_rank_buckets(rank, bucket):
    assert gz._bucket(rank) == bucket
