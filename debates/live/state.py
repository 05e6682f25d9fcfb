"""The live state of a running question, as the LiveSink keeps it in the cache.

One typed value instead of a dict parsed by hand by the sink, the snapshot and the CLI: the
cache pickles it (local memory in local mode, Redis on a server). A state that cannot be read
(expired, or written by another version of this code) is simply absent: the DB has every
completed step, and the next broadcast writes a fresh one.
"""

import logging
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.core.cache import cache

from debates.live.cards import Card

log = logging.getLogger(__name__)
STATE_TTL = 24 * 3600


@dataclass
class LiveRound:
    index: int
    kind: str = ""
    title: str = ""
    status: str = "running"  # running | done | failed


@dataclass
class Totals:
    calls: int = 0
    tokens: int = 0
    cost: Decimal = Decimal("0")


@dataclass
class LiveState:
    seq: int = 0  # the last broadcast's number: a viewer forwards only what comes after it
    phase: str = ""
    step: int = 0
    total: int = 0
    rounds: dict[int, LiveRound] = field(default_factory=dict)
    cards: dict[str, Card] = field(default_factory=dict)  # "<round>:<seat>" -> the card as it streams
    panel_run: dict[str, Any] = field(default_factory=dict)
    consensus: dict[str, Any] = field(default_factory=dict)
    ledger: dict[str, Any] = field(default_factory=dict)  # the claim ledger after the latest panel round
    totals: Totals = field(default_factory=Totals)
    finished: str = ""  # the final status once the run is over


def group_name(question_id: int) -> str:
    return f"question-{question_id}"


# Bump when LiveState or Card gains or loses a field: a state pickled by the code before would
# lack it, and the new key makes it absent instead (the DB holds every completed step).
STATE_VERSION = 3


def state_key(question_id: int) -> str:
    return f"live:q{STATE_VERSION}:{question_id}"


def read_state(question_id: int) -> LiveState | None:
    """The live state of a running question, or None when nothing is running (or it expired).

    The cache answers in well under a millisecond, so async code calls it directly rather than
    hopping threads.
    """
    try:
        state = cache.get(state_key(question_id))
    except Exception:  # unpicklable: written by an older version of this code
        log.warning("live state of question %s unreadable; starting afresh", question_id)
        return None
    return state if isinstance(state, LiveState) else None


def write_state(question_id: int, state: LiveState) -> None:
    cache.set(state_key(question_id), state, STATE_TTL)
