"""The address parser's tags line up with our whitespace tokens and feed the classifier."""

import pytest

from app.text import parsers
from app.text.features import tokens


def tags_of(text):
    return parsers.address_tags(text, [t.start for t in tokens(text)])


def test_tags_line_up_with_our_tokens():
    tags = tags_of("1600 Pennsylvania Ave NW, Washington DC 20500")
    assert len(tags) == 7
    assert tags[0] == "AddressNumber" and tags[1] == "StreetName" and tags[-1] == "ZipCode"
    assert tags_of("Apt 4, 1600 Main St")[-1] == "StreetNamePostType"


@pytest.mark.parametrize("text", ["", "   ", "x" * (parsers.MAX_CHARS + 1)])
def test_empty_and_overlong_lines_get_no_tags(text):
    assert set(tags_of(text)) <= {""}


def test_without_the_package_the_tags_are_empty(monkeypatch):
    monkeypatch.setattr(parsers, "_parser", lambda: None)
    assert tags_of("221B Baker Street") == ["", "", ""]


def test_a_parser_without_its_model_file_counts_as_unavailable(monkeypatch, caplog):
    import usaddress

    def broken(_text):
        raise OSError("usaddr.crfsuite not found")

    monkeypatch.setattr(usaddress, "parse", broken)
    parsers._parser.cache_clear()
    try:
        with caplog.at_level("WARNING"):
            assert parsers._parser() is None
        assert "no model" in caplog.text
        assert tags_of("221B Baker Street") == ["", "", ""]
    finally:
        parsers._parser.cache_clear()
