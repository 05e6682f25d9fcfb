"""Guards the agreement judge cannot overrule, and what they only notice.

The judge reads meaning; a guard overrules it only on evidence that holds whatever the wording
(``conflict``):
- **different numbers of one quantity**, written forms aside ("1,000", "1k", "one thousand"; "2
  weeks" and "14 days"; "50%" and "50 per cent"), or different versions or periods ("Q3" / "Q4");
- an **explicit yes against an explicit no** ("Sì, …" / "No, …");
- one answer **negating the very proposition the other affirms**: the same words, negated in one
  ("Do not migrate to Kubernetes" / "Migrate to Kubernetes"; "PostgreSQL instead of MySQL" /
  "MySQL"), or the same words but for one word and its opposite, both affirmed ("Increase the
  pool size" / "Decrease the pool size"). Negation is read in its clause, in the languages models
  answer in; a question asked is no position.

An opposite word or a negated word in sentences that otherwise differ is no such evidence: "Don't
move to microservices" and "Stay on the monolith" give one answer, "Fix CI before migrating" and
"Migrate after fixing CI" too. That is only noticed (``noticed``): said in a note, the judge's
grouping standing. Where nothing reads meaning (grouping by wording, a claim shared by its words,
a passage's support of a claim), both count (``apart``): there only what is surely one is one.
"""

import math
import re
import unicodedata
from dataclasses import dataclass, field

from debates.engine.quantities import Quantity, measured
from debates.engine.reading.words import STOP, stem, wordset

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
# Opposites: one of a pair in place of the other, in words otherwise the same, says the opposite.
ANTONYM_PAIRS = """
approve reject, approve disapprove, approve deny, accept reject, accept decline, true false,
enable disable, keep remove, keep drop, keep delete, keep discard, keep replace, add remove, add drop,
increase decrease, increase reduce, increase lower, raise lower,
include exclude, allow deny, allow block, allow forbid, permit forbid,
permit prohibit, start stop, continue stop, continue halt, proceed halt, proceed stop, proceed abort,
proceed wait, proceed pause, ship skip, ship hold, ship delay, merge revert, merge close, hire fire,
open close, upgrade downgrade, expand shrink, grow shrink,
sync async, synchronous asynchronous, public private, internal external, manual automatic,
pass fail, min max, minimum maximum, now later, go stop, go wait, build buy,
monolith microservices, agree disagree, install uninstall, optimistic pessimistic, horizontal vertical,
push pull, static dynamic, online offline, yes no, on off
"""
# Opposites whose sides swap with the words' order ("fix CI before migrating" is "migrate after
# fixing CI"; "more reads than writes", "fewer writes than reads"): noticed, never evidence.
RELATIONAL_PAIRS = """
more less, more fewer, higher lower, import export, inbound outbound, buy sell, win lose,
in out, up down, before after, over under, first last
"""


def _pairs(listed: str) -> frozenset[frozenset[str]]:
    return frozenset(
        frozenset(map(stem, pair.split())) for pair in listed.replace("\n", " ").split(",") if pair.strip()
    )


ANTONYMS = _pairs(ANTONYM_PAIRS)
RELATIONAL = _pairs(RELATIONAL_PAIRS)
# Small words that are one side of a pair ("opt in" / "opt out", "scale up" / "scale down"): no
# word of what is proposed, but a proposition negated is the other's only with the same ones ("Do
# not opt out" affirms "Opt in"; "not before Q3" refuses no "in Q3").
PARTICLES = STOP & frozenset((ANTONYM_PAIRS + RELATIONAL_PAIRS).replace(",", " ").split())
# Words of a proposition that say nothing of what it proposes ("Use Redis" proposes Redis, as
# "Avoid Redis" refuses it; "should not be", "vote for the proposal" propose the rest).
UNSAID = wordset(
    "do does did be is are was were should would will could can must recommend suggest advise use using "
    "go choose pick adopt want need try really strongly just also still please definitely absolutely "
    "vote votes voting"
)
CLAUSE = re.compile(r"[.;:!?,()\[\]\n—–]|\s-\s|\b(?:but|however|ma|però|pero|mais|aber|though|although)\b")
# "Migrate? No.": a question asked is no position taken. Tried only where a clause starts, so a long
# clause is scanned once, not from each of its characters.
QUESTION = re.compile(r"(?<![^.;:!?\n])[^.;:!?\n]*\?")
# A name glued to its number ("q3", "v2", "gpt-4") is one word: "not before Q3" is not "not Q".
WORD = re.compile(r"[^\W\d_]+-?\d[^\W_]*|[^\W\d_]+(?:['’][^\W\d_]+)?|\d+(?:[.,]\d+)*")
# What a negation refuses, to the end of its clause (a comma or a point before a space, not the
# ones of "1,000" or "3.11"): its numbers are no number the answer gives ("Don't upgrade to
# Postgres 16" gives none, as "Stay on Postgres 15" gives 15).
REFUSED = re.compile(
    r"(?:\b(?:"
    + "|".join(sorted(NEGATIONS | NO, key=len, reverse=True))
    + r")\b|\b\w+n['’]t\b|"
    + NEGATING_PHRASES.pattern
    + r").*?(?=[;:!?\n()\[\]—–]|[.,](?:\s|$)|\s-\s|\b(?:but|however|ma|però|pero|mais|aber|though|although)\b|$)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Proposition:
    """A run of a clause's words under one polarity: "do not migrate to Kubernetes" is the
    proposition "migrate to Kubernetes", negated."""

    negated: bool
    words: frozenset[str]  # stems of the words that say what is proposed
    said: str = field(default="", compare=False)  # as written, for a person
    # "in" of "opt in to the beta", "5" of "hire 5 engineers": "Don't hire 5" does not negate "Hire 2"
    particles: frozenset[str] = field(default=frozenset(), compare=False)


@dataclass(frozen=True)
class Polarity:
    """What the guards read in one answer: its propositions, its lead yes/no, its quantities."""

    propositions: frozenset[Proposition]
    written: dict[str, str]  # stem -> a word as written, for the words a person reads
    lead: str  # "yes", "no" or ""
    quantities: frozenset[Quantity]
    names: frozenset[str]  # letters glued to digits ("q3", "gpt4", "h100"): names of versions and periods


def conflict(a: str, b: str) -> str:
    """Why answers ``a`` and ``b`` cannot be one answer, on evidence that holds whatever the
    wording, in words; "" when there is none (the judge's grouping stands)."""
    ra, rb = read(a), read(b)
    if ra.lead and rb.lead and ra.lead != rb.lead:
        return f"one answers {ra.lead}, the other {rb.lead}"
    if flipped := _flipped(ra, rb):
        return flipped
    return _numbers_differ(ra, rb)


def noticed(a: str, b: str) -> str:
    """What may set ``a`` and ``b`` apart but is no evidence on its own, in words ("" for nothing):
    a proposition negated in one that the other affirms with more words ("Don't migrate" /
    "Migrate to microservices next year"), an opposite word under one polarity in sentences that
    otherwise differ ("Stay on the monolith" / "Move to microservices")."""
    ra, rb = read(a), read(b)
    for one, other in ((ra, rb), (rb, ra)):
        for p in sorted(one.propositions, key=lambda p: p.said):
            if p.negated and any(not q.negated and p.words < q.words for q in other.propositions):
                return f"“{p.said}” is negated in one and affirmed in the other"
    for p in sorted(ra.propositions, key=lambda p: p.said):
        for q in sorted(rb.propositions, key=lambda q: q.said):
            if p.negated != q.negated:
                continue
            for x in sorted(p.words - q.words):
                for y in sorted(q.words - p.words):
                    if opposed(x, y) or frozenset({x, y}) in RELATIONAL:
                        return f"“{ra.written.get(x, x)}” may be the opposite of “{rb.written.get(y, y)}”"
    return ""


def apart(a: str, b: str) -> str:
    """Why ``a`` and ``b`` may not be taken as one where nothing reads their meaning: a conflict,
    or what the guards notice."""
    return conflict(a, b) or noticed(a, b)


def opposite(a: str, b: str) -> bool:
    """Two words of opposite meaning: an antonym pair, or one the other with a negating prefix."""
    return opposed(stem(a), stem(b)) or _prefixed(a, b)


def opposed(a: str, b: str) -> bool:
    """Two stems of opposite meaning, whatever the order of the words around them."""
    return frozenset({a, b}) in ANTONYMS or _prefixed(a, b)


def _prefixed(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    return len(short) >= 3 and any(long == prefix + short for prefix in NEGATING_PREFIXES)


def _flipped(a: Polarity, b: Polarity) -> str:
    """The proposition one answer negates and the other affirms, in words; "" for none. An answer
    that holds a proposition both ways ("Do not migrate now; migrate in Q3") affirms it too."""
    for one, other in ((a, b), (b, a)):
        for p in sorted(one.propositions, key=lambda p: p.said):
            for q in other.propositions:
                both_ways = Proposition(q.negated, p.words) in one.propositions or p in other.propositions
                same = p.words == q.words and p.particles == q.particles  # "not opt out" is no "opt in"
                if same and p.negated != q.negated and not both_ways:
                    return f"“{p.said}” is negated in one and affirmed in the other"
                if p.negated == q.negated and len(p.words - q.words) == 1 == len(q.words - p.words):
                    (x,), (y,) = p.words - q.words, q.words - p.words
                    if opposed(x, y):
                        return f"“{one.written.get(x, x)}” is the opposite of “{other.written.get(y, y)}”"
    return ""


def read(text: str) -> Polarity:
    """Propositions, the lead yes/no, the quantities: a clause's words before a negation are one
    proposition, affirmed; the words after it another, negated."""
    plain = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    plain = re.sub(r"n't\b", " not", plain.replace("won't", "will not").replace("can't", "can not"))
    plain = QUESTION.sub(" ", plain)
    propositions: set[Proposition] = set()
    written: dict[str, str] = {}
    lead = ""
    for number, clause in enumerate(CLAUSE.split(NEGATING_PHRASES.sub(" not ", plain))):
        tokens = WORD.findall(clause or "")
        found = [w for w in tokens if not w[0].isdigit()]
        if number == 0 and len(found) >= 1 and not lead:
            lead = "yes" if found[0] in YES else "no" if found[0] in NO and len(found) <= 2 else ""
        propositions |= _propositions(tokens)
        for word in found:
            written.setdefault(_root(word), word)
    given = REFUSED.sub(" ", QUESTION.sub(" ", unicodedata.normalize("NFKC", text)))
    names = frozenset(re.findall(r"\b[a-z]+-?\d+[a-z]*\b", given.casefold()))
    return Polarity(frozenset(propositions), written, lead, measured(given), names)


def _propositions(words: list[str]) -> set[Proposition]:
    """A clause's propositions: its words up to a negation, affirmed; each run after one, negated.
    Its numbers are no words of what is proposed, but set it apart as its small words do."""
    runs: list[tuple[bool, list[str]]] = [(False, [])]
    for word in words:
        if word in NEGATIONS or word in NO:
            runs.append((True, []))
        else:
            runs[-1][1].append(word)
    found = set()
    for negated, run in runs:
        content = [w for w in run if w not in STOP and w not in YES and not w[0].isdigit()]
        proposed = [w for w in content if w not in UNSAID] or content  # "Use it" still proposes "use"
        if proposed:
            shown = run[run.index(content[0]) : len(run) - run[::-1].index(content[-1])]
            particles = frozenset(w for w in run if w in PARTICLES or w[0].isdigit())
            found.add(Proposition(negated, frozenset(map(_root, proposed)), " ".join(shown), particles))
    return found


def _root(word: str) -> str:
    return stem(word.removesuffix("ly") if len(word) > 6 else word)  # "vertically" is "vertical"


def _numbers_differ(a: Polarity, b: Polarity) -> str:
    """Different numbers of one quantity: one dimension, or for counts one thing counted."""
    for dimension, noun in sorted(
        {(q.dimension, q.noun) for q in a.quantities} & {(q.dimension, q.noun) for q in b.quantities}
    ):
        mine = sorted((q for q in a.quantities if (q.dimension, q.noun) == (dimension, noun)), key=_order)
        theirs = sorted((q for q in b.quantities if (q.dimension, q.noun) == (dimension, noun)), key=_order)
        only_a = [q for q in mine if not _near(q, theirs)]
        only_b = [q for q in theirs if not _near(q, mine)]
        if only_a and only_b:
            return f"different numbers ({only_a[0].written} and {only_b[0].written})"
    for x in sorted(a.names - b.names):
        for y in sorted(b.names - a.names):
            if re.sub(r"\d", "", x) == re.sub(r"\d", "", y):
                return f"different versions or periods ({x} and {y})"
    return ""


def _order(quantity: Quantity) -> tuple[float, str]:
    return quantity.value, quantity.written


def _near(quantity: Quantity, among: list[Quantity]) -> bool:
    return any(math.isclose(q.value, quantity.value, rel_tol=1e-9, abs_tol=1e-12) for q in among)
