from django.apps import AppConfig
from django.conf import settings


class DebatesConfig(AppConfig):
    name = "debates"
    verbose_name = "Debates"

    def ready(self) -> None:
        # The provider layer knows nothing of Django: it is handed its retry policy here.
        from debates.providers import retry

        limits = settings.TEOREMA
        retry.POLICY = retry.RetryPolicy(
            base_seconds=limits["RETRY_BASE_SECONDS"],
            max_seconds=limits["RETRY_MAX_SECONDS"],
            retry_after_cap=limits["RETRY_AFTER_CAP_SECONDS"],
        )
