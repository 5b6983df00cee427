"""Training of the text classifier: OCR lines are labelled by the drawn boxes, and the command trains
on a cache of read scenes into a model file the app loads."""

import json

import numpy as np
import pytest

from app.text.lines import TextLine
from app.text.model import load_model
from training.text import cli
from training.text.ocr_data import char_labels
from training.text.train import token_label


def line(text, x0, y0, h=20.0, cw=10.0):
    return TextLine(text, np.array([[x0, y0], [x0 + cw * len(text), y0], [x0 + cw * len(text), y0 + h], [x0, y0 + h]], np.float32))


def test_characters_take_the_class_of_the_box_they_lie_in():
    ln = line("Name: Ann Lee", 0, 0)  # 10 px per character
    labels = [("person_name", (58, 2, 132, 18)), ("avatar", (0, 0, 200, 20)), ("email", (0, 40, 100, 60))]
    got = char_labels(ln, labels)
    assert "".join("p" if c else "." for c in got) == "......ppp.ppp"  # spaces stay unlabelled
    assert token_label(got, 6, 9) == "person_name" and token_label(got, 0, 5) is None


def scene(i: int, rng: np.random.Generator) -> dict:
    """A list screen: a title, name rows (person_name) with a type label under each."""
    first = ["Anna", "Jonas", "Maria", "Lucas", "Emma", "Noah", "Sofia", "Liam"]
    last = ["Schmidt", "Garcia", "Martin", "Rossi", "Nowak", "Silva", "Jansen", "Dubois"]
    lines, labels = [{"text": "Contacts", "quad": line("Contacts", 20, 20, 36, 18).quad.tolist(), "score": 0.99, "words": []}], []
    for r in range(5):
        name = f"{first[rng.integers(8)]} {last[rng.integers(8)]}"
        y = 90 + 70 * r
        ln = line(name, 80, y, 26, 13)
        lines.append({"text": name, "quad": ln.quad.tolist(), "score": 0.98, "words": []})
        labels.append(["person_name", [80, y, 80 + 13 * len(name), y + 26]])
        sub = str(rng.choice(["Mobile", "Work", "Home"]))
        lines.append({"text": sub, "quad": line(sub, 80, y + 30, 18, 9).quad.tolist(), "score": 0.98, "words": []})
    return {"name": "fake_list", "width": 600, "height": 500, "labels": labels, "lines": lines}


def write_cache(root, folders, rng) -> None:
    """Cached OCR reads as the command writes them: ``folders`` maps a cache folder name under
    ``root`` to how many fake scenes it holds."""
    for name, count in folders:
        folder = root / name
        folder.mkdir(parents=True)
        for i in range(count):
            (folder / f"{i:05d}.json").write_text(json.dumps(scene(i, rng)))


def test_the_command_trains_on_cached_reads_into_a_loadable_model(tmp_path):
    rng = np.random.default_rng(0)
    write_cache(tmp_path / "cache", [("7", 14)], rng)
    out = tmp_path / "m.npz"
    argv = ["--cached-only", "--seed", "7", "--data", str(tmp_path / "cache"), "--out", str(out), "--dim", "4096",
            "--epochs", "8", "--scenes", "14"]  # fmt: skip
    assert cli.main(argv) == 0
    model = load_model(out)
    result = json.loads(out.with_suffix(".json").read_text())
    assert model.meta["metrics"]["test_scenes"] == result["test_scenes"] == 2
    assert result["classifier"]["token_recall"] >= 0.9 and result["classifier"]["token_precision"] >= 0.9
    assert cli.main(["--cached-only", "--data", str(tmp_path / "empty"), "--out", str(out)]) == 2  # no data: clear exit


def test_extra_scenes_only_train_and_leave_the_held_out_scenes_alone(tmp_path):
    rng = np.random.default_rng(1)
    write_cache(tmp_path / "cache", [("7", 14), ("8", 5)], rng)
    out = tmp_path / "m.npz"
    base = ["--cached-only", "--seed", "7", "--data", str(tmp_path / "cache"), "--out", str(out), "--dim", "4096",
            "--epochs", "4", "--scenes", "14"]  # fmt: skip
    assert cli.main(base + ["--extra-seed", "8", "--extra-scenes", "5"]) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    assert result["extra_scenes"] == 5 and result["train_scenes"] == 12 + 5 and result["test_scenes"] == 2


def test_extra_scenes_render_credentials_tables_and_varied_usernames():
    from training.text.scenes import EXTRA_SCENES, scene_of

    names, usernames = set(), []
    for i in range(8):
        name, image, labels = scene_of(3, i, extra=True)
        names.add(name)
        assert image.ndim == 3 and labels
        usernames += [b for c, b in labels if c == "username"]
    assert names <= set(EXTRA_SCENES) and len(names) >= 2 and usernames


def test_varied_scenes_restyle_people_only_while_they_render():
    from training.synth import fakedata as fd
    from training.text.scenes import VARIED_SCENES, scene_of
    from training.text.variety import varied_people

    original = fd.make_person
    rng = np.random.default_rng(5)
    with varied_people():
        people = [fd.make_person(rng) for _ in range(60)]
    assert fd.make_person is original  # the detector's generators see the plain person again
    users = [p.username for p in people]
    assert any(u != u.lower() for u in users)  # CamelCase / First_Last / First.Last styles
    assert any("," in p.name for p in people) and any(p.name.isupper() for p in people)  # "LAST, First", capitals
    assert any(any(ch.isalpha() for ch in p.dob) for p in people)  # written-out birth dates
    assert all(p.first and p.last for p in people)
    plain = [fd.make_person(np.random.default_rng(5)) for _ in range(3)]
    assert all(p.username == p.username.lower() for p in plain)
    for i in range(3):
        name, image, labels = scene_of(9, i, varied=True)
        assert name in VARIED_SCENES and image.ndim == 3
        h, w = image.shape[:2]
        assert all(0 <= b[0] < b[2] <= w + 1 and 0 <= b[1] < b[3] <= h + 1 for _, b in labels)
    assert scene_of(9, 0, varied=True)[2] == scene_of(9, 0, varied=True)[2]  # deterministic


def test_the_activity_feed_labels_names_inside_sentences_and_handles():
    from training.text.scenes import activity_feed

    image, labels = activity_feed(np.random.default_rng(3))
    classes = [c for c, _ in labels]
    assert classes.count("person_name") >= 3 and image.shape[2] == 3
    assert {"username", "phone_number"} & set(classes)


def test_text_level_variants_redraw_labelled_values_and_keep_their_classes():
    from training.text.augment import labelled_runs, vary_line

    ln = line("Welcome back, Ann Lee", 0, 0)
    classes = [None] * 12 + ["person_name"] * 9  # a padded label box also caught the comma
    classes[13] = classes[17] = None  # spaces stay unlabelled
    assert labelled_runs(classes, ln.text) == [(14, 21, "person_name")]
    rng = np.random.default_rng(4)
    changed = [vary_line(rng, ln, classes, share=1.0) for _ in range(20)]
    for new, new_classes in changed:
        assert new.text.startswith("Welcome back, ") and len(new_classes) == len(new.text)
        value = new.text[14:]
        assert value != "Ann Lee" and all(c == "person_name" for ch, c in zip(value, new_classes[14:]) if not ch.isspace())
        assert all(c is None for c in new_classes[:12]) and np.array_equal(new.quad, ln.quad)
    assert vary_line(rng, line("Settings", 0, 0), [None] * 8, share=1.0, negative_share=0.0) is None  # nothing to change
    looks = [vary_line(np.random.default_rng(k), line("the new version is here", 0, 0), [None] * 23, negative_share=1.0) for k in range(10)]
    assert all(v is not None and not any(v[1]) and v[0].text != "the new version is here" for v in looks)  # harmless look-alikes


def test_a_name_alone_on_its_line_can_be_put_in_a_sentence():
    from training.text.augment import vary_line

    ln = line("Anna Schmidt", 0, 0)
    classes = ["person_name"] * 4 + [None] + ["person_name"] * 7
    for k in range(6):
        new, new_classes = vary_line(np.random.default_rng(k), ln, classes, share=1.0, context_share=1.0)
        assert len(new_classes) == len(new.text) and None in new_classes[: len(new.text)]
        named = "".join(ch for ch, c in zip(new.text, new_classes) if c == "person_name")
        context = "".join(ch for ch, c in zip(new.text, new_classes) if c is None).strip()
        assert len(named) >= 3 and len(context) >= 2  # a name inside words that are not private


def test_short_harmless_lines_can_become_ordinary_words_shaped_like_a_name():
    from app.text.gazetteer import NameTable
    from app.text.words import WordTable
    from training.text.augment import vary_line
    from training.text.variety import common_words

    words = WordTable({"cafeteria": 4, "grace": 5, "garden": 5, "the": 7, "zz": 5}, {}, "test")
    pool = common_words(words, NameTable({"grace": 100, "cafeteria": 5000}, {}, "test"))
    assert pool == ["cafeteria", "garden"]  # a popular first name and short words are not drawn
    short = [vary_line(np.random.default_rng(k), line("Read more", 0, 0), [None] * 9, ordinary_share=1.0, pool=pool)
             for k in range(12)]  # fmt: skip
    assert all(v is not None and not any(v[1]) and len(v[1]) == len(v[0].text) for v in short)
    assert all(any(w in v[0].text.lower().replace("-", "") for w in pool) for v in short)  # "caf-e-te-ria, n." too
    long_line = line("the new version is here", 0, 0)  # more than three words: only the look-alike path
    kept = vary_line(np.random.default_rng(0), long_line, [None] * 23, ordinary_share=1.0, pool=pool, negative_share=0.0)
    assert kept is None
    name = line("Ann Lee", 0, 0)
    new, classes = vary_line(np.random.default_rng(1), name, ["person_name"] * 3 + [None] + ["person_name"] * 3,
                             share=1.0, ordinary_share=1.0, pool=pool)  # fmt: skip
    assert "person_name" in classes  # lines with private values are never made harmless


def test_ordinary_text_screens_label_only_the_names_among_title_case_words():
    from training.text.ordinary import dictionary_page, headline_page, tile_grid, title_headline
    from training.text.scenes import ordinary_scenes, scene_of

    for fn in (tile_grid, dictionary_page):
        image, labels = fn(np.random.default_rng(1))
        assert image.ndim == 3 and labels == []  # category tiles and headwords are not private
    bylines = []
    for k in range(4):
        image, labels = headline_page(np.random.default_rng(k))
        assert {c for c, _ in labels} <= {"person_name"}
        bylines += labels
    assert bylines  # some headlines carry a byline with a person's name
    heads = [title_headline(np.random.default_rng(k)) for k in range(20)]
    assert all(len(h.split()) >= 2 for h in heads)
    assert sum(all(w[:1].isupper() for w in h.split() if w[:1].isalpha()) for h in heads) >= 15  # title case
    name, image, labels = scene_of(6, 0, ordinary=True)
    assert name in ordinary_scenes() and scene_of(6, 0, ordinary=True)[2] == labels  # deterministic


def test_long_harmless_lines_can_be_put_in_title_case():
    from training.text.augment import vary_line

    ln = line("the team mapped the river basin", 0, 0)
    new, classes = vary_line(np.random.default_rng(0), ln, [None] * len(ln.text), title_share=1.0, negative_share=0.0)
    assert new.text == "The Team Mapped The River Basin" and classes == [None] * len(new.text)
    assert vary_line(np.random.default_rng(0), line("Read more", 0, 0), [None] * 9, title_share=1.0, negative_share=0.0) is None
    named = line("call Ann Lee back today please", 0, 0)
    classes = [None] * 5 + ["person_name"] * 3 + [None] + ["person_name"] * 3 + [None] * 19
    out = vary_line(np.random.default_rng(0), named, classes, share=0.0, title_share=1.0, negative_share=0.0)
    assert out is None  # a line with a private value keeps its case
    from training.text.variety import title_case

    swapped = [title_case("the team mapped the river basin", np.random.default_rng(k), ["deep", "will"]) for k in range(12)]
    assert all(t.split()[0] == "The" and len(t.split()) == 6 for t in swapped)
    assert any("Deep" in t or "Will" in t for t in swapped) and "The Team Mapped The River Basin" in swapped


def test_restyled_values_include_bare_first_names_server_handles_and_plain_plus_phones():
    from training.synth import fakedata as fd
    from training.text.augment import new_value
    from training.text.variety import phone, username

    rng = np.random.default_rng(3)
    people = [fd.make_person(rng, "en_US") for _ in range(200)]
    assert any(username(rng, p) == p.first for p in people)
    handles = [new_value(rng, "username", "@someone") for _ in range(60)]
    assert all(h.startswith("@") and not h.startswith("@@") for h in handles)
    assert any(h.count("@") == 2 for h in handles)  # @user@server
    phones = [phone(rng, "(555) 123-4567") for _ in range(80)]
    assert any(p.startswith("+") and p[1:].isdigit() for p in phones)
    assert any(len(p.split()) == 3 and p.replace(" ", "").isdigit() for p in phones)


@pytest.mark.parametrize("kind, train_seed, test_seed, other", [("varied", 4, 5, "ordinary"),
                                                             ("ordinary", 8, 9, "varied")])  # fmt: skip
def test_extra_scenes_train_and_their_held_out_set_is_reported(tmp_path, kind, train_seed, test_seed, other):
    rng = np.random.default_rng(2)
    write_cache(tmp_path / "cache", [("7", 14), (f"{kind}-{train_seed}", 4), (f"{kind}-{test_seed}", 3)], rng)
    out = tmp_path / "m.npz"
    argv = ["--cached-only", "--seed", "7", "--data", str(tmp_path / "cache"), "--out", str(out), "--dim", "4096",
            "--epochs", "4", "--scenes", "14", f"--{kind}-scenes", "4", f"--{kind}-test", "3"]  # fmt: skip
    assert cli.main(argv) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    assert result["train_scenes"] == 12 + 4 and result["test_scenes"] == 2
    assert result[f"{kind}_test"]["scenes"] == 3 and 0 <= result[f"{kind}_test"]["classifier"]["token_recall"] <= 1
    assert f"{other}_test" not in result


def test_short_harmless_lines_can_become_technical_text_with_units():
    from training.text.augment import vary_line
    from training.text.specs import spec_line

    specs = [spec_line(np.random.default_rng(k)) for k in range(40)]
    assert any("ISO" in s.upper() for s in specs) and any("mm" in s for s in specs) and any("GB" in s or "TB" in s for s in specs)
    out = [vary_line(np.random.default_rng(k), line("Settings", 0, 0), [None] * 8, spec_share=1.0) for k in range(8)]
    assert all(v is not None and v[0].text != "Settings" and v[1] == [None] * len(v[0].text) for v in out)
    long_line = line("the new version is here now", 0, 0)  # more than four words: left to the other variants
    assert vary_line(np.random.default_rng(0), long_line, [None] * 27, spec_share=1.0, negative_share=0.0) is None
    name = line("Ann Lee", 0, 0)
    new, classes = vary_line(np.random.default_rng(1), name, ["person_name"] * 3 + [None] + ["person_name"] * 3,
                             share=1.0, spec_share=1.0)  # fmt: skip
    assert "person_name" in classes  # lines with private values are never made harmless
