"""Tags from two small CRF parsers, as features of the text-PII classifier: ``usaddress`` (what part
of a postal address each word would be: number, street name, city, postcode, …) and
``probablepeople`` (given name, surname, initial, company name). Both are MIT-licensed, pure CRF
models shipped in their wheels (python-crfsuite), ≈ 0.3–0.6 ms per line each.

Their tokenisers differ from ours (commas and brackets split off), so each parser token is mapped
back to the whitespace token of ours that holds its first character.
"""

from __future__ import annotations

import logging
from functools import lru_cache

log = logging.getLogger(__name__)

MAX_CHARS = 160  # longer lines are prose or code: the parsers are slow on them and mean nothing there


@lru_cache(maxsize=1)
def _parsers():
    try:
        import probablepeople
        import usaddress
    except ImportError as exc:  # the classifier then sees no parser tags; say so once
        log.warning("text classifier: address/name parsers unavailable (%s); reinstall the app's dependencies", exc)
        return None
    return usaddress.parse, probablepeople.parse


def _align(text: str, parsed: list[tuple[str, str]], starts: list[int]) -> list[str]:
    """Tag of each of our tokens (given by their start offsets) from ``parsed`` (word, tag) pairs."""
    out = [""] * len(starts)
    pos, k = 0, 0
    for word, tag in parsed:
        at = text.find(word, pos)
        if at < 0:
            continue
        pos = at + len(word)
        while k + 1 < len(starts) and starts[k + 1] <= at:
            k += 1
        if not out[k]:
            out[k] = tag
    return out


def parser_tags(text: str, starts: list[int]) -> tuple[list[str], list[str]]:
    """(usaddress tag, probablepeople tag) of each token of ``text`` whose start offsets are
    ``starts``; empty strings where a parser says nothing, for long lines or without the packages."""
    empty = [""] * len(starts)
    parsers = _parsers()
    if parsers is None or not starts or len(text) > MAX_CHARS or not text.strip():
        return empty, list(empty)
    address, people = parsers
    tags = []
    for parse in (address, people):
        try:
            tags.append(_align(text, parse(text), starts))
        except Exception:  # a CRF tokeniser edge case must not stop the reading  # noqa: BLE001
            tags.append(list(empty))
    return tags[0], tags[1]
