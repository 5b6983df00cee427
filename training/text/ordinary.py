"""Rendered screens of ordinary text in the shapes a classifier mistakes for names (version-6 data).

Earlier candidates read title-case common words as a person ("Scientists Discover Rare Species
Deep In The Amazon Rainforest" gave "Rare Species Deep In" at 0.98), hid category tiles
("Cafeteria") and the headwords of a dictionary page. With word frequencies as features that is
learnable, but only when such text is among the training scenes. Three screens of our own:

* ``headline_page``: a news front page or feed of title-case (sometimes capitals) headlines made
  of common words, places and companies, each with a summary line, a date and sometimes a byline
  "By <name>" or a photo credit — the byline's name is the only private text, so the model sees a
  real name beside title-case words that are not one;
* ``tile_grid``: a category / app / menu grid of one- or two-word tiles with counts;
* ``dictionary_page``: bold headwords (plain or split into syllables), parts of speech and
  definitions.

They are drawn together with the restyled people of ``variety.varied_people`` and with the screens
whose names sit in chat headers, list rows and feeds, so that not every title-case line is harmless.
The words come from ``variety.common_words``: ordinary English words, in headlines and headwords
also those that are popular names too ("Deep", "Will", "Rich"), on tiles only those that are not.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from training.synth import fakedata as fd
from training.synth.qtkit import Canvas, make_font
from training.synth.ui import theme
from training.text.variety import hyphenate

Scene = tuple[np.ndarray, list]

SMALL = ("In", "The", "Of", "For", "With", "After", "To", "On", "At", "From", "Into", "Over", "And", "As", "By", "A")
VERBS = ("Discover", "Reveal", "Launch", "Find", "Warn", "Unveil", "Plan", "Face", "Win", "Lose", "Hit", "Back",
         "Ban", "Cut", "Open", "Close", "Join", "Leave", "Split", "Test", "Build", "Sell", "Buy", "Drop", "Beat")  # fmt: skip
PLACES = ("Amazon", "Rainforest", "Arctic", "Pacific", "Alps", "Sahara", "Europe", "Asia", "Africa", "Mars", "Moon",
          "Valley", "Coast", "Island", "Harbour", "City Hall", "Parliament", "Senate", "Capital", "Downtown")  # fmt: skip
SECTIONS = ("World", "Politics", "Business", "Tech", "Science", "Health", "Sport", "Culture", "Travel", "Opinion",
            "Climate", "Food", "Style", "Video", "Local", "Weather", "Markets", "Books", "Music", "Film")  # fmt: skip
CREDITS = ("By ", "Photo: ", "Words by ", "Reporting by ", "Edited by ", "Story by ")
PARTS_OF_SPEECH = ("noun", "verb", "adj.", "adv.", "n.", "v.", "adjective", "plural noun", "phrasal verb")


@lru_cache(maxsize=2)
def word_pool(names_too: bool = False) -> tuple[str, ...]:
    """Common English words (``variety.common_words``); unless ``names_too``, without those that
    are also popular first or last names. A headline's "Deep", "Will" or "Rich" is a common word
    although it is a name too, and the rest of the line shows it; a lone tile "Grace" is not."""
    from app.text import words
    from app.text.gazetteer import name_table
    from training.text.variety import common_words

    return tuple(common_words(words.word_table(), name_table(), keep_names=names_too))


def _word(rng: np.random.Generator, names_too: bool = False) -> str:
    pool = word_pool(names_too)
    return str(pool[int(rng.integers(0, len(pool)))])


def title_headline(rng: np.random.Generator) -> str:
    """A headline in title case built from common words: "Scientists Discover Rare Species Deep In
    The Amazon Rainforest", "Why Garden Prices Keep Rising", "Storm Warning For Coast"."""
    kind = int(rng.integers(0, 4))
    w = lambda: _word(rng, names_too=True).title()  # noqa: E731
    if kind == 0:
        words = [w(), str(rng.choice(VERBS)), w(), w(), str(rng.choice(SMALL)), "The", str(rng.choice(PLACES))]
    elif kind == 1:
        words = [str(rng.choice(["Why", "How", "What", "When", "Where"])), w(), w(), str(rng.choice(VERBS)), w()]
    elif kind == 2:
        words = [w() for _ in range(int(rng.integers(2, 5)))]
        words.insert(int(rng.integers(1, len(words) + 1)), str(rng.choice(SMALL)))
        words.append(w())
    else:
        words = fd.sentence(rng, (4, 10)).rstrip(".").split()
        words = [x if x.lower() in {"a", "an", "of"} and rng.random() < 0.5 else x.title() for x in words]
    text = " ".join(words)
    return text.upper() if rng.random() < 0.12 else text


def headline_page(rng: np.random.Generator) -> Scene:
    """A news front page or feed: section names, title-case headlines of several sizes with a
    summary and a date, sometimes a byline or photo credit with a person's name (labelled)."""
    th = theme(rng)
    w, h = float(rng.choice([720, 1280, 1440])), float(rng.choice([1000, 1300]))
    c = Canvas(w, h, th.bg)
    fam = str(rng.choice([th.family, th.serif]))
    c.text(30, 18, "The " + _word(rng).title() + " " + str(rng.choice(["Times", "Post", "Herald", "Daily", "Review", "News"])),
           make_font(th.serif, float(rng.uniform(28, 40)), bold=True), th.text)  # fmt: skip
    x = 30.0
    for s in rng.choice(SECTIONS, int(rng.integers(4, 8)), replace=False):
        adv = c.text(x, 80, str(s), make_font(th.family, 15), th.muted)
        x += adv + 22
        if x > w - 120:
            break
    y = 130.0
    while y < h - 110:
        size = float(rng.choice([20, 24, 28, 34])) if rng.random() < 0.7 else float(rng.uniform(18, 40))
        font = make_font(fam, size, bold=bool(rng.random() < 0.7))
        text = title_headline(rng)
        limit = int((w - 60) / (0.55 * size))
        c.text(30, y, text[:limit], font, th.text)
        y += size * 1.4
        fs = make_font(th.family, float(rng.uniform(14, 17)))
        if rng.random() < 0.6:
            c.text(30, y, fd.sentence(rng, (6, 14))[: int((w - 60) / 8)], fs, th.muted)
            y += 26
        meta = [(str(rng.choice(["2 hours ago", "Yesterday", "5 min read", "Updated 10:42", "Live", "Analysis"])), None)]
        if rng.random() < 0.35:
            meta += [("  ·  " + str(rng.choice(CREDITS)), None), (fd.make_person(rng).name, "person_name")]
        c.spans(30, y, meta, make_font(th.family, float(rng.uniform(13, 17))), th.muted)
        y += float(rng.uniform(40, 60))
    return c.finish()


def tile_grid(rng: np.random.Generator) -> Scene:
    """A category / app / menu grid: tiles with a one- or two-word title-case name (capitals on
    some screens) and sometimes a count under it; nothing private."""
    th = theme(rng)
    w, h = float(rng.choice([720, 1080, 1280])), float(rng.choice([900, 1200]))
    c = Canvas(w, h, th.bg)
    c.text(30, 24, str(rng.choice(["Categories", "Browse", "Explore", "Departments", "Apps", "Menu", "Topics"])),
           make_font(th.family, float(rng.uniform(24, 32)), bold=True), th.text)  # fmt: skip
    cols = int(rng.integers(2, 5))
    tw = (w - 60) / cols
    th_ = float(rng.uniform(110, 170))
    caps = rng.random() < 0.2
    fn = make_font(th.family, float(rng.uniform(16, 22)), bold=bool(rng.random() < 0.5))
    fs = make_font(th.family, 13)
    y, k = 90.0, 0
    while y + th_ < h - 20:
        x = 30 + tw * (k % cols)
        c.rect(x + 6, y, tw - 12, th_ - 12, th.surface, 12)
        c.ellipse(x + 20, y + 14, 40, 40, th.accent)
        name = _word(rng).title() + (" " + _word(rng).title() if rng.random() < 0.35 else "")
        c.text(x + 20, y + 64, name.upper() if caps else name, fn, th.text)
        if rng.random() < 0.5:
            c.text(x + 20, y + 92, f"{rng.integers(1, 999)} {rng.choice(['items', 'places', 'deals', 'new', 'apps'])}", fs, th.muted)
        k += 1
        if k % cols == 0:
            y += th_
    return c.finish()


def dictionary_page(rng: np.random.Generator) -> Scene:
    """A dictionary or glossary page: bold headwords, plain or split into syllables ("ju-bi-lant",
    "ju·bi·lant"), a part of speech and a definition; nothing private."""
    th = theme(rng, dark=False)
    w, h = float(rng.choice([900, 1200])), float(rng.choice([1200, 1500]))
    c = Canvas(w, h, th.bg)
    fam = str(rng.choice([th.serif, th.family]))
    fb, fr = make_font(fam, float(rng.uniform(17, 22)), bold=True), make_font(fam, float(rng.uniform(15, 18)))
    fi = make_font(fam, 15, italic=True)
    y = 40.0
    while y < h - 80:
        word = _word(rng, names_too=True)
        style = int(rng.integers(0, 4))
        head = hyphenate(word, rng) if style == 1 else hyphenate(word, rng).replace("-", "·") if style == 2 else word
        head = head.title() if style == 3 else head
        adv = c.text(40, y, head, fb, th.text)
        c.text(40 + adv + 12, y + 2, str(rng.choice(PARTS_OF_SPEECH)), fi, th.muted)
        y += 30
        c.text(60, y, fd.sentence(rng, (6, 14))[: int((w - 100) / 8)], fr, th.text)
        y += float(rng.uniform(34, 50))
    return c.finish()

