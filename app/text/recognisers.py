"""Text-PII recognisers: find character spans of personal data in one line of recognised text.

Pure Python. Formats with a checksum (cards, IBANs, national IDs) are validated; formats without
one need context words ("Name:", "DOB", "Passwort", …) in the line or the line above.
Locales covered: English (US/UK), German, French, Spanish.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

import phonenumbers

from app.core import pii_validators as v
from app.text.names import find_names
from app.text.national_ids import LABELS as NATIONAL_ID_LABELS
from app.text.national_ids import MIN_DIGITS as MIN_NATIONAL_DIGITS
from app.text.national_ids import find_national_ids

PHONE_REGIONS = ("US", "GB", "DE", "FR", "ES")


@dataclass(frozen=True)
class PiiSpan:
    """``text[start:end]`` is personal data of ``class_name`` (taxonomy name) with ``score`` in [0, 1]."""

    start: int
    end: int
    class_name: str
    score: float
    recogniser: str


Recogniser = Callable[[str, str], list[PiiSpan]]


def _ctx(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.IGNORECASE)


EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
HANDLE = re.compile(r"(?<![\w@])@[A-Za-z0-9_][A-Za-z0-9_.]{1,30}(?:@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)?")
PHONE_LIKE = re.compile(r"(?<![\w.])\+?\(?\d[\d ()\-./]{5,}\d(?![\w.])")
# The international form: "+", then a country code and number of 8-15 digits in all, perhaps grouped
E164 = re.compile(r"(?<![\w+])\+\d(?:[ \-]?\d){7,14}(?!\w|[.,]\d)")
CARD = re.compile(r"(?<!\d)(?:\d[ \-]?){12,18}\d(?!\d)")
CARD_GROUPED = re.compile(r"(?<![\d.,])(?:\d{4}([ \-])\d{4}\1\d{4}\1\d{4}|\d{4}([ \-])\d{6}\2\d{5})(?![\d.,])")
CARD_CONTEXT = _ctx(r"\b(?:card|karte|kreditkarte|carte|tarjeta|visa|mastercard|amex|american express|cc)\b")
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{2,4}){3,8}\b")
IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
IPV6 = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){2,7}[0-9A-Fa-f]{0,4}(?:::?[0-9A-Fa-f]{1,4})*(?![\w:])")
SSN = re.compile(r"(?<!\d)\d{3}[- ]\d{2}[- ]\d{4}(?!\d)")
DNI = re.compile(r"\b(?:[XYZ][ -]?)?\d{7,8}[ -]?[A-Z]\b")
NIR = re.compile(r"(?<!\d)[1278][ ]?\d{2}[ ]?\d{2}[ ]?(?:\d{2}|2A|2B)[ ]?\d{3}[ ]?\d{3}[ ]?\d{2}(?!\d)")
STEUER_ID = re.compile(r"(?<!\d)[1-9]\d(?:[ ]?\d{3}){3}(?!\d)")
DE_ID_CARD = re.compile(r"\b[CFGHJKLMNPRTVWXYZ0-9]{9}\d\b")
MRZ = re.compile(r"[A-Z0-9<]{5,}<<[A-Z0-9<]{5,}")
TOKEN = re.compile(r"[A-Za-z0-9_\-+/=.]{16,}")
URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
PERSONAL_URL_PATH = _ctx(r"/(?:users?|u|profile|people|in|@)[/:]?[^/\s]*|/@[\w.]+|[?&](?:email|user|token|key|session)=")

MONTHS = (
    r"jan(?:uary|vier|uar|\.)?|feb(?:ruary|ruar|\.)?|f[ée]vr(?:ier|\.)?|m[äa]r(?:ch|z|s|zo)?|apr(?:il|\.)?|avr(?:il)?|abr(?:il)?|"
    r"ma[iy]|mai|mayo|jun[eio]?|juin|juil(?:let)?|jul[iy]o?|aug(?:ust|\.)?|ao[uû]t|ago(?:sto)?|sep(?:tember|tembre|tiembre|t\.)?|"
    r"o[ck]t(?:ober|obre|ubre|\.)?|nov(?:ember|embre|iembre|\.)?|d[eéi][cz](?:ember|embre|iembre|\.)?|ene(?:ro)?|"
    # it, nl, pt month names
    r"gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|januari|februari|maart|mei|juni|juli|"
    r"augustus|oktober|janeiro|fevereiro|mar[çc]o|junho|julho|setembro|outubro|novembro|dezembro"
)
DATE = re.compile(
    r"(?<!\d)(?:\d{1,2}[./\-]\d{1,2}[./\-](?:19|20)?\d{2}|(?:19|20)\d{2}-\d{2}-\d{2}|"
    rf"\d{{1,2}}\.?\s+(?:de\s+)?(?:{MONTHS})\s+(?:de\s+)?(?:19|20)\d{{2}}|(?:{MONTHS})\s+\d{{1,2}},?\s+(?:19|20)\d{{2}}|"
    # ICAO 9303 documents: day, month in two languages, two-digit year ("12 AUG/AOUT 74")
    rf"\d{{1,2}}\s+(?:{MONTHS})/(?:{MONTHS})\s+\d{{2}})(?!\d)",
    re.IGNORECASE,
)
# The label of an identity document's number field ("Doc No.", "N° du document", "Passport No.")
DOC_NUMBER_CONTEXT = _ctx(r"\b(?:doc(?:ument)?\.?\s*(?:no|nr|n[o°º]|number|#)|n[°º]?\.?\s*du\s*doc|passport\s*(?:no|number|#)"
                          r"|licen[cs]e\s*(?:no|number|#)|dokumentennummer|ausweisnummer|passnummer"
                          r"|n[úu]mero\s+de\s+(?:documento|pasaporte)|num[ée]ro\s+du\s+(?:document|passeport))")
DOC_NUMBER = re.compile(r"(?<![\w-])(?=(?:[A-Z]*\d){3})[A-Z0-9]{6,20}(?![\w-])")
DOB_CONTEXT = _ctx(r"\b(?:born|birth|dob|d\.o\.b|birthday|geboren|geb\.|geburts\w*|n[ée]e?\b|naissance|nacimiento|nacid[oa]|f\. ?nac"
                   # it, nl, pl, pt, sv, da/no, fi, cs/sk, hu, ro, hr/sl, tr, lt, lv, et
                   r"|nascita|nat[oa] il|geboorte\w*|urodz\w*|ur\.|nascimento|födelse\w*|född|fødsels\w*|født|syntymä\w*"
                   r"|narozen\w*|narodeni\w*|születés\w*|szül\.|na[șşs]terii|n[ăa]scut|ro[đd]en\w*|rojstva|do[ğg]um|gimimo"
                   r"|dzim[šs]anas|sünni\w*)")
PHONE_CONTEXT = _ctx(r"\b(?:tel|phone|mobil|cell|fax|handy|telefon|t[ée]l[ée]phone|portable|m[óo]vil|tel[ée]fono|tlf|puhelin"
                     r"|matkapuhelin|mobiel|gsm|kom[óo]rk)")
# "NIE" (the Spanish foreigner's number) only in capitals: "nie" is Polish for "not".
ID_CONTEXT = _ctx(r"\b(?:ssn|social security|steuer|tax id|personalausweis|ausweis|dni|(?-i:NIE)|nif|nir|s[ée]curit[ée] sociale|passport|reisepass|pasaporte|passeport|id no|id number)")
# "Password" in pl, nl, pt, sv, da, no, fi, cs, hu, it/ro, tr, sl, hr, lt, et
PASSWORD_CONTEXT = _ctx(r"\b(?:password|passwort|kennwort|mot de passe|contrase[ñn]a|pwd|passcode|pin|has[łl]o|wachtwoord|senha"
                        r"|l[öo]senord|adgangskode|passord|salasana|heslo|jelsz[óo]|parola|[şs]ifre|geslo|lozinka|slapta[žz]odis"
                        r"|parool)\b\s*[:=]?\s*")
CODE_CONTEXT = _ctx(r"\b(?:code|otp|verification|verify|2fa|one[- ]time|token|bestätigungscode|c[óo]digo|tan)\b")
# "User name" in pl, nl, it, pt, sv, da, no, fi, cs, hu, ro, tr, hr, sl, lt, lv, et
_USER_NAMES = (r"nazwa u[żz]ytkownika|gebruikersnaam|nome utente|nome de usu[áa]rio|anv[äa]ndarnamn|brugernavn|brukernavn"
               r"|k[äa]ytt[äa]j[äa]tunnus|k[äa]ytt[äa]j[äa]nimi|u[žz]ivatelsk[ée] jm[ée]no|felhaszn[áa]l[óo]n[ée]v|nume de utilizator"
               r"|kullan[ıi]c[ıi] ad[ıi]|korisni[čc]ko ime|uporabni[šs]ko ime|naudotojo vardas|lietot[āa]jv[āa]rds|kasutajanimi")
USER_CONTEXT = _ctx(rf"\b(?:user(?:name)?|login|benutzer(?:name)?|identifiant|usuario|account|{_USER_NAMES})\b\s*[:=]\s*")
USER_LABEL = _ctx(rf"\b(?:user ?(?:name|id)?|login|benutzer(?:name)?|identifiant|nom d'utilisateur|usuario|whoami|{_USER_NAMES})\b")
SHELL_USER = re.compile(r"(?<![\w.@-])([a-z_][a-z0-9_.\-]{1,31})@(?=[A-Za-z0-9][\w.\-]*(?::|\s|$))")
USER_TOKEN = re.compile(r"[@\w][\w.\-@]{2,39}")
# A label that names the field and nothing else: the lone token under or beside it is its value.
# ("Login" and "User" alone are left out: they also title pages and buttons.)
USER_FIELD_LABEL = _ctx(rf"\s*(?:user ?name|user ?id|benutzername|nom d'utilisateur|usuario|identifiant|{_USER_NAMES})\s*:?\s*")
SECRET_CONTEXT = _ctx(r"\b(?:api[ _-]?key|secret|token|private key|access key|client secret|bearer)\b")
CODE_VALUE = re.compile(r"(?<![\d.,])\d{3}[ \-]?\d{3}(?![\d.,])|(?<![\d.,])\d{4,8}(?![\d.,])")
STREET = re.compile(
    r"\b\d{1,5}[A-Za-z]?,?\s+(?:[A-Z][\w'.\-]*\s+){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Way|Court|Ct|Place|Pl|Terrace|Close|Square|Sq)\b\.?"
    r"|\b[A-ZÄÖÜ][\wäöüß\-]*(?:stra(?:ß|ss)e|str\.|weg|platz|allee|gasse|ring|damm|ufer)\s+\d{1,4}[a-z]?\b"
    r"|\b\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|av\.|boulevard|bd|place|chemin|all[ée]e|impasse|quai|cours)\s+[\w'’\- ]{2,40}"
    r"|\b(?:Calle|C/|Avenida|Avda\.?|Av\.|Plaza|Pza\.|Paseo|Camino|Carrer)\s+[\wáéíóúñ'\- ]{2,40}?,?\s*(?:n[ºo°]\s*)?\d{1,4}\b",
    re.UNICODE,
)
POSTCODE_CITY = re.compile(
    r"\b\d{5}\s+[A-ZÄÖÜÉ][\wäöüßéèêàç\-]+(?:\s[A-ZÄÖÜÉ][\wäöüßéèêàç\-]+)?\b"
    r"|\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)?,\s+[A-Z]{2}\s+\d{5}(?:-\d{4})?\b"
    r"|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b"
)
# Continental street and postcode forms. Upper-case letters of the Latin alphabets (Ł, Ø, Č, Ő, …).
_UP = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.isupper() and c.isalpha())
_CAP = rf"[{_UP}][\w'’.\-]*"
_LINK = r"(?:de|da|do|das|dos|del|della|delle|dei|di|du|des|la|le|lo|van|von|der|den|pri|na|am|an|im|zum|zur)"
_NAME = rf"(?:{_LINK}\s+|[lLdD]['’])*{_CAP}(?:\s+(?:{_LINK}\s+|[lLdD]['’])*{_CAP}){{0,3}}"
# A house number with its flat, letter or range: "14/3", "45/B", "7-9", "8a", "121." (Hungarian).
_HOUSE = r"\d{1,4}[A-Za-z]?(?:\s?[/\-]\s?(?:\d{1,4}[A-Za-z]?|[A-Za-z]))?\.?(?!\w)"
EURO_STREET = re.compile(
    # the street type first: "ul. Długa 14/3", "Via Garibaldi 45/B", "Rua das Flores, 12", "chemin Bourquin 87"
    r"(?<![\w.])(?<!et )(?:ul\.|Ul\.|ulica|Ulica|al\.|Al\.|aleja|Aleja|os\.|osiedle|Osiedle|pl\.|plac|Plac|Via|Viale|Corso"
    r"|Piazza|Piazzale|Largo|Vicolo|Contrada|Rua|Travessa|Alameda|Estrada|Praça|Rue|Avenue|avenue|Boulevard|boulevard"
    r"|Chauss[ée]e|chauss[ée]e|Quai|Chemin|chemin|Strada|Str\.|Bulevardul|Calea|Aleea|Intrarea|Șoseaua|Şoseaua)"
    rf"\s+{_NAME},?\s+(?:n[º°o.]+\s*|Nr\.?\s*)?{_HOUSE}"
    # one word ending in the type: "Kerkstraat 12", "Storgatan 5", "Nørrebrogade 32", "Mannerheimintie 12"
    rf"|\b[{_UP}][\w'’\-]*(?:straat|laan|plein|gracht|kade|singel|dijk|dreef|steeg|boulevard|gatan|vägen|gränd|torget"
    r"|stigen|gata|gaten|veien|vegen|bakken|plass|plassen|gade|vej|stræde|plads|katu|tie|kuja|polku|tori|väylä|raitti"
    r"|kaari|utca|körút|ulica|-Straße|-Strasse|-Platz|-Weg|-Allee|-Gasse|-Ring|-Damm|-Ufer"
    rf"|cesta|třída|nábřeží|náměstí|námestie|trieda)\s+{_HOUSE}"
    # the type as a word after the name: "Mariahilfer Straße 77", "Andrássy út 22", "Václavské náměstí 19"
    rf"|\b{_CAP}(?:\s+{_CAP}){{0,2}}\s+(?:Straße|Strasse|Str\.|Gasse|Allee|Platz|Weg|út|utca|tér|körút|náměstí|třída"
    rf"|nábřeží|námestie|cesta|ulica|Lán)\s+{_HOUSE}",
    re.UNICODE,
)
_CITY = rf"[{_UP}][\w'’\-]+(?:\s(?:{_LINK}\s)?[{_UP}][\w'’\-]+){{0,2}}(?:\s\d{{1,2}}(?!\d))?"
# Postcodes that are not five bare digits: Polish 00-238, Portuguese 1200-195, Dutch 1017 GC,
# Swedish / Czech / Slovak 114 55; a country letter may lead ("H-7317", "D-10115").
EURO_POSTCODE_CITY = re.compile(rf"(?<![\w\-])(?:[A-Z]{{1,2}}-)?(?:\d{{2}}-\d{{3}}|\d{{4}}-\d{{3}}|\d{{4}}\s?[A-Z]{{2}}(?![\w])|\d{{3}}\s\d{{2}}|\d{{5}})\s+{_CITY}")
# Four bare digits and a town (Austria, Switzerland, Belgium, Denmark, Norway, Hungary, …): only
# beside a street, since "2024 Annual Report" has the same shape.
FOUR_DIGIT_POSTCODE_CITY = re.compile(rf"(?<![\w\-/.])(?:[A-Z]{{1,2}}-)?\d{{4}}\s+{_CITY}")
# A whole address on one line without a street type: "Grammova 8, 777 63 Městec Králové".
NAME_HOUSE_POSTCODE = re.compile(rf"\b{_NAME}\s+{_HOUSE},\s+{EURO_POSTCODE_CITY.pattern}")
WHOLE_ADDRESS = 0.92  # a street with its postcode-town: above the classifier's override score
ADDRESS_CONTEXT = _ctx(r"\b(?:address|adresse|anschrift|direcci[óo]n|domicilio|ship to|deliver to|lieferadresse"
                       # pl/nl/cs/hr, it, pt, sv, fi, hu, ro, da/no
                       r"|adres|adresa|indirizzo|endere[çc]o|morada|adress|osoite|c[íi]m|adres[ăa]|leveringsadresse)\b")


def _spans(pattern: re.Pattern, text: str, cls: str, score: float, name: str, check=None) -> list[PiiSpan]:
    out = []
    for m in pattern.finditer(text):
        if check is None or check(m.group(0)):
            out.append(PiiSpan(m.start(), m.end(), cls, score, name))
    return out


def emails(text: str, ctx: str) -> list[PiiSpan]:
    return _spans(EMAIL, text, "email", 0.99, "email")


def handles(text: str, ctx: str) -> list[PiiSpan]:
    """@handles; ``user@host`` in shell prompts and ssh commands; the value after "Username:";
    a lone token under or beside a "Username"/"Login" label (e-mails win where they overlap, except
    inside a fediverse account, "@user@host.tld", which is one username)."""
    spans = [s for s in _spans(HANDLE, text, "username", 0.8, "handle") if s.end - s.start >= 3]
    # "@user@host.tld" (Mastodon and other fediverse accounts) is a whole account name, not an
    # e-mail after a stray "@": as sure as an e-mail, so the leading "@user" is hidden with it.
    spans = [PiiSpan(s.start, s.end, s.class_name, 0.99, s.recogniser) if EMAIL.fullmatch(text[s.start + 1 : s.end]) else s
             for s in spans]  # fmt: skip
    spans += [PiiSpan(m.start(1), m.end(1), "username", 0.75, "shell_user") for m in SHELL_USER.finditer(text)]
    m = USER_CONTEXT.search(text)
    if m:
        rest = re.match(r"\S+", text[m.end() :])
        if rest:
            spans.append(PiiSpan(m.end(), m.end() + rest.end(), "username", 0.9, "user_context"))
    if USER_LABEL.search(ctx) and not USER_LABEL.fullmatch(text.strip()):
        spans += _lone_username(text, 0.9 if USER_FIELD_LABEL.fullmatch(ctx) else 0.7, "user_label")
    return spans


def _lone_username(text: str, score: float, recogniser: str) -> list[PiiSpan]:
    """The line as one ``username`` span when it is a single handle-shaped token, else nothing."""
    token = text.strip()
    if not USER_TOKEN.fullmatch(token):
        return []
    start = text.index(token)
    return [PiiSpan(start, start + len(token), "username", score, recogniser)]


def phones(text: str, ctx: str) -> list[PiiSpan]:
    """Phone numbers valid in one of ``PHONE_REGIONS`` (libphonenumber's metadata and rules)."""
    if sum(ch.isdigit() for ch in text) < 6:
        return []
    found: dict[tuple[int, int], PiiSpan] = {}
    context = bool(PHONE_CONTEXT.search(text) or PHONE_CONTEXT.search(ctx))
    for region in PHONE_REGIONS:
        for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID):
            raw = match.raw_string
            digits = sum(ch.isdigit() for ch in raw)
            if (match.start, match.end) in found or digits < 7 or DATE.fullmatch(raw.strip()):
                continue
            international = raw.lstrip().startswith(("+", "00", "("))
            score = 0.95 if international or context else 0.9 if _grouped_like_a_phone(raw) else 0.75
            found[(match.start, match.end)] = PiiSpan(match.start, match.end, "phone_number", score, "phone")
    # "+" and a full number is how phone numbers are written across borders, and nothing else is
    # written so; libphonenumber rejects demo and unassigned ranges ("+1234567800"), which are
    # still shown as phone numbers (contact lists, sample data).
    for m in E164.finditer(text):
        if not any(s <= m.start() < e or m.start() <= s < m.end() for s, e in found):
            found[(m.start(), m.end())] = PiiSpan(m.start(), m.end(), "phone_number", 0.9, "phone_e164")
    if context and not found:
        # Demo and fictional numbers fail libphonenumber's validity check but are still shown
        # as phone numbers; with a "Mobile"/"Tel" label, digit groups of phone length count.
        for m in PHONE_LIKE.finditer(text):
            if 7 <= sum(ch.isdigit() for ch in m.group(0)) <= 15 and not DATE.fullmatch(m.group(0)):
                found[(m.start(), m.end())] = PiiSpan(m.start(), m.end(), "phone_number", 0.6, "phone_context")
    return list(found.values())


def _grouped_like_a_phone(raw: str) -> bool:
    """True when ``raw`` is split into digit groups exactly as one of ``PHONE_REGIONS`` writes phone numbers
    ("703-777-5833", "020 7946 0958"): written that way, a valid number is a phone number. A bare
    run of digits ("7037775833") may as well be an order number, so the classifier decides."""
    if len(re.findall(r"\d+", raw)) < 2:
        return False
    exact = phonenumbers.Leniency.EXACT_GROUPING
    return any(m.raw_string == raw for region in PHONE_REGIONS for m in phonenumbers.PhoneNumberMatcher(raw, region, leniency=exact))


def cards(text: str, ctx: str) -> list[PiiSpan]:
    """Card numbers passing the Luhn check; with a card label in the line or beside it, also a
    number grouped like a card (4-4-4-4, 4-6-5) that fails it (a mistyped or demo number)."""
    spans = _spans(CARD, text, "card_number", 0.97, "luhn", v.luhn_valid)
    if CARD_CONTEXT.search(text) or CARD_CONTEXT.search(ctx):
        spans += [s for s in _spans(CARD_GROUPED, text, "card_number", 0.6, "card_context")
                  if not any(k.start <= s.start and s.end <= k.end for k in spans)]
    return spans


def ibans(text: str, ctx: str) -> list[PiiSpan]:
    return _spans(IBAN, text.upper() if "iban" in (text + ctx).lower() else text, "bank_account", 0.98, "iban", v.iban_valid)


def ips(text: str, ctx: str) -> list[PiiSpan]:
    spans = []
    for pattern in (IPV4, IPV6):
        for m in pattern.finditer(text):
            before = text[max(0, m.start() - 8) : m.start()].lower()
            if "v" in before[-2:] or "version" in before:
                continue
            if v.ip_valid(m.group(0)):
                spans.append(PiiSpan(m.start(), m.end(), "ip_address", 0.9, "ip"))
    return spans


def national_ids(text: str, ctx: str) -> list[PiiSpan]:
    """US SSN, ES DNI/NIE, FR NIR, DE Steuer-ID and Personalausweis (all check-digit validated
    except the SSN, which needs a dashed format or context); an MRZ line; beside or under a
    document-number label, an upper-case code with at least three digits ("D23145890"); and the
    other European national numbers of ``app.text.national_ids``."""
    context = bool(ID_CONTEXT.search(text) or ID_CONTEXT.search(ctx))
    spans = _spans(DNI, text, "id_number", 0.95, "es_dni", v.es_dni_valid)
    spans += _spans(NIR, text, "id_number", 0.95, "fr_nir", v.fr_nir_valid)
    spans += _spans(STEUER_ID, text, "id_number", 0.9 if context else 0.5, "de_steuer_id", v.de_steuer_id_valid)
    spans += _spans(DE_ID_CARD, text, "id_number", 0.9 if context else 0.4, "de_id_card", v.de_id_card_valid)
    for m in SSN.finditer(text):
        dashed = "-" in m.group(0)
        if v.us_ssn_valid(m.group(0)) and (dashed or context):
            spans.append(PiiSpan(m.start(), m.end(), "id_number", 0.9 if context else 0.6, "us_ssn"))
    spans += _spans(MRZ, text, "id_number", 0.9, "mrz")
    if DOC_NUMBER_CONTEXT.search(ctx) or DOC_NUMBER_CONTEXT.search(text):
        spans += _spans(DOC_NUMBER, text, "id_number", 0.9, "doc_number")
    if sum(ch.isdigit() for ch in text) >= MIN_NATIONAL_DIGITS:
        labelled = context or bool(NATIONAL_ID_LABELS.search(text) or NATIONAL_ID_LABELS.search(ctx))
        spans += [PiiSpan(s, e, "id_number", score, name) for s, e, score, name in find_national_ids(text, labelled)]
    return spans


def dates_of_birth(text: str, ctx: str) -> list[PiiSpan]:
    """Dates in en/de/fr/es formats; a date of birth only with birth context in the line or above."""
    if not (DOB_CONTEXT.search(text) or DOB_CONTEXT.search(ctx)):
        return []
    return _spans(DATE, text, "date_of_birth", 0.9, "dob")


def secrets(text: str, ctx: str) -> list[PiiSpan]:
    spans = []
    context = bool(SECRET_CONTEXT.search(text) or SECRET_CONTEXT.search(ctx))
    for m in TOKEN.finditer(text):
        token = m.group(0).strip(".=")
        if "@" in token or token.lower().startswith(("http", "www")):
            continue
        if v.looks_like_secret(token):
            spans.append(PiiSpan(m.start(), m.start() + len(token), "secret_key", 0.9, "secret"))
        elif context and len(token) >= 20 and re.fullmatch(r"[0-9a-fA-F]+|[A-Za-z0-9_\-+/=]+", token) \
                and v.shannon_entropy(token) >= 3.5:  # fmt: skip
            spans.append(PiiSpan(m.start(), m.start() + len(token), "secret_key", 0.8, "secret_context"))
    return spans


def passwords(text: str, ctx: str) -> list[PiiSpan]:
    m = PASSWORD_CONTEXT.search(text)
    if m and m.end() < len(text) and re.search(r"[:=]\s*$", text[m.start() : m.end()]):
        value = re.match(r"\S+(?: \S+)?", text[m.end() :])
        if value:
            return [PiiSpan(m.end(), m.end() + value.end(), "password", 0.9, "password_context")]
    if PASSWORD_CONTEXT.search(ctx) and len(text.strip()) >= 4 and " " not in text.strip() and not set(text.strip()) <= set("•*·●."):
        start = len(text) - len(text.lstrip())
        return [PiiSpan(start, start + len(text.strip()), "password", 0.6, "password_above")]
    return []


def verification_codes(text: str, ctx: str) -> list[PiiSpan]:
    """One-time codes: digit groups with code/OTP context, or a line that is just ``123 456``."""
    stripped = text.strip()
    if re.fullmatch(r"\d{3}[ \-]\d{3}", stripped):
        start = text.index(stripped)
        return [PiiSpan(start, start + len(stripped), "verification_code", 0.6, "otp_line")]
    if not (CODE_CONTEXT.search(text) or CODE_CONTEXT.search(ctx)):
        return []
    return _spans(CODE_VALUE, text, "verification_code", 0.8, "code_context")


def personal_urls(text: str, ctx: str) -> list[PiiSpan]:
    return [
        PiiSpan(m.start(), m.end(), "username", 0.8, "personal_url")
        for m in URL.finditer(text)
        if PERSONAL_URL_PATH.search(m.group(0))
    ]


def addresses(text: str, ctx: str) -> list[PiiSpan]:
    """Streets and postcode-town pairs. Each alone only informs the classifier (0.85, 0.8, or 0.4
    for a postcode-town without a street or an address label); a street and its postcode-town on
    one line ("ul. Długa 14/3, 00-238 Warszawa"), or a postcode-town under a street line, is a
    whole address: a hard override (``street_postcode``, 0.92) from the street's start to the town."""
    if not any(ch.isdigit() for ch in text):  # every form holds a house number or a postcode
        return []
    context = bool(ADDRESS_CONTEXT.search(text) or ADDRESS_CONTEXT.search(ctx))
    streets = _spans(STREET, text, "postal_address", 0.85, "street") + _spans(EURO_STREET, text, "postal_address", 0.85, "street")
    strong = bool(streets) or context
    towns = _spans(POSTCODE_CITY, text, "postal_address", 0.8 if strong else 0.4, "postcode_city")
    towns += _spans(EURO_POSTCODE_CITY, text, "postal_address", 0.8 if strong else 0.4, "postcode_city")
    if strong:
        towns += _spans(FOUR_DIGIT_POSTCODE_CITY, text, "postal_address", 0.8, "postcode_city")
    whole = _spans(NAME_HOUSE_POSTCODE, text, "postal_address", WHOLE_ADDRESS, "street_postcode")
    if streets and towns:
        first = min(streets, key=lambda sp: sp.start)
        last = max(towns, key=lambda sp: sp.end)
        if first.start < last.start:
            whole.append(PiiSpan(first.start, last.end, "postal_address", WHOLE_ADDRESS, "street_postcode"))
    elif towns and not streets and (STREET.search(ctx) or EURO_STREET.search(ctx)):
        whole += [PiiSpan(t.start, t.end, "postal_address", WHOLE_ADDRESS, "street_postcode") for t in towns]
    return streets + towns + whole


def names(text: str, ctx: str) -> list[PiiSpan]:
    return [PiiSpan(s, e, "person_name", score, "names") for s, e, score in find_names(text, ctx)]


RECOGNISERS: tuple[Recogniser, ...] = (
    emails, handles, phones, cards, ibans, ips, national_ids, dates_of_birth, secrets, passwords,
    verification_codes, personal_urls, addresses, names,
)  # fmt: skip


def column_values(text: str, column_head: str) -> list[PiiSpan]:
    """The lone token of a table cell whose column is headed by a username label and nothing else
    ("USERNAME" over "Bret", "Antonette"): the value of that field, whatever word it looks like."""
    if not column_head or not USER_FIELD_LABEL.fullmatch(column_head):
        return []
    return _lone_username(text, 0.9, "user_column")


def find_pii(text: str, context: str = "", recognisers: Iterable[Recogniser] = RECOGNISERS,
             column_head: str = "") -> list[PiiSpan]:
    """All PII spans in one line of text; ``context`` is the text just above (labels such as
    "Date of birth" often sit on the previous line), ``column_head`` the header of the table
    column the line sits in (``column_values``). Spans inside a stronger span are dropped."""
    spans: list[PiiSpan] = column_values(text, column_head)
    for recognise in recognisers:
        spans += recognise(text, context)
    spans.sort(key=lambda s: (-(s.end - s.start), -s.score))
    kept: list[PiiSpan] = []
    for s in spans:
        if s.end <= s.start:
            continue
        if any(k.start <= s.start and s.end <= k.end and k.score >= s.score for k in kept):
            continue
        kept.append(s)
    return sorted(kept, key=lambda s: s.start)
