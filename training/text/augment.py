"""Text-level variants of cached OCR reads: the private values of a read scene rewritten in the
styles of ``training.text.variety``.

OCR costs about a second of CPU per rendered screen (far more on a shared machine), so re-rendering
hundreds of screens to show the classifier CamelCase usernames or "LAST, First" names is slow. A
read scene already holds real OCR lines, contexts and layouts; here each labelled name, username,
phone number or birth date inside a line is replaced by a freshly drawn value in another style
(``SocialName``, ``Maxime_Nienow``, ``GARCÍA, Emma``, ``+44 20 7946 0958``, ``12 March 1985``),
and the characters keep their classes; on some lines with nothing private one word becomes a
harmless look-alike of the same shape ("open-source", "com-pu-ter", "PowerPoint", "e.g.",
"report_final.pdf"), so shape alone does not make a username. The rest of the line and the screen
stay as read.

Only training scenes are varied; held-out scenes stay as OCR read them.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from app.text.lines import TextLine
from training.synth import fakedata as fd
from training.text import specs, variety
from training.text.ocr_data import ReadScene, char_labels

VARIED_CLASSES = ("person_name", "username", "phone_number", "date_of_birth")


def labelled_runs(classes: list[str | None], text: str) -> list[tuple[int, int, str]]:
    """``(start, end, class)`` of each run of characters of one class, spaces inside a run
    included ("Ann Lee" is one run)."""
    runs: list[tuple[int, int, str]] = []
    for k, cls in enumerate(classes):
        if cls is None:
            continue
        if runs and runs[-1][2] == cls and not text[runs[-1][1] : k].strip():
            runs[-1] = (runs[-1][0], k + 1, cls)
        else:
            runs.append((k, k + 1, cls))
    return [r for r in (_trim(text, *run) for run in runs) if r is not None]


def _trim(text: str, start: int, end: int, cls: str) -> tuple[int, int, str] | None:
    """A run without the punctuation a padded label box catches at its edges ("back, Sylvia")."""
    while start < end and text[start] in EDGE:
        start += 1
    while end > start and text[end - 1] in EDGE:
        end -= 1
    return (start, end, cls) if end > start else None


EDGE = " ,.;:!?\"'’”)]"


def new_value(rng: np.random.Generator, cls: str, original: str) -> str:
    """A fresh value of ``cls`` in a style drawn from ``variety`` (``original``: the value read)."""
    p = fd.make_person(rng)
    if cls == "person_name":
        if len(original.split()) == 1:  # a first name or surname alone
            return str(rng.choice([p.first, p.last, p.last.upper(), f"{p.last.upper()},"]))
        return variety.person_name(rng, p.first, p.last)
    if cls == "username":
        if original.startswith("@"):  # a fediverse handle names its server too: @user@server
            return "@" + variety.username(rng, p) + (f"@{variety.instance(rng)}" if rng.random() < 0.3 else "")
        return variety.username(rng, p)
    if cls == "phone_number":
        return variety.phone(rng, p.phone)
    return variety.birth_date(rng, p.dob)


def vary_line(rng: np.random.Generator, line: TextLine, classes: list[str | None], share: float = 0.7,
              negative_share: float = 0.25, context_share: float = 0.3, ordinary_share: float = 0.0,
              pool: list[str] | None = None, title_share: float = 0.0, name_words: list[str] | None = None,
              spec_share: float = 0.0) -> tuple[TextLine, list[str | None]] | None:  # fmt: skip
    """``line`` with its labelled values redrawn (with probability ``share``) — or, on a line with
    nothing private, one word turned into a harmless look-alike (``negative_share``), or a short
    such line (three words at most) replaced by harmless text shaped like a lone name
    (``ordinary_share``, ``variety.ordinary_line`` drawing from the words ``pool``) — and the
    class of each new character; None when nothing was changed. A name alone on its line is put
    in a sentence with probability ``context_share`` (``variety.name_in_context``). Word boxes are
    dropped (they no longer spell the text); the line keeps its box and score. A line of four or
    more words with nothing private is put in title case as headlines print it (``title_share``;
    with ``name_words`` one of its words may become a common word that is also a name). A line of
    four words at most with nothing private becomes harmless technical text (``spec_share``,
    ``specs.spec_line``: "ISO 125 · 1/400s", "24 GB RAM").
    """
    runs = [r for r in labelled_runs(classes, line.text) if r[2] in VARIED_CLASSES]
    if title_share > 0 and not any(classes) and len(line.text.split()) >= 4 and rng.random() < title_share:
        text = variety.title_case(line.text, rng, name_words)
        if text != line.text:
            return TextLine(text, line.quad, line.score, ()), [None] * len(text)
    if spec_share > 0 and not any(classes) and len(line.text.split()) <= 4 and rng.random() < spec_share:
        text = specs.spec_line(rng)
        return TextLine(text, line.quad, line.score, ()), [None] * len(text)
    if not runs and pool and not any(classes) and len(line.text.split()) <= 3 and rng.random() < ordinary_share:
        text = variety.ordinary_line(rng, pool)
        return TextLine(text, line.quad, line.score, ()), [None] * len(text)
    if not runs or rng.random() > share:
        return _with_look_alike(rng, line, classes, negative_share)
    text, out = line.text, list(classes)
    for start, end, cls in reversed(runs):  # from the right: earlier offsets stay valid
        value = new_value(rng, cls, text[start:end])
        text = text[:start] + value + text[end:]
        out = out[:start] + [None if ch.isspace() else cls for ch in value] + out[end:]
    if len(runs) == 1 and runs[0][2] == "person_name" and not line.text[: runs[0][0]].strip() and rng.random() < context_share:
        before, after = variety.name_in_context(rng, text.strip())  # a name alone on its line, put in a sentence
        text, out = before + text.strip() + after, [None] * len(before) + out[len(text) - len(text.lstrip()) :][: len(text.strip())] + [None] * len(after)
    return TextLine(text, line.quad, line.score, ()), out


def _with_look_alike(rng: np.random.Generator, line: TextLine, classes: list[str | None], share: float
                     ) -> tuple[TextLine, list[str | None]] | None:  # fmt: skip
    """With probability ``share``, one plain lower-case word of a line with nothing private
    replaced by a username-shaped harmless word (``variety.look_alike``), class None."""
    if any(classes) or rng.random() >= share:
        return None
    words = [(m.start(), m.start() + len(core)) for m in re.finditer(r"\S+", line.text)
             if re.fullmatch(r"[a-z]{4,}", core := m.group(0).rstrip(",.;:!?"))]  # fmt: skip
    if not words:
        return None
    start, end = words[int(rng.integers(0, len(words)))]
    value = variety.look_alike(rng, line.text[start:end])
    text = line.text[:start] + value + line.text[end:]
    return TextLine(text, line.quad, line.score, ()), [None] * len(text)


def vary_scene(scene: ReadScene, rng: np.random.Generator, ordinary_share: float = 0.0,
               pool: list[str] | None = None, negative_share: float = 0.25, title_share: float = 0.0,
               name_words: list[str] | None = None, spec_share: float = 0.0) -> ReadScene | None:  # fmt: skip
    """A copy of ``scene`` whose labelled values are redrawn (``vary_line``), with per-character
    classes attached; None when the scene holds no such value."""
    lines, classes, changed = [], [], False
    for line in scene.lines:
        chars = list(scene.char_classes[len(lines)]) if scene.char_classes else char_labels(line, scene.labels)
        varied = vary_line(rng, line, chars, negative_share=negative_share, ordinary_share=ordinary_share, pool=pool,
                           title_share=title_share, name_words=name_words, spec_share=spec_share)  # fmt: skip
        if varied is not None:
            line, chars = varied
            changed = True
        lines.append(line)
        classes.append(tuple(chars))
    if not changed:
        return None
    return replace(scene, name=scene.name + "+varied", lines=tuple(lines), char_classes=tuple(classes))


def varied_copies(scenes: list[ReadScene], copies: int, seed: int = 0, ordinary_share: float = 0.0,
                  pool: list[str] | None = None, negative_share: float = 0.25, title_share: float = 0.0,
                  name_words: list[str] | None = None, spec_share: float = 0.0) -> list[ReadScene]:  # fmt: skip
    """Up to ``copies`` varied copies of every scene (deterministic for ``seed``); with
    ``ordinary_share`` > 0 short lines with nothing private become harmless text from ``pool``;
    ``negative_share``: lines with nothing private that get one harmless look-alike word;
    ``title_share``: longer such lines put in title case (``name_words``: see ``vary_line``);
    ``spec_share``: short such lines become harmless technical text."""
    out = []
    for i, scene in enumerate(scenes):
        for c in range(copies):
            varied = vary_scene(scene, np.random.default_rng([seed, i, c]), ordinary_share, pool, negative_share, title_share,
                                name_words, spec_share)  # fmt: skip
            if varied is not None:
                out.append(varied)
    return out
