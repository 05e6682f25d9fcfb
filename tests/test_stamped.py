"""The panels and tokens a process keeps (debates.lib.stamped) are never older than the database: every
way a row can change, the ORM's bulk writes, raw SQL, another connection's commit, a rollback,
is seen by the next read, and an unchanged roster costs one small read, not the panel's query."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection, connections, transaction

from debates.lib.stamped import GROUPS, ROSTER, USER, install_triggers, present_triggers, stamp
from debates.models import ApiToken, Membership, Panel, Panelist, Provider, Stamp
from debates.roster import panels
from debates.tokens import assign_secret, bearer_user
from tests.fakes.roster import make_panel


@pytest.fixture
def house(db) -> Panel:
    return make_panel("http://127.0.0.1:9/v1", voices=3, slug="house")


def seats(panel: Panel | None) -> list[str]:
    assert panel is not None
    return [p.name for p in panel.roster()]


def test_an_unchanged_roster_costs_one_small_read(house, django_assert_num_queries):
    panels.by_slug("house")
    with django_assert_num_queries(1) as captured:
        panel = panels.by_slug("house")
        assert seats(panel) == ["Alpha house", "Beta house", "Gamma house"]
        assert panel is not None
        assert panel.moderator.provider.name == "Fake house"
    assert "debates_stamp" in captured.captured_queries[0]["sql"]


def test_each_reader_gets_its_own_copy(house):
    first = panels.by_slug("house")
    assert first is not None
    first.name = "changed by one caller"
    first.prefetched_seats = []
    again = panels.by_slug("house")
    assert again is not None
    assert again.name == "Panel house"
    assert len(seats(again)) == 3


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda: Panelist.objects.filter(name="Beta house").update(enabled=False), id="queryset update"),
        pytest.param(lambda: Membership.objects.filter(panelist__name="Beta house").delete(), id="queryset delete"),
        pytest.param(
            lambda: Provider.objects.filter(name="Fake house").update(enabled=False), id="the provider, via update"
        ),
        pytest.param(
            lambda: connection.cursor().execute("UPDATE debates_panelist SET enabled = 0 WHERE name = 'Beta house'"),
            id="raw SQL",
        ),
    ],
)
def test_a_change_that_sends_no_signal_is_seen_at_the_next_read(house, change):
    before = panels.by_slug("house")
    assert before is not None
    assert all(p.enabled and p.provider.enabled for p in before.roster())
    change()
    after = panels.by_slug("house")
    assert after is not None
    shown = {p.name: p.enabled and p.provider.enabled for p in after.roster()}
    assert shown.get("Beta house") is not True, shown


def expected_tables() -> set[str]:
    user_table = get_user_model()._meta.db_table
    return {user_table if table == USER else table for tables in GROUPS.values() for table in tables}


def test_every_table_behind_a_group_keeps_its_triggers_through_the_migrations(db):
    """Migrations 0019 and 0021 alter the providers' columns, which SQLite does by rebuilding the table,
    triggers lost: the triggers are put back after migrate, whatever a later migration rebuilds."""
    have = present_triggers(connection)
    assert {table for table, _trigger in have} == expected_tables()
    assert len(have) == 3 * len(expected_tables())  # insert, update, delete on each
    assert install_triggers(connection, get_user_model()._meta.db_table) == 0  # nothing missing: nothing done


def test_a_trigger_a_rebuild_took_is_put_back_by_the_next_migrate(house):
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER teorema_stamp_debates_provider_update")
    assert ("debates_provider", "teorema_stamp_debates_provider_update") not in present_triggers(connection)
    call_command("migrate", verbosity=0)  # nothing to apply; post_migrate still checks the triggers
    assert ("debates_provider", "teorema_stamp_debates_provider_update") in present_triggers(connection)
    before = stamp(ROSTER)
    Provider.objects.update(enabled=False)
    assert stamp(ROSTER) != before


def test_seats_added_in_bulk_are_seen(house):
    assert len(seats(panels.by_slug("house"))) == 3
    provider = Provider.objects.get(name="Fake house")
    extra = Panelist.objects.create(name="Delta house", provider=provider, model="model-delta", family="delta")
    Membership.objects.bulk_create([Membership(panel=house, panelist=extra, position=9)])
    assert seats(panels.by_slug("house"))[-1] == "Delta house"


def test_a_rolled_back_change_leaves_the_roster_as_stored(house):
    with transaction.atomic():
        Panel.objects.filter(slug="house").update(name="Renamed in a transaction")
        inside = panels.by_slug("house")
        assert inside is not None
        assert inside.name == "Renamed in a transaction"
        transaction.set_rollback(True)
    after = panels.by_slug("house")
    assert after is not None
    assert after.name == "Panel house"


@pytest.mark.django_db(transaction=True)
def test_another_connections_commit_is_seen(transactional_db):
    make_panel("http://127.0.0.1:9/v1", voices=2, slug="shared")
    assert panels.default() is not None
    assert panels.default().name == "Panel shared"

    def elsewhere() -> None:  # a thread has its own connection: as another process would
        try:
            Panel.objects.filter(slug="shared").update(name="Renamed elsewhere")
        finally:
            connections.close_all()

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    after = panels.default()
    assert after is not None
    assert after.name == "Renamed elsewhere"


def test_without_a_stamp_every_read_goes_to_the_database(house, django_assert_num_queries):
    Stamp.objects.all().delete()  # as a flush leaves it
    assert stamp(ROSTER) is None
    with django_assert_num_queries(3):  # the stamp, the panel with its judges, its seats
        assert len(seats(panels.by_slug("house"))) == 3
    Panel.objects.filter(slug="house").update(name="Renamed")  # writes a stamp again
    assert stamp(ROSTER) is not None
    after = panels.by_slug("house")
    assert after is not None
    assert after.name == "Renamed"


def test_an_unknown_panel_is_not_kept(house, django_assert_num_queries):
    assert panels.by_slug("nope") is None
    with django_assert_num_queries(4):  # each looked up again (a stamp, a panel): a miss is never kept
        assert panels.by_slug("nope") is None
        assert panels.by_slug("nope") is None


@pytest.fixture
def token(alice) -> str:
    made = ApiToken(user=alice, name="script")
    raw = assign_secret(made)
    made.save()
    return f"Bearer {raw}"


def test_a_token_is_refused_at_once_when_its_user_is_deactivated(token, alice):
    assert bearer_user(token) == alice
    type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    assert not bearer_user(token).is_authenticated


def test_a_deleted_token_is_refused_at_once(token, alice):
    assert bearer_user(token) == alice
    ApiToken.objects.filter(user=alice).delete()
    assert not bearer_user(token).is_authenticated


def test_what_a_request_caches_on_its_user_stays_its_own(token, alice):
    first = bearer_user(token)
    first.is_staff = True
    first._perm_cache = {"debates.delete_question"}
    second = bearer_user(token)
    assert not second.is_staff
    assert not hasattr(second, "_perm_cache")
