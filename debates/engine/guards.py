"""Guards the agreement judge cannot overrule: what keeps two answers apart whatever their meaning seems.

Two short answers (ANSWER lines, decisions, claims) conflict when:
- they give **different numbers** for the same kind of quantity, once written forms are normalised
  ("1,000", "1k", "one thousand"; "2 weeks" and "14 days"; "50%" and "50 per cent"; "Q3" and "Q4");
- one **answers yes and the other no** ("Sì, …" / "No, …");
- a word is **negated in one and affirmed in the other** ("Do not migrate" / "Migrate now";
  "PostgreSQL instead of MySQL" / "MySQL"), negation read in its clause, in the languages models
  answer in;
- a word of one is the **opposite** of a word of the other, both affirmed (approve / reject,
  increase / decrease, ship / skip).

The same words are used by the wording rules (engine.consensus) and the ledger's claim matching.
Paraphrase is not a conflict: "No - stay a modular monolith" and "Do not split it" both say no.
"""

import math
import re
import unicodedata
from dataclasses import dataclass

from debates.engine.reading.words import stem, wordset

NEGATIONS = wordset(
    "not no never without against avoid nor neither none non cannot dont doesnt didnt isnt arent wasnt "
    "shouldnt wouldnt wont cant mustnt "
    # it, es, pt, fr, de
    "mai senza evitare evitate evita nessun nessuna nunca sin evitar ningún ninguna ningun não nao sem "
    "ne pas jamais sans éviter aucun aucune nicht kein keine keinen nie niemals ohne vermeiden"
)
# Phrases that negate the words after them: "X instead of Y" does not choose Y.
NEGATING_PHRASES = re.compile(
    r"\b(?:instead of|rather than|in place of|invece di|anziché|piuttosto che|en lugar de|en vez de|"
    r"au lieu de|plutôt que|(?:an)?statt|em vez de)\b",
    re.IGNORECASE,
)
NEGATING_PREFIXES = ("dis", "un", "in", "im", "il", "ir", "non", "de", "anti")
YES = wordset("yes yeah yep sì sí oui ja sim affirmative")
NO = wordset("no nope non nein não nao negative")
ANTONYM_PAIRS = """
approve reject, approve disapprove, approve deny, accept reject, accept decline, true false,
enable disable, keep remove, keep drop, keep delete, keep discard, keep replace, add remove, add drop,
increase decrease, increase reduce, increase lower, raise lower, more less, more fewer, higher lower,
buy sell, include exclude, allow deny, allow block, allow forbid, permit forbid,
permit prohibit, start stop, continue stop, continue halt, proceed halt, proceed stop, proceed abort,
proceed wait, proceed pause, ship skip, ship hold, ship delay, merge revert, merge close, hire fire,
open close, upgrade downgrade, expand shrink, grow shrink,
sync async, synchronous asynchronous, public private, internal external, manual automatic,
pass fail, win lose, min max, minimum maximum, now later, go stop, go wait, build buy,
monolith microservices, agree disagree, install uninstall, import export, inbound outbound,
optimistic pessimistic, horizontal vertical, push pull, static dynamic, online offline,
yes no, on off, in out, up down, before after, over under, first last
"""
ANTONYMS = frozenset(
    frozenset(map(stem, pair.split())) for pair in ANTONYM_PAIRS.replace("\n", " ").split(",") if pair.strip()
)
# Words that carry no stance of their own: a negation or an opposite among them says nothing.
STOP = wordset(
    "a an the of to in on at by for with from into onto over under up down out off before after first "
    "last and or but if then so as than that this these those it its is are was were be been being do "
    "does did have has had will would should shall can could may might must we you they i he she our your "
    "their my il lo la i gli le un una uno di da del della dei e o ma se che per con su in è sono el los "
    "las de del y o pero si que por para con en es son le la les un une des de du et ou mais si que pour "
    "avec en est sont der die das den dem ein eine und oder aber wenn dass für mit in ist sind"
)
# Words a negation reaches through to the word it negates ("not recommend migrating", "should not be").
TRANSPARENT = wordset(
    "do does did be is are was were should would will could can must recommend suggest advise use using "
    "go choose pick adopt want need try really strongly"
)
CLAUSE = re.compile(r"[.;:!?,()\[\]\n—–]|\s-\s|\b(?:but|however|ma|però|pero|mais|aber|though|although)\b")
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Polarity:
    """What the guards read in one answer: its words by polarity, its lead yes/no, its quantities."""

    affirmed: frozenset[str]  # stems
    negated: frozenset[str]
    written: dict[str, str]  # stem -> a word as written, for the words a person reads
    lead: str  # "yes", "no" or ""
    quantities: frozenset[tuple[str, float]]
    names: frozenset[str]  # letters glued to digits ("q3", "gpt4", "h100"): names of versions and periods


def conflict(a: str, b: str) -> str:
    """Why answers ``a`` and ``b`` cannot be one answer, in words; "" when no guard keeps them apart."""
    ra, rb = read(a), read(b)
    if ra.lead and rb.lead and ra.lead != rb.lead:
        return f"one answers {ra.lead}, the other {rb.lead}"
    for one, other in ((ra, rb), (rb, ra)):
        if flipped := sorted((one.negated - one.affirmed) & (other.affirmed - other.negated)):
            return f"“{one.written[flipped[0]]}” is negated in one and affirmed in the other"
    if numbers := _numbers_differ(ra, rb):
        return numbers
    for x in sorted(ra.affirmed - rb.affirmed - rb.negated):
        for y in sorted(rb.affirmed - ra.affirmed - ra.negated):
            if opposed(x, y):
                return f"“{ra.written[x]}” is the opposite of “{rb.written[y]}”"
    return ""


def opposite(a: str, b: str) -> bool:
    """Two words of opposite meaning: an antonym pair, or one the other with a negating prefix."""
    return opposed(stem(a), stem(b)) or _prefixed(a, b)


def opposed(a: str, b: str) -> bool:
    """Two stems of opposite meaning."""
    return frozenset({a, b}) in ANTONYMS or _prefixed(a, b)


def _prefixed(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    return len(short) >= 3 and any(long == prefix + short for prefix in NEGATING_PREFIXES)


def read(text: str) -> Polarity:
    """Polarity per word, the lead yes/no, the quantities.

    A negation covers the run of content words right after it, within its clause: "do not increase the
    timeout" negates "increase", not "timeout"; "without read replicas" negates both words.
    """
    plain = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    plain = re.sub(r"n't\b", " not", plain.replace("won't", "will not").replace("can't", "can not"))
    affirmed: set[str] = set()
    negated: set[str] = set()
    written: dict[str, str] = {}
    lead = ""
    for number, clause in enumerate(CLAUSE.split(NEGATING_PHRASES.sub(" not ", plain))):
        found = [w for w in WORD.findall(clause or "") if not w[0].isdigit()]
        if number == 0 and len(found) >= 1 and not lead:
            lead = "yes" if found[0] in YES else "no" if found[0] in NO and len(found) <= 2 else ""
        negating = reached = False  # a negation holds over the run of content words right after it
        for word in found:
            if word in NEGATIONS or word in NO:
                negating, reached = True, False
            elif negating and word in TRANSPARENT:
                continue
            elif word in STOP or word in YES:
                negating = negating and not reached
            else:
                root = stem(word.removesuffix("ly") if len(word) > 6 else word)  # "vertically" is "vertical"
                written.setdefault(root, word)
                (negated if negating else affirmed).add(root)
                reached = reached or negating
    names = frozenset(re.findall(r"\b[a-z]+-?\d+[a-z]*\b", plain))
    return Polarity(frozenset(affirmed), frozenset(negated), written, lead, quantities(text), names)


def _numbers_differ(a: Polarity, b: Polarity) -> str:
    for dimension in {d for d, _ in a.quantities} & {d for d, _ in b.quantities}:
        only_a = sorted(v for d, v in a.quantities if d == dimension and not _near(v, b.quantities, d))
        only_b = sorted(v for d, v in b.quantities if d == dimension and not _near(v, a.quantities, d))
        if only_a and only_b:
            return f"different numbers ({_shown(only_a[0], dimension)} and {_shown(only_b[0], dimension)})"
    for x in a.names - b.names:
        for y in b.names - a.names:
            if re.sub(r"\d", "", x) == re.sub(r"\d", "", y):
                return f"different versions or periods ({x} and {y})"
    return ""


def _near(value: float, among: frozenset[tuple[str, float]], dimension: str) -> bool:
    return any(d == dimension and math.isclose(v, value, rel_tol=1e-9, abs_tol=1e-12) for d, v in among)


def _shown(value: float, dimension: str) -> str:
    number = f"{value:g}"
    return {"time": f"{number} s", "bytes": f"{number} bytes", "percent": f"{value * 100:g}%"}.get(dimension, number)


# --- quantities ------------------------------------------------------------------------------------

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


# A number not glued to letters before it ("Q3" and "gpt4" are names, compared as such), and words.
TOKEN = re.compile(r"(?<![^\W\d_])(?P<n>\d+(?:[.,]\d+)*)(?P<glued>%|[^\W\d_]+)?|(?P<w>[^\W\d_]+|%)")


def quantities(text: str) -> frozenset[tuple[str, float]]:
    """(dimension, value in base units) of each number in ``text``; dimension "" for bare numbers.

    A unit or a scale may follow the number glued or as the next word ("16GB", "2 weeks", "one
    thousand", "50 per cent"). "One" and an article count only before a scale word ("one thousand",
    "a million"): alone, "one" is as often a pronoun.
    """
    tokens = list(TOKEN.finditer(unicodedata.normalize("NFKC", text)))
    words = [t["w"] or "" for t in tokens]
    found: set[tuple[str, float]] = set()
    for i, token in enumerate(tokens):
        after = _unit_at(words, i + 1)
        if token["n"]:
            found.add(_measure(_numeral(token["n"]), token["glued"] or after))
            continue
        word = words[i].casefold()
        base = NUMBER_WORDS.get(word)
        scaled = after.casefold() in SCALES
        if word in ARTICLES_AS_ONE and scaled:
            base = 1.0
        if base is not None and (word != "one" or scaled or after.casefold() in UNITS):
            found.add(_measure(base, after))
    return frozenset(found)


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
