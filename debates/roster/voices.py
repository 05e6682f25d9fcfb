"""A roster row as the provider layer's call-ready snapshot: a Provider as an ``Endpoint`` (its key
decrypted, its preset's defaults applied), a Panelist as a ``Voice``. The provider layer knows
nothing of the database; this is where the two meet."""

from decimal import Decimal

from debates.models import Panelist, Provider
from debates.providers.base import Endpoint, SearchTool, Voice
from debates.providers.presets import PRESETS, Wire, search_preset


def endpoint_from_provider(provider: Provider) -> Endpoint:
    """A call-ready snapshot of a Provider row (key decrypted, preset defaults applied)."""
    preset = PRESETS.get(provider.preset)
    wire = provider.wire or (preset.wire.value if preset else "")
    base_url = provider.base_url or (preset.base_url if preset else "")
    searching = search_preset(provider.preset, wire, base_url)
    return Endpoint(
        name=provider.name,
        wire=wire,
        base_url=base_url,
        api_key=provider.api_key,
        connect_timeout=provider.connect_timeout,
        stall_timeout=provider.stall_timeout,
        total_timeout=provider.total_timeout,
        max_retries=provider.max_retries,
        search=searching.search if searching else SearchTool.NONE,
        cli=(provider.preset or "command") if wire == Wire.CLI else "",
        command=provider.command_words,
    )


def voice_from_panelist(panelist: Panelist) -> Voice:
    """A call-ready snapshot of a Panelist row and its provider (searching as the panelist may: a run
    narrows it to its question and panel, runs.spec)."""
    endpoint = endpoint_from_provider(panelist.provider)
    sight = panelist.sight()
    return Voice(
        name=panelist.name,
        model=panelist.model,
        endpoint=endpoint,
        temperature=panelist.temperature,
        max_tokens=panelist.max_tokens,
        price_in=Decimal(panelist.price_in),
        price_out=Decimal(panelist.price_out),
        search=panelist.search and endpoint.search != SearchTool.NONE,
        price_search=Decimal(panelist.price_search),
        vision=sight.vision,
        pdf=sight.pdf,
    )
