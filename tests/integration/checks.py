"""What one viewer of a debate must have seen: every word once, in order, and the stored text at the end.

The one checker of a viewer, shared by the tests that watch from their own process and by the
crowds watching from processes of their own (``crowd``): what must hold for every viewer and every
contribution is stated once. While it streams, the card never shows anything but a beginning of
the stored text (no word doubled, skipped or out of place, even for a moment), and when its
finished card arrives the card holds exactly the stored text. A viewer that connects after a
contribution finished sees its finished card instead: the stored text, rendered.
"""

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from debates.engine.reading.synthesis import read
from debates.lib.render import markdown
from tests.integration.debate import StoredContribution
from tests.integration.viewer import Page, Viewer, dom_text_id, finished_html


@dataclass
class Seen:
    """How one viewer's page showed one contribution."""

    streaming: bool = False  # shown as a streaming card at some point (else first shown finished)
    joined_with: str = ""  # the text the card showed when the viewer first saw it streaming
    wrong: tuple[int, str] | None = None  # (message index, shown text) of the first non-prefix


def replay(viewer: Viewer, expected: dict[str, str]) -> tuple[Page, dict[str, Seen]]:
    """The viewer's page rebuilt message by message, as htmx would have shown it.

    After each message, every streaming card of a stored contribution must show a beginning of
    its stored text: a word doubled, skipped or out of order would show, even if a later
    fragment hid it.
    """
    page = Page()
    seen = {text_id: Seen() for text_id in expected}
    for index, (_at, message) in enumerate(viewer.messages):
        page.apply(message)
        for text_id, shown in page.texts.items():
            if text_id in page.finished or text_id not in seen:
                continue
            record = seen[text_id]
            if not record.streaming:
                record.streaming, record.joined_with = True, shown
            if record.wrong is None and not expected[text_id].startswith(shown):
                record.wrong = (index, shown)
    return page, seen


def agreeing(a: Sequence, b: Sequence) -> int:
    """How many leading items two sequences share."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def difference(expected: str, shown: str, whole: bool = True) -> str:
    """Where the shown text parts from the stored one, in words a failure report can use.

    ``whole``: the shown text should be all of it (else a beginning: only a word missing before
    the last one shown counts as missing).
    """
    at = agreeing(expected, shown)
    want, got = expected.split(), shown.split()
    word = agreeing(want, got)
    reached = len(want) if whole else max((want.index(w) + 1 for w in got if w in want), default=0)
    missing = Counter(want[:reached]) - Counter(got)
    extra = Counter(got) - Counter(want)
    doubled, foreign = [w for w in extra if w in want], [w for w in extra if w not in want]
    order = "" if missing or extra else "; every word once, out of order"
    return (
        f"first difference at char {at}, word {word}: stored …{expected[max(0, at - 40) : at + 40]!r}…, "
        f"shown …{shown[max(0, at - 40) : at + 40]!r}…; {len(want)} words stored, {len(got)} shown; "
        f"missing {list(missing)[:5]}, doubled {doubled[:5]}, not stored {foreign[:5]}{order}"
    )


def last_words(viewer: Viewer) -> str:
    return re.sub(r"\s+", " ", viewer.messages[-1][1])[-160:] if viewer.messages else ""


def still_open(who: str, viewer: Viewer, why: str) -> str:
    """The problem of a socket the server never closed: ``why`` it should have (its run is over,
    or the bound for a hung run passed)."""
    return (
        f"{who}: the socket is still open, yet {why}: the run's last broadcast never reached this viewer "
        f"({len(viewer.messages)} messages received; the last one ends …{last_words(viewer)!r})"
    )


def check_viewer(viewer: Viewer, calls: list[StoredContribution], who: str, web_log: Path) -> tuple[list[str], Counter]:
    """Each stored contribution as ``viewer`` (``who``, on the web process logging to ``web_log``) saw it.

    Returns the problems, and how the viewer came to each contribution (from its first word,
    joined mid-stream with a snapshot, or first shown finished), for the report.
    """
    expected = {dom_text_id(v.round, v.seat): v.text for v in calls}
    page, seen = replay(viewer, expected)
    problems: list[str] = []
    how: Counter = Counter()
    if viewer.close_code not in (1000, None):  # None: still open (reported apart)
        logged = web_log.read_text(errors="replace") if web_log.exists() else ""
        error = next((line for line in logged.splitlines() if "Exception inside application" in line), "")
        problems.append(
            f"{who}: the socket closed with {viewer.close_code}, not 1000 (normal, run over); "
            f"its web process logged: {error or 'no exception'}"
        )
    if not viewer.messages:
        return [*problems, f"{who}: no message at all"], how
    final = viewer.messages[-1][1]
    shown_at_the_end = any(finished_html(final, dom_text_id(v.round, v.seat)) for v in calls)
    if not shown_at_the_end:
        problems.append(f"{who}: the last message is not the finished page: …{last_words(viewer)!r}")
    for stored in calls:
        text_id = dom_text_id(stored.round, stored.seat)
        about = f"{who}, round {stored.round} seat {stored.seat} ({stored.model}, {stored.kind}, {text_id})"
        record = seen[text_id]
        if record.wrong is not None:
            index, shown = record.wrong
            problems.append(
                f"{about}: message {index} left the card showing what the stored text does not begin "
                f"with; {difference(stored.text, shown, whole=False)}"
            )
        if record.streaming:
            how["joined mid-stream" if record.joined_with else "from the first word"] += 1
            streamed = page.streamed.get(text_id)
            if streamed is None:
                problems.append(f"{about}: it streamed, but its finished card never arrived")
            elif streamed != stored.text and record.wrong is None:
                problems.append(
                    f"{about}: when it finished, the card showed other than the stored text; "
                    f"{difference(stored.text, streamed)}"
                )
        else:
            how["first shown finished"] += 1
        if not shown_at_the_end:
            continue
        if stored.kind == "synthesis":  # shown once, in its sections, above the moderator's card
            for _, body in read(stored.text).sections:
                if str(markdown(body)) not in final:
                    problems.append(f"{about}: the last snapshot lacks the synthesis section {body!r}")
        elif finished_html(final, text_id) != stored.finished_body():
            problems.append(
                f"{about}: the last snapshot shows {finished_html(final, text_id)!r}, not the stored text rendered"
            )
    return problems, how


def keep_messages(viewer: Viewer, path: Path) -> None:
    """Every message the viewer received, numbered as its problems number them."""
    path.write_text(
        "\n".join(f"--- message {i} at {at:.3f}\n{message}" for i, (at, message) in enumerate(viewer.messages))
    )
