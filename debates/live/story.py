"""A finished debate told one way, on the page and in its exports: how far the panel backs the verdict,
what the check after the blind round decided, how the run ended, and who a voice was.

The page and the exports read the same stored values (the ledger, the consensus, the synthesis, the
panel that ran) through these functions, so neither can tell a story the other does not.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import quote

STRONG_CONFIDENCE = 0.7  # the moderator's confidence at or above which a unanimous panel is strong support
WEAK_CONFIDENCE = 0.5  # below it, the verdict's support is weak whatever the panel did
# The marks that make Markdown or HTML of plain text, inside a line (a backslash makes each literal).
MARKS = re.compile(r"([\\`*_\[\]<>!|~&])")


@dataclass(frozen=True)
class Support:
    """How far the panel backs the verdict: its agreement at the end and the moderator's confidence.

    Not the panel's heterogeneity: that says what a convergence would be worth, not whether there
    was one, and is shown with the panel."""

    level: str  # strong | mixed | weak
    words: str  # "majority 2/3 · confidence 0.60"


def support(agreement: Mapping[str, Any] | None, confidence: float | None) -> Support | None:
    """The verdict's support: the panel's agreement (``agreement``, below) and the moderator's own
    confidence."""
    backing = (agreement["agreeing"], agreement["answered"]) if agreement else None
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


def evidence(backing: Support | None, heterogeneity: str) -> str:
    """What the panel's agreement is worth as evidence (strong | mixed | weak): strong only when a
    heterogeneous panel backs the verdict strongly (a 2–1 split is never strong evidence, nor a
    homogeneous panel's convergence); "" when nothing backs a verdict yet."""
    if backing is None:
        return ""
    if backing.level == "weak" or heterogeneity == "weak":
        return "weak"
    return "strong" if backing.level == "strong" and heterogeneity == "strong" else "mixed"


def agreement(ledger: Mapping[str, Any], consensus: Mapping[str, Any]) -> dict[str, Any] | None:
    """The one agreement figure (the page's chip, the API, MCP, the CLI, the exports): how many voices
    give the answer most give, of those that answered — a vote's count, else the latest round's
    grouping (by meaning where the judge could). None before a round is grouped."""
    if consensus and consensus.get("votes"):
        groups = consensus.get("groups") or []
        agreeing = len(groups[0]["labels"]) if groups else 0
        answer = consensus.get("decision") or (groups[0]["decision"] if groups else "")
        return _share(agreeing, consensus["votes"], answer, consensus.get("grouped_by", ""))
    grouping = (ledger or {}).get("agreement") or {}
    groups = grouping.get("groups") or []
    if not groups:
        return None
    answered = sum(len(g["members"]) for g in groups) + sum(
        len(grouping.get(key) or []) for key in ("unplaced", "unexplained", "off_topic")
    )
    even = len(groups) > 1 and len(groups[1]["members"]) == len(groups[0]["members"])
    top = groups[0]
    return _share(len(top["members"]), answered, "" if even else top["answer"], grouping.get("method", ""))


def agreement_words(ledger: Mapping[str, Any], consensus: Mapping[str, Any]) -> str:
    """The panel's agreement as the run page's chip words it ("majority 2/3"), for a list of questions;
    "" before a round is grouped."""
    found = agreement(ledger, consensus)
    return _agreement(found["agreeing"], found["answered"]) if found else ""


def _share(agreeing: int, answered: int, answer: str, by: str) -> dict[str, Any] | None:
    if not answered:
        return None
    return {
        "agreeing": agreeing,
        "answered": answered,
        "ratio": round(agreeing / answered, 2),
        "answer": answer,
        "by": by,
    }


def _agreement(top: int, of: int) -> str:
    if top == of:
        return f"unanimous {top}/{of}"
    if 2 * top > of:
        return f"majority {top}/{of}"
    return "no answer leads" if top == 0 else f"no majority {top}/{of}"


ON_SUBSCRIPTION = "on your subscription"  # a CLI voice that reported no cost: its login's plan paid


THOUGHT = "Its reasoning, as its provider summarised it (no part of its answer):"


def cost_said(cost: Decimal | str, on_subscription: int = 0) -> str:
    """What a run cost, in words: its dollars, and how many voices a CLI's subscription paid for
    instead (their calls are no $0.00 here: they cost the plan, not nothing)."""
    money = f"${Decimal(cost):.4f}"
    if not on_subscription:
        return money
    return f"{money} + {on_subscription} voice{'s' if on_subscription != 1 else ''} {ON_SUBSCRIPTION}"


def debate_check(check: Mapping[str, Any], cost: bool = True) -> tuple[str, str]:
    """What on_dissent decided, as (its name, the rest in words). A skipped debate lists no claims;
    "only the claims not shared" is said only when some claims were left out of the debate. ("Contested"
    is the ledger's word for a claim attacked and not conceded, shown beside this: never this one's.)"""
    if check.get("skipped"):
        calls = check.get("calls_saved", 0)
        figures = f"~{check.get('tokens_saved', 0)} tokens"
        figures += f", ~${Decimal(check['cost_saved']):.4f}" if cost and "cost_saved" in check else ""
        net = ", net of the judge's call that decided it" if (check.get("judge") or {}).get("calls") else ""
        saved = f"Saved {calls} call{'s' if calls != 1 else ''} ({figures}) against always debating{net}."
        return "Debate skipped", f"{check.get('reason', '')}. {saved}"
    contested, shared = list(check.get("contested") or []), list(check.get("shared") or [])
    if contested and shared:
        claims = f" Debated only the claims not shared: {', '.join(contested)} (the panel shared {', '.join(shared)})."
    elif len(contested) == 1:
        claims = " The one claim was not shared, and debated."
    elif contested:
        claims = f" No claim was shared: all {len(contested)} were debated."
    else:
        claims = ""
    return "Debate", f"{check.get('reason', '')}.{claims}"


def who(label: str, name: str) -> str:
    """A voice as a heading names it: "Panelist A (Gamma house)", and a name that holds its label once
    ("Moderator (GPT-4o)", never "Moderator (Moderator (GPT-4o))")."""
    if not name or name == label:
        return label
    return name if label.casefold() in name.casefold() else f"{label} ({name})"


UNSOURCED = "Unsourced: it cites no source for what it says."


def sources_lines(notes: Sequence[Mapping[str, Any]], unsourced: bool = False) -> list[str]:
    """A contribution's footnotes as Markdown (each page a link, a document by its name and page),
    or the line a voice that cites nothing gets: one wording for the exports, the OpenAI reply and MCP."""
    if not notes:
        return [f"*{UNSOURCED}*"] if unsourced else []
    return ["**Sources:**", "", *(f"{note['n']}. {cited(note)}" for note in notes)]


def cited(note: Mapping[str, Any]) -> str:
    """One source as a Markdown line: its name linked to its page (http or https only), and what it
    quotes. A page's title and text are the web's words: every Markdown and HTML mark in them is
    escaped, so they read as written and nothing in them renders as a tag or a link."""
    name = escaped(str(note.get("name") or note.get("url") or ""))
    url = str(note.get("url") or "")
    shown = f"[{name}](<{_address(url)}>)" if url.startswith(("http://", "https://")) else name
    quote = f" — “{escaped(str(note['quote']))}”" if note.get("quote") else ""
    return f"{shown}{quote}"


def panel_sources(contributions: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> list[dict[str, Any]]:
    """Every page the panel cites, once, in the order first cited, with the voices that cite it:
    (label, its footnotes) in, {"name", "url", "quote", "cited_by"} out."""
    found: dict[str, dict[str, Any]] = {}
    for label, notes in contributions:
        for note in notes:
            key = str(note.get("url") or note.get("name") or "")
            entry = found.setdefault(key, {**note, "cited_by": []})
            if label not in entry["cited_by"]:
                entry["cited_by"].append(label)
    return [{**entry, "n": n} for n, entry in enumerate(found.values(), 1)]


def panel_sources_lines(sources: Sequence[Mapping[str, Any]], searched: Mapping[str, int]) -> list[str]:
    """What the whole panel cites, for a reply that has room for one list (MCP, the OpenAI endpoint's
    content): each page once with who cites it, and who searched; nothing where nobody searched."""
    out = []
    if sources:
        out += ["**Sources the panel cites:**", ""]
        out += [f"{s['n']}. {cited(s)} — cited by {', '.join(s['cited_by'])}" for s in sources]
    if searched:
        who = ", ".join(f"{label} {times}×" for label, times in searched.items())
        out += ["", f"Searched the web: {who}."] if sources else [f"Searched the web ({who}), and cites no source."]
    return out


def escaped(text: str) -> str:
    """Text from outside, on one line, as Markdown that shows it as it is (a backslash before each mark)."""
    return MARKS.sub(r"\\\1", " ".join(text.split()))


def _address(url: str) -> str:
    """An address inside ``<…>``: what would end it (a space, ``<`` or ``>``) percent-encoded."""
    return quote(url, safe="".join(chr(c) for c in range(33, 127) if chr(c) not in "<>\\"))
