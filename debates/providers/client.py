"""The HTTP path every wire protocol shares: one pooled client per event loop, one streaming POST
(the calls) and one JSON GET (the model lists).

Timeouts come from the Endpoint: ``connect_timeout`` to open a connection, ``stall_timeout``
as the longest silence allowed between two reads, and a deadline (``total_timeout`` from the
start of the call) checked around every read, so neither a hang nor a trickle runs forever.
"""

import asyncio
import errno
import json
import weakref
from collections.abc import AsyncIterator
from typing import Any

import httpx

from debates.providers import network
from debates.providers.base import Endpoint, Fault, ProviderError
from debates.providers.faults import status_error
from debates.providers.sse import ServerSentEvent, SSEDecoder, SSEError

REFUSED = f"[Errno {errno.ECONNREFUSED}]"
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = weakref.WeakKeyDictionary()


def shared_client() -> httpx.AsyncClient:
    """The running loop's client: connections (and HTTP/2 sessions) are reused across calls."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None or client.is_closed:
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=50, keepalive_expiry=30)
        client = httpx.AsyncClient(
            http2=True, limits=limits, transport=network.transport(limits, http2=True), follow_redirects=False
        )
        _clients[loop] = client
    return client


async def close_shared_client() -> None:
    """Close the running loop's client (tests and shutdown; a later call opens a new one)."""
    client = _clients.pop(asyncio.get_running_loop(), None)
    if client is not None:
        await client.aclose()


async def post_sse(
    endpoint: Endpoint, url: str, headers: dict[str, str], body: dict[str, Any], deadline: float
) -> AsyncIterator[ServerSentEvent]:
    """POST ``body`` and yield the server-sent events of the answer; faults become ProviderError.

    ``deadline`` is in ``loop.time()`` terms. Closing the iterator closes the response, which
    aborts the request on the wire.
    """
    client = shared_client()
    loop = asyncio.get_running_loop()
    request = client.build_request("POST", url, headers=headers, json=body, timeout=_timeout(endpoint))
    try:
        async with asyncio.timeout_at(min(loop.time() + endpoint.stall_timeout, deadline)):
            response = await client.send(request, stream=True)
    except TimeoutError:
        raise _silence(endpoint, loop.time() >= deadline, started=False) from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise _transport_error(endpoint, exc, started=False) from exc
    started = False
    try:
        if response.status_code >= 400:
            body_text = await _read_error_body(response, deadline)
            raise status_error(endpoint.name, response.status_code, body_text, response.headers.get("retry-after"))
        decoder = SSEDecoder()
        texts = response.aiter_text()
        while True:
            try:
                if deadline - loop.time() > endpoint.stall_timeout:
                    # httpx's read timeout (stall_timeout) ends a silence before the deadline: no
                    # timer of our own, which cost a handle and a reschedule for every chunk.
                    text = await anext(texts)
                else:
                    async with asyncio.timeout_at(deadline):
                        text = await anext(texts)
            except StopAsyncIteration:
                break
            except TimeoutError:
                raise _silence(endpoint, True, started) from None
            except httpx.HTTPError as exc:
                raise _transport_error(endpoint, exc, started) from exc
            for event in decoder.feed(text):
                started = True
                yield event
        for event in decoder.close():
            yield event
    except SSEError as exc:
        raise malformed(endpoint, str(exc)) from None
    finally:
        await response.aclose()


async def get_json(
    endpoint: Endpoint, url: str, headers: dict[str, str], params: dict[str, str], deadline: float
) -> dict[str, Any]:
    """GET ``url`` and return the JSON object it answers; faults become ProviderError as for post_sse."""
    client = shared_client()
    loop = asyncio.get_running_loop()
    request = client.build_request("GET", url, headers=headers, params=params, timeout=_timeout(endpoint))
    try:
        async with asyncio.timeout_at(deadline):
            response = await client.send(request)
    except TimeoutError:
        raise _silence(endpoint, loop.time() >= deadline, started=False) from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise _transport_error(endpoint, exc, started=False) from exc
    if response.status_code >= 400:
        raise status_error(endpoint.name, response.status_code, response.text, response.headers.get("retry-after"))
    try:
        data = response.json()
    except ValueError:
        raise ProviderError(Fault.MALFORMED, f"{endpoint.name} answered with something that is not JSON") from None
    if not isinstance(data, dict):
        raise ProviderError(Fault.MALFORMED, f"{endpoint.name} answered with JSON that is not an object")
    return data


def decode_json(endpoint: Endpoint, event: ServerSentEvent) -> dict[str, Any]:
    """The JSON object an event carries, or a MALFORMED fault."""
    try:
        data = json.loads(event.data)
    except ValueError:
        raise malformed(endpoint, f"invalid JSON {event.data[:60]!r}") from None
    if not isinstance(data, dict):
        raise malformed(endpoint, f"expected a JSON object, got {event.data[:60]!r}")
    return data


def malformed(endpoint: Endpoint, why: str) -> ProviderError:
    return ProviderError(Fault.MALFORMED, f"{endpoint.name} sent a malformed stream ({why})")


def ended_early(endpoint: Endpoint) -> ProviderError:
    return ProviderError(Fault.DROPPED, f"{endpoint.name}'s stream ended before the answer was complete")


def _timeout(endpoint: Endpoint) -> httpx.Timeout:
    return httpx.Timeout(
        connect=endpoint.connect_timeout,
        read=endpoint.stall_timeout,
        write=endpoint.stall_timeout,
        pool=endpoint.connect_timeout,
    )


async def _read_error_body(response: httpx.Response, deadline: float) -> str:
    try:
        async with asyncio.timeout_at(deadline):
            await response.aread()
    except (TimeoutError, httpx.HTTPError):
        return ""  # the status alone still says what happened
    return response.text


def _silence(endpoint: Endpoint, past_deadline: bool, started: bool) -> ProviderError:
    if past_deadline:
        return ProviderError(Fault.TIMEOUT, f"{endpoint.name} did not finish within {endpoint.total_timeout:g}s")
    where = "mid-answer" if started else "before answering"
    return ProviderError(Fault.STALL, f"{endpoint.name} stalled: nothing for {endpoint.stall_timeout:g}s {where}")


def _transport_error(endpoint: Endpoint, exc: Exception, started: bool) -> ProviderError:
    name = endpoint.name
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return ProviderError(Fault.CONNECT_TIMEOUT, f"Could not connect to {name} within {endpoint.connect_timeout:g}s")
    if isinstance(exc, httpx.ReadTimeout | httpx.WriteTimeout):
        return _silence(endpoint, past_deadline=False, started=started)
    if isinstance(exc, httpx.ConnectError):
        reason = "connection refused" if _refused(exc) else str(exc) or type(exc).__name__
        return ProviderError(Fault.CONNECT, f"Could not connect to {name} at {endpoint.base_url} ({reason})")
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return ProviderError(Fault.BAD_REQUEST, f"{name}'s base URL {endpoint.base_url!r} is not usable ({exc})")
    if isinstance(exc, httpx.DecodingError):
        return malformed(endpoint, str(exc))
    where = "mid-answer" if started else "before answering"
    return ProviderError(Fault.DROPPED, f"The connection to {name} dropped {where}")


def _refused(exc: BaseException | None) -> bool:
    """Whether a connect error was a refusal: asyncio words it "[Errno 111] Connect call failed",
    once per address when a host has several ("localhost": ::1 and 127.0.0.1)."""
    while exc is not None:
        if isinstance(exc, ConnectionRefusedError) or "refused" in str(exc).lower() or REFUSED in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False
