"""Screen context of OCR lines: the label above, and the head of a table column."""

import numpy as np

from app.text.layout import line_contexts
from app.text.lines import TextLine


def line(text, x0, y0, h=20.0):
    w = 0.55 * h * len(text)
    return TextLine(text, np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float32), 0.99)


def test_a_table_cell_knows_its_column_header_and_a_form_value_its_label():
    header = [line("Name", 30, 80), line("Username", 300, 80)]
    rows = [[line(n, 30, 120 + 36 * i), line(u, 300, 120 + 36 * i)]
            for i, (n, u) in enumerate([("Ada Byron", "SocialName"), ("Alan Turing", "Elwyn.Skiles"), ("Kurt Goedel", "kgoedel")])]
    lines = header + [c for r in rows for c in r]
    ctx = {l.text: c for l, c in zip(lines, line_contexts(lines))}
    assert ctx["SocialName"].above == "Username" and ctx["SocialName"].column_head == ""  # the header is right above
    assert ctx["Elwyn.Skiles"].above == "SocialName" and ctx["Elwyn.Skiles"].column_head == "Username"
    assert ctx["kgoedel"].column_head == "Username" and ctx["Kurt Goedel"].column_head == "Name"


def test_a_column_ends_at_a_wide_gap_or_a_shifted_line():
    lines = [line("Settings", 30, 20), line("Account", 30, 200), line("Profile", 30, 236), line("Privacy", 80, 272)]
    ctx = {l.text: c for l, c in zip(lines, line_contexts(lines))}
    assert ctx["Profile"].column_head == ""  # "Settings" is far above: not the same column run
    assert ctx["Privacy"].column_head == ""  # indented: not left-aligned with the lines above


def turned_down(l: TextLine, width: float = 1000.0) -> TextLine:
    """``l`` as on a page photographed sideways: turned a quarter clockwise, reading top to bottom."""
    q = l.quad
    return TextLine(l.text, np.stack([width - q[:, 1], q[:, 0]], axis=1).astype(np.float32), l.score)


def test_a_page_photographed_sideways_keeps_its_layout():
    header = [line("Name", 30, 80), line("Username", 300, 80)]
    rows = [[line(n, 30, 120 + 36 * i), line(u, 300, 120 + 36 * i)]
            for i, (n, u) in enumerate([("Ada Byron", "SocialName"), ("Alan Turing", "Elwyn.Skiles"), ("Kurt Goedel", "kgoedel")])]
    upright = header + [c for r in rows for c in r]
    sideways = [turned_down(l) for l in upright] + [line("Photo 3 of 7", 20, 20)]  # a caption printed upright
    ctx = {l.text: c for l, c in zip(sideways, line_contexts(sideways))}
    assert ctx["Elwyn.Skiles"].above == "SocialName" and ctx["Elwyn.Skiles"].column_head == "Username"
    assert ctx["Alan Turing"].above == "Ada Byron" and ctx["SocialName"].left == "Ada Byron"
    # read as horizontal lines, each tall line would share a "row" with all the others
    assert ctx["Photo 3 of 7"].left == "" and ctx["kgoedel"].left == "Kurt Goedel"
