"""The asker's deadline: the panel gets its share of the time, the synthesis the rest.

A run asked to answer within N seconds stops every call at its step's end (the panel's share for
the voices and the judge, the whole deadline for the synthesis and a tie-break), so a slow or
stalled provider never holds a question past it; the synthesis starts early enough to finish.
"""

import asyncio

from debates.engine.vocabulary import StepKind

# The calls that may use the whole deadline.
FINAL_KINDS = frozenset({StepKind.SYNTHESIS, StepKind.TIEBREAK, StepKind.SHAPED})
# The synthesis's share: one and a half times what the moderator usually takes, within these bounds.
SHARE_MIN, SHARE_MAX, SHARE_UNKNOWN = 0.2, 0.5, 0.3


def synthesis_share(deadline: float, synthesis_time: float | None) -> float:
    """Seconds kept for the synthesis out of ``deadline``; ``synthesis_time`` is the moderator's usual time."""
    wanted = 1.5 * synthesis_time if synthesis_time else SHARE_UNKNOWN * deadline
    return min(max(wanted, SHARE_MIN * deadline), SHARE_MAX * deadline)


class Clock:
    """Where a run stands against its deadline (none: every ``until`` is None, no call is cut)."""

    def __init__(self, deadline: float | None, synthesis_time: float | None = None) -> None:
        self.seconds = deadline
        self.end: float | None = None
        self.panel_end: float | None = None
        if deadline is not None:
            self.end = asyncio.get_running_loop().time() + deadline
            self.panel_end = self.end - synthesis_share(deadline, synthesis_time)

    def until(self, kind: StepKind) -> float | None:
        """The loop time at which a call of this kind is stopped."""
        return self.end if kind in FINAL_KINDS else self.panel_end

    def panel_over(self) -> bool:
        return self.panel_end is not None and asyncio.get_running_loop().time() >= self.panel_end

    def why(self, kind: StepKind) -> str:
        """Why a call was stopped, in words for the page and the moderator."""
        if kind in FINAL_KINDS:
            return f"stopped at the deadline: the answer was asked for within {self.seconds:g} s"
        return f"stopped when the panel's share of the {self.seconds:g} s deadline was up"
