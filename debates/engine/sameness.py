"""Whether two short texts say the same thing: the one rule for decisions and answer lines
(``relation``), claims (``same_claim``) and a ballot against the asker's options (``option_named``).

All three read the words the same way (``reading.words``: case, markdown, punctuation, articles,
contractions and leading verbs of choice aside) and keep texts apart the same way: a number or a
single letter that differs ("option A" / "option B", "90%" / "60%"), a negation on one side only,
an opposite (``guards``), or a differing word that is no spelling of the other ("Deploy on
Friday" / "Deploy on Monday"). What counts as one differs only as far as the texts do: a decision
is compared word for word in order, a claim in any order, a ballot against the options' words.
Sure only: a pair kept apart that looks alike is said, never taken as the same.
"""

from collections import Counter
from dataclasses import dataclass

from rapidfuzz import fuzz

from debates.engine import guards
from debates.engine.reading.words import FILLER, STOP, normalise, stem, tokens, wordset

UNSURE_MARGIN = 15  # decisions this close below the similarity threshold, kept apart, are worth a note
SHARED_SIMILARITY = 80  # token-sort similarity (0–100) at which two voices' claims may count as one
# Words a claim may have that the other lacks without saying anything else ("about 90%", "make up").
CARRY_NOTHING = wordset("about around roughly approximately nearly almost all some any just really very make makes up")
# Short forms people write for names, beyond a name's own prefix ("postgres" is PostgreSQL's).
SHORT_FORMS = {
    "pg": "postgresql",
    "psql": "postgresql",
    "k8s": "kubernetes",
    "js": "javascript",
    "ts": "typescript",
    "py": "python",
    "golang": "go",
    "es": "elasticsearch",
}


@dataclass(frozen=True)
class Relation:
    same: bool
    why: str = ""  # why two decisions were kept apart, when a person may wonder
    alike: bool = False  # they look alike (worth a note when kept apart)


def variant(a: str, b: str, similarity: float = 85.0) -> bool:
    """Two spellings of one word: the same stem, a known or shortened form, or a near-identical spelling."""
    a, b = SHORT_FORMS.get(a, a), SHORT_FORMS.get(b, b)
    if stem(a) == stem(b):
        return True
    if any(c.isdigit() for c in a + b) or min(len(a), len(b)) == 1:
        return False  # "plan 10" / "plan 11", "a" / "b": never one word spelled twice
    short, long = sorted((a, b), key=len)
    if len(short) >= 4 and long.startswith(short) and len(short) / len(long) >= 0.6:
        return True
    common = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(short))
    return len(short) >= 5 and common >= 4 and fuzz.ratio(a, b) >= similarity


def relation(a: str, b: str, similarity: float = 85.0) -> Relation:
    """Whether two decisions (or answer lines) are surely the same; if not, why not, in words."""
    ta, tb = tokens(a), tokens(b)
    if ta == tb:
        return Relation(True)
    ka, kb = " ".join(ta), " ".join(tb)
    alike = fuzz.ratio(ka, kb) >= similarity - UNSURE_MARGIN
    if bool(guards.NEGATIONS & set(ta)) != bool(guards.NEGATIONS & set(tb)):
        return Relation(False, "one negates the other", alike or fuzz.token_set_ratio(ka, kb) == 100)
    ca, cb = Counter(ta), Counter(tb)
    xa, xb = [t for t in ta if (ca - cb)[t]], [t for t in tb if (cb - ca)[t]]
    if any(t[0].isdigit() or len(t) == 1 for t in xa + xb):
        return Relation(False)  # "option a"/"option b", "plan 10"/"plan 11": plainly different
    if opposites := _opposed(xa, xb):
        return Relation(False, f"“{opposites[0]}” is the opposite of “{opposites[1]}”", alike)
    xa, xb = [t for t in xa if t not in FILLER], [t for t in xb if t not in FILLER]
    if not xa and not xb:
        if ca == cb:
            return Relation(False, "the same words in another order", True)
        return Relation(True)
    if len(xa) == len(xb) and all(variant(x, y, similarity) for x, y in zip(xa, xb, strict=True)):
        return Relation(True)
    if not xa or not xb:
        extra = " ".join(xa or xb)
        return Relation(False, f"unsure whether “{extra}” changes the decision", True)
    return Relation(False, f"unsure whether “{' '.join(xa)}” means “{' '.join(xb)}”", alike)


def same_claim(a: str, b: str) -> bool:
    """Two voices' claims that plainly say the same thing (what the panel shares, so not debated).

    Conservative, since a claim wrongly taken as shared escapes the debate: the words nearly the
    same in any order, every word one has and the other lacks a word that carries nothing ("about",
    "all") or another spelling of one the other has, and no guard between them (numbers, a
    negation, an opposite)."""
    if relation(a, b).same:
        return True
    ka, kb = normalise(a), normalise(b)
    if fuzz.token_sort_ratio(ka, kb) < SHARED_SIMILARITY or guards.apart(a, b):
        return False
    ca, cb = Counter(ka.split()), Counter(kb.split())
    only_a, only_b = list((ca - cb).elements()), list((cb - ca).elements())
    if _opposed(only_a, only_b):
        return False
    unmatched_b = [w for w in only_b if not _carries_nothing(w)]
    for word in only_a:
        twin = next((w for w in unmatched_b if variant(word, w)), None)
        if twin is not None:
            unmatched_b.remove(twin)
        elif not _carries_nothing(word):
            return False
    return not unmatched_b


def option_named(decision: str, options: tuple[str, ...]) -> int | None:
    """The index of the option a decision names, None when it names none or more than one: its text
    (case, punctuation and spelling aside: "postgres" is "PostgreSQL"), its letter or number ("B",
    "2", "Option B", "B) PostgreSQL"), or the one option whose distinctive words it uses and whose
    words hold all of its own ("Mongo" of "MongoDB", "PostgreSQL" of "PostgreSQL with replicas")."""
    key = normalise(decision)
    keys = [normalise(o) for o in options]
    if key in keys:
        return keys.index(key)
    if (lettered := _lettered(key)) is not None:
        return _by_letter(*lettered, keys)
    same = [i for i, option in enumerate(options) if relation(decision, option).same]
    if same:
        return same[0] if len(same) == 1 else None
    words = [w for w in key.split() if not _carries_nothing(w)]
    if not words or guards.NEGATIONS & set(words):
        return None
    named = [
        i
        for i, option in enumerate(keys)
        if all(any(variant(w, o) for o in option.split()) for w in words)
        and any(_distinctive(w, i, keys) for w in words)
        and not guards.apart(decision, options[i])
    ]
    return named[0] if len(named) == 1 else None


def _lettered(key: str) -> tuple[str, str] | None:
    """(the letter or number, the text after it) of a decision that names an option so ("b mongodb",
    "option 2"); None for one that does not."""
    parts = key.split(" ")
    if parts[0] == "option" and len(parts) > 1:
        parts = parts[1:]
    mark = parts[0]
    if (mark.isdigit() and len(mark) <= 3) or (len(mark) == 1 and mark.isalpha()):  # no 5,000-digit "option"
        return mark, " ".join(parts[1:])
    return None


def _by_letter(mark: str, rest: str, keys: list[str]) -> int | None:
    """The option at that letter or number, if there is one and the text after it is its own."""
    index = int(mark) - 1 if mark.isdigit() else ord(mark) - ord("a")
    if not 0 <= index < len(keys) or (rest and not relation(rest, keys[index]).same):
        return None
    return index


def _distinctive(word: str, index: int, keys: list[str]) -> bool:
    """Whether ``word`` is in the option at ``index`` and in no other."""
    holders = [i for i, key in enumerate(keys) if any(variant(word, o) for o in key.split())]
    return holders == [index]


def _carries_nothing(word: str) -> bool:
    return word in FILLER or word in STOP or word in CARRY_NOTHING


def _opposed(xa: list[str], xb: list[str]) -> tuple[str, str] | None:
    """The first pair of words, one from each side, of opposite meaning."""
    return next(((x, y) for x in xa for y in xb if guards.opposite(x, y)), None)
