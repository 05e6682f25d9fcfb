"""The live state of a running question, as the LiveSink publishes it.

One typed value instead of a dict parsed by hand by the sink, the snapshot and the CLI. On a
server the cache holds it (Redis, pickled, shared by every process); in a single process the
running sink's own object is read and copied, and the cache (local memory) holds it once the
run stops there. A state that cannot be read (expired, or written by another version of this
code) is simply absent: the DB has every completed step, and the next broadcast writes a fresh one.
"""

import asyncio
import logging
import pickle
import secrets
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from channels.layers import BaseChannelLayer, get_channel_layer
from django.core.cache import cache

from debates.live.cards import Card
from debates.live.layer import SharedChannelLayer, broadcasts_stay_in_process

if TYPE_CHECKING:
    from debates.models import Question

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
    started: float = 0.0  # when the run started, in seconds since the epoch (0: not yet)
    expected: float = 0.0  # how long it was expected to take as it started (readiness.expected_seconds)
    on_subscription: set[str] = field(default_factory=set)  # the seats a CLI's subscription paid for

    @classmethod
    def stored(cls, question: "Question", expected: float = 0.0) -> "Totals":
        """What the recorder has counted so far (it keeps them with every stored contribution)."""
        started = question.started_at.timestamp() if question.started_at else 0.0
        tokens = question.tokens_in + question.tokens_out
        return cls(question.calls, tokens, question.cost, started, expected, question.seats_on_subscription)


def new_epoch() -> str:
    return secrets.token_hex(4)


@dataclass
class LiveState:
    seq: int = 0  # the last broadcast's number: a viewer forwards only what comes after it
    # Which count seq belongs to: a run resumed after its state was lost counts from 1 again,
    # and a viewer that had seen the lost count must start afresh rather than wait to catch up.
    epoch: str = field(default_factory=new_epoch)
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


# Bump when LiveState or Card gains or loses a field, or the way it is stored changes: a state
# stored by the code before would not read, and the new key makes it absent instead (the DB holds
# every completed step).
STATE_VERSION = 10


def state_key(question_id: int) -> str:
    return f"live:q{STATE_VERSION}:{question_id}"


@dataclass
class Changes:
    """What changed in a state since it was last written. The server's layer keeps the state in
    parts (live.layer.SharedChannelLayer) and writes only these; anything else writes it whole."""

    cards: set[str] = field(default_factory=set)  # card keys
    head: bool = True  # anything but the cards' contents and seq (a new card is a change here)
    whole: bool = True  # what is stored may not match: write every part afresh


def read_state(question_id: int) -> LiveState | None:
    """The live state of a running question, or None when nothing is running (or it expired).

    A run of this process is copied from the sink's own object, on the run's loop (a reader in
    another thread waits for that turn); any other is read from Redis or the cache, which answer
    in well under a millisecond, so async code calls this directly rather than hopping threads.
    """
    held = _held.get(question_id)
    if held is not None and (copy := _copied(*held)) is not None:
        return copy
    layer = get_channel_layer()
    try:
        if isinstance(layer, SharedChannelLayer):
            state = _joined(layer.parts(state_key(question_id), group_name(question_id)))
        else:
            state = cache.get(state_key(question_id))
    except Exception as error:  # unpicklable (written by an older version of this code), or Redis away
        log.warning("live state of question %s unreadable (%r); starting afresh", question_id, error)
        return None
    return state if isinstance(state, LiveState) else None


async def publish(
    layer: BaseChannelLayer, question_id: int, state: LiveState, changes: Changes, message: dict[str, Any]
) -> None:
    """Publish the state as it is now, then send ``message`` to the question's group.

    When broadcasts stay in this process only its own viewers read the state, so the sink's object
    itself is published and a reader copies it: pickling the whole state into the cache on every
    broadcast, many a second per debate, cost CPU for nothing. ``release`` hands it to the cache
    when the run ends here. The server's layer takes what changed with the message, in one
    command.
    """
    group = group_name(question_id)
    if broadcasts_stay_in_process():
        _held[question_id] = (state, asyncio.get_running_loop())
    elif isinstance(layer, SharedChannelLayer):
        key = state_key(question_id)
        if not await layer.group_send_with_parts(
            group, message, key, _parts(state, changes), STATE_TTL, fresh=changes.whole
        ):
            # Redis lost the state since the last broadcast (a restart) and no write failed to say so.
            await layer.group_send_with_parts(group, message, key, _parts(state, Changes()), STATE_TTL, fresh=True)
        return
    else:
        cache.set(state_key(question_id), state, STATE_TTL)
    await layer.group_send(group, message)


def release(question_id: int) -> None:
    """The run stopped in this process: its last state goes to the cache (a run resumed here
    continues its seq), and nothing holds the sink's object any more."""
    held = _held.pop(question_id, None)
    if held is not None:
        cache.set(state_key(question_id), held[0], STATE_TTL)


def _parts(state: LiveState, changes: Changes) -> dict[str, bytes]:
    """The state's changed parts: "seq" always; "head", the rest with the cards' keys in order;
    "card:<key>" each."""
    parts = {"seq": str(state.seq).encode()}
    if changes.head or changes.whole:
        parts["head"] = _pickled((replace(state, seq=0, cards={}), list(state.cards)))
    cards = state.cards.keys() if changes.whole else changes.cards
    parts |= {f"card:{key}": _pickled(state.cards[key]) for key in cards}
    return parts


def _joined(parts: dict[str, bytes]) -> LiveState | None:
    if "head" not in parts:
        return None  # absent, or expired
    state, order = pickle.loads(parts["head"])
    state.seq = int(parts["seq"])
    state.cards = {key: pickle.loads(parts[f"card:{key}"]) for key in order}
    return state


def _pickled(value: object) -> bytes:
    return pickle.dumps(value, pickle.HIGHEST_PROTOCOL)


# question id -> (the running sink's state, the loop it runs on), for runs of this process.
_held: dict[int, tuple[LiveState, asyncio.AbstractEventLoop]] = {}


def _copy(state: LiveState) -> LiveState:
    return pickle.loads(_pickled(state))  # what the cache would hand back


def _copied(state: LiveState, loop: asyncio.AbstractEventLoop) -> LiveState | None:
    """A copy made between two steps of the sink: on its loop, by this thread or by a turn of it."""
    try:
        if asyncio.get_running_loop() is loop:
            return _copy(state)
    except RuntimeError:  # no loop in this thread
        pass
    if loop.is_closed() or not loop.is_running():
        return None

    async def take() -> LiveState:
        return _copy(state)

    try:
        return asyncio.run_coroutine_threadsafe(take(), loop).result(timeout=5)
    except (TimeoutError, RuntimeError):  # a stuck or closing loop: the cache and the DB remain
        return None
