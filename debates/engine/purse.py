"""What a run may spend: before each refining round it asks its purse to hold what it has spent,
that round's expected calls and the synthesis still to come; a purse that cannot (a budget or
the question's cap would be passed) says why, and the round is left out as a late one is.

The purse is the Django side's (budgets.hold): the engine knows only this protocol and the rule
for a call's expected cost.
"""

from decimal import Decimal
from typing import Protocol

from debates.providers.base import Voice

# A typical call's size, in tokens: the ask page's estimate (readiness) and the run's next call.
ESTIMATE_IN, ESTIMATE_OUT = 2000, 800
MILLION = Decimal(1_000_000)


class Purse(Protocol):
    async def holds(self, total: Decimal) -> str:
        """ "" once the run may spend ``total`` dollars in all, else why not, naming the limit."""
        ...


def typical_call(
    price_in: Decimal, price_out: Decimal, max_tokens: int, tokens_in: int = ESTIMATE_IN, tokens_out: int = ESTIMATE_OUT
) -> Decimal:
    """A call's cost at these prices ($ per 1M tokens): a typical one's unless told its tokens, its
    answer bounded by ``max_tokens``."""
    return (tokens_in * price_in + min(max_tokens, tokens_out) * price_out) / MILLION


def next_call(voice: Voice, last: Decimal) -> Decimal:
    """What a voice's next call is expected to cost: a typical call, or its last call in this run when
    that cost more (a later round reads every answer before it, so its prompt only grows)."""
    return max(typical_call(voice.price_in, voice.price_out, voice.max_tokens), last)
