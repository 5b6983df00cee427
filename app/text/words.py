"""How common a word is in ordinary language: the text classifier's knowledge that "Cafeteria",
"Donut" or "Title" are dictionary words while "Nienow" is not.

A name gazetteer alone cannot tell them apart: the names in ``names-dataset`` come from a social
network, so many ordinary words rank there as someone's first name. The word table holds, for every
word used at least once per million words (Zipf frequency ≥ 3) in English or in one of the other
languages the synthetic people write, the integer part of its Zipf frequency — in English and,
separately, its best in the others. It is built from ``wordfreq`` (code Apache-2.0, data CC-BY-SA
4.0) by the training command (``training.text.words_table``) and shipped as
``models/text-words.tsv.gz``, so the app needs no ``wordfreq`` and reads exactly the table its
model was trained with. Without the file every word reads as unknown (the model then loses this
feature only) and a warning says so.
"""

from __future__ import annotations

import gzip
import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.model_files import model_path

log = logging.getLogger(__name__)

SHIPPED = model_path("text-words.tsv.gz")  # models/ of a checkout, or the copy in the wheel/bundle
MIN_ZIPF = 3  # once per million words; rarer words tell nothing beyond "not common"
GROUPS = ("en", "xx")  # English, and the best of the other languages


@dataclass(frozen=True)
class WordTable:
    """Lower-cased word → integer Zipf frequency (3–7), in English (``en``) and in the other
    languages (``other``, the best of them)."""

    en: dict[str, int]
    other: dict[str, int]
    source: str

    def zipf(self, word: str) -> tuple[int, int]:
        """(English, other languages) integer Zipf frequency of ``word``; 0 when rarer than
        ``MIN_ZIPF`` or unknown."""
        w = word.lower()
        return self.en.get(w, 0), self.other.get(w, 0)


def write_table(path: Path, en: dict[str, int], other: dict[str, int]) -> None:
    """One line per (group, frequency): ``group<TAB>zipf<TAB>word<US>word…`` (as the name table)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as fh:
        for group, table in zip(GROUPS, (en, other)):
            by_zipf: dict[int, list[str]] = {}
            for word, z in table.items():
                by_zipf.setdefault(z, []).append(word)
            fh.writelines(f"{group}\t{z}\t{chr(31).join(sorted(words))}\n" for z, words in sorted(by_zipf.items()))
    tmp.replace(path)


def read_table(path: Path) -> WordTable:
    """The table written by ``write_table``."""
    tables: dict[str, dict[str, int]] = {g: {} for g in GROUPS}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for row in fh:
            group, z, words = row.rstrip("\n").split("\t")
            tables[group].update(dict.fromkeys(words.split(chr(31)), int(z)))
    return WordTable(tables["en"], tables["xx"], f"wordfreq table ({len(tables['en'])} English, {len(tables['xx'])} other words)")


@lru_cache(maxsize=1)
def word_table() -> WordTable:
    """The shipped word table, loaded once per process; an empty one (with a warning) without it."""
    try:
        return read_table(SHIPPED)
    except (OSError, ValueError, EOFError) as exc:
        log.warning("word-frequency table %s cannot be read (%s); the text classifier reads every word as rare", SHIPPED, exc)
        return WordTable({}, {}, "none")
