"""Person-name spotting: a gazetteer built from Faker's locale name lists (MIT), plus context
("Name:", "From:", "Dear", titles such as "Dr." or "Frau").

Faker's lists are read at run time from the installed package, not copied into this repository.
Without Faker only the context rules run (a warning is logged once).
"""

from __future__ import annotations

import importlib
import logging
import re
from functools import lru_cache

log = logging.getLogger(__name__)

NAME_LOCALES = ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES")

# Words that are also first names but far more often ordinary UI words.
COMMON_WORDS = frozenset(
    """
    will may june april august mark page bill rose grant hope joy summer chase case art dawn
    faith grace iris ivy jade jack max miles norman ray rich sky star sunny victor violet more
    new open close home search settings help about free pay call chat send save start
    back edit block cancel ok no all general
    """.split()
)
TOKEN = re.compile(r"[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ'’\-]+(?:-[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)?")
CONTEXT = re.compile(
    r"\b(?:name|full name|from|to|cc|bcc|contact|sender|recipient|dear|hi|hello|hallo|liebe[rs]?|"
    r"von|an|absender|empfänger|nom|prénom|de|à|bonjour|cher|chère|nombre|apellidos?|para|hola|"
    r"querid[oa]|estimad[oa]|signed|regards|cardholder|holder|inhaber|titular|titulaire)\b\s*[:,]?\s*",
    re.IGNORECASE,
)
TITLE = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Dr|Prof|Herr|Frau|M|Mme|Mlle|Sr|Sra|Srta|Don|Doña)\.?\s+")


@lru_cache(maxsize=1)
def name_lists() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names), lower-cased, from Faker's person providers for ``NAME_LOCALES``."""
    first: set[str] = set()
    last: set[str] = set()
    for locale in NAME_LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ImportError:
            log.warning("Faker is not installed: person names are found by context only (pip install faker)")
            return frozenset(), frozenset()
        for attr, target in (("first_names", first), ("last_names", last)):
            values = getattr(provider, attr, ())
            target.update(str(n).lower() for n in (values.keys() if isinstance(values, dict) else values))
    first -= COMMON_WORDS
    last -= COMMON_WORDS
    return frozenset(first), frozenset(last)


def _tokens(text: str) -> list[re.Match]:
    return list(TOKEN.finditer(text))


def _run_after(text: str, pos: int, max_tokens: int = 3) -> tuple[int, int] | None:
    """Span of up to ``max_tokens`` capitalised words starting at ``pos`` (only spaces between)."""
    m = TOKEN.match(text, pos)
    if not m:
        return None
    start, end, count = m.start(), m.end(), 1
    while count < max_tokens:
        nxt = re.compile(r"[ ]").match(text, end)
        if not nxt:
            break
        m = TOKEN.match(text, end + 1)
        if not m:
            break
        end, count = m.end(), count + 1
    return start, end


def find_names(text: str, context: str = "") -> list[tuple[int, int, float]]:
    """(start, end, score) of person names in ``text``."""
    first, last = name_lists()
    found: list[tuple[int, int, float]] = []
    for m in CONTEXT.finditer(text):
        run = _run_after(text, m.end())
        if run:
            found.append((*run, 0.85))
    for m in TITLE.finditer(text):
        run = _run_after(text, m.end(), 2)
        if run:
            found.append((m.start(), run[1], 0.9))
    tokens = _tokens(text)
    whole_line = len(tokens) in (2, 3) and text.strip() == text[tokens[0].start() : tokens[-1].end()].strip()
    i = 0
    while i + 1 < len(tokens):
        t, nxt_tok = tokens[i], tokens[i + 1]
        word, nxt = t.group(0).lower(), nxt_tok.group(0).lower()
        if text[t.end() : nxt_tok.start()] != " ":
            i += 1
            continue
        if word in first and (nxt in last or nxt in first):
            score = 0.8 if nxt in last else 0.65
        elif word in first and nxt not in COMMON_WORDS and len(nxt) >= 2:
            score = 0.55  # a known first name followed by a capitalised word ("Priya Sharma")
        elif whole_line and (word in first or nxt in last):
            score = 0.5  # a line that is just "Given Family", one part known (contact lists)
        else:
            i += 1
            continue
        end = nxt_tok.end()
        if i + 2 < len(tokens) and text[end : tokens[i + 2].start()] == " " and tokens[i + 2].group(0).lower() in last:
            end = tokens[i + 2].end()
        found.append((t.start(), end, score))
        i += 2
    if not found and 1 <= len(tokens) <= 3 and CONTEXT.fullmatch(context.strip() + " ") is not None:
        found.append((tokens[0].start(), tokens[-1].end(), 0.7))  # a "Name" label on the line above
    return found
