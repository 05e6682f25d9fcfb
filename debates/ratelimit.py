"""Per-user submission limit: every question spends money, so a runaway script must stop.

A sliding window of submission times kept in the cache (shared across processes on a server);
settings.TEOREMA["QUESTIONS_PER_HOUR"] submissions per user in any 60 minutes.
"""

import time

from django.conf import settings
from django.core.cache import cache

WINDOW_S = 3600


def take(user_id: int) -> int:
    """Count one submission if the user may ask now; else return seconds until they may (>0)."""
    key = f"ratelimit:ask:{user_id}"
    now = time.time()
    recent = [t for t in cache.get(key, []) if t > now - WINDOW_S]
    if len(recent) >= settings.TEOREMA["QUESTIONS_PER_HOUR"]:
        return max(1, int(recent[0] + WINDOW_S - now) + 1)
    cache.set(key, [*recent, now], WINDOW_S)
    return 0


def refusal(wait_s: int) -> str:
    """The limit in words, for the form and the API."""
    minutes = max(1, round(wait_s / 60))
    limit = settings.TEOREMA["QUESTIONS_PER_HOUR"]
    return f"You have asked {limit} questions in the last hour, the limit. Try again in {minutes} min."
