"""live.mailbox.Mailbox: in order, one at a time, and at once when idle (no turn of the loop)."""

import asyncio

from debates.live.mailbox import Mailbox


class Handler:
    def __init__(self) -> None:
        self.got: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}

    async def __call__(self, item: str) -> None:
        if item in self.gates:
            await self.gates[item].wait()
        self.got.append(item)


async def test_an_item_that_finds_it_idle_is_handled_before_put_returns():
    handler = Handler()
    mailbox = Mailbox(handler)
    mailbox.put("a")
    assert handler.got == ["a"]  # no await in between: handled inside put
    mailbox.put("b")
    assert handler.got == ["a", "b"]


async def test_items_behind_a_slow_one_wait_for_it_in_order():
    handler = Handler()
    handler.gates["slow"] = asyncio.Event()
    mailbox = Mailbox(handler)
    for item in ("slow", "x", "y"):
        mailbox.put(item)
    await asyncio.sleep(0)
    assert handler.got == []
    handler.gates["slow"].set()
    await mailbox.join()
    assert handler.got == ["slow", "x", "y"]
    mailbox.put("z")  # idle again: at once
    assert handler.got[-1] == "z"


async def test_nothing_is_handled_before_what_it_waits_for_and_close_drops_the_rest():
    handler = Handler()
    opened = asyncio.get_running_loop().create_future()
    mailbox = Mailbox(handler, after=opened)
    mailbox.put("early")
    await asyncio.sleep(0)
    assert handler.got == []
    opened.set_result(None)
    await mailbox.join()
    assert handler.got == ["early"]

    handler.gates["stuck"] = asyncio.Event()
    mailbox.put("stuck")
    mailbox.put("dropped")
    mailbox.close()
    await mailbox.join()
    assert handler.got == ["early"]
    assert not opened.cancelled()  # what it waited for is left alone
