"""A roster row as the provider layer's call-ready snapshot: a Provider as an ``Endpoint`` (its key
decrypted, its preset's defaults applied), a Panelist as a ``Voice``. The provider layer knows
nothing of the database; this is where the two meet."""

from decimal import Decimal

from debates.models import Panelist, Provider
from debates.presets import PRESETS
from debates.providers.base import Endpoint, Voice


def endpoint_from_provider(provider: Provider) -> Endpoint:
    """A call-ready snapshot of a Provider row (key decrypted, preset defaults applied)."""
    preset = PRESETS.get(provider.preset)
    return Endpoint(
        name=provider.name,
        wire=provider.wire or (preset.wire.value if preset else ""),
        base_url=provider.base_url or (preset.base_url if preset else ""),
        api_key=provider.api_key,
        connect_timeout=provider.connect_timeout,
        stall_timeout=provider.stall_timeout,
        total_timeout=provider.total_timeout,
        max_retries=provider.max_retries,
        citations=bool(preset and preset.citations),
    )


def voice_from_panelist(panelist: Panelist) -> Voice:
    """A call-ready snapshot of a Panelist row and its provider."""
    sight = panelist.sight()
    return Voice(
        name=panelist.name,
        model=panelist.model,
        endpoint=endpoint_from_provider(panelist.provider),
        temperature=panelist.temperature,
        max_tokens=panelist.max_tokens,
        price_in=Decimal(panelist.price_in),
        price_out=Decimal(panelist.price_out),
        vision=sight.vision,
        pdf=sight.pdf,
    )
