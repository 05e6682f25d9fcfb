"""Quantities as people write them in a short answer: "1,000", "1k", "one thousand"; "2 weeks" and
"14 days"; "50%" and "50 per cent"; in the languages models answer in.

Each number comes with its dimension (time, bytes, percent, or "" for a count) and, for a count,
the thing it counts ("3 replicas": replicas; "Postgres 15": postgres), so that two answers are
compared quantity by quantity: "3 replicas in 2 zones" and "3 replicas" give one count of replicas.
The guards (engine.guards) and the checks' units (grounding.units) read the same words.
"""

import re
import unicodedata
from dataclasses import dataclass, field

from debates.engine.reading.words import STOP, stem, wordset

_UNITS = {
    "time": {
        0.001: "ms millisecond milliseconds",
        1: "s sec secs second seconds secondi segundos secondes sekunden",
        60: "m min mins minute minutes minuti minutos minuten",
        3600: "h hr hrs hour hours ora ore hora horas heure heures stunde stunden",
        86400: "d day days giorno giorni día días dia dias jour jours tag tage tagen",
        604800: "w wk week weeks settimana settimane semana semanas semaine semaines woche wochen",
        2629800: "month months mese mesi mes meses mois monat monate",
        31557600: "y yr year years anno anni año años ano anos an ans jahr jahre",
    },
    "bytes": {
        1: "b byte bytes",
        1e3: "kb",
        1e6: "mb",
        1e9: "gb",
        1e12: "tb",
        1024: "kib",
        1024**2: "mib",
        1024**3: "gib",
        1024**4: "tib",
    },
    "percent": {0.01: "% percent percento prozent per_cent per_cento por_ciento pour_cent"},
}
UNITS = {
    word: (dim, factor) for dim, table in _UNITS.items() for factor, words in table.items() for word in words.split()
}
# After a numeral, as written: "1k", "2M rows", "3B parameters", "10x".
SUFFIXES = {"k": 1e3, "K": 1e3, "M": 1e6, "mn": 1e6, "B": 1e9, "bn": 1e9, "x": 1.0, "X": 1.0}
SCALE_WORDS = {
    1e2: "hundred hundreds cento cien cent hundert",
    1e3: "thousand thousands mille mil mila tausend",
    1e6: "million millions milione milioni millón millones millionen",
    1e9: "billion billions miliardo miliardi milliard milliards milliarde milliarden",
}
SCALES = {word: factor for factor, words in SCALE_WORDS.items() for word in words.split()}
_NUMBER_WORDS = {
    1: "one",
    2: "two due dos deux zwei",
    3: "three tre tres trois drei",
    4: "four quattro cuatro quatre vier",
    5: "five cinque cinco cinq fünf",
    6: "six sei seis sechs",
    7: "seven sette siete sept sieben",
    8: "eight otto ocho huit acht",
    9: "nine nove nueve neuf neun",
    10: "ten dieci diez dix zehn",
    11: "eleven undici once onze elf",
    12: "twelve dodici doce douze zwölf",
    15: "fifteen quindici quince quinze",
    20: "twenty venti veinte vingt zwanzig",
    30: "thirty trenta treinta trente dreißig",
    50: "fifty cinquanta cincuenta cinquante fünfzig",
}
NUMBER_WORDS = {word: float(value) for value, words in _NUMBER_WORDS.items() for word in words.split()}
ARTICLES_AS_ONE = wordset("a an un uno una une ein eine")  # "a thousand", "un milione"
RANGE_WORDS = wordset("to or and a à bis e y o ou até")  # "2 to 3 weeks", "2 a 3 semanas"


# A number not glued to letters before it ("Q3" and "gpt4" are names, compared as such), and words.
TOKEN = re.compile(r"(?<![^\W\d_])(?P<n>\d+(?:[.,]\d+)*)(?P<glued>%|[^\W\d_]+)?|(?P<w>[^\W\d_]+|%)")


@dataclass(frozen=True)
class Quantity:
    """One number of a text: its dimension, its value in base units, and for a count what it counts."""

    dimension: str  # "time", "bytes", "percent"; "" for a count
    value: float
    noun: str = ""  # a count's thing, stemmed ("replica" of "3 replicas"); "" where nothing names it
    written: str = field(default="", compare=False)  # "2 weeks", "16GB", "3": for a person


def quantities(text: str) -> frozenset[tuple[str, float]]:
    """(dimension, value in base units) of each number in ``text``; dimension "" for bare numbers."""
    return frozenset((q.dimension, q.value) for q in measured(text))


def measured(text: str) -> frozenset[Quantity]:
    """Each number of ``text`` with its unit, or for a count the word that names what it counts.

    A unit or a scale may follow the number glued or as the next word ("16GB", "2 weeks", "one
    thousand", "50 per cent"); the first number of a range takes the unit of the last ("2-3 weeks",
    "two to three weeks"). "One" and an article count only before a scale word ("one thousand",
    "a million"): alone, "one" is as often a pronoun. A count's thing is the word right after it
    ("3 replicas"), else the nearest word before it ("Postgres 15", "price it at $49").
    """
    plain = unicodedata.normalize("NFKC", text)
    tokens = list(TOKEN.finditer(plain))
    words = [t["w"] or "" for t in tokens]
    found: set[Quantity] = set()
    for i in range(len(tokens)):
        value = _value(tokens, words, i)
        if value is None:
            continue
        unit, past = _unit_of(tokens, words, i)
        if not unit and (end := _range_end(plain, tokens, words, i)) is not None:
            unit, past = _unit_of(tokens, words, end)
        dimension, amount = _measure(value, unit)
        number = tokens[i]["n"] or words[i]
        written = number + (tokens[i]["glued"] or "") if tokens[i]["glued"] else f"{number} {unit.replace('_', ' ')}"
        noun = "" if dimension else _noun(words, i, past)
        found.add(Quantity(dimension, amount, noun, written.strip()))
    return frozenset(found)


def _value(tokens: list[re.Match[str]], words: list[str], i: int) -> float | None:
    """The number at token ``i`` (digits, or a number word where it is one), None for none."""
    if tokens[i]["n"]:
        return _numeral(tokens[i]["n"])
    word, following = words[i].casefold(), _unit_at(words, i + 1).casefold()
    if word in ARTICLES_AS_ONE and following in SCALES:
        return 1.0
    base = NUMBER_WORDS.get(word)
    if base is None or (word == "one" and following not in SCALES and following not in UNITS):
        return None
    return base


def _unit_of(tokens: list[re.Match[str]], words: list[str], i: int) -> tuple[str, int]:
    """The unit or scale of the number at ``i`` ("" for none), and the token after it."""
    if tokens[i]["n"] and tokens[i]["glued"]:
        return tokens[i]["glued"], i + 1
    after = _unit_at(words, i + 1)
    if after and _known(after):
        return after, i + 2 + after.count("_")
    return "", i + 1


def _range_end(text: str, tokens: list[re.Match[str]], words: list[str], i: int) -> int | None:
    """The token of the number that ends a range begun at ``i`` ("2-3", "two to three"), if any."""
    j = i + 1
    if j < len(tokens) and words[j].casefold() in RANGE_WORDS:
        j += 1
    elif j >= len(tokens) or text[tokens[i].end() : tokens[j].start()].strip() not in ("-", "–", "—"):
        return None
    return j if j < len(tokens) and _value(tokens, words, j) is not None else None


def _known(unit: str) -> bool:
    return unit in SUFFIXES or unit.casefold() in SCALES or unit.casefold() in UNITS


def _noun(words: list[str], at: int, after: int) -> str:
    """What the count at ``at`` counts: the word at ``after`` (past its scale), else the nearest before."""
    if after < len(words) and _countable(words[after]):
        return stem(words[after].casefold())
    before = next((w for w in reversed(words[max(0, at - 3) : at]) if _countable(w)), "")
    return stem(before.casefold()) if before else ""


def _countable(word: str) -> bool:
    folded = word.casefold()
    return bool(word) and word != "%" and folded not in STOP and folded not in NUMBER_WORDS


def _unit_at(words: list[str], i: int) -> str:
    """The word at ``i`` as a possible unit, or the two words from ``i`` when they are one ("per cent")."""
    if i >= len(words):
        return ""
    pair = f"{words[i]}_{words[i + 1]}".casefold() if i + 1 < len(words) else ""
    return pair if pair in UNITS else words[i]


def _measure(value: float, unit: str) -> tuple[str, float]:
    if unit in SUFFIXES:
        return "", value * SUFFIXES[unit]
    if unit.casefold() in SCALES:
        return "", value * SCALES[unit.casefold()]
    if unit.casefold() in UNITS:
        dimension, factor = UNITS[unit.casefold()]
        return dimension, value * factor
    return "", value


def _numeral(written: str) -> float:
    """ "1,000" and "1.000.000" are thousands; "1,5" and "3.5" are decimals."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+", written) or re.fullmatch(r"\d{1,3}(?:\.\d{3}){2,}", written):
        return float(re.sub(r"[,.]", "", written))
    return float(written.replace(",", "."))
