"""The numbers checked between rounds, where people read them: "checked ✓ / ✗" beside each claim of
the ledger, the list of every check with its computation, a warning under a verdict that rests on a
refuted claim without a reason, and the same in the Markdown and JSON exports and the API."""

import json

import pytest
from django.urls import reverse

from debates.engine.checks import RESTS_ON
from debates.models import Contribution, Round
from tests.viewer.test_ledger_page import BLIND, DEBATE, NAMES, SEATS, page_of, row, store, words

CHECKS = [
    {
        "label": "Panelist A",
        "round": 0,
        "claim": "A1",
        "quote": "2^10 = 1000",
        "kind": "arithmetic",
        "holds": False,
        "computation": "2^10 = 1024, not 1000",
    },
    {
        "label": "Panelist B",
        "round": 0,
        "claim": "B1",
        "quote": "30 is 12% of 250",
        "kind": "percent",
        "holds": True,
        "computation": "30 / 250 = 12%",
    },
    {
        "label": "Panelist C",
        "round": 0,
        "claim": "",
        "quote": "1 KiB = 1000 bytes",
        "kind": "units",
        "holds": False,
        "computation": "1 KiB = 1024 bytes, not 1000 bytes",
    },
]
FLAG = (
    f"{RESTS_ON} Panelist A's A1 (“2^10 = 1000”), which the check between rounds refuted "
    "(2^10 = 1024, not 1000), and does not say why it still stands"
)


@pytest.fixture
def checked(alice, offline_panel, make_question):
    roster = [
        {"seat": seat, "label": label, "name": NAMES[label], "model": f"model-{seat}", "family": seat}
        for label, seat in SEATS.items()
    ]
    question = make_question(alice, offline_panel, status="done", verdict="Add read replicas.", roster=roster)
    store(question, [("answer", BLIND), ("debate", DEBATE)])
    question.ledger["checks"] = CHECKS
    question.save()
    synthesis = Round.objects.create(question=question, index=5, kind="synthesis", title="Moderator", status="done")
    Contribution.objects.create(
        round=synthesis, seat="moderator", label="Moderator", kind="synthesis", status="done", text="…", flags=[FLAG]
    )
    return question


def test_each_checked_claim_says_checked_with_its_mark_and_its_computation(client, alice, checked):
    page = page_of(client, alice, checked)
    a1, b1 = row(page, "A1"), row(page, "B1")
    assert 'class="checked refuted" title="2^10 = 1000: 2^10 = 1024, not 1000"' in a1
    assert "checked ✗ : does not hold" in words(a1)  # the mark, and its words for a screen reader
    assert "checked ✓ : holds" in words(b1)
    assert "checked" not in words(row(page, "C1"))


def test_every_check_is_listed_what_does_not_hold_first_prose_ones_too(client, alice, checked):
    page = page_of(client, alice, checked)
    listed = words(page.split('class="check-list"', 1)[1].split("</ul>", 1)[0])
    assert listed.index("2^10 = 1000") < listed.index("1 KiB = 1000 bytes") < listed.index("30 is 12% of 250")
    assert "✗ Panelist C 1 KiB = 1000 bytes does not hold : 1 KiB = 1024 bytes, not 1000 bytes" in listed
    assert "3: 2 do not hold, 1 holds" in words(page.split('class="checks"', 1)[1].split("</summary>", 1)[0])


def test_a_verdict_resting_on_a_refuted_claim_is_flagged_under_the_verdict(client, alice, checked):
    page = page_of(client, alice, checked)
    summary = page.split('id="verdict"', 1)[1].split('id="ledger"', 1)[0]
    assert "rests on Panelist A's A1 (“2^10 = 1000”)" in words(summary)


def test_the_exports_and_the_api_carry_the_checks(client, alice, checked):
    client.force_login(alice)
    markdown = client.get(reverse("debates:export", args=[checked.pk, "md"])).content.decode()
    assert "### Numbers checked between rounds" in markdown
    assert "- ✗ Panelist A, A1: “2^10 = 1000” does not hold: 2^10 = 1024, not 1000" in markdown
    assert FLAG in markdown  # the synthesis's flag, with its contribution
    exported = json.loads(client.get(reverse("debates:export", args=[checked.pk, "json"])).content)
    assert exported["ledger"]["checks"] == CHECKS
    api = client.get(reverse("debates:api_question", args=[checked.pk])).json()
    assert api["ledger"]["checks"] == CHECKS


def test_a_claim_with_two_computations_that_hold_is_checked_once_naming_both(client, alice, checked):
    second = CHECKS[1] | {"quote": "250 × 12% = 30", "computation": "250 * 12/100 = 30"}
    checked.ledger["checks"] = [*CHECKS, second]
    checked.save()
    b1 = row(page_of(client, alice, checked), "B1")
    assert words(b1).count("checked ✓") == 1
    assert 'title="30 is 12% of 250: 30 / 250 = 12%; 250 × 12% = 30: 250 * 12/100 = 30"' in b1


def test_a_computation_not_checked_says_so_in_words_never_as_refuted(client, alice, checked):
    left = {
        "label": "Panelist C",
        "round": 0,
        "claim": "C1",
        "quote": "9999^9999^2 = 1",
        "kind": "arithmetic",
        "holds": None,
        "computation": "not checked: the round's 5 s for checks ran out first",
    }
    checked.ledger["checks"] = [*CHECKS, left]
    checked.save()
    page = page_of(client, alice, checked)
    c1 = row(page, "C1")
    assert 'class="checked unchecked"' in c1
    assert "not checked" in words(c1)
    assert "refuted" not in c1
    assert "✗" not in words(c1)
    listed = words(page.split('class="check-list"', 1)[1].split("</ul>", 1)[0])
    assert listed.endswith("Panelist C, C1 9999^9999^2 = 1 not checked : the round's 5 s for checks ran out first")
    assert "4: 2 do not hold, 1 holds, 1 not checked" in words(page)
    client.force_login(alice)
    markdown = client.get(reverse("debates:export", args=[checked.pk, "md"])).content.decode()
    assert "- – Panelist C, C1: “9999^9999^2 = 1” not checked: the round's 5 s for checks ran out first" in markdown
