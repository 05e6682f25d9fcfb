"""Two finished debates told the way real models tell them, for the page, its exports and the browser:
a unanimous panel (three answers in three wordings, the debate skipped by on_dissent) and a 2–1
split (every claim contested, one voice of the majority changing its mind in part while the judge
and the moderator read it as agreeing fully). Labels are shuffled per question, so every voice finds
the others' labels in its prompt by the claims they made."""

import re

from tests.fakes import judge
from tests.fakes.provider_server import FakeProviderServer, Script

QUESTION = "Should we split our monolith into microservices this year?"
MODELS = ("model-alpha", "model-beta", "model-gamma")

# Each voice's blind answer: its reasoning, its answer line, its claims (the first words of each
# claim find its label in a later prompt).
BLIND = {
    "model-alpha": (
        "We are six engineers, and the pain we measured is a 40-minute CI and jobs that block requests, "
        "not coupling between deployables.",
        "No — keep the modular monolith this year",
        (
            "[fact] The CI takes 40 minutes | confidence: 80% | falsified if: the CI logs show under 15 minutes",
            "[inference] A split multiplies the deploy surface for six engineers | confidence: 70% | "
            "falsified if: deploys stay under 5 a week after a split",
        ),
    ),
    "model-beta": (
        "Teams this size rarely win from services; the slow pages come from jobs run inside requests.",
        "Stay a monolith: fix CI and add a job worker first",
        (
            "[fact] Blocking jobs cause the slow checkout pages | confidence: 75% | "
            "falsified if: profiling shows the time is spent elsewhere",
            "[inference] A job worker removes most of the pain without a split | confidence: 65% | "
            "falsified if: p95 stays above 2 s with the worker",
        ),
    ),
    "model-gamma": (
        "Billing is where every release collides; cutting it out is the one split that pays now.",
        "Yes — extract billing as a service now",
        (
            "[fact] Billing changes ship in most releases and block them | confidence: 70% | "
            "falsified if: the release log shows billing in under a third of releases",
            "[speculation] An extracted billing service halves release conflicts | confidence: 55% | "
            "falsified if: conflicts stay the same a quarter after extraction",
        ),
    ),
}
AGREEING_LINES = {  # the unanimous panel: the same answer in three wordings
    "model-alpha": "No — keep the modular monolith this year",
    "model-beta": "Stay a monolith: fix CI and add a job worker first",
    "model-gamma": "Postpone any split; fix the CI first",
}
ISSUE_49_LINES = {  # one answer that a word list pairing "monolith" with "microservices" split 2–1
    "model-alpha": "No — keep the monolith this year",
    "model-beta": "Stay with the monolith this year",
    "model-gamma": "Don't migrate to microservices this year",
}
MEANING = {  # what the fake judge reads each line as
    **{line: "no" for line in AGREEING_LINES.values()},
    **{line: "no" for line in ISSUE_49_LINES.values()},
    BLIND["model-gamma"][1]: "yes",
    "No — keep the monolith, and add the job worker first": "no",
    "Stay a monolith this year": "no",
    "Yes — extract billing now": "yes",
}
FIRST_WORDS = {model: [claim.split("] ", 1)[1][:20] for claim in claims] for model, (_, _, claims) in BLIND.items()}


def blind(model: str, line: str = "") -> str:
    reasons, answer, claims = BLIND[model]
    listed = "\n".join(f"{n}. {claim}" for n, claim in enumerate(claims, 1))
    return f"{reasons}\n\nANSWER: {line or answer}\nCLAIMS:\n{listed}\n"


def claim_id(prompt: str, model: str, number: int) -> str:
    """The id the dossier gives ``model``'s claim ``number`` ("B2")."""
    found = re.search(rf"\b([A-Z]\d)\b[^\n]*?{re.escape(FIRST_WORDS[model][number - 1])}", prompt)
    assert found, f"no claim of {model} in the prompt"
    return found[1]


def label(prompt: str, model: str) -> str:
    return "Panelist " + claim_id(prompt, model, 1)[0]


DEBATE = {  # each voice's debate round, given the others' claim ids
    "model-alpha": lambda p: (
        "Billing's weight is real, but the release log does not support the split now; the job worker "
        "matters more than I first said.\n\nON CLAIMS:\n"
        f"- {claim_id(p, 'model-gamma', 1)} refute | the release log shows billing in 4 of 30 releases\n"
        f"- {claim_id(p, 'model-beta', 2)} confirm | the worker takes the blocking jobs out of requests\n"
        "CHANGE: partial | I weigh the job worker more than before\n"
        "ANSWER: No — keep the monolith, and add the job worker first"
    ),
    "model-beta": lambda p: (
        "Nothing in the dossier moves me: the CI figure holds and billing's case rests on a guess.\n\nON CLAIMS:\n"
        f"- {claim_id(p, 'model-alpha', 1)} confirm | our CI dashboards agree\n"
        f"- {claim_id(p, 'model-gamma', 2)} refute | no team of our size measured such a drop\n"
        "CHANGE: none | no new evidence\nANSWER: Stay a monolith this year"
    ),
    "model-gamma": lambda p: (
        "The others underrate how often billing blocks a release.\n\nON CLAIMS:\n"
        f"- {claim_id(p, 'model-alpha', 2)} refute | one more service is one more deploy, not a multiple\n"
        "CHANGE: none | the release conflicts are still there\nANSWER: Yes — extract billing now"
    ),
}


def synthesis(prompt: str, confidence: str, stances: dict[str, str], split: bool) -> str:
    """The moderator's synthesis: prose under the protocol's headings, then the closing block."""
    a, b, c = (label(prompt, model) for model in MODELS)
    said = "; ".join(f"{label(prompt, model)} {stance}" for model, stance in stances.items())
    dispute = (
        f"{c} would extract billing now; {a} and {b} answer that the release log does not show billing "
        "blocking most releases."
        if split
        else "None that changes the answer: when to revisit the split is left open."
    )
    return (
        f"## Consensus\n{a} and {b} agree the measured pain is the CI and blocking jobs, not coupling.\n\n"
        f"## Disagreements\n{dispute}\n\n"
        "## Verdict\nKeep the modular monolith this year: fix the CI and add a job worker first; "
        "revisit billing if it blocks most releases.\n\n"
        "VERDICT: Keep the modular monolith this year; fix the CI and add a job worker first.\n"
        f"CONFIDENCE: {confidence}\nSTANCES: {said}\n"
    )


def moderator(split: bool):
    stances = {"model-alpha": "agrees", "model-beta": "agrees", "model-gamma": "disagrees" if split else "agrees"}
    confidence = "0.6" if split else "0.85"
    return lambda request: synthesis(request.prompt, confidence, stances, split)


def script(
    server: FakeProviderServer,
    split: bool,
    tokens_per_second: float | None = None,
    lines: dict[str, str] = AGREEING_LINES,
) -> None:
    """The fake providers as one of the two panels: the 2–1 split (``split``) or the unanimous one
    (its answer lines ``lines``)."""
    server.reset()
    for model in MODELS:
        line = "" if split else lines[model]

        def reply(request, model=model, line=line) -> str:
            if "basis of the change" in request.prompt:
                return "BASIS: the release log and the profile of the checkout pages"
            return blind(model, line) if "on your own" in request.prompt else DEBATE[model](request.prompt)

        server.script(model, Script(answer=reply, tokens_per_second=tokens_per_second))
    server.script("model-moderator", Script(answer=moderator(split), tokens_per_second=tokens_per_second))
    server.script_judge(judge.grouping(MEANING))
