"""Re-encrypt every stored provider key with the first of TEOREMA_FERNET_KEYS."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from debates.lib import crypto
from debates.models import Provider


class Command(BaseCommand):
    help = "After putting a new key first in TEOREMA_FERNET_KEYS: re-encrypt stored provider keys with it."

    def handle(self, *args, **options) -> None:
        unreadable = []
        with transaction.atomic():
            providers = Provider.objects.exclude(api_key_encrypted="").select_for_update()
            for provider in providers:
                try:
                    provider.api_key_encrypted = crypto.rotate(provider.api_key_encrypted)
                except crypto.KeyUnreadable:
                    unreadable.append(provider.name)
                    continue
                provider.save(update_fields=["api_key_encrypted"])
            if unreadable:
                raise CommandError(
                    f"Cannot decrypt the key of {', '.join(unreadable)} with TEOREMA_FERNET_KEYS; nothing was "
                    "changed. Add the old key back, or enter those keys again in the admin."
                )
        self.stdout.write(f"Re-encrypted {len(providers)} provider key(s) with the first Fernet key.")
