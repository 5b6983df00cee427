"""Checksum validators and recognisers: valid and invalid cases per format and locale."""

import pytest

from app.core import pii_validators as v
from app.text.recognisers import find_pii


@pytest.mark.parametrize(
    "fn, text, ok",
    [
        (v.luhn_valid, "4111 1111 1111 1111", True),
        (v.luhn_valid, "4111 1111 1111 1112", False),
        (v.luhn_valid, "378282246310005", True),
        (v.luhn_valid, "0000 0000 0000 0000", False),
        (v.iban_valid, "DE89 3704 0044 0532 0130 00", True),
        (v.iban_valid, "DE89 3704 0044 0532 0130 01", False),
        (v.iban_valid, "GB82WEST12345698765432", True),
        (v.iban_valid, "FR1420041010050500013M02606", True),
        (v.iban_valid, "ES9121000418450200051332", True),
        (v.iban_valid, "ES9121000418450200051", False),  # wrong length for ES
        (v.es_dni_valid, "12345678Z", True),
        (v.es_dni_valid, "12345678A", False),
        (v.es_dni_valid, "X1234567L", True),
        (v.es_dni_valid, "X1234567T", False),
        (v.fr_nir_valid, "2 55 08 14 168 025 38", True),
        (v.fr_nir_valid, "2 55 08 14 168 025 39", False),
        (v.de_steuer_id_valid, "86095742719", True),
        (v.de_steuer_id_valid, "86095742718", False),
        (v.de_steuer_id_valid, "12345678901", False),  # no repeated digit
        (v.de_id_card_valid, "T220001293", True),
        (v.de_id_card_valid, "T220001294", False),
        (v.us_ssn_valid, "536-22-1234", True),
        (v.us_ssn_valid, "000-22-1234", False),
        (v.us_ssn_valid, "666-22-1234", False),
        (v.us_ssn_valid, "912-22-1234", False),
        (v.ip_valid, "192.168.1.20", True),
        (v.ip_valid, "256.1.1.1", False),
        (v.ip_valid, "2001:db8::1", True),
        (v.ip_valid, "127.0.0.1", False),
        (v.ip_valid, "01.02.03.04", False),
        (v.looks_like_secret, "sk_live_4eC39HqLyjWDarjtT1zdp7dc", True),
        (v.looks_like_secret, "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", True),
        (v.looks_like_secret, "AKIAIOSFODNN7EXAMPLE", True),
        (v.looks_like_secret, "internationalization", False),
        (v.looks_like_secret, "3f2a9c1e5b7d4e6f8a0b1c2d3e4f5a6b7c8d9e0f", False),  # a commit hash
        (v.looks_like_secret, "Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1", False),  # low entropy
    ],
)
def test_validator(fn, text, ok):
    assert fn(text) is ok


@pytest.mark.parametrize(
    "text, context, expected",
    [
        ("Email: jane.doe@example.org", "", [("jane.doe@example.org", "email")]),
        ("+1 650-253-0000", "", [("+1 650-253-0000", "phone_number")]),  # en-US
        ("(650) 253-0000", "", [("(650) 253-0000", "phone_number")]),
        ("Tel. +49 30 901820", "", [("+49 30 901820", "phone_number")]),  # de
        ("030 901820", "", [("030 901820", "phone_number")]),
        ("01 42 68 53 00", "", [("01 42 68 53 00", "phone_number")]),  # fr
        ("+34 912 345 678", "", [("+34 912 345 678", "phone_number")]),  # es
        ("1234 567 890", "Mobile", [("1234 567 890", "phone_number")]),  # demo number with a label
        ("Card 4111 1111 1111 1111 exp 12/29", "", [("4111 1111 1111 1111", "card_number")]),
        ("Card 4111 1111 1111 1112", "", [("4111 1111 1111 1112", "card_number")]),  # labelled, grouped
        ("4111 1111 1111 1112", "", []),  # no label: the failed Luhn check rules it out
        ("Tarjeta: 5500 1234 5678 9012", "", [("5500 1234 5678 9012", "card_number")]),
        ("Order 1234-5678-9012-3456", "", []),
        ("IBAN DE89 3704 0044 0532 0130 00", "", [("DE89 3704 0044 0532 0130 00", "bank_account")]),
        ("DNI 12345678Z", "", [("12345678Z", "id_number")]),
        ("NIE: X1234567L", "", [("X1234567L", "id_number")]),
        ("SSN 536-22-1234", "", [("536-22-1234", "id_number")]),
        ("DOB: 12.03.1985", "", [("12.03.1985", "date_of_birth")]),
        ("Fecha de nacimiento 3 de mayo de 1990", "", [("3 de mayo de 1990", "date_of_birth")]),
        ("12.03.1985", "Geburtsdatum", [("12.03.1985", "date_of_birth")]),
        ("Meeting on 12.03.2025", "", []),  # a date without birth context
        ("Server 192.168.1.20 is up", "", [("192.168.1.20", "ip_address")]),
        ("Version 1.2.3.4", "", []),
        ("key sk_live_4eC39HqLyjWDarjtT1zdp7dc", "", [("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "secret_key")]),
        ("Password: hunter2!", "", [("hunter2!", "password")]),
        ("Name: John Smith", "", [("John Smith", "person_name")]),
        ("Hauptstraße 12", "", [("Hauptstraße 12", "postal_address")]),
        ("jsmith@devbox:~$ ls -la", "", [("jsmith", "username")]),  # shell prompt
        ("ssh mary_k@10.0.0.5", "", [("mary_k", "username"), ("10.0.0.5", "ip_address")]),
        ("j.doe88", "Username", [("j.doe88", "username")]),  # a form field under its label
        ("root", "$ whoami", [("root", "username")]),
        ("john@example.com", "Username", [("john@example.com", "email")]),  # the e-mail wins
        ("Boosted by @iftas@mastodon.iftas.org", "", [("@iftas@mastodon.iftas.org", "username")]),  # fediverse
        ("@anna_k@social.example.de", "", [("@anna_k@social.example.de", "username")]),
        ("Sign in", "Username", []),
        ("Open settings and search", "", []),
        ("The quick brown fox jumps over the lazy dog", "", []),
    ],
)
def test_find_pii(text, context, expected):
    found = [(text[s.start : s.end], s.class_name) for s in find_pii(text, context)]
    assert found == expected


@pytest.mark.parametrize(
    "text, score",
    [
        ("Call 703-777-5833 today", 0.9),  # grouped as the US writes phone numbers: a hard override
        ("020 7946 0958", 0.9),  # grouped as the UK writes them
        ("Order 7037775833", 0.75),  # valid, but a bare run of digits: the classifier decides
        ("+1234567800", 0.9),  # the international form of a demo number libphonenumber rejects
        ("Tel. +49 30 901820", 0.95),  # labelled
    ],
)
def test_phone_scores_follow_how_the_number_is_written(text, score):
    spans = [s for s in find_pii(text, "") if s.class_name == "phone_number"]
    assert [s.score for s in spans] == [score]


@pytest.mark.parametrize("text", ["+1,234,567", "+12345678.5", "Score +1000000", "x+12345678"])
def test_plus_and_digits_that_are_no_phone_number(text):
    assert not [s for s in find_pii(text, "") if s.class_name == "phone_number"]


@pytest.mark.parametrize(
    "text, label, score",
    [
        ("SocialName", "Username", 0.9),  # the field's value under a label naming only that field
        ("j.doe88", "User name:", 0.9),
        ("Email", "Login", 0.7),  # "Login" also titles pages: the classifier decides
        ("j.doe88", "Username Password", 0.7),  # more than a label beside it
    ],
)
def test_a_lone_token_under_a_username_label(text, label, score):
    assert [(s.class_name, s.score) for s in find_pii(text, label)] == [("username", score)]


def test_a_lone_token_in_a_username_column_is_a_username():
    assert [(s.class_name, s.score) for s in find_pii("Bret", "Samantha 2", column_head="USERNAME")] == [("username", 0.9)]
    assert not find_pii("Bret", "Samantha 2", column_head="NAME")
    assert "username" not in [s.class_name for s in find_pii("Leanne Graham", "", column_head="Username")]  # two words


@pytest.mark.parametrize(
    "text, label, expected",
    [
        ("D23145890", "Doc No./ N du Doc", [("D23145890", "id_number")]),
        ("Passport No. X1234567", "", [("X1234567", "id_number")]),
        ("D23145890", "Expiry", []),  # no document-number label
        ("ABCDEF12", "Doc No.", []),  # fewer than three digits
        ("12 AUG/AOUT 74", "Date of birth/ Date de naissance", [("12 AUG/AOUT 74", "date_of_birth")]),
        ("15 APR/AVR 12", "Expiry/ Expiration", []),  # the same form without birth context
    ],
)
def test_identity_document_fields_by_their_labels(text, label, expected):
    assert [(text[s.start : s.end], s.class_name) for s in find_pii(text, label)] == expected


@pytest.mark.parametrize(
    "text, context, whole",
    [
        ("ul. Długa 14/3, 00-238 Warszawa", "", "ul. Długa 14/3, 00-238 Warszawa"),  # pl
        ("Kerkstraat 12, 1017 GC Amsterdam", "", "Kerkstraat 12, 1017 GC Amsterdam"),  # nl
        ("Via Roma 12, 00184 Roma", "", "Via Roma 12, 00184 Roma"),  # it
        ("Rua das Flores, 12, 1200-195 Lisboa", "", "Rua das Flores, 12, 1200-195 Lisboa"),  # pt
        ("Storgatan 5, 114 55 Stockholm", "", "Storgatan 5, 114 55 Stockholm"),  # se
        ("Hauptstr. 5, 1010 Wien", "", "Hauptstr. 5, 1010 Wien"),  # at: four-digit postcode beside a street
        ("Karl-Marx-Straße 12, 10243 Berlin", "", "Karl-Marx-Straße 12, 10243 Berlin"),
        ("Andrássy út 22, 1061 Budapest", "", "Andrássy út 22, 1061 Budapest"),  # hu
        ("Václavské náměstí 19, 110 00 Praha 1", "", "Václavské náměstí 19, 110 00 Praha 1"),  # cz
        ("Grammova 8, 777 63 Městec Králové", "", "Grammova 8, 777 63 Městec Králové"),  # no street type
        ("221B Baker Street, London NW1 6XE", "", "221B Baker Street, London NW1 6XE"),
        ("Office: ul. Długa 14/3, 00-238 Warszawa", "", "ul. Długa 14/3, 00-238 Warszawa"),
        ("61-668 Kołobrzeg", "ul. Paderewskiego 77", "61-668 Kołobrzeg"),  # the town under its street
    ],
)
def test_a_street_with_its_postcode_and_town_is_one_whole_address(text, context, whole):
    """A whole address is a hard override (above the classifier's 0.9), from street to town."""
    spans = [s for s in find_pii(text, context) if s.class_name == "postal_address" and s.score >= 0.9]
    assert [text[s.start : s.end] for s in spans] == [whole]


@pytest.mark.parametrize(
    "text, street",
    [
        ("ul. Marszałkowska 84/92", "ul. Marszałkowska 84/92"),
        ("Via Giuseppe Garibaldi 45/B", "Via Giuseppe Garibaldi 45/B"),
        ("Nørrebrogade 32", "Nørrebrogade 32"),
        ("Mariahilfer Straße 77", "Mariahilfer Straße 77"),
        ("chemin Bourquin 87", "chemin Bourquin 87"),
    ],
)
def test_a_street_alone_informs_the_classifier(text, street):
    spans = [s for s in find_pii(text, "") if s.class_name == "postal_address"]
    assert [(text[s.start : s.end], s.score) for s in spans] == [(street, 0.85)]


@pytest.mark.parametrize(
    "text",
    [
        "Smith et al. 2019", "Jones et al. Nature 12, 345", "Departure gate 12", "2024 Annual Report",
        "Chapter 3, 1984 Orwell", "Windows 10, 2024 Edition", "Place Order 2", "Route 66 Diner",
        "same_quantum(10000, Decimal(-1))", "Corso 2024 Milano Fashion Week",
    ],
)
def test_ordinary_text_is_no_address(text):
    assert not [s for s in find_pii(text, "") if s.class_name == "postal_address" and s.score >= 0.5]


def test_a_street_shaped_phrase_is_left_to_the_classifier():
    """"Via Email 2" has the shape of "Via Roma 12": a feature for the classifier, never an override."""
    assert [s.score for s in find_pii("Via Email 2", "") if s.class_name == "postal_address"] == [0.85]


@pytest.mark.parametrize(
    "text, context, date",
    [
        ("Data di nascita: 12/03/1985", "", "12/03/1985"), ("12.03.1985", "Geboortedatum", "12.03.1985"),
        ("Data urodzenia 1985-03-12", "", "1985-03-12"), ("Födelsedatum 12-03-1985", "", "12-03-1985"),
        ("12.03.1985", "Fødselsdato", "12.03.1985"), ("Syntymäaika 12.3.1985", "", "12.3.1985"),
        ("Datum narození: 12.03.1985", "", "12.03.1985"), ("Születési dátum: 1985-03-12", "", "1985-03-12"),
        ("nato il 12 maggio 1985", "", "12 maggio 1985"), ("geboren op 5 mei 1980", "", "5 mei 1980"),
        ("Data de nascimento: 12 de março de 1975", "", "12 de março de 1975"),
    ],
)
def test_a_date_under_a_birth_label_in_other_languages(text, context, date):
    assert [(text[s.start : s.end], s.score) for s in find_pii(text, context) if s.class_name == "date_of_birth"] == [(date, 0.9)]


@pytest.mark.parametrize("text, context", [("NATO summit on 12.07.2024", ""), ("12.07.2024", "NATO news"),
                                           ("Data di scadenza 12.07.2030", ""), ("Vervaldatum 12.07.2030", "")])
def test_a_date_under_another_label_is_no_birth_date(text, context):
    assert not [s for s in find_pii(text, context) if s.class_name == "date_of_birth"]


@pytest.mark.parametrize("label", ["Hasło", "Wachtwoord", "Senha", "Lösenord", "Adgangskode", "Passord", "Salasana", "Heslo", "Jelszó", "Şifre"])
def test_a_password_after_its_label_in_other_languages(label):
    text = f"{label}: Tr0ub4dor&3"
    assert [(text[s.start : s.end], s.score) for s in find_pii(text) if s.class_name == "password"] == [("Tr0ub4dor&3", 0.9)]


@pytest.mark.parametrize("label", ["Nazwa użytkownika", "Gebruikersnaam", "Nome utente", "Användarnamn", "Brugernavn",
                                   "Käyttäjätunnus", "Uživatelské jméno", "Felhasználónév", "Kullanıcı adı"])
def test_a_user_name_under_its_label_in_other_languages(label):
    assert [s.score for s in find_pii("j.kowalski88", label) if s.class_name == "username"] == [0.9]


@pytest.mark.parametrize("label", ["Adres", "Indirizzo", "Endereço", "Adress", "Osoite", "Adresa"])
def test_a_four_digit_postcode_and_town_under_an_address_label(label):
    """Four digits and a word are no address alone ("2024 Annual"), but under an address label they are."""
    assert [s.score for s in find_pii("1017 Amsterdam", label) if s.class_name == "postal_address"] == [0.8]
    assert not [s for s in find_pii("1017 Amsterdam", "Order") if s.class_name == "postal_address"]


@pytest.mark.parametrize("label", ["Mobil", "Mobiel", "Tlf.", "Puhelin", "Matkapuhelin", "GSM", "Komórka"])
def test_a_phone_label_in_other_languages_is_phone_context(label):
    """A number libphonenumber cannot place (a Norwegian mobile read with the default regions) counts
    as a phone number under such a label, as it does under "Mobile"."""
    assert [s.class_name for s in find_pii("412 34 567", label)] == ["phone_number"]
    assert not [s for s in find_pii("412 34 567", "Order") if s.class_name == "phone_number"]
