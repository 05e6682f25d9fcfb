"""Checks at start: the group that new SSO users join must exist.

A database check (Django runs it in migrate and ``check --database default``, so compose's migrate
service stops before the web starts): a typo in TEOREMA_SSO_GROUP would otherwise be found by the
first person who signs in.
"""

from collections.abc import Sequence

from django.apps import AppConfig
from django.conf import settings
from django.contrib.auth.models import Group
from django.core import checks
from django.db import DatabaseError

from debates.signin.adapter import missing_group


@checks.register(checks.Tags.database)
def sso_group_exists(
    app_configs: Sequence[AppConfig] | None, databases: Sequence[str] | None = None, **kwargs: object
) -> list[checks.CheckMessage]:
    """An error naming TEOREMA_SSO_GROUP when no group has its name, once groups have their table."""
    name = settings.TEOREMA_SSO_GROUP
    if not name or not databases or "default" not in databases:
        return []
    try:
        exists = Group.objects.filter(name=name).exists()
    except DatabaseError:  # not migrated yet: migrate makes the table, the admin the group
        return []
    return [] if exists else [checks.Error(missing_group(name), id="teorema.E001")]
