"""``python -m training.text.locale_check``: the coverage measure and a tiny end-to-end run."""

import numpy as np

from app.text.regions import Region
from training.text import locale_check


def test_covered_is_the_share_of_the_line_width_under_boxes_on_its_row():
    lines, frame = locale_check._page(["Kerkstraat 12, 1017 GC Amsterdam", "next line"])
    first = lines[0]
    x0, x1 = float(first.quad[:, 0].min()), float(first.quad[:, 0].max())
    y = float(first.quad[:, 1].mean())
    half = Region(np.array([x0, y - 5, (x0 + x1) / 2, y + 5], np.float32), "postal_address", 0.9, "test")
    other_row = Region(np.array([x0, y + 40, x1, y + 50], np.float32), "postal_address", 0.9, "test")
    assert abs(locale_check._covered(first, [half]) - 0.5) < 0.05
    assert locale_check._covered(first, [other_row]) == 0.0
    assert locale_check._covered(first, [half], frozenset({"id_number"})) == 0.0
    assert frame.shape[0] > float(lines[-1].quad[:, 1].max())


def test_a_tiny_run_prints_every_table(capsys):
    assert locale_check.main(["--per-locale", "1", "--negatives", "8", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    for row in ("| trained locales | one line |", "| unseen locales | two lines |", "| Python stdlib docstrings |",
                "| pl_PL (PESEL) |", "hidden as id_number",
                "| pl_PL (Data urodzenia) |", "hidden as date_of_birth", "| password (16 languages", "| username (16 languages", "Phone numbers under / after a local label"):
        assert row in out
