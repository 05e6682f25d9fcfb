"""When and how long to wait before trying a failed call again.

Waits are exponential with jitter, or what the provider's Retry-After says (capped, so a
provider cannot park a debate for an hour). The base and caps come from the environment and
are plain attributes of ``POLICY`` so tests can shrink them.
"""

import os
import random
from dataclasses import dataclass

from debates.providers.base import ProviderError


@dataclass
class RetryPolicy:
    base_seconds: float = float(os.environ.get("TEOREMA_RETRY_BASE_SECONDS", "1.0"))
    max_seconds: float = float(os.environ.get("TEOREMA_RETRY_MAX_SECONDS", "20"))
    retry_after_cap: float = float(os.environ.get("TEOREMA_RETRY_AFTER_CAP_SECONDS", "60"))


POLICY = RetryPolicy()


class RetryAfter(Exception):
    """Raised inside a stamina attempt to ask for another one after ``delay`` seconds."""

    def __init__(self, delay: float, error: ProviderError) -> None:
        super().__init__(error.message)
        self.delay = delay
        self.error = error


def backoff(exc: Exception) -> bool | float:
    """stamina's hook: retry only what we decided to retry, after the delay we announced."""
    return exc.delay if isinstance(exc, RetryAfter) else False


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
