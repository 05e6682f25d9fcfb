"""Finding the claims of a text that state a computation, as two sides SymPy can compare.

Arithmetic ("2^10 = 1000", "10**3 is 1,000"), percentages both ways ("12 % of 250 is 30",
"30 is 12% of 250", "30/250 = 12%"), changes ("from 80 to 100 is a 25% increase", "125 is 25%
more than 100"), compound growth ("10% a year for 5 years gives 1.61x"), doubling times, unit
conversions ("1 KiB = 1024 bytes", "100 °C = 212 °F") and algebraic identities ("(a+b)^2 =
a^2 + 2ab + b^2"). Each claim is one side to compute and one side claimed, both written in
SymPy's syntax from the numbers read (``numbers``) and the units' sizes (``units``): the text
itself is never handed on, and each side still passes the screen before the sandbox. A sentence's
shape and its sides are ``sides``'; the claims said in words are ``phrases``'.

Deliberately narrow, like the contradictions: a sentence that hedges, negates, asks or reports
someone else's claim is skipped, and so is anything ambiguous (a product of two quantities with
units, a temperature difference, an inequality). A missed check costs little; a false one
discredits a correct panelist.
"""

import re
from fractions import Fraction

from debates.grounding.contradictions import HEDGES
from debates.grounding.extract import normalise
from debates.grounding.phrases import PHRASE_READERS, PHRASES
from debates.grounding.renderings import Claim, Rendering
from debates.grounding.sides import CALC_CHAIN, CHAIN, Skeleton

MAX_CLAIMS = 40  # per text
MAX_TEXT = 50_000  # characters of a text read (a contribution is rarely a tenth of it)
MAX_SENTENCE = 1000  # characters: a longer "sentence" is a table or a dump, not a claim
# Sentences end at ". ", "? ", a line; at "! " only before a capital ("5! = 120" is a factorial).
SENTENCE = re.compile(r"(?<=[.?])\s+|(?<=!)\s+(?=[A-Z])|\n+")

# Hedges in the other languages models answer in, beside the contradictions' English ones.
HEDGES_ELSEWHERE = re.compile(
    r"\b(?:non|nicht|kein\w*|pas|nunca|jamais|nie|falso|falsa|sbagliat\w*|errat\w*|incorrect\w*|erróne\w*"
    r"|faux|fausse|falsch|se|si|wenn|falls|ob|supponiamo|suponiendo|dice|dicen|afferma|sostiene|behauptet"
    r"|prétend\w*|approximation|estimate|estimated|assume[sd]?|typo)\b",
    re.IGNORECASE,
)
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


def find(text: str) -> list[Claim]:
    """Every computation ``text`` states flatly, in order, each once."""
    found: list[Claim] = []
    for sentence in SENTENCE.split(prepared(text[:MAX_TEXT])):
        if len(sentence) > MAX_SENTENCE or HEDGES.search(sentence) or HEDGES_ELSEWHERE.search(sentence):
            continue
        if sentence.strip():
            found += in_sentence(sentence)
        if len(found) > MAX_CLAIMS:
            break
    unique = list({claim.quote: claim for claim in found}.values())
    return unique[:MAX_CLAIMS]


def calc(line: str) -> list[Claim] | None:
    """The computation of a closing block's CALC line, which the voice wrote for a program to read:
    the whole line one chain ("12 / 2 = 6", "2^10 = 1024 = 1 KiB") or one phrase ("15% of 1200 =
    180"), hedges aside (the line states it); None when the line is not such a computation."""
    text = prepared(line[:MAX_SENTENCE]).strip().rstrip(".;")
    read = Skeleton.of(text)
    if whole := CALC_CHAIN.fullmatch(read.text):
        return read.chain(whole) or None
    for kind, pattern in PHRASES.items():
        if (phrase := pattern.fullmatch(read.text)) and (claim := PHRASE_READERS[kind](read, phrase)):
            return [claim]
    return None


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
            read.take(match.start(), match.end())  # "2^10 = 1024 and 1 KiB = …": what follows starts afresh
    claims += identities(sentence)
    return claims


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
