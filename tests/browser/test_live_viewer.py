"""The live viewer in a real browser: Chromium ↔ Daphne ↔ the engine ↔ the fake providers."""

import re

import pytest

from tests.fakes import judge
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
QUESTION = "Should we add read replicas or shard the database?"
FAMILIES = ("alpha", "beta", "gamma")
FILLER = " ".join(f"point{i} about replicas, lag and failover;" for i in range(14))
ANSWERS = {
    family: f"{family.upper()} answers: add read replicas because reads dominate the database load. "
    f"{FILLER} Confidence 70%, fails if writes triple."
    for family in FAMILIES
}
XSS = (
    "add read replicas because reads dominate. <script>window.__pwned=1</script> "
    '<img src=x onerror="window.__pwned=2"> [click me](javascript:window.__pwned=3) and that is all.'
)


def script(server: FakeProviderServer, answers: dict[str, str], tokens_per_second: float) -> None:
    server.reset()
    for family, answer in answers.items():
        pace = Script(answer=answer, first_token_delay=0.3, tokens_per_second=tokens_per_second)
        server.script(f"model-{family}", pace)
    server.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=tokens_per_second))


def ask(page, text: str = QUESTION) -> int:
    page.fill("#id_text", text)
    assert not page.is_visible("#id_force_panel")  # a teorema panel has no triage to skip
    page.click("button.primary")
    page.wait_for_url(re.compile(r"/q/\d+/$"))
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def until(page, predicate: str, arg=None, patience_s: float = 120.0) -> None:
    """Poll a JS function until it returns true (wait_for_function would need eval: the CSP forbids it)."""
    for _ in range(int(patience_s * 10)):
        if page.evaluate(predicate, arg):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"never true: {predicate}\n{page.inner_text('main')[:3000]}")


def wait_for_the_end(page) -> None:
    page.wait_for_selector("#outcome", timeout=180_000)


def stream_texts(page) -> dict[str, str]:
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.card.status-streaming')]
             .map(card => [card.id, card.querySelector('.card-body').textContent]))"""
    )


def test_a_debate_streams_live_survives_a_reload_and_reveals_who_was_who(provider_server, signed_in):
    script(provider_server, ANSWERS, tokens_per_second=6)
    page = signed_in("alice")
    ask(page)
    until(page, "() => document.querySelectorAll('.kind-answer .card.status-streaming').length >= 2")
    before = {card: len(text) for card, text in stream_texts(page).items()}
    # Several panelists' text grows while each of them is still streaming.
    until(
        page,
        """(before) => Object.entries(before).filter(([id, n]) => {
             const card = document.getElementById(id);
             return card && card.classList.contains('status-streaming')
               && card.querySelector('.card-body').textContent.length > n;
           }).length >= 2""",
        arg=before,
    )
    page.reload()  # mid-debate: the page comes back with everything so far, then the stream
    page.wait_for_selector("[data-connection][data-state=open]")
    seen_after_reload = stream_texts(page)
    wait_for_the_end(page)

    bodies = ".kind-answer .card-body:not(.judgement)"  # the judge's grouping is a card of the round too
    texts = page.eval_on_selector_all(bodies, "bodies => bodies.map(b => b.textContent.trim())")
    assert sorted(texts) == sorted(ANSWERS.values())  # each answer exactly once, whole
    sections = page.eval_on_selector_all("#outcome .synthesis-section h3", "hs => hs.map(h => h.textContent)")
    assert sections == ["Consensus", "Disagreements", "Verdict"]
    page.click(".reveal > summary")  # folded: each card names its voice already
    reveal = page.inner_text(".reveal")
    for family in FAMILIES:
        assert f"model-{family}" in reveal
    assert page.locator(".kind-answer .card .identity").count() == 3
    assert "ws-connect" not in page.content()  # the live part is gone with its socket

    # Everything a streaming card ever showed was a prefix of what the model said: never doubled.
    judged = [judge.grouping()(request) for request in provider_server.judge_requests]  # the fake judge's replies
    everything = [*ANSWERS.values(), SYNTHESIS, *judged]
    seen = page.evaluate("[...window.__seen]") + list(seen_after_reload.values())
    assert seen
    for text in seen:
        assert any(full.startswith(text) for full in everything), f"doubled or foreign text: {text[:80]!r}"
    assert page.evaluate("window.__csp") == []
    assert [e for e in page.console_errors if "htmx" in e.lower() or "oob" in e.lower()] == []

    # A round's start that reaches the page after a snapshot which shows the round adds only the
    # cards the page lacks, where they belong.
    first = "#rounds > section.round .cards .card"
    order = page.eval_on_selector_all(first, "cards => cards.map(c => c.id)")
    rounds = page.locator("#rounds > section.round").count()
    page.evaluate(
        """() => {
             const round = document.querySelector('#rounds > section.round');
             const broadcast = '<div hx-swap-oob="beforeend:#rounds">' + round.outerHTML + '</div>';
             round.querySelector('.cards > :nth-child(2)').remove();
             htmx.swap('#rounds', broadcast, {swapStyle: 'none'});
           }"""
    )
    assert page.locator("#rounds > section.round").count() == rounds
    assert page.eval_on_selector_all(first, "cards => cards.map(c => c.id)") == order


def test_an_xss_payload_in_an_answer_never_runs(provider_server, signed_in):
    script(provider_server, {family: f"{family.upper()} says: {XSS}" for family in FAMILIES}, tokens_per_second=10)
    page = signed_in("alice")
    ask(page)
    page.wait_for_selector(".kind-answer .card-body")  # the payload reaches the page, streaming or done
    wait_for_the_end(page)
    assert page.evaluate("window.__pwned") == 0
    assert page.evaluate("window.__alerts") == []
    assert page.evaluate("window.__csp") == []
    assert page.locator("a[href^='javascript']").count() == 0
    assert page.locator(".card-body img, .card-body script").count() == 0
    assert "<script>window.__pwned=1</script>" in page.text_content(".kind-answer .card-body >> nth=0")  # folded


def test_a_second_user_is_refused_the_page_the_api_and_the_socket(provider_server, signed_in, app_url):
    script(provider_server, ANSWERS, tokens_per_second=40)
    alice = signed_in("alice")
    question = ask(alice)
    bob = signed_in("bob")
    assert bob.goto(f"/q/{question}/").status == 404
    assert bob.request.get(f"/api/questions/{question}").status == 404
    knock = """(url) => new Promise(resolve => {
        const socket = new WebSocket(url);
        socket.onopen = () => { socket.close(); resolve("open"); };
        socket.onclose = () => resolve("refused");
    })"""
    socket_url = app_url.replace("http", "ws", 1) + f"/ws/questions/{question}/"
    bob.goto("/history/")
    assert bob.evaluate(knock, socket_url) == "refused"
    alice.goto("/history/")
    assert alice.evaluate(knock, socket_url) == "open"  # the same knock works for the asker
    wait_for_the_end(alice.goto(f"/q/{question}/") and alice)
