"""Build the word-frequency table the text classifier reads (``app.text.words``) from ``wordfreq``
(training-only dependency: code Apache-2.0, frequency data CC-BY-SA 4.0)."""

from __future__ import annotations

import math
from pathlib import Path

from app.text.words import MIN_ZIPF, SHIPPED, write_table

# English, then the languages of the synthetic people (training.synth.fakedata.LOCALES).
OTHER_LANGUAGES = ("de", "fr", "es", "it", "nl", "pl", "pt", "sv", "da")


def zipf_table(lang: str) -> dict[str, int]:
    """Alphabetic words of ``lang`` with integer Zipf frequency ≥ ``MIN_ZIPF`` (capped at 7)."""
    from wordfreq import get_frequency_dict

    out = {}
    for word, freq in get_frequency_dict(lang, wordlist="best").items():
        z = math.log10(freq * 1e9) if freq > 0 else 0.0
        if z >= MIN_ZIPF and word.isalpha() and len(word) >= 2:
            out[word.lower()] = min(int(z), 7)
    return out


def build(path: Path = SHIPPED) -> Path:
    """Write the table to ``path`` (default ``models/text-words.tsv.gz``) and return it."""
    en = zipf_table("en")
    other: dict[str, int] = {}
    for lang in OTHER_LANGUAGES:
        for word, z in zipf_table(lang).items():
            other[word] = max(z, other.get(word, 0))
    write_table(path, en, other)
    return path
