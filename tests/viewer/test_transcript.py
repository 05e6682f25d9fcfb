"""A debate as one chat reply: voices that write at once are read one at a time, each word once."""

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from debates.integrations.openai.transcript import Transcript, panel_lines
from debates.live.watch import Spoken, Words

VOICES = {"0:p1": "Panelist A", "0:p2": "Panelist B", "0:p3": "Panelist C"}


def spoken(key: str, text: str) -> Spoken:
    return Spoken(key, VOICES[key], "answer", "done", text, "", 10, Decimal("0.01"), told=True)


@given(st.lists(st.tuples(st.sampled_from(sorted(VOICES)), st.text("abc ", min_size=1, max_size=5)), max_size=40))
def test_voices_writing_at_once_are_each_read_whole_and_once(writes):
    transcript = Transcript()
    texts = {key: "" for key in VOICES}
    reasoning = []
    for key, words in writes:
        texts[key] += words
        reasoning += transcript.feed(Words(key, VOICES[key], "answer", words))
    for key in VOICES:  # they end in their order
        if texts[key]:
            reasoning += transcript.feed(spoken(key, texts[key]))
    said = "".join(piece.text for piece in reasoning)
    for key, text in texts.items():
        if text:
            heading = f"**{VOICES[key]}** · blind answers\n"
            assert said.count(heading) == 1
            assert said.split(heading, 1)[1].startswith(text + "\n")  # whole, and nothing inside it
    assert all(piece.field == "reasoning" for piece in reasoning)


def test_the_synthesis_is_the_content_and_a_restart_is_said():
    transcript = Transcript()
    pieces = transcript.feed(Words("2:moderator", "Moderator", "synthesis", "Use replicas"))  # "Use replicas:"?
    pieces += transcript.feed(Words("2:moderator", "Moderator", "synthesis", "."))
    pieces += transcript.feed(Words("2:moderator", "Moderator", "synthesis", " Reads dominate"))
    assert [(p.field, p.text) for p in pieces] == [("content", "Use replicas."), ("content", " Reads dominate")]


SYNTHESIS_WITH_BLOCK = (
    "## Consensus\nReplicas first, because reads dominate.\n\n## Verdict\nUse read replicas.\n\n"
    "---\n**VERDICT:** Use read replicas.\nCONFIDENCE: 0.8\nSTANCES: Panelist A agrees, Panelist B partly\n"
)


@given(st.lists(st.integers(1, 9), min_size=1, max_size=60))
def test_the_content_never_carries_the_lines_a_program_reads_however_the_words_arrive(sizes):
    """Issue 44: the synthesis sent to OpenAI clients ended with the raw VERDICT / CONFIDENCE / STANCES lines."""
    transcript, text, at = Transcript(), SYNTHESIS_WITH_BLOCK, 0
    pieces = []
    for size in sizes:
        if at < len(text):
            pieces += transcript.feed(Words("2:moderator", "Moderator", "synthesis", text[at : at + size]))
            at += size
    if at < len(text):
        pieces += transcript.feed(Words("2:moderator", "Moderator", "synthesis", text[at:]))
    done = Spoken("2:moderator", "Moderator", "synthesis", "done", text, "", 40, Decimal("0.01"), told=True)
    pieces += transcript.feed(done)
    content = "".join(p.text for p in pieces if p.field == "content")
    assert content.rstrip() == "## Consensus\nReplicas first, because reads dominate.\n\n## Verdict\nUse read replicas."
    assert "VERDICT" not in content
    assert "CONFIDENCE" not in content
    assert "STANCES" not in content


def test_a_synthesis_with_no_words_streamed_is_given_whole_as_people_read_it():
    transcript = Transcript()
    done = Spoken(
        "2:moderator", "Moderator", "synthesis", "done", SYNTHESIS_WITH_BLOCK, "", 40, Decimal("0"), told=False
    )
    content = "".join(p.text for p in transcript.feed(done))
    assert content.startswith("## Consensus")
    assert "CONFIDENCE" not in content


def test_the_panels_story_names_each_voice_and_says_who_dissents_and_why():
    found = {
        "agreement": {"agreeing": 2, "answered": 3, "ratio": 0.67, "answer": "replicas", "by": "judge"},
        "confidence": 0.7,
        "evidence_strength": "mixed",
        "identities": [
            {"voice": "Panelist A", "name": "Alpha house", "model": "model-alpha"},
            {"voice": "Panelist B", "name": "Beta house", "model": "model-beta"},
            {"voice": "Moderator", "name": "Moderator house", "model": "model-moderator"},
        ],
        "dissent": [{"voice": "Panelist B", "stance": "disagrees", "why": "Writes will triple.", "name": "Beta house"}],
    }
    assert panel_lines(found) == [
        "**Where the panel stands:** majority 2/3 · confidence 0.70 · mixed evidence",
        "- **Panelist A**: Alpha house · model-alpha",
        "- **Panelist B**: Beta house · model-beta — disagrees: Writes will triple.",
        "- **Moderator**: Moderator house · model-moderator",
    ]


def test_before_anything_is_grouped_or_revealed_the_story_says_nothing():
    assert (
        panel_lines({"agreement": None, "confidence": None, "evidence_strength": "", "identities": [], "dissent": []})
        == []
    )
