"""The address and name parsers' tags line up with our whitespace tokens and feed the classifier."""

import pytest

from app.text import parsers
from app.text.features import tokens


def tags_of(text):
    return parsers.parser_tags(text, [t.start for t in tokens(text)])


def test_tags_line_up_with_our_tokens():
    address, people = tags_of("1600 Pennsylvania Ave NW, Washington DC 20500")
    assert address[0] == "AddressNumber" and address[1] == "StreetName" and address[-1] == "ZipCode"
    assert len(address) == len(people) == 7
    _, people = tags_of("Smith, John A.")
    assert people == ["Surname", "GivenName", "MiddleInitial"]


@pytest.mark.parametrize("text", ["", "   ", "x" * (parsers.MAX_CHARS + 1)])
def test_empty_and_overlong_lines_get_no_tags(text):
    address, people = tags_of(text)
    assert set(address) <= {""} and set(people) <= {""}


def test_without_the_packages_the_tags_are_empty(monkeypatch):
    monkeypatch.setattr(parsers, "_parsers", lambda: None)
    assert tags_of("221B Baker Street") == (["", "", ""], ["", "", ""])
