"""Which spans of each OCR line are private: the learned token classifier plus validator overrides.

Every token of every line gets class probabilities from ``TextPiiModel``; adjacent tokens of one
class merge into a span whose score is the probability that it is private (1 − p(none)). Spans
the rule-based recognisers find with a score ≥ ``OVERRIDE_SCORE`` (checksum-validated numbers,
e-mails, values after an explicit label) are kept whatever the model says: the validators are hard
overrides, and the weaker rules only inform the model as features.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from app.core.policy import TEXT_PII
from app.text.features import FEATURE_VERSION, hash_features, token_features, tokens
from app.text.gazetteer import NameTable, name_table
from app.text.layout import LineContext, line_contexts
from app.text.lines import TextLine
from app.text.model import NONE, TextPiiModel
from app.text.names import COMMON_WORDS, TOKEN
from app.text.parsers import address_tags
from app.text.recognisers import PiiSpan, find_pii
from app.text.words import WordTable, word_table

OVERRIDE_SCORE = 0.9


@dataclass(frozen=True)
class LineReading:
    """One line as read: its private ``spans``, the model's per-token ``p_none`` (T,) and
    ``private_class`` (T,) (the likeliest private class of each token), and its context."""

    line: TextLine
    spans: tuple[PiiSpan, ...]
    token_bounds: tuple[tuple[int, int], ...]
    p_none: np.ndarray
    private_class: tuple[str, ...]
    context: LineContext

    @property
    def p_private(self) -> float:
        """Highest probability that any token of the line is private (0 for an empty line)."""
        return float(1.0 - self.p_none.min()) if len(self.p_none) else 0.0


@dataclass
class TextPiiClassifier:
    """Reads lines with ``model``, the name gazetteer and the word-frequency table; ``threshold``
    on 1 − p(none), by default the one the training command chose for the model file (its
    metrics' ``threshold``; 0.5 for files without one)."""

    model: TextPiiModel
    names: NameTable = field(default_factory=name_table)
    words: WordTable | None = None  # None: the shipped word table, read when the model uses it (v5)
    threshold: float | None = None
    seconds: float = 0.0  # time spent in the last ``read`` call
    _private: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        unknown = [c for c in self.model.classes[1:] if c not in TEXT_PII]
        if unknown:
            from app.text.model import TextModelError

            raise TextModelError(f"text-PII classifier has classes the app does not know: {unknown}")
        self._private = np.arange(1, len(self.model.classes))
        if self.threshold is None:
            self.threshold = float((self.model.meta.get("metrics") or {}).get("threshold", 0.5))

    def read(self, lines: list[TextLine]) -> list[LineReading]:
        """``LineReading`` of each line (same order)."""
        t0 = time.perf_counter()
        contexts = line_contexts(lines)
        prepared = featurise(lines, self.names, self.model.dim, contexts, self.model.feature_version, self.words)
        flat = [f for _, feats, _ in prepared for f in feats]
        probs = self.model.probabilities(flat)
        readings, pos = [], 0
        for line, ctx, (toks, feats, rules) in zip(lines, contexts, prepared):
            p = probs[pos : pos + len(toks)]
            pos += len(toks)
            readings.append(self._reading(line, ctx, toks, p, rules))
        self.seconds = time.perf_counter() - t0
        return readings

    def _reading(self, line: TextLine, ctx: LineContext, toks, p: np.ndarray, rules: list[PiiSpan]) -> LineReading:
        classes = self.model.classes
        best = self._private[np.argmax(p[:, 1:], axis=1)] if len(p) else np.zeros(0, int)
        private = [classes[int(b)] for b in best]
        spans: list[PiiSpan] = []
        keep = _hysteresis(p, private, self.threshold)
        for k, tok in enumerate(toks):
            score = float(1.0 - p[k, 0])
            if not keep[k]:
                continue
            last = spans[-1] if spans else None
            if last is not None and last.class_name == private[k] and k > 0 and spans_end_token(last, toks[k - 1]):
                merged_score = max(last.score, score)
                spans[-1] = PiiSpan(last.start, tok.end, last.class_name, merged_score, "classifier")
            else:
                spans.append(PiiSpan(tok.start, tok.end, private[k], score, "classifier"))
        # A lone short number ("5", "856 commits") is a count, and a single character ("t", a
        # stray glyph read off a photo) is no personal data on its own.
        spans = [s for s in _bridge(spans, toks, p) if _informative(line.text[s.start : s.end])]
        spans = _whole_name_line(spans, toks, line.text, self.names)
        strong = [r for r in rules if r.score >= OVERRIDE_SCORE]
        spans = [s for s in spans if not any(r.start <= s.start and s.end <= r.end for r in strong)] + strong
        spans.sort(key=lambda s: s.start)
        return LineReading(line, tuple(spans), tuple((t.start, t.end) for t in toks),
                           p[:, 0].copy() if len(p) else np.zeros(0, np.float32), tuple(private), ctx)  # fmt: skip


def featurise(lines: list[TextLine], names: NameTable, dim: int, contexts: list[LineContext] | None = None,
              version: int = FEATURE_VERSION, words: WordTable | None = None) -> list[tuple[list, list[list[int]], list[PiiSpan]]]:  # fmt: skip
    """Per line: (tokens, hashed feature indices of each token in ``[0, dim)``, rule spans), with
    the features of ``version`` (``app.text.features.READABLE_VERSIONS``; version 5 reads
    ``words``, by default the shipped word table)."""
    if version >= 5 and words is None:
        words = word_table()
    contexts = contexts if contexts is not None else line_contexts(lines)
    out = []
    for line, ctx in zip(lines, contexts):
        rules = find_pii(line.text, ctx.label_text, column_head=ctx.column_head)
        toks = tokens(line.text)
        address = address_tags(line.text, [t.start for t in toks]) if version >= 3 else None
        feats = [hash_features(token_features(t, toks, k, line.text, ctx, names, rules, address, version, words), dim)
                 for k, t in enumerate(toks)]
        out.append((toks, feats, rules))
    return out


def _hysteresis(p: np.ndarray, private: list[str], threshold: float, strong: float = 0.9, weak: float = 0.05) -> list[bool]:
    """Tokens to mark private: P(private) ≥ ``threshold``, plus neighbours of a confident token
    (≥ ``strong``) whose likeliest private class is the same and whose P(private) ≥ ``weak`` —
    the surname after a sure first name, the street name inside a sure address line."""
    n = len(p)
    score = 1.0 - p[:, 0] if n else np.zeros(0)
    keep = [bool(s >= threshold) for s in score]
    for k in range(n):
        if score[k] < strong:
            continue
        for step in (-1, 1):
            j = k + step
            while 0 <= j < n and not keep[j] and private[j] == private[k] and score[j] >= weak:
                keep[j] = True
                j += step
    return keep


def _bridge(spans: list[PiiSpan], toks, p: np.ndarray, min_gap_p: float = 0.2) -> list[PiiSpan]:
    """Join two spans of one class separated by a single token that is itself somewhat likely
    private ("221B [Baker] Street"): a half-hidden address or name still reads."""
    out: list[PiiSpan] = []
    ends = {t.end: k for k, t in enumerate(toks)}
    for s in spans:
        prev = out[-1] if out else None
        k = ends.get(prev.end) if prev is not None else None  # index of the previous span's last token
        if (prev is not None and k is not None and k + 2 < len(toks) and toks[k + 2].start == s.start
                and prev.class_name == s.class_name and 1.0 - p[k + 1, 0] >= min_gap_p):  # fmt: skip
            out[-1] = PiiSpan(prev.start, s.end, s.class_name, max(prev.score, s.score), "classifier")
        else:
            out.append(s)
    return out


def _whole_name_line(spans: list[PiiSpan], toks, text: str, names: NameTable, max_rank: int = 1000) -> list[PiiSpan]:
    """A line that is only two or three capitalised words, one of them read as a person's name and
    each other one a popular first or last name (ranked in some country's top ``max_rank``) and no
    everyday UI word ("Home", "Back"), is one name: "Carter Blake" with only "Blake" read as a name
    would still show who it is."""
    named = [s for s in spans if s.class_name == "person_name"]
    if not named or len(named) != len(spans) or not 2 <= len(toks) <= 3:
        return spans
    if text.strip() != " ".join(t.raw for t in toks) or not all(TOKEN.fullmatch(t.raw) for t in toks):
        return spans
    inside = [t for t in toks if any(s.start <= t.start and t.end <= s.end for s in named)]
    for t in toks:
        if t in inside:
            continue
        if t.word in COMMON_WORDS:
            return spans
        ranks = [r for r in (names.first_rank(t.word), names.last_rank(t.word)) if r is not None]
        if not ranks or min(ranks) > max_rank:
            return spans
    return [PiiSpan(toks[0].start, toks[-1].end, "person_name", max(s.score for s in named), "classifier")]


def _alnum(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def _informative(text: str) -> bool:
    """A span worth hiding as classified: two or more letters or digits, and four or more when
    it has no letter (a lone count)."""
    n = _alnum(text)
    return n >= 4 or (n >= 2 and any(ch.isalpha() for ch in text))


def spans_end_token(span: PiiSpan, tok) -> bool:
    """True when ``span`` ends where token ``tok`` ends (so the next token continues it)."""
    return span.end == tok.end


def token_labels_to_ids(labels: list[str | None], classes: tuple[str, ...]) -> np.ndarray:
    """Class ids of token labels (None → ``none``), for training and tests."""
    index = {c: i for i, c in enumerate(classes)}
    return np.array([index[NONE if lab is None else lab] for lab in labels], np.int64)
