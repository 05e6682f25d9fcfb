"""Finding the claims of a text that state a computation, as two sides SymPy can compare.

Arithmetic ("2^10 = 1000", "10**3 is 1,000"), percentages both ways ("12 % of 250 is 30",
"30 is 12% of 250", "30/250 = 12%"), changes ("from 80 to 100 is a 25% increase", "125 is 25%
more than 100"), compound growth ("10% a year for 5 years gives 1.61x"), doubling times, unit
conversions ("1 KiB = 1024 bytes", "100 °C = 212 °F") and algebraic identities ("(a+b)^2 =
a^2 + 2ab + b^2"). Each claim is one side to compute and one side claimed, both written in
SymPy's syntax from the numbers read (``numbers``) and the units' sizes (``units``): the text
itself is never handed on, and each side still passes the screen before the sandbox.

Deliberately narrow, like the contradictions: a sentence that hedges, negates, asks or reports
someone else's claim is skipped, and so is anything ambiguous (a product of two quantities with
units, a temperature difference, an inequality). A missed check costs little; a false one
discredits a correct panelist.
"""

import itertools
import re
from dataclasses import dataclass
from fractions import Fraction

from debates.grounding import units
from debates.grounding.contradictions import HEDGES
from debates.grounding.extract import normalise
from debates.grounding.numbers import Number, Reading, numbers

MAX_READINGS = 8  # renderings of one side: a claim with more ambiguity than this is not checked
MAX_CLAIMS = 40  # per text
# Sentences end at ". ", "? ", a line; at "! " only before a capital ("5! = 120" is a factorial).
SENTENCE = re.compile(r"(?<=[.?])\s+|(?<=!)\s+(?=[A-Z])|\n+")

# Hedges in the other languages models answer in, beside the contradictions' English ones.
HEDGES_ELSEWHERE = re.compile(
    r"\b(?:non|nicht|kein\w*|pas|nunca|jamais|nie|falso|falsa|sbagliat\w*|errat\w*|incorrect\w*|erróne\w*"
    r"|faux|fausse|falsch|se|si|wenn|falls|ob|supponiamo|suponiendo|dice|dicen|afferma|sostiene|behauptet"
    r"|prétend\w*|approximation|estimate|estimated|assume[sd]?|typo)\b",
    re.IGNORECASE,
)
APPROX = (
    r"(?:about|approximately|approx\.?|roughly|around|circa|ca\.|~|≈|nearly|almost|close\s+to|some|just\s+about"
    r"|quasi|circa|intorno\s+a|più\s+o\s+meno|aproximadamente|alrededor\s+de|casi|unos|unas|environ|à\s+peu\s+près"
    r"|presque|etwa|ungefähr|rund|knapp|fast)"
)
APPROXIMATE = re.compile(rf"(?<!\w){APPROX}(?!\w)", re.IGNORECASE)
INEQUALITY = re.compile(
    r"(?:more|less|greater|fewer|higher|lower|bigger|smaller)\s+than\s*$|(?:over|under|above|below|at\s+least|at\s+most"
    r"|up\s+to|exceeds?|beyond|oltre|più\s+di|meno\s+di|más\s+de|menos\s+de|plus\s+de|moins\s+de|mehr\s+als"
    r"|weniger\s+als|über|unter)\s*$|(?<!-)[<>≤≥]\s*$",
    re.IGNORECASE,
)
REL = (
    r"(?:==?|≈|~|→|->|(?<![^\W_])(?:is\s+equal\s+to|equals?|is|are|was|makes|gives|yields|comes\s+to|è|es|est|ist"
    r"|sind|sono|son|fa|fanno|font|ergibt|ergeben)(?![^\W_]))"
)
UNIT = "(?:" + "|".join(re.escape(w).replace("_", r"\s+") for w in units.WORDS) + r")(?![^\W_])"
UNIT_AHEAD = re.compile(rf"[ \t]*{UNIT}")
NUM = r"#\d+"
# A word naming what a number counts ("8 shards", "1.2M users"): no unit, no word of the phrases.
NOT_LABELS = (
    r"is|are|was|were|equals?|makes|gives|yields|comes|of|than|more|less|per|from|to|and|or|for|in|on|with|which"
    r"|that|the|at|by|a|an|as|so|reaches|becomes|means|totals?|grows|growing|grown|grew|compound\w*|increas\w*"
    r"|decreas\w*|ris\w*|rose|fell|falls|dropp?\w*|declin\w*|doubl\w*|after|over|each|every|times|plus|minus"
)
LABEL = rf"\s+(?!(?:{NOT_LABELS})(?![^\W_]))[a-zà-ÿ][^\W\d_]{{2,}}(?![^\W_])"
AMOUNT = rf"{NUM}(?:\s*{UNIT}|{LABEL})?"
ATOM = rf"(?:(?:sqrt|log|ln|exp)\s*)?(?:\(\s*)*-?{AMOUNT}(?:\s*!)?(?:\s*\))*"  # a sign is glued: "- 1" is a bullet
OPERATOR = r"(?:\s*[+*/^]\s*|\s+-\s+|(?<=\))\s*-\s*|\s*-\s*(?=\())"
SIDE = rf"{ATOM}(?:{OPERATOR}{ATOM})*"
CHAIN = re.compile(rf"{SIDE}(?:\s*{REL}\s*(?:{APPROX}\s*)?{SIDE})+", re.IGNORECASE)
SPLIT = re.compile(rf"\s*{REL}\s*(?:{APPROX}\s*)?", re.IGNORECASE)
PERCENT = r"\s*(?:%|percent|per\s*cent|percento|per\s+cento|por\s+ciento|pour\s+cent|prozent)"
OF = r"\s+(?:of|di|del|dello|della|de|du|des|von|vom)\s+(?:the\s+|il\s+|la\s+|el\s+|le\s+|den\s+|der\s+)?"
IS = (
    r"\s*(?:=|is|are|was|equals|makes|gives|è|es|est|ist|sind|sono|son|fa|font|ergibt|→|->)\s*"
    r"(?:the\s+|il\s+|el\s+|le\s+)?"
)
LINKS = r"is|was|represents|means|gives|makes|that's|which\s+is|i\.e\.|or|=|è|es|est|ist"
ARTICLE = r"an?\s+|the\s+|un\s+|una\s+|une\s+|ein\s+|eine\s+"
RESULTS = (
    r"is|gives|reaches|becomes|=|→|->|yields|ends\s+at|will\s+be|grows\s+to|comes\s+to|means|results\s+in"
    r"|compounds\s+to|you\s+get|totals?"
)
INCREASE = (
    r"increase|rise|growth|gain|jump|hike|uplift|aumento|incremento|crescita|subida|hausse|augmentation|anstieg"
    r"|zuwachs|steigerung"
)
DECREASE = (
    r"decrease|drop|decline|fall|reduction|cut|loss|calo|diminuzione|riduzione|caída|disminución|descenso|baisse"
    r"|diminution|rückgang|abnahme|senkung"
)
GREW = r"increased|increases|rose|rises|grew|grows|went\s+up|jumped|climbed"
SHRANK = r"decreased|decreases|fell|falls|dropped|drops|declined|declines|shrank|went\s+down"
FROM, TO = r"(?:from|da|dal|de|del|von)", r"(?:to|a|al|à|auf|bis)"
A, B, P, N, R = (rf"#(?P<{name}>\d+)(?:\s*(?P<u{name}>{UNIT})|{LABEL})?" for name in "abpnr")
T = rf"#(?P<t>\d+)(?:\s*(?P<ut>{UNIT}))?"
PHRASES: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, re.IGNORECASE)
    for name, pattern in {
        "percent_of": rf"#(?P<p>\d+){PERCENT}{OF}{B}{IS}(?:{APPROX}\s*)?{R}",
        "is_percent_of": rf"{R}{IS}(?:{APPROX}\s*)?#(?P<p>\d+){PERCENT}{OF}{B}",
        "change": rf"{FROM}\s+{A}\s+{TO}\s+{B}(?:\s*,)?\s*(?:(?:{LINKS})\s+)?"
        rf"(?:{ARTICLE})?(?:(?P<dir1>{INCREASE}|{DECREASE})\s+(?:of|by|del|de|von|um)\s+)?"
        rf"(?:{APPROX}\s*)?(?P<sign>[+-])?\s*#(?P<n>\d+){PERCENT}(?:\s+(?P<dir2>{INCREASE}|{DECREASE}))?",
        "grew": rf"(?P<verb>{GREW}|{SHRANK})\s+(?:by\s+)?(?:{APPROX}\s*)?#(?P<n>\d+){PERCENT}\s+"
        rf"{FROM}\s+{A}\s+{TO}\s+{B}",
        "grew_from": rf"(?P<verb>{GREW}|{SHRANK})\s+{FROM}\s+{A}\s+{TO}\s+{B}\s*,?\s*"
        rf"(?:an?\s+|which\s+is\s+(?:an?\s+)?|i\.e\.\s+(?:an?\s+)?)?"
        rf"(?:(?:{INCREASE}|{DECREASE})\s+of\s+)?(?:{APPROX}\s*)?#(?P<n>\d+){PERCENT}",
        "than": rf"{B}{IS}(?:{APPROX}\s*)?#(?P<n>\d+){PERCENT}\s+(?P<dir>more|higher|larger|greater|bigger|above|longer"
        rf"|faster|less|lower|smaller|fewer|below|shorter|slower|cheaper)\s+than\s+{A}",
        "compound": rf"(?:{A}\s*,?\s+)?"
        rf"(?:growing|grows|grown|compounding|compounded|compounds|increasing|rising|at|with)\s+"
        rf"(?:at\s+)?#(?P<n>\d+){PERCENT}\s*(?:a|an|per|each|every|/)\s*(?P<period>{UNIT})\s*,?\s+(?:for|over|after|in)\s+{T}"
        rf"\s*,?\s*(?:{RESULTS})\s+(?:an?\s+)?(?:total\s+of\s+)?(?:{APPROX}\s*)?#(?P<r>\d+)\s*(?P<ur>x|times|{PERCENT}|{UNIT})?",
        "doubling": rf"#(?P<n>\d+){PERCENT}\s*(?:a|an|per|each|every|/)\s*(?P<period>{UNIT})(?P<mid>[^#.;]{{0,60}}?)"
        rf"\bdoubl(?:es|e|ing)\s+(?:in|every|after|within)\s+(?:{APPROX}\s*)?{T}",
    }.items()
}
FACTORED = re.compile(r"\)\s*(?:\^|\()")
FACTOR = r"(?:[a-z]|\([^()=\n]{1,80}\))(?:\^\d{1,2})?"
TERM = rf"(?:\d+(?:\.\d+)?\s*\*?\s*)?(?:{FACTOR})+(?:\s*\*\s*(?:{FACTOR})+)*|\d+(?:\.\d+)?"
WORD_IN_MATHS = re.compile(r"(?<![\d^a-z])[a-z]{2,}")  # "for", "ab" alone: words; "2ab" is a product
ALGEBRA_SIDE = rf"-?\s*(?:{TERM})(?:\s*[-+*/]\s*(?:{TERM}))*"
IDENTITY = re.compile(rf"(?<![\w^*/+\-.=])(?P<l>{ALGEBRA_SIDE})\s*=\s*(?P<r>{ALGEBRA_SIDE})(?![\w^(=])")
EQUATION_WORDS = re.compile(r"\b(?:solve|solving|solution|root|roots|when|where|for\s+[a-z]\b|let|set|define)", re.I)
WORD_OPERATORS = [
    (re.compile(r"\bto\s+the\s+power\s+of\b|\braised\s+to(?:\s+the\s+power\s+of)?\b", re.I), "^"),
    (re.compile(r"\bto\s+the\s+(\d+)(?:st|nd|rd|th)(?:\s+power)?\b", re.I), r"^\1"),
    (re.compile(r"\s*\bsquared\b", re.I), "^2"),
    (re.compile(r"\s*\bcubed\b", re.I), "^3"),
    (re.compile(r"\b(?:multiplied\s+by|times)\b(?=\s*[\d(])", re.I), "*"),
    (re.compile(r"\bdivided\s+by\b", re.I), "/"),
    (re.compile(r"\bplus\b(?=\s*[\d(])", re.I), "+"),
    (re.compile(r"(?<=\d)\s+x\s+(?=\d)"), " * "),
    (re.compile(r"(?<=[\w)])\s*\*\*\s*(?=[\w(])"), "^"),
    (re.compile(r"\*\*|__"), " "),  # markdown's bold, once a power is read
    (re.compile(r"\bdegrees?\s+(?:celsius|centigrade|c)\b|°\s+c\b", re.I), "°C"),
    (re.compile(r"\bdegrees?\s+(?:fahrenheit|f)\b|°\s+f\b", re.I), "°F"),
    (re.compile(r"[≃≅]|~="), "≈"),
]
BULLET = re.compile(r"^[ \t>]*(?:[-*•+]|\d{1,2}[.)])[ \t]+", re.MULTILINE)
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")
CHANGE_WORDS = re.compile(
    r"\b(?:rise|rises|rose|increase|decrease|drop|difference|change|warmer|colder|hotter|cooler|delta|by)\b", re.I
)


@dataclass(frozen=True)
class Rendering:
    """One way to read a side, in SymPy's syntax, with how far off a claimed value may be."""

    expression: str
    tolerance: Fraction  # 0: exact; else half the unit of the claimed number's last digit
    size: Fraction = Fraction(1)  # the claimed side's unit, to say a result in it
    offset: Fraction = Fraction(0)


@dataclass(frozen=True)
class Claim:
    """A computation stated in a text: the side to compute, the side claimed, as quoted."""

    quote: str
    kind: str  # arithmetic, percent, growth, units, algebra
    computed: tuple[Rendering, ...]
    claimed: tuple[Rendering, ...]
    unit: str = ""  # the claimed side's unit as written, to say the result in it
    percent: bool = False  # the claimed side is a percentage: the result is said as one
    question: str = ""  # what was computed, in words: "2^10", "12 % of 250", "the change from 80 to 100"
    said: str = ""  # the claimed side as written: "1000", "40", "a 25% decrease"


def find(text: str) -> list[Claim]:
    """Every computation ``text`` states flatly, in order, each once."""
    found: list[Claim] = []
    for sentence in SENTENCE.split(prepared(text)):
        if sentence.strip() and not (HEDGES.search(sentence) or HEDGES_ELSEWHERE.search(sentence)):
            found += in_sentence(sentence)
    unique = list({claim.quote: claim for claim in found}.values())
    return unique[:MAX_CLAIMS]


def prepared(text: str) -> str:
    text = SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group(0).translate(SUPERSCRIPTS), text)
    text = normalise(BULLET.sub("", text.replace("\\%", "%")))
    for pattern, replacement in WORD_OPERATORS:
        text = pattern.sub(replacement, text)
    return text


def in_sentence(sentence: str) -> list[Claim]:
    read = Skeleton.of(sentence)
    claims: list[Claim] = []
    for kind, pattern in PHRASES.items():
        for match in pattern.finditer(read.text):
            if not read.free(match.start(), match.end()):
                continue
            claim = PHRASE_READERS[kind](read, match)
            if claim is not None:
                read.take(match.start(), match.end())
                claims.append(claim)
    for match in CHAIN.finditer(read.text):
        if read.free(match.start(), match.end()) and read.bounded(match.start(), match.end()):
            claims += read.chain(match)
    claims += identities(sentence)
    return claims


@dataclass
class Skeleton:
    """A sentence with each number replaced by ``#i``, so that patterns read its shape."""

    sentence: str
    text: str
    numbers: list[Number]
    spans: list[tuple[int, int]]  # of each ``#i`` in ``text``
    approximate: bool
    taken: list[range]

    @classmethod
    def of(cls, sentence: str) -> "Skeleton":
        found = numbers(sentence, UNIT_AHEAD)
        parts, spans, at, length = [], [], 0, 0
        for i, number in enumerate(found):
            parts.append(sentence[at : number.start])
            length += len(parts[-1])
            token = f"#{i}"
            spans.append((length, length + len(token)))
            parts.append(token)
            length += len(token)
            at = number.end
        parts.append(sentence[at:])
        return cls(sentence, "".join(parts), found, spans, bool(APPROXIMATE.search(sentence)), [])

    def free(self, start: int, end: int) -> bool:
        return not any(start in span or end - 1 in span for span in self.taken)

    def take(self, start: int, end: int) -> None:
        self.taken.append(range(start, end))

    def bounded(self, start: int, end: int) -> bool:
        """Not part of a larger expression or phrase: nothing operator-like or glued on either side."""
        before, after = self.text[:start], self.text[end:]
        if re.search(r"(?:[-+*/^(=×#]\s*|[^\W_]|\b(?:of|than|from|to|by)\s+)$", before, re.I):
            return False
        if re.match(r"\s+(?:of|di|de|von)\b", after) and re.search(rf"{PERCENT}\s*$", self.text[start:end], re.I):
            return False  # "… = 12% of 250": a phrase of its own
        return not re.match(r"(?:\s*[-+*/^(]\s*[\d#(]|[^\W_]|\s*[%‰\\°]|\s+(?:than|more|less)\b)", after, re.I)

    def quote(self, start: int, end: int) -> str:
        """The words of the sentence the skeleton's span stands for, as written."""

        def back(position: int, closing: bool) -> int:
            for (s, e), number in zip(self.spans, self.numbers, strict=True):
                if s <= position < e or (closing and position == e):
                    return number.end if closing else number.start
            shift = sum(
                (n.end - n.start) - (e - s) for (s, e), n in zip(self.spans, self.numbers, strict=True) if e <= position
            )
            return position + shift

        return " ".join(self.sentence[back(start, False) : back(end, True)].split())

    def number(self, index: str) -> Number:
        return self.numbers[int(index)]

    def claimed(self, index: str, unit_word: str | None, sign: int = 1) -> tuple[Rendering, ...]:
        """A number as the claimed side: each reading and unit size, with the rounding it was written to."""
        number = self.number(index)
        if INEQUALITY.search(self.sentence[: number.start]):
            return ()
        unit = units.unit(unit_word) if unit_word else None
        sizes = unit.sizes if unit else (Fraction(1),)
        offset = unit.offset if unit else Fraction(0)
        return tuple(
            Rendering(
                f"({'-' if sign < 0 else ''}{rational(r.value)}*{rational(size)}+{rational(offset)})",
                self.rounding(r) * size,
                size,
                offset,
            )
            for r in number.readings
            for size in sizes
        )[:MAX_READINGS]

    def rounding(self, reading: Reading) -> Fraction:
        return (reading.significant if self.approximate else reading.step) / 2

    def amounts(self, index: str, unit_word: str | None) -> list[str]:
        """A number as part of a computation, each reading and size, in base units."""
        number = self.number(index)
        unit = units.unit(unit_word) if unit_word else None
        if unit is not None and unit.affine:
            return []
        sizes = unit.sizes if unit else (Fraction(1),)
        return [f"({rational(r.value)}*{rational(size)})" for r in number.readings for size in sizes]

    def chain(self, match: re.Match[str]) -> list[Claim]:
        """Each pair of neighbouring sides of "a = b = c" that is a computation."""
        text = match.group(0)
        sides = SPLIT.split(text)
        found = []
        for left, right in itertools.pairwise(sides):
            claim = self.pair(left.strip(), right.strip(), match.start() + text.index(left))
            if claim is not None:
                found.append(claim)
        return found

    def pair(self, left: str, right: str, start: int) -> Claim | None:
        sides = [Side.read(self, s) for s in (left, right)]
        if any(s is None for s in sides):
            return None
        lhs, rhs = sides[0], sides[1]
        assert lhs is not None
        assert rhs is not None
        computed, claimed = (lhs, rhs) if rhs.lone or not lhs.lone else (rhs, lhs)
        # "365 * 24 = 8760 hours": a unit after a bare computation only names what was counted.
        counted = claimed.lone and computed.operators and not computed.dimension
        counted = counted and claimed.dimension not in ("", "percent", "temperature")
        dimensions = {"" if d == "percent" or counted else d for d in (lhs.dimension, rhs.dimension)}
        if len(dimensions) > 1 or not (lhs.operators or rhs.operators or (lhs.units and rhs.units)):
            return None
        if "temperature" in dimensions and (lhs.operators or rhs.operators or CHANGE_WORDS.search(self.sentence)):
            return None
        computed_renderings = computed.renderings(self, exact=True)
        claimed_renderings = claimed.renderings(self, exact=not claimed.lone, plain=counted)
        if not computed_renderings or not claimed_renderings:
            return None
        middle = self.text.index(right, start)
        end = middle + len(right)
        spans = {id(lhs): (start, start + len(left)), id(rhs): (middle, end)}
        kind = (
            "units"
            if lhs.units and rhs.units
            else "percent"
            if "%" in (lhs.unit_words + rhs.unit_words)
            else "arithmetic"
        )
        return Claim(
            self.quote(start, end),
            kind,
            computed_renderings,
            claimed_renderings,
            unit=claimed.unit_words[-1] if claimed.units else "",
            percent=claimed.dimension == "percent",
            question=self.quote(*spans[id(computed)]),
            said=self.quote(*spans[id(claimed)]),
        )


@dataclass(frozen=True)
class Side:
    """One side of a chain: its numbers with their units, and whether it computes anything."""

    template: str  # SymPy syntax with {0}, {1}… for each amount
    amounts: tuple[tuple[str, str | None], ...]  # (number index, unit word)
    operators: bool
    dimension: str  # "" for pure numbers (a percentage is one)
    units: int  # amounts with a unit other than percent
    unit_words: tuple[str, ...]

    @property
    def lone(self) -> bool:
        return len(self.amounts) == 1 and not self.operators

    @classmethod
    def read(cls, skeleton: Skeleton, text: str) -> "Side | None":
        amounts: list[tuple[str, str | None]] = []

        def slot(match: re.Match[str]) -> str:
            amounts.append((match.group("i"), match.group("u")))
            return "{" + str(len(amounts) - 1) + "}"

        template = re.sub(rf"#(?P<i>\d+)(?:\s*(?P<u>{UNIT})|{LABEL})?", slot, text, flags=re.IGNORECASE)
        if template.count("(") != template.count(")"):
            return None
        found = [units.unit(u) for _, u in amounts if u]
        if any(u is None for u in found):
            return None
        dimensions = {u.dimension for u in found if u and u.dimension != "percent"}
        if len(dimensions) > 1:
            return None
        operators = bool(re.search(r"[-+*/^!]|sqrt|log|ln|exp", template.strip().removeprefix("-")))
        with_units = sum(1 for u in found if u and u.dimension != "percent")
        # A product or quotient of two quantities with units has another dimension: not read.
        if with_units > 1 and re.search(r"[*/^]", template):
            return None
        dimension = dimensions.pop() if dimensions else ("percent" if found and not with_units else "")
        return cls(template, tuple(amounts), operators, dimension, with_units, tuple(u or "" for _, u in amounts))

    def renderings(self, skeleton: Skeleton, exact: bool, plain: bool = False) -> tuple[Rendering, ...]:
        """Each way to read the side; a claimed number alone with its rounding (``plain``: its unit
        only names what was counted)."""
        if not exact:
            index, unit_word = self.amounts[0]
            sign = -1 if self.template.lstrip().startswith("-") else 1
            return skeleton.claimed(index, None if plain else unit_word, sign)
        unit = units.unit(self.unit_words[0]) if self.lone and self.unit_words[0] else None
        if unit is not None and unit.affine:  # a temperature alone: an absolute reading
            sign = -1 if self.template.lstrip().startswith("-") else 1
            return skeleton.claimed(self.amounts[0][0], self.unit_words[0], sign)
        options = [skeleton.amounts(i, u) for i, u in self.amounts]
        if any(not o for o in options):
            return ()
        combos = list(itertools.islice(itertools.product(*options), MAX_READINGS + 1))
        if len(combos) > MAX_READINGS:
            return ()
        template = self.template.replace("^", "**")
        return tuple(Rendering(template.format(*combo).replace("**", "^"), Fraction(0)) for combo in combos)


def rational(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"({value.numerator}/{value.denominator})"


# --- the phrases -------------------------------------------------------------------------------------


def _percent(skeleton: Skeleton, index: str) -> list[str]:
    return [f"({rational(r.value)}/100)" for r in skeleton.number(index).readings]


def _renderings(templates: list[str]) -> tuple[Rendering, ...]:
    return tuple(Rendering(t, Fraction(0)) for t in templates[:MAX_READINGS]) if len(templates) <= MAX_READINGS else ()


def _claim(
    skeleton: Skeleton,
    match: re.Match[str],
    kind: str,
    computed: list[str],
    claimed: tuple[Rendering, ...],
    question: str,
    said: str,
    unit: str = "",
    percent: bool = False,
) -> Claim | None:
    rendered = _renderings(computed)
    if not rendered or not claimed:
        return None
    quote = skeleton.quote(match.start(), match.end())
    return Claim(quote, kind, rendered, claimed, unit, percent, question, said)


def _written(skeleton: Skeleton, match: re.Match[str], name: str, unit: bool = True) -> str:
    """A number of the phrase as written, with its unit."""
    words = skeleton.number(match.group(name)).written
    unit_word = match.groupdict().get(f"u{name}") if unit else None
    return f"{words} {unit_word}" if unit_word else words


def _same_dimension(*words: str | None) -> bool:
    found = {u.dimension for w in words if w and (u := units.unit(w))}
    return len(found) <= 1 and "temperature" not in found and all(units.unit(w) for w in words if w)


def percent_of(skeleton: Skeleton, match: re.Match[str]) -> Claim | None:
    """ "12 % of 250 is 30": 12/100 × 250 against 30."""
    if not _same_dimension(match.group("ub"), match.group("ur")) or bool(match.group("ub")) != bool(match.group("ur")):
        return None
    computed = [
        f"{p}*{b}"
        for p in _percent(skeleton, match.group("p"))
        for b in skeleton.amounts(match.group("b"), match.group("ub"))
    ]
    question = f"{_written(skeleton, match, 'p')}% of {_written(skeleton, match, 'b')}"
    claimed = skeleton.claimed(match.group("r"), match.group("ur"))
    return _claim(
        skeleton, match, "percent", computed, claimed, question, _written(skeleton, match, "r"), match.group("ur") or ""
    )


def is_percent_of(skeleton: Skeleton, match: re.Match[str]) -> Claim | None:
    """ "30 is 12% of 250": 30 / 250 against 12 %."""
    if not _same_dimension(match.group("ub"), match.group("ur")) or bool(match.group("ub")) != bool(match.group("ur")):
        return None
    computed = [
        f"{r}/{b}"
        for r in skeleton.amounts(match.group("r"), match.group("ur"))
        for b in skeleton.amounts(match.group("b"), match.group("ub"))
    ]
    question = f"{_written(skeleton, match, 'r')} / {_written(skeleton, match, 'b')}"
    claimed = skeleton.claimed(match.group("p"), "%")
    return _claim(
        skeleton, match, "percent", computed, claimed, question, f"{_written(skeleton, match, 'p')}%", "%", percent=True
    )


def _direction(*words: str | None) -> int:
    said = " ".join(w for w in words if w).casefold()
    if re.search(rf"\b(?:{DECREASE}|{SHRANK}|less|lower|smaller|fewer|below|shorter|slower|cheaper)\b", said):
        return -1
    if re.search(rf"\b(?:{INCREASE}|{GREW}|more|higher|larger|greater|bigger|above|longer|faster)\b", said):
        return 1
    return 0


def change(skeleton: Skeleton, match: re.Match[str]) -> Claim | None:
    """ "from 80 to 100 is a 25% increase": (100 − 80) / 80 against +25 %."""
    groups = match.groupdict()
    if not _same_dimension(groups.get("ua"), groups.get("ub")):
        return None
    direction = _direction(groups.get("dir1"), groups.get("dir2"), groups.get("verb"))
    if groups.get("sign"):
        direction = -1 if groups["sign"] == "-" else 1
    a_amounts, b_amounts = (
        skeleton.amounts(groups["a"], groups.get("ua")),
        skeleton.amounts(groups["b"], groups.get("ub")),
    )
    computed = [f"({b}-{a})/{a}" for a in a_amounts for b in b_amounts]
    if not direction:
        computed = [f"Abs({c})" for c in computed]
    claimed = skeleton.claimed(groups["n"], "%", sign=-1 if direction < 0 else 1)
    question = f"the change from {_written(skeleton, match, 'a')} to {_written(skeleton, match, 'b')}"
    said = f"{'-' if direction < 0 else '+' if direction else ''}{_written(skeleton, match, 'n')}%"
    return _claim(skeleton, match, "growth", computed, claimed, question, said, "%", percent=True)


def than(skeleton: Skeleton, match: re.Match[str]) -> Claim | None:
    """ "125 is 25% more than 100": 125 / 100 − 1 against 25 %; "less": 1 − 125 / 100."""
    if not _same_dimension(match.group("ua"), match.group("ub")) or bool(match.group("ua")) != bool(match.group("ub")):
        return None
    more = _direction(match.group("dir")) > 0
    pairs = [
        (b, a)
        for b in skeleton.amounts(match.group("b"), match.group("ub"))
        for a in skeleton.amounts(match.group("a"), match.group("ua"))
    ]
    computed = [f"{b}/{a}-1" if more else f"1-{b}/{a}" for b, a in pairs]
    b, a = _written(skeleton, match, "b"), _written(skeleton, match, "a")
    question = f"how much {'more' if more else 'less'} {b} is than {a}"
    claimed = skeleton.claimed(match.group("n"), "%")
    return _claim(
        skeleton, match, "percent", computed, claimed, question, f"{_written(skeleton, match, 'n')}%", "%", percent=True
    )


def _periods(skeleton: Skeleton, match: re.Match[str]) -> list[str]:
    """How many growth periods a duration is: "5 years" at "a year" is 5; "2 years" at "a month" 24."""
    period = units.unit(match.group("period"))
    if period is None or period.dimension != "time":
        return []
    duration = units.unit(match.group("ut")) if match.group("ut") else period
    if duration is None or duration.dimension != "time":
        return []
    if duration == period:  # "a year for 5 years": 5, whatever a year's length
        return [rational(r.value) for r in skeleton.number(match.group("t")).readings]
    if len(duration.sizes) > 1 and len(period.sizes) > 1:  # months and years: the calendar's ratio
        ratio = duration.sizes[0] / period.sizes[0]
        return [f"{rational(r.value)}*{rational(ratio)}" for r in skeleton.number(match.group("t")).readings]
    durations = skeleton.amounts(match.group("t"), match.group("ut"))
    return [f"({d})/{rational(size)}" for d in durations for size in period.sizes]


def compound(skeleton: Skeleton, match: re.Match[str]) -> Claim | None:
    """ "100 growing 10% a year for 5 years reaches 161", or "… gives 1.61x", or "… 61% in all"."""
    periods = _periods(skeleton, match)
    result_unit = (match.group("ur") or "").strip()
    growth = [f"(1+{n})^({k})" for n in _percent(skeleton, match.group("n")) for k in periods]
    rate = f"{_written(skeleton, match, 'n')}% a {match.group('period')} for {_written(skeleton, match, 't')}"
    said = _written(skeleton, match, "r", unit=False)
    if match.group("a"):
        if not _same_dimension(match.group("ua"), result_unit or None) or result_unit.casefold() in ("x", "times"):
            return None
        computed = [f"{a}*{g}" for a in skeleton.amounts(match.group("a"), match.group("ua")) for g in growth]
        claimed = skeleton.claimed(match.group("r"), result_unit or None)
        question = f"{_written(skeleton, match, 'a')} grown {rate}"
        return _claim(
            skeleton, match, "growth", computed, claimed, question, f"{said} {result_unit}".strip(), result_unit
        )
    if re.fullmatch(PERCENT, result_unit, re.I):
        claimed = skeleton.claimed(match.group("r"), "%")
        question = f"the total growth at {rate}"
        return _claim(
            skeleton, match, "growth", [f"{g}-1" for g in growth], claimed, question, f"{said}%", "%", percent=True
        )
    if result_unit.casefold() in ("x", "times"):
        question = f"the growth factor at {rate}"
        return _claim(
            skeleton, match, "growth", growth, skeleton.claimed(match.group("r"), None), question, f"{said}x", "x"
        )
    return None


def doubling(skeleton: Skeleton, match: re.Match[str]) -> Claim | None:
    """ "at 7% a year it doubles in about 10 years": log 2 / log 1.07 years against 10."""
    period = units.unit(match.group("period"))
    claimed_unit = units.unit(match.group("ut") or "")
    if period is None or period.dimension != "time" or claimed_unit is None or claimed_unit.dimension != "time":
        return None
    doubled = [f"log(2)/log(1+{n})" for n in _percent(skeleton, match.group("n"))]
    question = f"the doubling time at {_written(skeleton, match, 'n')}% a {match.group('period')}"
    said = _written(skeleton, match, "t")
    if claimed_unit == period:  # in periods, whatever a year's length
        claimed = skeleton.claimed(match.group("t"), None)
        return _claim(skeleton, match, "growth", doubled, claimed, question, said, match.group("ut"))
    computed = [f"{d}*{rational(size)}" for d in doubled for size in period.sizes]
    claimed = skeleton.claimed(match.group("t"), match.group("ut"))
    return _claim(skeleton, match, "growth", computed, claimed, question, said, match.group("ut"))


PHRASE_READERS = {
    "percent_of": percent_of,
    "is_percent_of": is_percent_of,
    "change": change,
    "grew": change,
    "grew_from": change,
    "than": than,
    "compound": compound,
    "doubling": doubling,
}


def identities(sentence: str) -> list[Claim]:
    """ "(a+b)^2 = a^2 + 2ab + b^2": an expansion or a factorisation stated as holding for all values.
    An equation to solve ("2x + 3 = 11", "50x = 2000 + 30x") is no such claim."""
    if EQUATION_WORDS.search(sentence):
        return []
    found = []
    for match in IDENTITY.finditer(sentence):
        left, right = (" ".join(match.group(side).split()) for side in ("l", "r"))
        letters = [set(re.findall(r"[a-z]", side)) for side in (left, right)]
        factored = [bool(FACTORED.search(side)) for side in (left, right)]
        if WORD_IN_MATHS.search(left + " " + right):
            continue
        if not all(letters) or letters[0] != letters[1] or factored.count(True) != 1:
            continue
        if "(" in (right if factored[0] else left):
            continue  # expanded on one side, factored on the other: nothing else is an identity claim
        computed, claimed = (Rendering(spelled(side), Fraction(0)) for side in (left, right))
        found.append(Claim(f"{left} = {right}", "algebra", (computed,), (claimed,), question=left, said=right))
    return found


def spelled(side: str) -> str:
    """Implicit products made explicit for the screen: "2ab" is 2*a*b, "(x+1)(x-1)" a product."""
    side = re.sub(r"(?<=[\da-z)])\s*(?=[a-z(])", "*", side.replace(" ", ""))
    return side
