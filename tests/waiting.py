"""Waiting on a condition in a test: bounded, and failing in words that say what never happened."""

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any


async def wait_for(condition: Callable[[], Any | Awaitable[Any]], what: str, patience: float = 60.0) -> Any:
    """Poll ``condition`` (plain or async) until it returns something truthy, and return that.

    ``patience`` (seconds) only bounds a hung test on a slow machine, it is never what is
    tested; past it the test fails with "waited … for <what>".
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"waited {patience:g} s for {what}")
        await asyncio.sleep(0.05)
