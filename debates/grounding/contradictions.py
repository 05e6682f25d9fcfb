"""Spotting a panelist's plain claim that a verified fact refutes, to tell the moderator.

Deliberately narrow: only a flat assertion in a sentence that does not hedge, negate, ask or
report someone else's claim ("whether", "if", "claims", "wrong", "?") is checked, and only
against facts whose comparison is exact (numbers, primality, integer factorisations, identities
found false). A missed contradiction costs little; a false one discredits a correct panelist.
No SymPy here: panelist text is untrusted, and this runs in the web process.
"""

import re
from collections.abc import Iterable
from fractions import Fraction

from debates.grounding.facts import Fact

HEDGES = re.compile(
    r"\b(?:if|whether|suppose|supposing|assume|assuming|unless|claims?|claimed|says|said|wrong|incorrect"
    r"|false|mistaken(?:ly)?|not|never|no|nor|isn't|aren't)\b|n't\b|\?",
    re.I,
)
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
IS = r"\s*(?:==?|equals|is\s+equal\s+to|is)\s*"
NUMBER = r"(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:\s*/\s*\d+)?)"
NUMBER_ENDS = r"(?![\d.]*\d|\s*[-+*/^×·(%]|\s*(?:hundred|thousand|million|billion|trillion|k)\b)"
OPERATOR_BEFORE = re.compile(r"(?:[-+*/^×·]\s*|[\w.])$")
PIECE = re.compile(r"\*\*|\d+(?:\.\d+)?|[A-Za-z]+|\S")
PIECES = {"^": r"(?:\^|\*\*)", "**": r"(?:\^|\*\*)", "*": r"(?:\*|×|·)"}


def contradictions(facts: Iterable[Fact], text: str) -> list[str]:
    """One sentence of explanation per claim in ``text`` that a fact refutes."""
    found: list[str] = []
    sentences = [s for s in SENTENCE.split(plain(text)) if s.strip()]
    for fact in facts:
        for sentence in sentences:
            found += value_claims(fact, sentence) + prime_claims(fact, sentence)
    return list(dict.fromkeys(found))


def plain(text: str) -> str:
    text = re.sub(r"\\(?:cdot|times)", "*", text)
    return re.sub(r"[`$]|\\[()]", " ", text).replace("−", "-")


def pattern(expression: str) -> str:
    """A regex for the expression as people write it: any spacing, ^ or **, * or ×."""
    return r"\s*".join(PIECES.get(p, re.escape(p)) for p in PIECE.findall(expression))


def hedged(sentence: str) -> bool:
    return bool(HEDGES.search(sentence))


def quote(sentence: str, match: re.Match) -> str:
    return " ".join(sentence[match.start() : match.end()].split())


def value_claims(fact: Fact, sentence: str) -> list[str]:
    if hedged(sentence):
        return []
    if fact.kind == "identity_check" and fact.result == "False":
        claim = re.compile(pattern(fact.expression).replace("=", IS, 1) + NUMBER_ENDS)
        return [
            f"“{quote(sentence, m)}” is false: SymPy found {fact.expression} does not hold."
            for m in claim.finditer(sentence)
            if not OPERATOR_BEFORE.search(sentence[: m.start()])
        ]
    value = rational(fact.result) if fact.kind == "arithmetic" else None
    if value is None:
        return []
    claim = re.compile(pattern(fact.expression) + IS + NUMBER + NUMBER_ENDS)
    return [
        f"“{quote(sentence, m)}” contradicts the computed {fact.expression} = {fact.result}."
        for m in claim.finditer(sentence)
        if not OPERATOR_BEFORE.search(sentence[: m.start()]) and not close(m.group(1), value)
    ]


def rational(result: str) -> Fraction | None:
    return Fraction(result) if re.fullmatch(r"-?\d+(?:/\d+)?", result) else None


def close(claimed: str, value: Fraction) -> bool:
    """Equal, or a decimal rounded from the value (0.333 for 1/3 is not a contradiction)."""
    claimed = re.sub(r"[,\s]", "", claimed)
    number = Fraction(claimed)
    decimals = len(claimed.partition(".")[2])
    return number == value or (decimals > 0 and abs(number - value) <= Fraction(1, 2 * 10**decimals))


def primality(fact: Fact) -> tuple[int, bool] | None:
    """(n, is_prime) when the fact settles it: an isprime fact or an integer factorisation."""
    if fact.kind == "isprime" and (m := re.fullmatch(r"isprime\((\d+)\)", fact.expression)):
        return int(m.group(1)), fact.result == "True"
    if fact.kind == "factor" and (m := re.fullmatch(r"factor\((\d+)\)", fact.expression)):
        return int(m.group(1)), fact.result.endswith("(prime)")
    return None


def prime_claims(fact: Fact, sentence: str) -> list[str]:
    known = primality(fact)
    if known is None:
        return []
    n, is_prime = known
    number = rf"(?<![\d.,]){n}(?![\d.,]\d)"
    found: list[str] = []
    if not is_prime and not hedged(sentence):
        claims = re.finditer(rf"{number}\s+is\s+(?:a\s+)?prime\b", sentence, re.I)
        found += [f"“{quote(sentence, m)}”, but {n} is not prime ({fact.expression} = {fact.result})." for m in claims]
    if is_prime and not hedged(re.sub(r"\b(?:not|isn't)\b|n't\b", "", sentence)):
        denial = rf"{number}\s+(?:is\s+not\s+(?:a\s+)?prime|isn't\s+(?:a\s+)?prime|is\s+composite)\b"
        claims = re.finditer(denial, sentence, re.I)
        found += [f"“{quote(sentence, m)}”, but {n} is prime ({fact.expression} = {fact.result})." for m in claims]
    if fact.kind == "factor":
        for m in re.finditer(rf"{number}\s*=\s*(\d{{1,30}}(?:\s*[*×·]\s*\d{{1,30}}){{1,20}})(?![\d^*])", sentence):
            product = 1
            for factor in re.findall(r"\d+", m.group(1)):
                product *= int(factor)
            if product != n and not hedged(sentence):
                found.append(f"“{quote(sentence, m)}” is false: the product is {product}, not {n}.")
    return found
