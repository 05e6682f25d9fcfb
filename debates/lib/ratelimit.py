"""Per-user submission limit: every question spends money, so a runaway script must stop.

settings.TEOREMA["QUESTIONS_PER_HOUR"] submissions per user in each clock hour, counted in the
cache (shared across processes on a server). The count is one atomic increment, so two processes
taking a slot at once cannot both take the last one, as a read-then-write of the count could.
"""

import time

from django.conf import settings
from django.core.cache import cache

WINDOW_S = 3600


def take(user_id: int) -> int:
    """Count one submission if the user may ask now; else return seconds until they may (>0)."""
    now = time.time()
    window = int(now // WINDOW_S)
    key = f"ratelimit:ask:{user_id}:{window}"
    cache.add(key, 0, 2 * WINDOW_S)  # outlives its window: incr never finds it gone
    if cache.incr(key) <= settings.TEOREMA["QUESTIONS_PER_HOUR"]:
        return 0
    return int((window + 1) * WINDOW_S - now) + 1


def refusal(wait_s: int) -> str:
    """The limit in words, for the form and the API."""
    minutes = max(1, round(wait_s / 60))
    limit = settings.TEOREMA["QUESTIONS_PER_HOUR"]
    return f"You have asked {limit} questions in the last hour, the limit. Try again in {minutes} min."
