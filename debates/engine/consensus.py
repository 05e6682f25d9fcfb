"""The vote protocol's maths: read ballots, group decisions that mean the same, apply thresholds.

Thresholds are exact fractions (2/3 is not 0.66). Grouping is deliberately conservative: a
group counts as agreement, so two decisions share one only when they are surely the same.

- With options from the asker, a ballot belongs to the option it names (its text, or its
  letter or number); a ballot that names none is not counted.
- Without, decisions are compared word by word after normalising case, markdown, punctuation,
  articles, leading verbs of choice ("Use", "I recommend", "Go with") and filler ("it",
  "option"). They are one decision when the remaining words are equal, or differ only in
  spelling variants ("postgres"/"postgresql", "approve"/"approved", "organise"/"organize").
  A negation ("not", "never", "without", "avoid", dis-/un-/in- before the bare word) on one
  side only, or an antonym pair ("increase"/"decrease", "ship"/"skip"), makes them different,
  always. Pairs that look alike yet are kept apart are named in ``Consensus.notes``.
- Groups are computed on the multiset of decisions, never on label order; a group is reported
  under its most common form as the voters wrote it (ties: shortest, then alphabetical).

Reading a ballot is lenient about syntax (JSON5 via ``json5``: single quotes, trailing
commas, comments, unquoted keys; Python literals; fences, prose and ``<think>`` blocks around
it) and strict about meaning: see ``read_confidence`` for the confidence rule.
"""

import ast
import json
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any

import json5
from rapidfuzz import fuzz

from debates.engine.vocabulary import Criticality

THRESHOLDS: dict[Criticality, Fraction] = {
    Criticality.LOW: Fraction(2, 3),
    Criticality.MEDIUM: Fraction(3, 4),
    Criticality.HIGH: Fraction(4, 5),
}
MIN_VOTES = 2  # one voice agreeing with itself is not a consensus
UNSURE_MARGIN = 15  # decisions this close below the similarity threshold, kept apart, get a note
MAX_NOTES = 10


class VoteParseError(ValueError):
    """The answer holds no usable decision; the message says why, for the user."""


@dataclass(frozen=True)
class Ballot:
    label: str
    decision: str
    confidence: float | None  # None when the voter gave none
    reasoning: str


@dataclass(frozen=True)
class Consensus:
    reached: bool
    decision: str | None
    agreement: Fraction
    threshold: Fraction
    votes: int
    groups: tuple[tuple[str, tuple[str, ...]], ...]  # (decision, labels), largest first
    dissenters: tuple[str, ...] = ()
    escalation: str = ""  # "", "human_review", "tie_breaker"
    notes: tuple[str, ...] = field(default=())
    seats: int = 0  # voters on the panel, when the caller says (a failed voter does not vote)

    def as_dict(self) -> dict[str, Any]:
        return {
            "reached": self.reached,
            "decision": self.decision,
            # Counts, not the reduced fraction: "2/4" says more than "1/2".
            "agreement": f"{len(self.groups[0][1]) if self.groups else 0}/{self.votes}",
            "agreement_ratio": float(self.agreement),
            "threshold": f"{self.threshold.numerator}/{self.threshold.denominator}",
            "threshold_ratio": float(self.threshold),
            "votes": self.votes,
            "seats": max(self.seats, self.votes),
            "groups": [{"decision": d, "labels": list(labels)} for d, labels in self.groups],
            "dissenters": list(self.dissenters),
            "escalation": self.escalation,
            "notes": list(self.notes),
        }


# --- reading a ballot ------------------------------------------------------------------------

MAX_TEXT = 100_000
MAX_STARTS = 200  # "{" positions tried, from the end
THINK_CLOSE = re.compile(r"</think(?:ing)?\s*>", re.IGNORECASE)
THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
SMART_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"})
DECISION_KEYS = {"decision", "finaldecision"}
CONFIDENCE_KEYS = {"confidence", "confidencelevel", "confidencescore"}
REASONING_KEYS = ("reasoning", "reason", "rationale", "justification", "explanation")
PLACEHOLDER = re.compile(r"<[^<>]*>|\[[^\[\]]*decision[^\[\]]*\]|.*\byour decision\b.*", re.IGNORECASE)
# Words a voter may give instead of a number; fixed so that votes stay comparable.
CONFIDENCE_WORDS = {
    "very low": 0.1,
    "low": 0.3,
    "medium low": 0.4,
    "moderately low": 0.4,
    "medium": 0.5,
    "moderate": 0.5,
    "medium high": 0.7,
    "moderately high": 0.7,
    "high": 0.8,
    "very high": 0.95,
}
SCALED = re.compile(r"(\d+(?:\.\d+)?)\s*(?:/|out of)\s*(10|100|5)\b")
PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
BARE_SCORE = re.compile(r"(:\s*)(\d+(?:\.\d+)?\s*(?:%|/\s*\d+|out of \d+))(?=\s*[,}\n])")
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?")


def parse_ballot(label: str, text: str, options: tuple[str, ...] = ()) -> Ballot:
    """The vote in an answer: the last JSON-like object holding a "decision" (at any depth),
    wherever it sits (fence, prose, after a ``<think>`` block, whose content is ignored).

    With ``options``, the decision must name one of them and becomes that option as written.
    """
    for obj in reversed(_objects(without_thinking(text)[-MAX_TEXT:])):  # the vote is at the end
        fields = _vote_fields(obj)
        if fields is not None:
            decision = _decision(fields[next(k for k in fields if k in DECISION_KEYS)])
            if options:
                decision = _option_named(decision, options)
            confidence = read_confidence(next((fields[k] for k in fields if k in CONFIDENCE_KEYS), None))
            reasoning = next((fields[k] for k in REASONING_KEYS if k in fields), "")
            if isinstance(reasoning, list):
                reasoning = " ".join(map(str, reasoning))
            return Ballot(label, decision, confidence, str(reasoning or "").strip())
    raise VoteParseError('no JSON object with a "decision" field was found in the answer')


def read_confidence(value: object) -> float | None:
    """A confidence as a fraction 0–1, or None when the voter gave none.

    Numbers: 0–1 as they are; 10 < x ≤ 100 is a percentage (85 → 0.85). 1 < x ≤ 10 is
    ambiguous (1.5 could be a slip, a 1–10 score or 1.5 %) and is refused: a 1–10 score must
    say so ("7/10", "7 out of 10"). Strings may also be "85%", "4/5", or a word: very low 0.1,
    low 0.3, medium/moderate 0.5, high 0.8, very high 0.95 (medium-low 0.4, medium-high 0.7).
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise VoteParseError(f"confidence {value!r} is not a number")
    if not isinstance(value, str):
        return _fraction(value)
    text = " ".join(re.sub(r"[-_]", " ", value.casefold()).split()).removesuffix(" confidence")
    text = re.sub(r"^(\d+),(\d+)", r"\1.\2", text)  # "0,8": a decimal comma
    if match := SCALED.match(text):
        number, scale = float(match[1]), float(match[2])
        if number > scale:
            raise VoteParseError(f"confidence {value!r} is outside its scale")
        return number / scale
    if match := PERCENT.match(text):
        if float(match[1]) > 100:
            raise VoteParseError(f"confidence {value!r} is outside 0–100%")
        return float(match[1]) / 100
    if match := NUMBER.match(text):
        return _fraction(match[0])
    for word in sorted(CONFIDENCE_WORDS, key=len, reverse=True):
        if re.match(rf"{word}\b", text):
            return CONFIDENCE_WORDS[word]
    raise VoteParseError(f"confidence {value!r} is not a number, a percentage or a word like high")


def _fraction(value: float | str) -> float:
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if math.isnan(number) or number < 0 or number > 100:
        raise VoteParseError(f"confidence {number:g} is outside 0–1")
    if number <= 1:
        return number
    if number <= 10:
        raise VoteParseError(f"confidence {number:g} is ambiguous: give a fraction 0–1 (or write 7/10 or 70%)")
    return number / 100


def without_thinking(text: str) -> str:
    """What follows the last think block (closed, or with only its end kept by the server), and
    nothing of a think block cut off before it closed."""
    closes = [m.end() for m in THINK_CLOSE.finditer(text)]
    if closes:
        text = text[closes[-1] :]
    opened = THINK_OPEN.search(text)
    return text[: opened.start()] if opened else text


def _objects(text: str) -> list[dict[object, object]]:
    """The outermost objects that parse, in order; a "{" inside one that parses is not a start."""
    found: list[dict[object, object]] = []
    reached = 0
    starts = [i for i, ch in enumerate(text) if ch == "{"][-MAX_STARTS:]
    for start in starts:
        if start < reached:
            continue
        end = _closing(text, start)
        if end is None:
            continue
        obj = _load(text[start:end])
        if isinstance(obj, dict):
            found.append(obj)
            reached = end
    return found


def _closing(text: str, start: int) -> int | None:
    """The index after the "}" that closes the "{" at ``start``, minding strings and comments."""
    depth, quote, i, limit = 0, "", start, min(len(text), start + MAX_TEXT // 5)
    while i < limit:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return None
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2) + 1
            if i <= 0:
                return None
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _load(span: str) -> object:
    """Strict JSON, then JSON5, then a Python literal; typographic quotes, then bare scores
    ("confidence": 85% or 7/10, unquoted) quoted, as last resorts."""
    quoted = BARE_SCORE.sub(r'\1"\2"', span.translate(SMART_QUOTES))
    for candidate in dict.fromkeys((span, span.translate(SMART_QUOTES), quoted)):
        for load in (lambda s: json.loads(s, strict=False), lambda s: json5.loads(s, strict=False), ast.literal_eval):
            try:
                return load(candidate)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
    return None


def _vote_fields(obj: dict[object, object], depth: int = 0) -> dict[str, object] | None:
    """The object's fields by normalised key, or those of a nested object holding the decision."""
    fields = {re.sub(r"[\s_-]", "", str(k).casefold()): v for k, v in obj.items()}
    if DECISION_KEYS & fields.keys():
        return fields
    if depth < 3:
        for value in obj.values():
            if isinstance(value, dict) and (nested := _vote_fields(value, depth + 1)) is not None:
                return nested
    return None


def _option_named(decision: str, options: tuple[str, ...]) -> str:
    index = match_option(decision, options)
    if index is None:
        listed = ", ".join(f"“{o.strip()}”" for o in options)
        raise VoteParseError(f"the decision “{decision}” is none of the options ({listed}); copy one exactly")
    return options[index].strip()


def _decision(value: object) -> str:
    if isinstance(value, list):
        named = {clean_decision(str(v)) for v in value if str(v).strip()}
        if len({normalise(v) for v in named}) > 1:
            raise VoteParseError(f"the decision names several choices ({', '.join(sorted(named))}); give one")
        value = min(named, default="")
    if isinstance(value, bool):
        value = "yes" if value else "no"
    if not isinstance(value, str | int | float):
        raise VoteParseError('the "decision" field is empty or not text')
    decision = clean_decision(str(value))
    if not decision:
        raise VoteParseError('the "decision" field is empty or not text')
    if PLACEHOLDER.fullmatch(decision):
        raise VoteParseError(f"the decision {decision!r} is the prompt's placeholder, not a decision")
    return decision


def clean_decision(text: str) -> str:
    """A decision as written, without the markdown, quotes and end punctuation around it."""
    text = " ".join(text.split())
    while True:
        stripped = text.strip(" *_`\"'“”‘’").rstrip(".!;:,").strip()
        if stripped == text:
            return text
        text = stripped


# --- normalising and comparing decisions -----------------------------------------------------

TOKEN = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+[+#]*")
CONTRACTIONS = [
    (re.compile(p), r) for p, r in ((r"\bwon't\b", "will not"), (r"\bcan't\b", "can not"), (r"n't\b", " not"))
]
# Leading words that introduce a choice without being part of it ("Use X", "I'd go with X").
LEADING_FILLER = frozenset({
    "i", "we", "d", "ll", "would", "should", "will", "strongly", "recommend", "recommends", "suggest", "vote",
    "for", "to", "go", "going", "with", "choose", "pick", "select", "adopt", "use", "using", "opt", "prefer",
    "my", "our", "final", "decision", "answer", "is", "let", "s",
})  # fmt: skip
# Words whose presence on one side only does not change the decision ("X it", "option B" / "B").
FILLER = LEADING_FILLER | {"it", "this", "that", "them", "option", "choice", "approach", "please", "definitely"}
ARTICLES = frozenset({"the", "a", "an"})
NEGATIONS = frozenset({
    "not", "no", "never", "without", "against", "avoid", "nor", "neither", "none", "non", "cannot",
    "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "shouldnt", "wouldnt", "wont", "cant", "mustnt",
})  # fmt: skip
NEGATING_PREFIXES = ("dis", "un", "in", "im", "il", "ir", "non", "de", "anti")
ANTONYM_PAIRS = """
approve reject, approve disapprove, approve deny, accept reject, accept decline, yes no, true false,
enable disable, keep remove, keep drop, keep delete, keep discard, keep replace, add remove, add drop,
increase decrease, increase reduce, increase lower, raise lower, more less, more fewer, higher lower,
up down, buy sell, include exclude, allow deny, allow block, allow forbid, permit forbid,
permit prohibit, start stop, continue stop, continue halt, proceed halt, proceed stop, proceed abort,
proceed wait, proceed pause, ship skip, ship hold, ship delay, merge revert, merge close, hire fire,
open close, on off, in out, before after, over under, upgrade downgrade, expand shrink, grow shrink,
sync async, synchronous asynchronous, public private, internal external, manual automatic,
pass fail, win lose, first last, min max, minimum maximum, now later, go stop, go wait, build buy,
monolith microservices, agree disagree, install uninstall, import export, inbound outbound,
optimistic pessimistic, horizontal vertical, push pull, static dynamic, online offline
"""


def normalise(decision: str) -> str:
    """A decision's comparison key: words only, lower case, no articles or leading verbs of choice."""
    return " ".join(_tokens(decision))


def _tokens(decision: str) -> list[str]:
    text = unicodedata.normalize("NFKC", decision).casefold().replace("’", "'")
    for pattern, replacement in CONTRACTIONS:
        text = pattern.sub(replacement, text)
    words = TOKEN.findall(text)
    # An article before a word goes; a lone letter stays ("option a", "plan a").
    words = [
        w
        for i, w in enumerate(words)
        if not (w in ARTICLES and i + 1 < len(words) and len(words[i + 1]) > 1 and words[i + 1].isalpha())
    ]
    start = 0
    while start < len(words) and words[start] in LEADING_FILLER:
        start += 1
    return words[start:] if start < len(words) else words


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


ANTONYMS = frozenset(
    frozenset(map(_stem, pair.split())) for pair in ANTONYM_PAIRS.replace("\n", " ").split(",") if pair.strip()
)


def opposite(a: str, b: str) -> bool:
    if frozenset({_stem(a), _stem(b)}) in ANTONYMS:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 3 and any(long == prefix + short for prefix in NEGATING_PREFIXES)


def _variant(a: str, b: str, similarity: float) -> bool:
    """Two spellings of one word: same stem, a shortened form, or a near-identical spelling."""
    if _stem(a) == _stem(b):
        return True
    short, long = sorted((a, b), key=len)
    if len(short) >= 4 and long.startswith(short) and len(short) / len(long) >= 0.6:
        return True
    common = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(short))
    return len(short) >= 5 and common >= 4 and fuzz.ratio(a, b) >= similarity


@dataclass(frozen=True)
class Relation:
    same: bool
    why: str = ""  # why two decisions were kept apart, when a person may wonder
    alike: bool = False  # they look alike (worth a note when kept apart)


def relation(a: str, b: str, similarity: float = 85.0) -> Relation:
    """Whether two decisions are surely the same; if not, why not, in words."""
    ta, tb = _tokens(a), _tokens(b)
    if ta == tb:
        return Relation(True)
    ka, kb = " ".join(ta), " ".join(tb)
    alike = fuzz.ratio(ka, kb) >= similarity - UNSURE_MARGIN
    if bool(NEGATIONS & set(ta)) != bool(NEGATIONS & set(tb)):
        return Relation(False, "one negates the other", alike or fuzz.token_set_ratio(ka, kb) == 100)
    ca, cb = Counter(ta), Counter(tb)
    xa, xb = [t for t in ta if (ca - cb)[t]], [t for t in tb if (cb - ca)[t]]
    if any(t[0].isdigit() or len(t) == 1 for t in xa + xb):
        return Relation(False)  # "option a"/"option b", "plan 10"/"plan 11": plainly different
    for x in xa:
        for y in xb:
            if opposite(x, y):
                return Relation(False, f"“{x}” is the opposite of “{y}”", alike)
    xa, xb = [t for t in xa if t not in FILLER], [t for t in xb if t not in FILLER]
    if not xa and not xb:
        if ca == cb:
            return Relation(False, "the same words in another order", True)
        return Relation(True)
    if len(xa) == len(xb) and all(_variant(x, y, similarity) for x, y in zip(xa, xb, strict=True)):
        return Relation(True)
    if not xa or not xb:
        extra = " ".join(xa or xb)
        return Relation(False, f"unsure whether “{extra}” changes the decision", True)
    return Relation(False, f"unsure whether “{' '.join(xa)}” means “{' '.join(xb)}”", alike)


# --- grouping and thresholds -----------------------------------------------------------------


def group(ballots: list[Ballot], similarity: float) -> tuple[list[tuple[str, list[Ballot]]], list[str]]:
    """Groups of ballots that surely mean the same, largest first, and notes on pairs kept apart.

    Computed on the multiset of decision keys, so the order of the ballots cannot matter:
    keys are linked when surely the same; a linked set where some pair is not the same is
    split into cliques, most frequent key first.
    """
    by_key: dict[str, list[Ballot]] = {}
    for ballot in ballots:
        by_key.setdefault(normalise(ballot.decision), []).append(ballot)
    keys = sorted(by_key, key=lambda k: (-len(by_key[k]), k))
    form = {k: _common_form(by_key[k]) for k in keys}
    relations = {(a, b): relation(form[a], form[b], similarity) for a, b in combinations(keys, 2)}
    same = {frozenset(pair) for pair, rel in relations.items() if rel.same}
    clusters: list[list[str]] = []
    for key in keys:
        home = next((c for c in clusters if all(frozenset((key, m)) in same for m in c)), None)
        if home is None:
            clusters.append([key])
        else:
            home.append(key)
    groups = [[b for k in cluster for b in by_key[k]] for cluster in clusters]
    shown = [(_common_form(members), members) for members in groups]
    shown.sort(key=lambda g: (-len(g[1]), g[0].casefold(), g[0]))
    cluster_of = {k: i for i, cluster in enumerate(clusters) for k in cluster}
    notes = []
    for (a, b), rel in relations.items():
        if cluster_of[a] == cluster_of[b]:
            continue
        if rel.same:
            notes.append(f"“{form[a]}” and “{form[b]}” could be one decision but their groups could not merge")
        elif rel.why and rel.alike:
            notes.append(f"kept apart, not counted as agreement: “{form[a]}” and “{form[b]}” ({rel.why})")
    return [(d, sorted(m, key=lambda b: b.label)) for d, m in shown], sorted(notes)[:MAX_NOTES]


def _common_form(ballots: list[Ballot]) -> str:
    """The form most voters wrote; ties go to the shortest, then the alphabetically first."""
    counts = Counter(clean_decision(b.decision) for b in ballots)
    return min(counts, key=lambda f: (-counts[f], len(f), f))


def match_option(decision: str, options: tuple[str, ...]) -> int | None:
    """The index of the option a decision names: its text (case, spacing and punctuation aside),
    or its letter or number ("B", "2", "Option B", "B) PostgreSQL"); None when it names none."""
    key = normalise(decision)
    keys = [normalise(o) for o in options]
    if key in keys:
        return keys.index(key)
    match = re.fullmatch(r"(?:option )?([a-z]|\d+)(?: (.+))?", key)
    if not match:
        return None
    index = int(match[1]) - 1 if match[1].isdigit() else ord(match[1]) - ord("a")
    if not 0 <= index < len(options) or (match[2] and match[2] != keys[index]):
        return None
    return index


def options_block(options: tuple[str, ...]) -> str:
    """The vote prompts' ``$options_block``: "" without options, else the list to copy from."""
    if not options:
        return ""
    listed = "\n".join(f"- {option.strip()}" for option in options)
    return (
        "\nThe asker gave these options. Your decision must be one of them, copied exactly as "
        f"written here (no other words):\n{listed}\n"
    )


def evaluate(
    ballots: list[Ballot],
    criticality: Criticality,
    similarity: float = 85.0,
    options: tuple[str, ...] = (),
    seats: int = 0,
) -> Consensus:
    """Consensus when the largest group's share of the counted votes reaches the threshold.

    ``similarity`` (0–100) is how alike two words must be to count as one spelled two ways.
    With ``options``, a ballot counts for the option it names and not at all if it names none.
    ``seats`` (the panel's voters) is only reported: the threshold applies to the votes cast.
    """
    threshold = THRESHOLDS[criticality]
    notes: list[str] = []
    if options:
        grouped, notes = _by_option(ballots, options)
    else:
        grouped, notes = group(ballots, similarity) if ballots else ([], [])
    counted = sum(len(members) for _, members in grouped)
    if not counted:
        return Consensus(False, None, Fraction(0), threshold, 0, (), notes=(*notes, "no valid votes"), seats=seats)
    top_decision, top = grouped[0]
    agreement = Fraction(len(top), counted)
    tied = len(grouped) > 1 and len(grouped[1][1]) == len(top)
    reached = counted >= MIN_VOTES and agreement >= threshold and not tied
    if counted < MIN_VOTES:
        notes.append(f"only {counted} valid vote: at least {MIN_VOTES} needed")
    escalation = "" if reached else ("human_review" if criticality == Criticality.HIGH else "tie_breaker")
    return Consensus(
        reached,
        top_decision if reached else None,
        agreement,
        threshold,
        counted,
        tuple((d, tuple(b.label for b in members)) for d, members in grouped),
        tuple(b.label for _, members in grouped[1:] for b in members),
        escalation,
        tuple(notes),
        seats,
    )


def _by_option(ballots: list[Ballot], options: tuple[str, ...]) -> tuple[list[tuple[str, list[Ballot]]], list[str]]:
    chosen: dict[int, list[Ballot]] = {}
    notes = []
    for ballot in sorted(ballots, key=lambda b: b.label):
        index = match_option(ballot.decision, options)
        if index is None:
            notes.append(f"{ballot.label}'s decision “{ballot.decision}” is none of the options: not counted")
        else:
            chosen.setdefault(index, []).append(ballot)
    order = sorted(chosen, key=lambda i: (-len(chosen[i]), i))
    return [(options[i].strip(), chosen[i]) for i in order], notes
