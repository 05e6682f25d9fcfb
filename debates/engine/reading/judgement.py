"""The agreement judge's reply, read: which voices give the same answer, matched claims, off-topic voices.

Asked for natively structured where the wire can (engine.judging), and read leniently anyway: the
reply may be fenced, single-quoted, wrapped in prose, name voices "A" or "Panelist A", members as
strings or objects. Only the voices on the panel count; a voice placed twice counts where it was
placed first. A reply with no grouping in it is no judgement, and says why.
"""

import re
from collections.abc import Collection
from dataclasses import dataclass

from debates.engine.reading import jsonish
from debates.engine.reading.text import clean_value, without_thinking

MAX_ANSWER = 200
MAX_RESERVATION = 300
RESERVED = re.compile(r"reserv|partly|partial|condition|caveat|but|in part|with", re.IGNORECASE)
CLAIM_ID = re.compile(r"^(?:[A-Z]|\d{1,2}\.)\d{1,2}$")


@dataclass(frozen=True)
class Judgement:
    groups: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # (answer, ((label, reservation), …)), in order
    off_topic: tuple[str, ...] = ()
    same_claims: tuple[tuple[str, ...], ...] = ()
    notes: tuple[str, ...] = ()  # what of the reply could not be used, in words

    def lines(self) -> list[str]:
        """The grouping in words, a line per group (a terminal, an MCP client, a chat front-end)."""
        return [
            f"“{answer}”: "
            + ", ".join(label + (f" (with a reservation: {why})" if why else "") for label, why in members)
            for answer, members in self.groups
        ]


def read(text: str, labels: Collection[str] | None = None) -> Judgement | str:
    """The judge's grouping of the voices ``labels`` (None: any voice named "Panelist …"); the reason,
    in words, when the reply holds none."""
    replies = [obj for obj in jsonish.objects(without_thinking(text)) if "groups" in jsonish.keyed(obj)]
    if not replies:
        return "its reply holds no JSON object with the groups"
    fields = jsonish.keyed(replies[-1])
    listed = fields["groups"]
    if not isinstance(listed, list) or not listed:
        return "its reply names no group"
    notes: list[str] = []
    placed: set[str] = set()
    groups = []
    for entry in listed:
        if not isinstance(entry, dict):
            continue
        group = jsonish.keyed(entry)
        answer = clean_value(str(group.get("answer") or ""))[:MAX_ANSWER]
        members = []
        for member in _listed(group.get("members")):
            label, reservation = _member(member, labels)
            if label is None:
                notes.append(f"the judge named a voice that is not on the panel ({str(member)[:40]})")
            elif label in placed:
                notes.append(f"the judge put {label} in two groups: the first counts")
            else:
                placed.add(label)
                members.append((label, reservation))
        if members:
            groups.append((answer or "(no answer given)", tuple(members)))
    if not groups:
        return "its groups name no voice of the panel"
    off_topic = tuple(dict.fromkeys(found for v in _listed(fields.get("offtopic")) if (found := _label(v, labels))))
    same = tuple(
        ids
        for match in _listed(fields.get("sameclaims"))
        if len(ids := tuple(i for i in (str(v).strip() for v in _listed(match)) if CLAIM_ID.match(i))) > 1
    )
    return Judgement(tuple(groups), off_topic, same, tuple(notes))


def _member(member: object, labels: Collection[str] | None) -> tuple[str | None, str]:
    """(label, reservation) of a member written as "Panelist A" or {"label": …, "agrees": …, "reservation": …}."""
    if not isinstance(member, dict):
        return _label(member, labels), ""
    fields = jsonish.keyed(member)
    label = _label(fields.get("label", fields.get("panelist", fields.get("voice"))), labels)
    reservation = clean_value(str(fields.get("reservation") or ""))[:MAX_RESERVATION]
    agrees = str(fields.get("agrees", "fully")).casefold()
    if not reservation and RESERVED.search(agrees):
        reservation = "with a reservation"
    return label, reservation


def _label(value: object, labels: Collection[str] | None) -> str | None:
    """The panel's label a judge meant: "Panelist A", "panelist a", "A", "Panelista A"."""
    written = " ".join(str(value or "").split()).strip("*_`\"' ")
    if labels is None:
        short = written.rsplit(" ", 1)[-1]
        return f"Panelist {short.upper()}" if re.fullmatch(r"[A-Za-z]|\d{1,2}", short) else None
    if written in labels:
        return written
    short = written.rsplit(" ", 1)[-1].casefold()
    return next((label for label in labels if label.rsplit(" ", 1)[-1].casefold() == short), None)


def _listed(value: object) -> list[object]:
    return value if isinstance(value, list) else []
