"""The checks between rounds of every run on an event loop share one SymPy child: loaded once per
process, not per run, and taking turns on its pipe."""

import asyncio

from debates.engine.checks import Said
from debates.grounding import SympyGrounder
from debates.grounding.sandbox import shared


async def test_runs_on_one_loop_share_one_child_and_their_checks_take_turns(workers):
    first, second = SympyGrounder(), SympyGrounder()
    assert first.sandbox is second.sandbox is shared()
    first.warm()
    second.warm()
    said = [Said("Panelist A", 1, "A1", "2^10 = 1000."), Said("Panelist B", 1, "", "12% of 250 is 30.")]
    try:
        one, two = await asyncio.gather(first.check(said), second.check(said))
        assert len(workers.spawned) == 1
        assert one == two
        assert [(c["quote"], c["holds"]) for c in one] == [("2^10 = 1000", False), ("12% of 250 is 30", True)]
    finally:
        await shared().close()
    assert workers.all_stopped()
