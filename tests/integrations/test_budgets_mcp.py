"""MCP says what every other way in says of a budget and a cost cap, through the official ``mcp`` SDK's
client: a question no budget has room for is refused before anything runs, naming the budget and
when it renews; a cap that is no amount of dollars is refused in words."""

import json
import subprocess
import sys

import pytest

from tests.integrations.clients import mcp_session, mcp_stdio_session
from tests.integrations.conftest import ROOT, Teorema

pytestmark = pytest.mark.anyio
# Carol alone has a budget (a cent a day): the package's other tests ask as alice, bob and root.
CAROL = """
import json
from decimal import Decimal
from django.contrib.auth import get_user_model
from debates.models import ApiToken, Budget
from debates.tokens import assign_secret
carol = get_user_model().objects.create_user("carol")
Budget.objects.create(scope="user", user=carol, period="day", limit=Decimal("0.01"))
token = ApiToken(user=carol, name="tools")
raw = assign_secret(token)
token.save()
print(json.dumps(raw))
"""
REFUSED = "Your daily budget of $0.01 has $0.01 left, and this run is expected to cost $0.02; it renews at 00:00 UTC."


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def carol(teorema: Teorema) -> str:
    """Carol's API token; she has a budget of $0.01 a day."""
    made = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "-v0", "-c", CAROL],
        cwd=ROOT,
        env=teorema.env,
        check=True,
        capture_output=True,
    )
    return json.loads(made.stdout.decode().strip().splitlines()[-1])


def asked_by_carol(teorema: Teorema) -> int:
    return teorema.query(
        "SELECT count(*) FROM debates_question q JOIN auth_user u ON u.id = q.owner_id WHERE u.username = 'carol'"
    )[0][0]


@pytest.mark.parametrize("transport", ["http", "stdio"])
async def test_a_question_no_budget_has_room_for_is_refused_naming_it(teorema, carol, fake_provider, transport):
    session = mcp_session(teorema.url, carol) if transport == "http" else mcp_stdio_session(teorema.env, "carol")
    async with session as client:
        refused = await client.call_tool("ask_panel", {"question": "Shard or replicate?"})
    assert refused.is_error
    assert refused.content[0].text.endswith(REFUSED)
    assert asked_by_carol(teorema) == 0
    assert not fake_provider.requests


@pytest.mark.parametrize(
    ("max_cost", "words"),
    [
        (-1, "A cost cap is at least $0.01"),
        (0.001, "at most 2 decimals"),
        (5000, "A cost cap is at most $1000"),
        ("abc", "'max_cost' must be a number or null, not the string 'abc'."),
    ],
)
async def test_a_wrong_cap_is_refused_in_words(teorema, carol, fake_provider, max_cost, words):
    async with mcp_session(teorema.url, carol) as client:
        refused = await client.call_tool("ask_panel", {"question": "Shard?", "max_cost": max_cost})
    assert refused.is_error
    assert words in refused.content[0].text
    assert asked_by_carol(teorema) == 0
