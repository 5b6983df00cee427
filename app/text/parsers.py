"""Tags from a small CRF address parser, as features of the text-PII classifier: ``usaddress``
(MIT, its model ships in the wheel via python-crfsuite; ≈ 0.03 ms per line on an idle core) says
what part of a postal address each word would be: number, street name, city, postcode, …

Its tokeniser differs from ours (commas and brackets split off), so each parser token is mapped
back to the whitespace token of ours that holds its first character. (``probablepeople``, the
same authors' name parser, was tried too: +0.3 points of held-out token recall for about twice
the classifier's cost per line, so it is not used; see the model card.)
"""

from __future__ import annotations

import logging
from functools import lru_cache

log = logging.getLogger(__name__)

MAX_CHARS = 160  # longer lines are prose or code: the parser is slow on them and means nothing there


@lru_cache(maxsize=1)
def _parser():
    try:
        import usaddress
    except ImportError as exc:  # the classifier then sees no parser tags; say so once
        log.warning("text classifier: the address parser is unavailable (%s); reinstall the app's dependencies", exc)
        return None
    try:  # a package without its CRF model file imports with a warning, then fails on every call
        usaddress.parse("1 Main Street")
    except Exception as exc:  # noqa: BLE001
        log.warning("text classifier: the address parser has no model (%s); reinstall the app", exc)
        return None
    return usaddress.parse


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


def address_tags(text: str, starts: list[int]) -> list[str]:
    """``usaddress`` tag of each token of ``text`` whose start offsets are ``starts``; empty
    strings where it says nothing, for long lines, or without the package."""
    empty = [""] * len(starts)
    parse = _parser()
    if parse is None or not starts or len(text) > MAX_CHARS or not text.strip():
        return empty
    try:
        return _align(text, parse(text), starts)
    except Exception:  # a CRF tokeniser edge case must not stop the reading  # noqa: BLE001
        return empty
