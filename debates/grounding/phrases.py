"""Computations said in words, read off a sentence's skeleton: percentages both ways ("12 % of 250
is 30", "30 is 12% of 250"), changes ("from 80 to 100 is a 25% increase", "125 is 25% more than
100"), compound growth ("10% a year for 5 years gives 1.61x") and doubling times, in the
languages models answer in where the phrase allows.
"""

import re

from debates.grounding import units
from debates.grounding.renderings import Claim, Rendering, Term, combined, rational, renderings
from debates.grounding.sides import APPROX, LABEL, PERCENT, UNIT, Skeleton

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
# "25% faster", "a 25% improvement": by time or by speed, by the figure or against it: not read.
NOT_BY_SPEED = (
    r"(?!\s+(?:faster|slower|quicker|speedier|better|worse|improvement|speed-?up|slowdown|more\s+efficient"
    r"|less\s+efficient|più\s+veloce|più\s+lento|más\s+rápido|más\s+lento|plus\s+rapide|plus\s+lent|schneller"
    r"|langsamer)(?![^\W_]))"
)
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
        rf"(?:{APPROX}\s*)?(?P<sign>[+-])?\s*#(?P<n>\d+){PERCENT}(?:\s+(?P<dir2>{INCREASE}|{DECREASE}))?{NOT_BY_SPEED}",
        "grew": rf"(?P<verb>{GREW}|{SHRANK})\s+(?:by\s+)?(?:{APPROX}\s*)?#(?P<n>\d+){PERCENT}\s+"
        rf"{FROM}\s+{A}\s+{TO}\s+{B}",
        "grew_from": rf"(?P<verb>{GREW}|{SHRANK})\s+{FROM}\s+{A}\s+{TO}\s+{B}\s*,?\s*"
        rf"(?:an?\s+|which\s+is\s+(?:an?\s+)?|i\.e\.\s+(?:an?\s+)?)?"
        rf"(?:(?:{INCREASE}|{DECREASE})\s+of\s+)?(?:{APPROX}\s*)?#(?P<n>\d+){PERCENT}",
        "than": rf"{B}{IS}(?:{APPROX}\s*)?#(?P<n>\d+){PERCENT}\s+(?P<dir>more|higher|larger|greater|bigger|above|longer"
        rf"|less|lower|smaller|fewer|below|shorter|cheaper)\s+than\s+{A}",
        "compound": rf"(?:{A}\s*,?\s+)?"
        rf"(?:growing|grows|grown|compounding|compounded|compounds|increasing|rising|at|with)\s+"
        rf"(?:at\s+)?#(?P<n>\d+){PERCENT}\s*(?:a|an|per|each|every|/)\s*(?P<period>{UNIT})\s*,?\s+(?:for|over|after|in)\s+{T}"
        rf"\s*,?\s*(?:{RESULTS})\s+(?:an?\s+)?(?:total\s+of\s+)?(?:{APPROX}\s*)?#(?P<r>\d+)\s*(?P<ur>x|times|{PERCENT}|{UNIT})?",
        "doubling": rf"#(?P<n>\d+){PERCENT}\s*(?:a|an|per|each|every|/)\s*(?P<period>{UNIT})(?P<mid>[^#.;]{{0,60}}?)"
        rf"\bdoubl(?:es|e|ing)\s+(?:in|every|after|within)\s+(?:{APPROX}\s*)?{T}",
    }.items()
}


def _percent(skeleton: Skeleton, index: str) -> list[Term]:
    return skeleton.values(index, "({0}/100)")


def _claim(
    skeleton: Skeleton,
    match: re.Match[str],
    kind: str,
    computed: list[Term],
    claimed: tuple[Rendering, ...],
    question: str,
    said: str,
    unit: str = "",
    percent: bool = False,
    magnitude: bool = False,
) -> Claim | None:
    rendered = renderings(computed)
    if not rendered or not claimed:
        return None
    quote = skeleton.quote(match.start(), match.end())
    return Claim(quote, kind, rendered, claimed, unit, percent, question, said, magnitude)


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
    computed = combined(
        "{0}*{1}", _percent(skeleton, match.group("p")), skeleton.amounts(match.group("b"), match.group("ub"))
    )
    question = f"{_written(skeleton, match, 'p')}% of {_written(skeleton, match, 'b')}"
    claimed = skeleton.claimed(match.group("r"), match.group("ur"))
    return _claim(
        skeleton, match, "percent", computed, claimed, question, _written(skeleton, match, "r"), match.group("ur") or ""
    )


def is_percent_of(skeleton: Skeleton, match: re.Match[str]) -> Claim | None:
    """ "30 is 12% of 250": 30 / 250 against 12 %."""
    if not _same_dimension(match.group("ub"), match.group("ur")) or bool(match.group("ub")) != bool(match.group("ur")):
        return None
    computed = combined(
        "{0}/{1}",
        skeleton.amounts(match.group("r"), match.group("ur")),
        skeleton.amounts(match.group("b"), match.group("ub")),
    )
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
    computed = combined("({1}-{0})/{0}", a_amounts, b_amounts)
    claimed = skeleton.claimed(groups["n"], "%", sign=-1 if direction < 0 else 1)
    question = f"the change from {_written(skeleton, match, 'a')} to {_written(skeleton, match, 'b')}"
    said = f"{'-' if direction < 0 else '+' if direction else ''}{_written(skeleton, match, 'n')}%"
    # No sign nor direction word: the size of the change is claimed, and its computed sign is said.
    return _claim(skeleton, match, "growth", computed, claimed, question, said, "%", True, not direction)


def than(skeleton: Skeleton, match: re.Match[str]) -> Claim | None:
    """ "125 is 25% more than 100": 125 / 100 − 1 against 25 %; "less": 1 − 125 / 100."""
    if not _same_dimension(match.group("ua"), match.group("ub")) or bool(match.group("ua")) != bool(match.group("ub")):
        return None
    more = _direction(match.group("dir")) > 0
    computed = combined(
        "{0}/{1}-1" if more else "1-{0}/{1}",
        skeleton.amounts(match.group("b"), match.group("ub")),
        skeleton.amounts(match.group("a"), match.group("ua")),
    )
    b, a = _written(skeleton, match, "b"), _written(skeleton, match, "a")
    question = f"how much {'more' if more else 'less'} {b} is than {a}"
    claimed = skeleton.claimed(match.group("n"), "%")
    return _claim(
        skeleton, match, "percent", computed, claimed, question, f"{_written(skeleton, match, 'n')}%", "%", percent=True
    )


def _periods(skeleton: Skeleton, match: re.Match[str]) -> list[Term]:
    """How many growth periods a duration is: "5 years" at "a year" is 5; "2 years" at "a month" 24."""
    period = units.unit(match.group("period"))
    if period is None or period.dimension != "time":
        return []
    duration = units.unit(match.group("ut")) if match.group("ut") else period
    if duration is None or duration.dimension != "time":
        return []
    if duration == period:  # "a year for 5 years": 5, whatever a year's length
        return skeleton.values(match.group("t"))
    if len(duration.sizes) > 1 and len(period.sizes) > 1:  # months and years: the calendar's ratio
        ratio = duration.sizes[0] / period.sizes[0]
        return skeleton.values(match.group("t"), "{0}*" + rational(ratio))
    durations = skeleton.amounts(match.group("t"), match.group("ut"))
    return [t for size in period.sizes for t in combined("({0})/" + rational(size), durations)]


def compound(skeleton: Skeleton, match: re.Match[str]) -> Claim | None:
    """ "100 growing 10% a year for 5 years reaches 161", or "… gives 1.61x", or "… 61% in all"."""
    periods = _periods(skeleton, match)
    result_unit = (match.group("ur") or "").strip()
    growth = combined("(1+{0})^({1})", _percent(skeleton, match.group("n")), periods)
    rate = f"{_written(skeleton, match, 'n')}% a {match.group('period')} for {_written(skeleton, match, 't')}"
    said = _written(skeleton, match, "r", unit=False)
    if match.group("a"):
        if not _same_dimension(match.group("ua"), result_unit or None) or result_unit.casefold() in ("x", "times"):
            return None
        computed = combined("{0}*{1}", skeleton.amounts(match.group("a"), match.group("ua")), growth)
        claimed = skeleton.claimed(match.group("r"), result_unit or None)
        question = f"{_written(skeleton, match, 'a')} grown {rate}"
        return _claim(
            skeleton, match, "growth", computed, claimed, question, f"{said} {result_unit}".strip(), result_unit
        )
    if re.fullmatch(PERCENT, result_unit, re.I):
        claimed = skeleton.claimed(match.group("r"), "%")
        question = f"the total growth at {rate}"
        return _claim(
            skeleton, match, "growth", combined("{0}-1", growth), claimed, question, f"{said}%", "%", percent=True
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
    doubled = combined("log(2)/log(1+{0})", _percent(skeleton, match.group("n")))
    question = f"the doubling time at {_written(skeleton, match, 'n')}% a {match.group('period')}"
    said = _written(skeleton, match, "t")
    if claimed_unit == period:  # in periods, whatever a year's length
        claimed = skeleton.claimed(match.group("t"), None)
        return _claim(skeleton, match, "growth", doubled, claimed, question, said, match.group("ut"))
    computed = [t for size in period.sizes for t in combined("{0}*" + rational(size), doubled)]
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
