"""National identity numbers checked by python-stdnum: found where labelled or distinctive, only a
classifier feature where a bare digit run could be anything."""

import pytest

from app.text.national_ids import find_national_ids
from app.text.recognisers import find_pii

# Valid numbers from the formats' published examples (python-stdnum's documentation).
LABELLED = [
    ("PESEL: 44051401359", "44051401359"),
    ("BSN 111222333", "111222333"),
    ("Codice fiscale RCCMNL83S18D969H", "RCCMNL83S18D969H"),
    ("Personnummer: 880320-0016", "880320-0016"),
    ("Henkilötunnus 131052-308T", "131052-308T"),
    ("Fødselsnummer 15108695088", "15108695088"),
    ("SV-Nr. 1237 010180", "1237 010180"),
    ("Numéro national 85.07.30-033.28", "85.07.30-033.28"),
    ("AHV 756.9217.0769.85", "756.9217.0769.85"),
    ("Rodné číslo 710319/2745", "710319/2745"),
    ("CNP 1630615123457", "1630615123457"),
    ("OIB: 33392005961", "33392005961"),
    ("Isikukood 36805280109", "36805280109"),
    ("PPS number 6433435F", "6433435F"),
    ("CPR-nr. 211062-5629", "211062-5629"),
]


@pytest.mark.parametrize("text, number", LABELLED)
def test_a_labelled_valid_number_is_a_hard_override(text, number):
    spans = [s for s in find_pii(text) if s.class_name == "id_number" and s.score >= 0.9]
    assert [text[s.start : s.end] for s in spans] == [number]


@pytest.mark.parametrize("text, number", [(LABELLED[0][0], LABELLED[0][1]), (LABELLED[1][0], LABELLED[1][1])])
def test_the_label_may_stand_on_the_line_above(text, number):
    spans = [s for s in find_pii(number, text.split()[0]) if s.class_name == "id_number" and s.score >= 0.9]
    assert [(s.start, s.end) for s in spans] == [(0, len(number))]


@pytest.mark.parametrize("number", ["RCCMNL83S18D969H", "880320-0016", "131052-308T", "85.07.30-033.28", "756.9217.0769.85"])
def test_a_distinctive_valid_form_needs_no_label(number):
    assert [s.score for s in find_pii(f"Profile {number}") if s.class_name == "id_number"] == [0.9]


@pytest.mark.parametrize("text", ["Order 44051401359", "Tracking 15108695088", "Invoice 111222333"])
def test_a_bare_digit_run_only_informs_the_classifier(text):
    assert max((s.score for s in find_pii(text) if s.class_name == "id_number"), default=0.0) < 0.9


@pytest.mark.parametrize("text", ["PESEL: 44051401358", "BSN 111222334", "Codice fiscale RCCMNL83S18D969A",
                                  "Personnummer: 880320-0017", "Henkilötunnus 131052-308A"])
def test_a_wrong_check_digit_is_no_national_number(text):
    assert not find_national_ids(text, labelled=True)


def test_a_number_inside_a_longer_one_is_not_cut_out():
    assert not find_national_ids("PESEL 440514013591", labelled=True)
    assert not find_national_ids("PESEL 44051401359.5", labelled=True)


def test_the_polish_word_nie_is_no_identity_label():
    """"NIE" labels a Spanish number; "nie" in a Polish sentence ("not") labels nothing."""
    polish = "Zamówienie 44051401359 nie zostało wysłane"
    assert max(s.score for s in find_pii(polish) if s.class_name == "id_number") < 0.9
    assert [s.score for s in find_pii("NIE 44051401359") if s.class_name == "id_number"] == [0.95]
