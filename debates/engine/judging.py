"""The agreement judge: after a round of answers, one structured call groups them by meaning.

Agreeing models never word an answer alike ("No - stay a modular monolith" / "Keep the monolith
this year"), so wording alone finds a split panel where there is none. The panel's judge (by
default its moderator) reads the round's answers under their anonymous labels only and says who
gives the same answer, with what reservation, which claims say the same thing in other words, and
who answers another question. It is asked for that structure natively where the wire has a way
(providers.base.Structure); its reply is read leniently (reading.judgement), then checked by the
guards it cannot overrule (engine.agreement).

A call is made only where it can change what wording finds: never for a round whose answers are
already one by their words, nor by a judge on a small model, whose grouping would be noise.
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from debates.engine import consensus, dossier, prompts
from debates.engine.reading import closing
from debates.engine.reading.ballot import Ballot
from debates.providers.base import Message, Structure

EXCERPT_CHARS = 1500  # of each voice's text, for the reservations an answer line leaves out
NAME = "agreement"


@dataclass(frozen=True)
class Voice:
    """One voice's latest answer as the judge reads it."""

    label: str
    answer: str  # its ANSWER line or decision; "" without one
    text: str  # what it wrote (its latest contribution)


def needed(voices: Sequence[Voice], similarity: float) -> bool:
    """Whether the judge can change what wording finds: two voices or more, and answers that are not
    already one by their words (or a voice with no answer line). Claims are matched in the same call;
    where the answers are one, a claim said in other words is debated no less for it."""
    if len(voices) < consensus.MIN_VOTES:
        return False
    if any(not v.answer for v in voices):
        return True
    groups, _notes = consensus.group([Ballot(v.label, v.answer, None, "") for v in voices], similarity)
    return len(groups) > 1


def messages(
    brief: str, voices: Sequence[Voice], claims: Mapping[str, tuple[str, str]], names: set[str]
) -> list[Message]:
    """The judge's prompt: the brief, each voice's answer and an excerpt of its text, the claims."""
    entries = []
    for voice in voices:
        said = closing.without_block(voice.text).strip()
        excerpt = said[:EXCERPT_CHARS] + ("…" if len(said) > EXCERPT_CHARS else "")
        entries.append((voice.label, f"ANSWER: {voice.answer or '(none given: read the text)'}\n\n{excerpt}"))
    listed = "\n".join(f"- {claim} ({author}): {text}" for claim, (author, text) in claims.items())
    return prompts.messages(
        "judge",
        role="judge",
        brief=brief,
        answers=dossier.dossier(entries, names),
        claims=dossier.scrub(f"\nThe claims of the blind answers, by id:\n{listed}\n", names) if listed else "",
        labels=", ".join(v.label for v in voices),
    )


def structure(labels: Sequence[str]) -> Structure:
    """The reply's JSON Schema, strict where the wire enforces it: every field required, no others."""
    label = {"type": "string", "enum": list(labels)}
    member = {
        "type": "object",
        "properties": {
            "label": label,
            "agrees": {"type": "string", "enum": ["fully", "with_reservation"]},
            "reservation": {"type": "string"},
        },
        "required": ["label", "agrees", "reservation"],
        "additionalProperties": False,
    }
    group = {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "members": {"type": "array", "items": member}},
        "required": ["answer", "members"],
        "additionalProperties": False,
    }
    schema = {
        "type": "object",
        "properties": {
            "groups": {"type": "array", "items": group},
            "same_claims": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
            "off_topic": {"type": "array", "items": label},
        },
        "required": ["groups", "same_claims", "off_topic"],
        "additionalProperties": False,
    }
    return Structure(NAME, json.dumps(schema))
