"""A finished debate told one way, on the page and in its exports: how far the panel backs the verdict,
what the check after the blind round decided, how the run ended, and who a voice was.

The page and the exports read the same stored values (the ledger, the consensus, the synthesis, the
panel that ran) through these functions, so neither can tell a story the other does not.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

STRONG_CONFIDENCE = 0.7  # the moderator's confidence at or above which a unanimous panel is strong support
WEAK_CONFIDENCE = 0.5  # below it, the verdict's support is weak whatever the panel did
WITH_THE_ANSWER = {"agrees", "partly"}


@dataclass(frozen=True)
class Support:
    """How far the panel backs the verdict: its agreement at the end and the moderator's confidence.

    Not the panel's heterogeneity: that says what a convergence would be worth, not whether there
    was one, and is shown with the panel."""

    level: str  # strong | mixed | weak
    words: str  # "majority 2/3 · confidence 0.60"


def support(ledger: Mapping[str, Any], consensus: Mapping[str, Any], confidence: float | None) -> Support | None:
    """The verdict's support: a vote's count where there was a vote, else the voices standing with the
    emerging answer (the stances the page lists), and the moderator's own confidence."""
    backing = _backing(ledger, consensus)
    said = [] if backing is None else [_agreement(*backing)]
    said += [f"confidence {confidence:.2f}"] if confidence is not None else []
    if not said:
        return None
    unanimous = backing is not None and backing[0] == backing[1]
    no_majority = backing is not None and 2 * backing[0] <= backing[1]
    sure = confidence is None or confidence >= STRONG_CONFIDENCE
    if no_majority or (confidence is not None and confidence < WEAK_CONFIDENCE):
        level = "weak"
    else:
        level = "strong" if unanimous and sure else "mixed"
    return Support(level, " · ".join(said))


def _backing(ledger: Mapping[str, Any], consensus: Mapping[str, Any]) -> tuple[int, int] | None:
    """(voices with the leading answer, voices counted); None when nothing was counted."""
    if consensus and consensus.get("votes"):
        top, _, votes = str(consensus.get("agreement", "")).partition("/")
        return (int(top), int(votes)) if top.isdigit() and votes.isdigit() else None
    stances: Mapping[str, Mapping[str, str]] = (ledger or {}).get("stances") or {}
    if len(stances) < 2:
        return None
    return sum(s.get("stance") in WITH_THE_ANSWER for s in stances.values()), len(stances)


def _agreement(top: int, of: int) -> str:
    if top == of:
        return f"unanimous {top}/{of}"
    if 2 * top > of:
        return f"majority {top}/{of}"
    return "no answer leads" if top == 0 else f"no majority {top}/{of}"


def debate_check(check: Mapping[str, Any], cost: bool = True) -> tuple[str, str]:
    """What on_dissent decided, as (its name, the rest in words). A skipped debate lists no claims;
    "only the contested claims" is said only when some claims were left out of the debate."""
    if check.get("skipped"):
        calls = check.get("calls_saved", 0)
        figures = f"~{check.get('tokens_saved', 0)} tokens"
        figures += f", ~${Decimal(check['cost_saved']):.4f}" if cost and "cost_saved" in check else ""
        net = ", net of the judge's call that decided it" if (check.get("judge") or {}).get("calls") else ""
        saved = f"Saved {calls} call{'s' if calls != 1 else ''} ({figures}) against always debating{net}."
        return "Debate skipped", f"{check.get('reason', '')}. {saved}"
    contested, shared = list(check.get("contested") or []), list(check.get("shared") or [])
    if contested and shared:
        claims = f" Debated only the contested claims: {', '.join(contested)} (the panel shared {', '.join(shared)})."
    elif len(contested) == 1:
        claims = " The one claim was contested, and debated."
    elif contested:
        claims = f" Every claim was contested: all {len(contested)} were debated."
    else:
        claims = ""
    return "Debate", f"{check.get('reason', '')}.{claims}"


def who(label: str, name: str) -> str:
    """A voice as a heading names it: "Panelist A (Gamma house)", and a name that holds its label once
    ("Moderator (GPT-4o)", never "Moderator (Moderator (GPT-4o))")."""
    if not name or name == label:
        return label
    return name if label.casefold() in name.casefold() else f"{label} ({name})"
