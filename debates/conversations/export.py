"""A whole debate as a file: JSON in the API's own shape (``represent``) plus the thread, and
Markdown written from that same JSON, so both say the same and hide the same."""

import json
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse

from debates.conversations import sharing, threads
from debates.live import snapshot
from debates.live.state import read_state
from debates.models import Question
from debates.represent import represent

FORMATS = {"md": "text/markdown; charset=utf-8", "json": "application/json"}


def document(request: HttpRequest, question: Question, user: Any | None) -> dict[str, Any]:
    """The debate as JSON for this reader (``user`` None: a reader by link, who sees no cost if hidden)."""
    data = represent(request, snapshot.build(question.pk, read_state(question.pk)))
    earlier = threads.ancestors(question)
    data["thread"] = [
        {"text": q.text, "verdict": q.verdict, "url": request.build_absolute_uri(url)}
        if url
        else {"text": None, "verdict": None, "url": None}
        for q, url in zip(earlier, sharing.reader_urls(earlier, user), strict=True)
    ]
    if user is None:
        return by_link(request, question, data)
    return data


def by_link(request: HttpRequest, question: Question, data: dict[str, Any]) -> dict[str, Any]:
    """What a reader by link may carry away: the link itself, none of the addresses a signed-in
    reader uses (the page, the API, the socket), no other question's number, and no cost if hidden."""
    internal = {"api_url", "ws_url"}
    data = {key: value for key, value in data.items() if key not in internal}
    data |= {"url": request.build_absolute_uri(sharing.link_path(question)), "follow_up_of": None, "reask_of": None}
    return sharing.without_cost(data) if question.hide_cost else data


def response(request: HttpRequest, question: Question, fmt: str, user: Any | None) -> HttpResponse:
    """A download of the debate in ``fmt`` (md or json); any other format is no page at all."""
    if fmt not in FORMATS:
        raise Http404("Exports are .md or .json.")
    data = document(request, question, user)
    body = json.dumps(data, indent=2, ensure_ascii=False) if fmt == "json" else markdown(data)
    # A lone surrogate stored before forms refused them is written as its JSON escape, not a 500.
    download = HttpResponse(body.encode("utf-8", "backslashreplace"), content_type=FORMATS[fmt])
    download["Content-Disposition"] = f'attachment; filename="teorema-question-{question.pk}.{fmt}"'
    return download


def cell(text: Any) -> str:
    """A value inside a Markdown table row or list item: one line, no column break."""
    return " ".join(str(text if text is not None else "").split()).replace("|", "\\|")


def table(headings: tuple[str, ...], rows: list[list[Any]]) -> list[str]:
    lines = [f"| {' | '.join(headings)} |", f"|{'---|' * len(headings)}"]
    return [*lines, *(f"| {' | '.join(cell(value) for value in row)} |" for row in rows), ""]


def markdown(data: dict[str, Any]) -> str:
    """The debate as a Markdown document, in the order the page reads: question, rounds, outcome."""
    facts = f"{data['protocol']} protocol · criticality {data['criticality']} · {data['status']}"
    out = [f"# Teorema · question {data['id']}", "", data["url"], "", f"Panel `{data['panel']}` · {facts}", ""]
    out += thread_part(data["thread"])
    out += ["## Question", "", data["text"], ""]
    out += ["## Context", "", data["context"], ""] if data["context"] else []
    out += [f"**{data['status'].capitalize()}:** {data['error']}", ""] if data["error"] else []
    out += ["## Verdict", "", data["verdict"], ""] if data["verdict"] else []
    out += rounds_part(data)
    out += outcome_part(data)
    totals = f"{data['calls']} calls · {data['tokens_in'] + data['tokens_out']} tokens"
    out += ["## Totals", "", f"{totals} · ${data['cost']}" if "cost" in data else totals, ""]
    return "\n".join(out)


def thread_part(thread: list[dict[str, Any]]) -> list[str]:
    if not thread:
        return []
    out = ["## Earlier in this thread", ""]
    for number, earlier in enumerate(thread, 1):
        if earlier["text"] is None:
            out.append(f"{number}. An earlier question that is not open to this reader.")
        else:
            verdict = f" — verdict: {cell(earlier['verdict'])}" if earlier["verdict"] else ""
            out.append(f"{number}. [{cell(earlier['text'])}]({earlier['url']}){verdict}")
    return [*out, ""]


def rounds_part(data: dict[str, Any]) -> list[str]:
    """Each round, each voice's contribution whole; once revealed, who each voice was."""
    names = {who["label"]: who["name"] for who in data["identities"]}
    out = []
    for round_ in data["rounds"]:
        out += [f"## {round_['title']}", ""]
        for c in round_["contributions"]:
            who = f"{c['label']} ({names[c['label']]})" if c["label"] in names else c["label"]
            facts = [c["kind"], c["status"], f"{c['tokens_in'] + c['tokens_out']} tokens"]
            facts += [f"${c['cost']}"] if c.get("cost") is not None else []
            out += [f"### {who}", "", f"*{' · '.join(facts)}*", ""]
            out += [f"**Decision:** {c['decision']}", ""] if c["decision"] else []
            out += [c["text"] or c["error"] or "(no text)", ""]
    return out


def outcome_part(data: dict[str, Any]) -> list[str]:
    """The claim ledger, the vote's consensus, the synthesis and who was who, where present."""
    out = []
    if data["ledger"] and data["ledger"].get("claims"):
        claims = [[c["id"], c["author"], c["status"], c["text"]] for c in data["ledger"]["claims"]]
        out += ["## Claim ledger", "", *table(("Claim", "By", "Status", "Text"), claims)]
    if consensus := data["consensus"]:
        reached = f"reached: {consensus['decision']}" if consensus.get("reached") else "not reached"
        out += [
            "## Consensus",
            "",
            f"Agreement {consensus['agreement']} against {consensus['threshold']}: {reached}.",
            "",
        ]
    if synthesis := data["synthesis"]:
        strength = f" ({synthesis['evidence_strength']} evidence)" if synthesis["evidence_strength"] else ""
        out += [f"## Synthesis{strength}", ""]
        for heading, body in synthesis["sections"] or [["", synthesis["text"]]]:
            out += [*([f"### {heading}", ""] if heading else []), body.strip(), ""]
    if data["identities"]:
        fields = ("label", "name", "model", "family", "provider", "method")
        rows = [[who[f] for f in fields] for who in data["identities"]]
        out += ["## Who was who", "", *table(("Label", "Panelist", "Model", "Family", "Provider", "Method"), rows)]
    return out
