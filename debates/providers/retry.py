"""When to try a failed call again, and how long to wait first.

Waits are exponential with jitter, or what the provider's Retry-After says (capped, so a
provider cannot park a debate for an hour). ``POLICY`` holds safe defaults; the Django app
replaces it from settings at startup (``TEOREMA["RETRY_*"]``) and tests shrink it.
"""

import random
from dataclasses import dataclass

from debates.providers.base import ProviderError


@dataclass(frozen=True)
class RetryPolicy:
    base_seconds: float = 1.0
    max_seconds: float = 20.0
    retry_after_cap: float = 60.0


POLICY = RetryPolicy()


def delay_before_retry(error: ProviderError, failed_attempt: int, max_retries: int, time_left: float) -> float | None:
    """Seconds to wait before the next attempt, or None when the call should fail now."""
    if not error.transient or failed_attempt > max_retries:
        return None
    if error.retry_after is not None:
        delay = min(error.retry_after, POLICY.retry_after_cap)
    else:
        exponential = min(POLICY.base_seconds * 2 ** (failed_attempt - 1), POLICY.max_seconds)
        delay = exponential * random.uniform(1.0, 1.5)
    return delay if delay < time_left else None
