"""The claim ledger: who claims what, who attacked it, who conceded, who changed their mind.

Each contribution's closing block is read once (engine.reading.closing) into a record stored with it,
so a resumed run keeps it; ``Ledger`` puts a run's records together: claims, what happened to
each (an attack must name a claim that exists, else it is kept as unmatched, never counted),
position changes, each voice's stance against the emerging answer, and the claim × voice matrix
the page draws. Who gives the same answer, and which claims say the same thing, come from the
round's ``Agreement`` (the judge's, checked by the guards), else from the wording alone.
``dissent`` decides, after the blind round, whether debate = on_dissent skips the debate or
debates only the contested claims.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from debates.engine import agreement as agreements
from debates.engine import sameness
from debates.engine.reading import closing, gates
from debates.engine.vocabulary import JUDGED_KINDS, StepKind

# Contributions that state a voice's position, with an ANSWER line or a decision, or in their text.
POSITIONS = JUDGED_KINDS | {StepKind.DISSENT}


# --- the ledger of a run ---------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One contribution as the ledger sees it: who, in which round, of which kind, its record."""

    round: int
    label: str
    kind: str
    record: Mapping[str, Any]
    decision: str = ""  # a ballot's decision (vote protocol)
    reasoning: str = ""
    seat: str = ""
    footnotes: tuple[Mapping[str, Any], ...] = ()  # what it cites (sourcing.Footnote.as_dict), by number
    searches: int = 0  # web searches made for it

    @property
    def answer(self) -> str:
        """The position it states: a ballot's decision, or its ANSWER line ("" without one)."""
        return self.decision or str(self.record.get("answer", ""))


@dataclass
class Ledger:
    """Claims and what happened to them, built from the entries of every panel round in order."""

    entries: list[Entry]
    similarity: float = 85.0
    agreement: agreements.Agreement | None = None  # the latest round's, when it was judged
    claims: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)  # the computations checked between rounds

    def __post_init__(self) -> None:
        for entry in self.entries:
            self._take(entry)

    def _take(self, entry: Entry) -> None:
        record = entry.record
        if "claims" in record:
            cited = {note["n"]: note for note in entry.footnotes}
            for claim in record["claims"]:
                backing = [cited[n] for n in claim.get("sources", ()) if n in cited]
                self.claims.setdefault(
                    claim["id"], {**claim, "author": entry.label, "round": entry.round, "sources": backing}
                )
            if record.get("claims_status") in ("missing", "unreadable"):
                self.unreadable.append(entry.label)
        for attack in record.get("attacks", []):
            self._event(
                entry,
                attack["target"],
                "attacked",
                attack.get("evidence", ""),
                kind=attack.get("kind", ""),
                quote=attack.get("quote", ""),
            )
        for reply in record.get("replies", []):
            self._event(entry, reply["target"], reply["verdict"], reply.get("reason", ""))
        for verdict in record.get("verdicts", []):
            self._event(entry, verdict["target"], verdict["verdict"], verdict.get("reason", ""))
        if (change := record.get("change")) and (change.get("degree") or change.get("reason")):
            self.changes[entry.label] = {**change, "round": entry.round, "kind": entry.kind}

    def _event(self, entry: Entry, target: str, what: str, reason: str, **extra: str) -> None:
        event = {"round": entry.round, "by": entry.label, "target": target, "what": what, "reason": reason, **extra}
        claim = self.claims.get(target)
        if claim is None:
            self.unmatched.append(event | {"why": f"no claim {target} in the ledger"})
            return
        own = claim["author"] == entry.label
        if own and what in ("correct", "refute"):
            event["what"] = "conceded"  # a voice correcting its own claim concedes it
        elif own and what == "confirm":
            event["what"] = "defended"
        elif own and what == "attacked":
            self.unmatched.append(event | {"why": "a voice attacking its own claim"})
            return
        elif not own and what in ("conceded", "defended", "partly"):
            self.unmatched.append(event | {"why": f"{entry.label} answered for a claim of {claim['author']}"})
            return
        elif not own and what in ("correct", "refute"):
            event |= {"what": "attacked", "kind": what}
        elif not own and what == "confirm":
            event["what"] = "supported"
        if event["what"] == "conceded" and not gates.substantive(reason):
            self.flags.append(f"{entry.label} conceded {target} without a reason of substance")
        self.events.append(event)

    # --- what the page, the API and the moderator read ------------------------------------------
    def labels(self) -> list[str]:
        return sorted({e.label for e in self.entries}, key=_label_order)

    def searched(self) -> dict[str, int]:
        """Label -> the web searches made for its contributions, for the voices that searched."""
        found: dict[str, int] = {}
        for entry in self.entries:
            if entry.searches:
                found[entry.label] = found.get(entry.label, 0) + entry.searches
        return found

    @property
    def sourcing(self) -> bool:
        """Some voice searched the web or cites a source: each claim is then sourced or not."""
        return any(e.footnotes or e.searches for e in self.entries)

    def decisions(self) -> dict[str, str]:
        """Each voice's latest decision: its ballot, or the ANSWER line of its latest contribution."""
        return {label: entry.answer for label, entry in self.positions().items() if entry.answer}

    def positions(self) -> dict[str, Entry]:
        """Each voice's latest contribution that states its position (its answer, or its ballot), or
        that gives one without an ANSWER line (the judge reads its text)."""
        latest: dict[str, Entry] = {}
        for entry in self.entries:
            answered = entry.label in latest and latest[entry.label].answer
            if entry.answer or (entry.kind in POSITIONS and not answered):
                latest[entry.label] = entry
        return latest

    def first_decisions(self) -> dict[str, str]:
        first: dict[str, str] = {}
        for entry in self.entries:
            if entry.answer:
                first.setdefault(entry.label, entry.answer)
        return first

    def unexplained(self) -> list[str]:
        """Voices whose latest change of position gave no reason of substance, even when asked for one."""
        return sorted(label for label, change in self.changes.items() if change.get("unexplained"))

    def claim_texts(self) -> dict[str, tuple[str, str]]:
        """Claim id -> (author, text), for the judge and its claim matches."""
        return {claim_id: (claim["author"], claim["text"]) for claim_id, claim in self.claims.items()}

    def grouping(self) -> agreements.Agreement:
        """Who gives the same answer: the judged agreement, else the wording's."""
        if self.agreement is not None:
            return self.agreement
        answers = {label: entry.answer for label, entry in self.positions().items()}
        return agreements.by_wording(answers, self.similarity, unexplained=self.unexplained())

    def emerging(self) -> tuple[str, tuple[str, ...]] | None:
        """The largest group of latest answers, when one group is larger than every other."""
        largest = self.grouping().largest
        return (largest.answer, largest.labels) if largest else None

    def stances(self) -> dict[str, dict[str, str]]:
        """Each voice against the emerging answer: agrees, partly, disagrees, unexplained or unknown.

        The stance and its reason come from one source, the round's agreement: "partly" is a member
        of the largest group with a reservation the judge stated. A change of position in part, or
        an attack on the majority's claims, is shown where it happened (the card, the claims), not
        read as a reservation the agreement did not make."""
        grouping = self.grouping()
        largest = grouping.largest
        decisions = self.decisions()
        out: dict[str, dict[str, str]] = {}
        for label in self.labels():
            group = grouping.group_of(label)
            said = decisions.get(label) or (group.answer if group else "")
            if label in grouping.unexplained:
                out[label] = {"stance": "unexplained", "why": "changed its position without a reason of substance"}
            elif label in grouping.off_topic:
                out[label] = {"stance": "unknown", "why": "answers another question (the judge's reading)"}
            elif group is None:
                out[label] = {"stance": "unknown", "why": "no answer line to compare"}
            elif largest is None:
                why = "the panel is split evenly" if grouping.split_evenly else "no answer stands out"
                out[label] = {"stance": "unknown", "why": why}
            elif label not in largest.labels:
                out[label] = {"stance": "disagrees", "why": f"answers “{said}”"}
            elif reservation := grouping.reservation(label):
                out[label] = {"stance": "partly", "why": f"same answer, with a reservation: {reservation}"}
            else:
                out[label] = {"stance": "agrees", "why": f"answers “{said}”"}
        return out

    def matrix(self) -> list[dict[str, Any]]:
        """One row per claim: per voice, the cell at round 0 and at the end.

        Cells: claimed, supported, attacked, conceded, defended, changed (its author changed
        position entirely), "" (nothing said).
        """
        rows = []
        labels = self.labels()
        first = self.first_decisions()
        for claim_id, claim in self.claims.items():
            cells = {}
            for label in labels:
                start = "claimed" if label == claim["author"] else self._shared_start(claim, label, first)
                cells[label] = {"start": start, "end": self._end(claim_id, claim, label, start)}
            rows.append({**claim, "cells": cells, "status": self._status(claim_id, claim)})
        return rows

    def _shared_start(self, claim: Mapping[str, Any], label: str, first: Mapping[str, str]) -> str:
        """Round 0: another voice supports a claim when one of its own claims says the same."""
        theirs = [c for c in self.claims.values() if c["author"] == label]
        return "supported" if any(self.alike(claim, c) for c in theirs) else ""

    def alike(self, a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
        """Two claims that say the same thing: matched by the judge (within the guards), or in nearly
        the same words."""
        matched = any(a["id"] in ids and b["id"] in ids for ids in self.grouping().same_claims)
        return matched or sameness.same_claim(a["text"], b["text"])

    def _end(self, claim_id: str, claim: Mapping[str, Any], label: str, start: str) -> str:
        said = [e for e in self.events if e["target"] == claim_id and e["by"] == label]
        if label == claim["author"]:
            if self.changes.get(label, {}).get("degree") == "total":
                return "changed"
            return said[-1]["what"] if said else ("defended" if self._attacked(claim_id) else "claimed")
        return said[-1]["what"] if said else start

    def _attacked(self, claim_id: str) -> bool:
        return any(e["target"] == claim_id and e["what"] == "attacked" for e in self.events)

    def _status(self, claim_id: str, claim: Mapping[str, Any]) -> str:
        """standing (never attacked), contested (attacked, not conceded), conceded, withdrawn."""
        said = [e for e in self.events if e["target"] == claim_id]
        if any(e["what"] == "conceded" for e in said):
            return "conceded"
        if self.changes.get(claim["author"], {}).get("degree") == "total":
            return "withdrawn"
        return "contested" if any(e["what"] == "attacked" for e in said) else "standing"

    def change_flags(self) -> list[str]:
        """The sycophancy signals of the position changes, and changes a voice did not state."""
        found = []
        first, latest = self.first_decisions(), self.decisions()
        for label, change in self.changes.items():
            if flag := gates.change_flag(change.get("degree", ""), change.get("reason", "")):
                found.append(f"{label}: {flag}")
            if change.get("unexplained"):
                found.append(f"{label}: asked for the basis of its change, it gave none: the change weighs nothing")
            moved = (
                label in first
                and label in latest
                and not sameness.relation(first[label], latest[label], self.similarity).same
            )
            if change.get("degree") == "none" and moved:
                found.append(
                    f"{label} says it did not change, but its answer went from “{first[label]}” to “{latest[label]}”"
                )
        return found

    def as_dict(self) -> dict[str, Any]:
        """The ledger as stored on the question and served by the API."""
        return {
            "claims": self.matrix(),
            "events": self.events,
            "unmatched": self.unmatched,
            "changes": self.changes,
            "stances": self.stances(),
            "emerging": (self.emerging() or ("", ()))[0],
            "agreement": self.grouping().as_dict(),
            "unreadable": self.unreadable,
            "flags": [*self.flags, *self.change_flags()],
            "labels": self.labels(),
            "checks": self.checks,
            "sourcing": self.sourcing,
            "searched": self.searched(),
        }

    def for_moderator(self) -> str:
        """The ledger in words, for the synthesis prompt: the audit trail is built from it."""
        if not self.claims and not self.changes:
            return ""
        lines = ["Claims (round 0):"]
        lines += [
            f"- {c['id']} ({c['author']}{closing.tag(c)}): {c['text']}{_backed(c) if self.sourcing else ''}"
            for c in self.claims.values()
        ]
        if self.unreadable:
            lines.append(f"- claims of {', '.join(self.unreadable)}: could not be read (judge their text)")
        if self.events:
            lines.append("What happened to them:")
            lines += [f"- {e['by']} {e['what']} {e['target']}{_detail(e)}" for e in self.events]
        if self.changes:
            lines.append("Position changes:")
            lines += [
                f"- {label}: {c.get('degree') or 'not stated'} — {c.get('reason') or 'no reason given'}"
                for label, c in self.changes.items()
            ]
        if flags := [*self.flags, *self.change_flags()]:
            lines.append("Signals:")
            lines += [f"- {flag}" for flag in flags]
        return "\n".join(lines)


def _backed(claim: Mapping[str, Any]) -> str:
    """What a claim rests on, for the moderator: its sources, or none."""
    found = claim.get("sources") or []
    if not found:
        return " — unsourced"
    return " — sourced: " + "; ".join(
        f"[{s['n']}] {s['name']}" + (f" ({s['url']})" if s.get("url") else "") for s in found
    )


def _detail(event: Mapping[str, Any]) -> str:
    kind = f" ({event['kind'].replace('_', ' ')})" if event.get("kind") else ""
    quote = f" on “{event['quote']}”" if event.get("quote") else ""
    reason = f": {event['reason']}" if event.get("reason") else ": no reason given"
    return f"{kind}{quote}{reason}"


def _claim_order(claim_id: str) -> tuple[int, str, int]:
    """A1 < A2 < A10 < B1; "12.3" after the letters."""
    match = re.fullmatch(r"(\d+\.|[A-Z])(\d+)", claim_id)
    if match is None:
        return (2, claim_id, 0)
    who = match[1]
    return (1, f"{int(who[:-1]):04d}", int(match[2])) if who.endswith(".") else (0, who, int(match[2]))


def _label_order(label: str) -> tuple[int, str]:
    suffix = label.rsplit(" ", 1)[-1]
    return (int(suffix), "") if suffix.isdigit() else (0, label)


# --- debate only where the panel splits ----------------------------------------------------------


@dataclass(frozen=True)
class DissentCheck:
    """What the blind round showed: skip the debate, or debate only the contested claims."""

    skip: bool
    reason: str
    agreement: str = ""  # "3/3": voices giving the largest answer, of those that answered
    method: str = ""  # how the answers were grouped: "judge" (by meaning) or "wording"
    contested: tuple[str, ...] = ()  # claim ids, the dissenters' first
    shared: tuple[str, ...] = ()
    calls_skipped: int = 0  # the debate's calls not made, and their judge's
    calls_saved: int = 0  # net of the judge's call that decided it
    tokens_saved: int = 0
    cost_saved: Decimal = Decimal("0")
    judge_calls: int = 0
    judge_tokens: int = 0
    judge_cost: Decimal = Decimal("0")

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": "on_dissent",
            "skipped": self.skip,
            "reason": self.reason,
            "agreement": self.agreement,
            "threshold": "every voice that answered",
            "grouped_by": self.method,
            "contested": list(self.contested),
            "shared": list(self.shared),
            "calls_skipped": self.calls_skipped,
            "calls_saved": self.calls_saved,
            "tokens_saved": self.tokens_saved,
            "cost_saved": str(self.cost_saved),
            "judge": {"calls": self.judge_calls, "tokens": self.judge_tokens, "cost": str(self.judge_cost)},
        }


def shared_claims(ledger: Ledger) -> tuple[list[str], list[str]]:
    """(contested, shared) claim ids: a claim is shared when every other voice made one like it.

    Contested claims come the dissenters' first: a lone dissent is what a debate is for.
    """
    by_voice: dict[str, list[dict[str, Any]]] = {}
    for claim in ledger.claims.values():
        by_voice.setdefault(claim["author"], []).append(claim)
    contested: list[str] = []
    shared: list[str] = []
    for claim_id, claim in sorted(ledger.claims.items(), key=lambda item: _claim_order(item[0])):
        others = [label for label in by_voice if label != claim["author"]]
        alike = others and all(any(ledger.alike(claim, c) for c in by_voice[o]) for o in others)
        (shared if alike else contested).append(claim_id)
    largest = ledger.grouping().largest
    majority = set(largest.labels) if largest else set()
    contested.sort(key=lambda claim_id: ledger.claims[claim_id]["author"] in majority)  # stable: dissenters first
    return contested, shared


def dissent(ledger: Ledger, heterogeneous: bool, contradicted: Iterable[str], adversarial: bool) -> DissentCheck:
    """Skip the debate only when every voice that answered gives one answer, on a heterogeneous panel,
    with no claim contradicting the verified facts, and never the critique of an adversarial panel
    (agreement without new arguments is a failed round there): otherwise debate the contested claims."""
    grouping = ledger.grouping()
    contested, shared = shared_claims(ledger)
    top = len(grouping.groups[0].members) if grouping.groups else 0
    share = f"{top}/{grouping.answered()}"
    how = "grouped by meaning by the judge" if grouping.method == agreements.JUDGE else "grouped by wording only"
    found = (share, grouping.method, tuple(contested), tuple(shared))
    if grouping.unanimous and heterogeneous and not list(contradicted) and not adversarial:
        return DissentCheck(True, f"every voice that answered gives one answer ({share}, {how})", *found)
    if not grouping.unanimous:
        why = f"the panel is not unanimous ({share} give the largest answer, {how})"
    elif adversarial:
        why = "the panel agrees, but an adversarial panel's critique always runs: it covers the contested claims"
    elif not heterogeneous:
        why = "the panel agrees, but its voices share a model family: agreement is weak evidence"
    else:
        why = "claims contradict the verified facts"
    return DissentCheck(False, why, *found)
