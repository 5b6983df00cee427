"""Features of each token (whitespace-separated word) of an OCR line, hashed into a fixed space.

A token is described by its string (character 2–4-grams, shape, length, word), the name gazetteer,
its neighbours and sentence cues in the line ("my name is …"), the screen context (label beside or
above, list-row role, size against the body text) and what the rule-based validators/recognisers
found on it (Luhn, IBAN, MRZ, phone metadata, …) — the validators are strong features here and hard
overrides in ``classifier``. Since feature version 5 each word also carries how common it is in
ordinary language (``app.text.words``): a dictionary word that a name list also holds ("Cafeteria",
"Donut") reads differently from a surname. Hashing uses CRC-32 (stable across runs, unlike ``hash``).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from app.text.gazetteer import NameTable
from app.text.layout import LineContext
from app.text.recognisers import PiiSpan
from app.text.words import WordTable

TOKEN = re.compile(r"\S+")
EDGE_PUNCT = "\"'“”‘’()[]{}<>.,;:!?¡¿*•·|"
# 3: usaddress tags and the column head (2, with probablepeople tags, was dropped); 4: word parts;
# 5: word frequency in ordinary language
FEATURE_VERSION = 5
READABLE_VERSIONS = (1, 3, 4, 5)  # feature versions this code computes (1: without the version-3 features)
PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
SEPARATORS = {".": "dot", "_": "us", "-": "hy"}


@dataclass(frozen=True)
class Token:
    """``text[start:end]`` of a line; ``word`` is it lower-cased without edge punctuation."""

    start: int
    end: int
    raw: str
    word: str


def tokens(text: str) -> list[Token]:
    """Whitespace tokens of ``text`` with character offsets."""
    return [Token(m.start(), m.end(), m.group(0), m.group(0).strip(EDGE_PUNCT).lower()) for m in TOKEN.finditer(text)]


def shape(s: str, limit: int = 14) -> str:
    """Character classes of ``s`` (X upper, x lower, d digit, others as is), runs collapsed."""
    out: list[str] = []
    for ch in s[:40]:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)[:limit]


def _bucket(value: float, edges: tuple[float, ...]) -> int:
    return sum(value > e for e in edges)


def _rank_bucket(rank: int | None) -> str:
    if rank is None:
        return "none"
    return ("top100", "top1k", "top2k", "top5k", "rare")[_bucket(rank, (100, 1000, 2000, 5000))]


def _context_words(text: str, limit: int = 5) -> list[str]:
    return [w for w in (t.strip(EDGE_PUNCT).lower() for t in text.split()[-limit:]) if w]


def part_features(raw: str, names: NameTable, version: int = 4) -> list[str]:
    """Features of the parts of a joined word — ``Maxime_Nienow``, ``Elwyn.Skiles``,
    ``SocialName``, ``jdoe84`` — split at ``. _ -``, case changes and digit runs: how many parts,
    whether case changes inside, and the name-gazetteer rank of each letter part (a username built
    from a first and a last name). From feature version 5 the separator is told apart (ordinary
    text joins words and splits syllables with hyphens, "ju-bi-lant"; handles use dots and
    underscores) and short lower-case parts on hyphens are marked as syllables. Empty for a plain word."""
    core = raw.strip(EDGE_PUNCT).lstrip("@")
    parts = PART.findall(core)
    if len(parts) < 2 or len(core) > 40:
        return []
    f = [f"parts={min(len(parts), 4)}"]
    if re.search(r"[a-z][A-Z]", core):
        f.append("camel")
    if version < 5 and re.search(r"[A-Za-z][._-][A-Za-z]", core):
        f.append("joined_sep")
    if version >= 5:
        f += sorted({f"joined_{SEPARATORS[m]}" for m in re.findall(r"(?<=[A-Za-z])[._-](?=[A-Za-z])", core)})
        if "-" in core and all(p.isalpha() and len(p) <= 4 for p in parts) and core[1:].lower() == core[1:]:
            f.append("syllables")
    for part in parts[:3]:
        if part.isalpha() and len(part) > 1:
            low = part.lower()
            f.append(f"pfn={_rank_bucket(names.first_rank(low))}")
            f.append(f"pln={_rank_bucket(names.last_rank(low))}")
        else:
            f.append(f"pd={_bucket(len(part), (1, 2, 3, 4))}")
    return f


def word_features(tok: Token, toks: list[Token], k: int, names: NameTable, words: WordTable) -> list[str]:
    """How common token ``k`` and its line's words are in ordinary language (feature version 5):
    its (English, other languages) Zipf frequency, that frequency with its first/last-name rank
    buckets ("grace": common and a top first name; "cafeteria": common, a rare first name), and
    the share of the line's words that are common English words (a headline, a sentence)."""
    f = []
    word = tok.word
    if word.isalpha():
        en, other = words.zipf(word)
        f.append(f"wf={en}/{other}")
        f.append(f"wfn={en}/{_rank_bucket(names.first_rank(word))}/{_rank_bucket(names.last_rank(word))}")
        if tok.raw[:1].isupper():
            f.append(f"wf_title={en}/{other}")
    alpha = [t.word for t in toks if t.word.isalpha()]
    if alpha:
        common = sum(1 for w in alpha if words.zipf(w)[0] >= 4) / len(alpha)
        f.append(f"line_common={_bucket(common, (0.0, 0.34, 0.67, 0.99))}/{min(len(alpha), 4)}")
    return f


def token_features(tok: Token, toks: list[Token], k: int, line_text: str, ctx: LineContext, names: NameTable,
                   rules: list[PiiSpan], address: list[str] | None = None, version: int = FEATURE_VERSION,
                   words: WordTable | None = None) -> list[str]:  # fmt: skip
    """Feature strings of token ``k`` (``tok``) of a line; ``address``: the line's usaddress tag per
    token (``app.text.parsers.address_tags``), given for feature version 3 and later, which also
    adds the column head; version 4 adds the word parts (``part_features``), version 5 the word
    frequencies (``word_features``, from ``words``). See the module docstring."""
    raw, word = tok.raw, tok.word
    f = ["bias", f"w={word}", f"sh={shape(raw)}", f"len={_bucket(len(raw), (1, 2, 3, 5, 8, 12, 20, 30))}"]
    padded = f"^{word[:24]}$"
    f += [f"g{n}={padded[i:i + n]}" for n in (2, 3, 4) for i in range(len(padded) - n + 1)]
    digits = sum(ch.isdigit() for ch in raw)
    f.append(f"dig={_bucket(digits / max(len(raw), 1), (0.0, 0.3, 0.6, 0.99))}")
    if raw[:1].isupper() and raw[1:].islower():
        f.append("title")
    if raw.isupper() and len(raw) > 1:
        f.append("upper")
    for ch, name in (("@", "at"), ("<", "chevron"), (":", "colon"), ("/", "slash"), ("+", "plus"), ("-", "dash")):
        if ch in raw:
            f.append(f"has_{name}")
    if raw.endswith(":"):
        f.append("ends_colon")
    if word.isalpha():
        f.append(f"fn={_rank_bucket(names.first_rank(word))}")
        f.append(f"ln={_rank_bucket(names.last_rank(word))}")
    if version >= 4:
        f += part_features(raw, names, version)
    if version >= 5 and words is not None:
        f += word_features(tok, toks, k, names, words)
    # neighbours and sentence cues
    for off in (-2, -1, 1, 2):
        j = k + off
        if 0 <= j < len(toks):
            f.append(f"w{off}={toks[j].word}")
            if abs(off) == 1:
                f.append(f"sh{off}={shape(toks[j].raw, 6)}")
                if toks[j].word.isalpha():
                    f.append(f"nm{off}={_rank_bucket(names.first_rank(toks[j].word))}/{_rank_bucket(names.last_rank(toks[j].word))}")
        else:
            f.append(f"w{off}=<edge>")
    if k >= 2:
        f.append(f"cue={toks[k - 2].word}_{toks[k - 1].word}")
    colon = line_text.find(":")
    if 0 <= colon < tok.start:
        f += [f"inlab={w}" for w in _context_words(line_text[:colon], 3)]
        f.append("after_colon")
    n_bucket = _bucket(len(toks), (1, 2, 3, 5, 8, 12))
    f.append(f"ntok={n_bucket}")
    titled = sum(1 for t in toks if t.raw[:1].isupper())
    f.append(f"ntok_title={n_bucket}/{_bucket(titled / len(toks), (0.0, 0.5, 0.99))}")  # "Liam Becker" vs a Title Case headline
    f.append(f"pos={'only' if len(toks) == 1 else 'first' if k == 0 else 'last' if k == len(toks) - 1 else 'mid'}")
    if line_text.rstrip().endswith((".", "!", "?")):
        f.append("line_sentence")
    # screen context
    f += [f"above={w}" for w in _context_words(ctx.above)]
    f += [f"left={w}" for w in _context_words(ctx.left, 3)]
    f += [f"right={w}" for w in _context_words(ctx.right, 2)]
    if ctx.above.rstrip().endswith(":") or ctx.left.rstrip().endswith(":"):
        f.append("ctx_colon")
    if address is not None and ctx.column_head:
        f += [f"col={w}" for w in _context_words(ctx.column_head, 3)]
    f.append(f"hr={_bucket(ctx.height_ratio, (0.7, 0.9, 1.15, 1.4, 1.8))}")
    row = f"{int(ctx.aligned_above)}{int(ctx.aligned_below)}{int(ctx.below_smaller)}"
    f.append(f"row={row}")
    if word.isalpha():
        f.append(f"row_name={row}/{_rank_bucket(names.first_rank(word))}/{_rank_bucket(names.last_rank(word))}")
    if address is not None:  # the address parser's reading of the whole line
        f.append(f"ua={address[k]}")
        f += [f"ua{off}={address[k + off]}" for off in (-1, 1) if 0 <= k + off < len(toks)]
    # the rule-based recognisers (validators and context rules)
    for span in rules:
        if span.start < tok.end and tok.start < span.end:
            f.append(f"rule={span.recogniser}")
            f.append(f"rulec={span.class_name}")
            f.append(f"rules={span.class_name}/{_bucket(span.score, (0.5, 0.7, 0.85, 0.94))}")
    return f


def hash_features(features: list[str], dim: int) -> list[int]:
    """Indices in ``[0, dim)`` of the feature strings (CRC-32, duplicates kept)."""
    return [zlib.crc32(s.encode("utf-8")) % dim for s in features]
