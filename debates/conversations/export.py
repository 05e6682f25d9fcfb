"""A whole debate as a file: JSON in the API's own shape (``represent``) plus the thread and the
recorded outcome, and Markdown written from that same JSON, so both say the same and hide the same:
everything the page shows, as the page tells it (the models' texts as people read them, never the
lines a program reads; the judge's grouping as a grouping; the synthesis once; each label named once
revealed), with the models' own headings demoted under the export's."""

import json
import re
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse

from debates.attachments import shown
from debates.conversations import sharing, threads
from debates.conversations.defanged import defanged
from debates.engine.reading import closing, judgement
from debates.engine.reading.judgement import Judgement
from debates.engine.reading.synthesis import for_people, named
from debates.engine.vocabulary import Outcome, Status, StepKind
from debates.lib.render import MARKDOWN
from debates.live import claims, snapshot, story
from debates.live.state import read_state
from debates.models import Question, VerdictOutcome
from debates.represent import attachments, represent
from debates.track import outcomes

FORMATS = {"md": "text/markdown; charset=utf-8", "json": "application/json"}
GROUPING = "Who gives the same answer, read by meaning:"  # as the judge's card on the page says it


def document(request: HttpRequest, question: Question, user: Any | None) -> dict[str, Any]:
    """The debate as JSON for this reader (``user`` None: a reader by link, who sees no cost if hidden):
    the object ``GET /api/questions/<id>`` gives, its texts as the models wrote them, plus the thread,
    a person's decision and the outcome recorded."""
    data = represent(snapshot.build(question.pk, read_state(question.pk)), request.build_absolute_uri("/"))
    earlier = threads.ancestors(question)
    data["thread"] = [
        {"text": q.text, "verdict": q.verdict, "url": request.build_absolute_uri(url)}
        if url
        else {"text": None, "verdict": None, "url": None}
        for q, url in zip(earlier, sharing.reader_urls(earlier, user), strict=True)
    ]
    data["human_decision"] = question.human_decision
    recorded = VerdictOutcome.objects.filter(question=question).select_related("marked_by").first()
    data["outcome"] = {k: v for k, v in outcomes.as_dict(recorded).items() if k != "question"} if recorded else None
    if user is None:
        return by_link(request, question, data)
    return data


def as_people_read_it(data: dict[str, Any]) -> dict[str, Any]:
    """The debate's texts as the page shows them: each contribution's closing block as read, the
    judge's reply as its grouping, the synthesis once (under ``synthesis``, without its closing block)
    and the verdict with each label named once the run is over."""
    names = {who["label"]: who["name"] for who in data["identities"] if who.get("name")}
    for round_ in data["rounds"]:
        for c in round_["contributions"]:
            if c["kind"] == StepKind.AGREEMENT and isinstance(grouping := judgement.read(c["text"]), Judgement):
                c["text"] = "\n".join([GROUPING, "", *(f"- {line}" for line in grouping.lines())])
            elif is_the_synthesis(c, data):
                c["text"] = ""  # told once, as ``synthesis``
            else:
                c["text"] = closing.for_people(c["text"], c["closing"] or {})
    if synthesis := data["synthesis"]:
        synthesis["text"] = for_people(synthesis["text"], names)
        synthesis["sections"] = [[heading, named(body, names)] for heading, body in synthesis["sections"]]
    data["verdict"] = named(data["verdict"], names)
    return data


def is_the_synthesis(contribution: dict[str, Any], data: dict[str, Any]) -> bool:
    """The moderator's contribution whose text is the debate's synthesis (told once, under ``synthesis``)."""
    done = contribution["kind"] == StepKind.SYNTHESIS and contribution["status"] == Outcome.DONE
    return done and data["synthesis"] is not None


def by_link(request: HttpRequest, question: Question, data: dict[str, Any]) -> dict[str, Any]:
    """What a reader by link may carry away: the link itself, none of the addresses a signed-in
    reader uses (the page, the API, the socket), no other question's number, and no cost if hidden."""
    internal = {"api_url", "ws_url"}
    data = {key: value for key, value in data.items() if key not in internal}
    link = request.build_absolute_uri(sharing.link_path(question))
    # The shared page shows no judgement of the verdict: neither does its export.
    data |= {"url": link, "follow_up_of": None, "reask_of": None, "outcome": None}
    data["attachments"] = attachments(question, request.build_absolute_uri("/"), token=question.share_token)
    return sharing.without_cost(data) if question.hide_cost else data


def response(request: HttpRequest, question: Question, fmt: str, user: Any | None) -> HttpResponse:
    """A download of the debate in ``fmt`` (md or json); any other format is no page at all."""
    if fmt not in FORMATS:
        raise Http404("Exports are .md or .json.")
    data = document(request, question, user)
    body = json.dumps(data, indent=2, ensure_ascii=False) if fmt == "json" else markdown(as_people_read_it(data))
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
    """The debate as a Markdown document, in the order the page reads: question, verdict, what it
    rests on (consensus, the panel, stances and claims), the rounds, the synthesis, who was who; no
    link in it runs or embeds anything (``defanged``), and sources' fields are escaped (``story.cited``)."""
    facts = f"{data['protocol']} protocol · criticality {data['criticality']} · {data['status']}"
    out = [f"# Teorema · question {data['id']}", "", data["url"], "", f"Panel `{data['panel']}` · {facts}", ""]
    out += thread_part(data["thread"])
    out += ["## Question", "", data["text"], ""]
    out += ["## Context", "", data["context"], ""] if data["context"] else []
    out += files_part(data["attachments"])
    out += [f"**{data['status'].capitalize()}:** {data['error']}", ""] if data["error"] else []
    out += verdict_part(data)
    out += consensus_part(data["consensus"])
    out += panel_part(data["panel_run"])
    out += ledger_part(data)
    out += rounds_part(data)
    out += synthesis_part(data["synthesis"])
    out += outcome_part(data["outcome"])
    out += identities_part(data["identities"])
    totals = f"{data['calls']} calls · {data['tokens_in'] + data['tokens_out']} tokens in + out"
    cost = story.cost_said(data["cost"], data["voices_on_subscription"]) if "cost" in data else ""
    out += ["## Totals", "", f"{totals} · {cost}" if cost else totals, ""]
    return defanged("\n".join(out))  # the models' texts hold links we did not write


def files_part(files: list[dict[str, Any]]) -> list[str]:
    """The files the panel read, each a link to its download, with how each voice received it."""
    if not files:
        return []
    lines = ["## Files", ""]
    for found in files:
        facts = ", ".join(
            part
            for part in (
                found["kind"],
                f"{found['pages']} pages" if found["pages"] else "",
                f"{found['width']} × {found['height']} px" if found["width"] else "",
                f"{found['size']:,} bytes",
            )
            if part
        )
        voices = shown.received(found["voices"])
        name = found["name"].replace("[", "\\[").replace("]", "\\]")
        lines.append(f"- [{name}]({found['url']}) ({facts}){f' · {voices}' if voices else ''}")
    return [*lines, ""]


def demoted(text: str, level: int) -> str:
    """Model text placed under one of our headings: its top heading becomes ``level`` and the others
    follow (at most 6), read by the page's own Markdown parser, so a ``#`` in a code fence stays code."""
    lines = text.split("\n")
    headings = [t for t in MARKDOWN.parse(text) if t.type == "heading_open" and t.map]
    if not headings:
        return text
    shift = max(0, level - min(int(t.tag[1]) for t in headings))
    for token in reversed(headings):  # from the end: a setext heading loses its underline line
        start, end = token.map or (0, 0)
        marks = "#" * min(int(token.tag[1]) + shift, 6)
        if token.markup.startswith("#"):
            at = lines[start].index(token.markup)
            lines[start] = lines[start][:at] + marks + lines[start][at + len(token.markup) :]
        else:  # setext: its text lines, then a line of = or -
            prefix = re.match(r"\s*(?:>\s*)*", lines[start])
            at = prefix.end() if prefix else 0
            title = " ".join(line[at:].strip() for line in lines[start : end - 1])
            lines[start:end] = [f"{lines[start][:at]}{marks} {title}"]
    return "\n".join(lines)


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


def verdict_part(data: dict[str, Any]) -> list[str]:
    """The verdict with how far the panel backs it (as the page's chip says), or that there is none;
    and a person's decision."""
    synthesis = data["synthesis"] or {}
    if data["verdict"]:
        out = ["## Verdict", "", demoted(data["verdict"], 3), ""]
        backing = story.support(data["agreement"], synthesis.get("confidence"))
        out += [f"*{backing.words}*", ""] if backing else []
    elif data["status"] == Status.DONE:
        out = ["## No verdict", "", "The moderator wrote no verdict of its own: its synthesis follows.", ""]
    else:
        out = []
    if data["human_decision"]:
        out += [f"**A person decided:** {data['human_decision']}", ""]
    return out


def consensus_part(consensus: dict[str, Any] | None) -> list[str]:
    if not consensus:
        return []
    reached = f"reached: the panel decides {consensus['decision']}" if consensus.get("reached") else "not reached"
    out = [
        "## Consensus",
        "",
        f"Agreement {consensus['agreement']} against the threshold {consensus['threshold']}: {reached}.",
    ]
    if consensus.get("seats", 0) > consensus.get("votes", 0):
        out.append(f"Counted on the {consensus['votes']} votes cast of {consensus['seats']} voters.")
    out.append("")
    out += [f"- **{cell(g['decision'])}** — {', '.join(g['labels'])}" for g in consensus.get("groups", [])]
    out += [""] if consensus.get("groups") else []
    tie = consensus.get("tie_breaker") or {}
    if consensus.get("escalation") == "human_review":
        out += ["Escalated: needs human review.", ""]
    elif consensus.get("escalation") == "tie_breaker":
        why = f": {tie['reasoning']}" if tie.get("reasoning") else ""
        out += [f"Escalated to the tie-breaker, which decided {tie.get('decision', '…')}{why}", ""]
    return [*out, *(line for note in consensus.get("notes", []) for line in (note, ""))]


def panel_part(run: dict[str, Any]) -> list[str]:
    """The panel that ran, as the page discloses it: the brief, voices, heterogeneity, debate check, degradations."""
    if not run:
        return []
    out = ["## The panel that ran", ""]
    out += ["### The facilitator's brief", "", demoted(run["brief"], 4), ""] if run.get("brief") else []
    out += [f"{run['judge'][:1].upper()}{run['judge'][1:]}.", ""] if run.get("judge") else []
    for voice in sorted(run.get("voices", []), key=lambda v: v["label"]):
        method = f" ({voice['method'].replace('_', ' ')})" if voice.get("method") not in (None, "", "none") else ""
        dropped = f" — {voice['status']}" if voice.get("status") != "active" else ""
        out.append(f"- {voice['label']}{method}{dropped}")
    out += [""] if run.get("voices") else []
    if run.get("heterogeneity"):
        out += [f"Heterogeneity: {run['heterogeneity']} — {run.get('note', '')}", ""]
    if check := run.get("debate"):
        name, said = story.debate_check(check, cost="cost_saved" in check)  # an export by link may hide it
        out += [f"**{name}:** {said}", ""]
    out += ["**Degraded:**", "", *(f"- {line}" for line in run["degradations"]), ""] if run.get("degradations") else []
    return out


def ledger_part(data: dict[str, Any]) -> list[str]:
    """Where the panel stands (each voice's stance) and the claim ledger, as the page draws them."""
    stances = (data["synthesis"] or {}).get("stances")
    view = claims.view(data["ledger"], data["identities"], stances) if data["ledger"] else None
    if view is None:
        return []
    out = [
        "## Where the panel stands",
        "",
        f"**Emerging answer:** {view.emerging or 'none yet: no answer leads the others.'}",
        "",
    ]
    out += [view.grouped_by, ""] if view.grouped_by else []
    out += [*(f"- {note}" for note in view.agreement_notes), ""] if view.agreement_notes else []
    for voice in view.voices:
        who = story.who(voice.label, voice.name)
        why = f" — {voice.why}" if voice.why else ""
        differs = f" (the moderator reads it otherwise: {voice.moderator_words})" if voice.moderator_differs else ""
        out.append(f"- {who}: {voice.symbol} {voice.words}{why}{differs}")
    out.append("")
    out += [*(f"- {flag}" for flag in view.flags), ""] if view.flags else []
    out += [f"- {label}: its claims could not be read." for label in view.unreadable]
    out += [""] if view.unreadable else []
    if view.claims:
        headings = (
            "Claim",
            "By",
            "Kind",
            "Confidence",
            "Status",
            "Text",
            "Falsified if",
            *(["Sources"] if view.sourcing else []),
            *(v.label for v in view.voices),
        )
        rows = [
            [
                c.id,
                c.author,
                c.kind,
                f"{c.confidence}%" if c.confidence is not None else "",
                c.status,
                c.text,
                c.falsifier,
                *([claim_sources(c)] if view.sourcing else []),
                *(f"{x.start.words} → {x.end.words}" if x.moved else x.end.words for x in c.cells),
            ]
            for c in view.claims
        ]
        out += ["### Claim ledger", "", *table(headings, rows)]
        said = [
            f"- {w.target}: {w.by} {w.what}{f' ({w.how})' if w.how else ''}: {w.reason or 'no reason given'}"
            for c in view.claims
            for w in c.said
        ]
        out += ["What the voices said of them:", "", *said, ""] if said else []
    return out + checks_part(view.checks)


def checks_part(found: tuple[claims.Checked, ...]) -> list[str]:
    """The computations SymPy checked between rounds, as the page lists them."""
    if not found:
        return []
    lines = [
        f"- {c.symbol} {c.label}{f', {c.claim}' if c.claim else ''}: “{c.quote}” {c.words}: {c.detail}" for c in found
    ]
    return ["### Numbers checked between rounds", "", *lines, ""]


def claim_sources(claim: claims.Claim) -> str:
    """What a claim rests on, in its row: its author's footnotes, or unsourced."""
    cited = [story.cited({"n": s.number, "name": s.name, "url": s.url}) for s in claim.sources]
    return "; ".join(f"[{s.number}] {line}" for s, line in zip(claim.sources, cited, strict=True)) or "unsourced"


def thought_part(thought: str) -> list[str]:
    """A voice's reasoning as its provider summarised it, quoted under its text (it is no part of it)."""
    if not thought:
        return []
    quoted = [f"> {line}".rstrip() for line in demoted(thought, 4).splitlines()]
    return [f"*{story.THOUGHT}*", "", *quoted, ""]


def rounds_part(data: dict[str, Any]) -> list[str]:
    """Each round, each voice's contribution whole (its headings under the voice's); once revealed, who it was."""
    names = {who["label"]: who["name"] for who in data["identities"]}
    out = []
    for round_ in data["rounds"]:
        out += [f"## {round_['title']}", ""]
        for c in round_["contributions"]:
            facts = [c["kind"], c["status"], f"{c['tokens_in']} in + {c['tokens_out']} out tokens"]
            facts += [story.ON_SUBSCRIPTION] if c.get("on_subscription") else []
            facts += [f"${c['cost']}"] if c.get("cost") is not None else []
            facts += [f"confidence {c['confidence']:.2f}"] if c.get("confidence") is not None else []
            facts += [f"{c['searches']} web search{'es' if c['searches'] != 1 else ''}"] if c.get("searches") else []
            out += [f"### {story.who(c['label'], names.get(c['label'], ''))}", "", f"*{' · '.join(facts)}*", ""]
            out += [f"**Decision:** {c['decision']}", ""] if c["decision"] else []
            out += [f"**Flags:** {'; '.join(c['flags'])}", ""] if c.get("flags") else []
            if is_the_synthesis(c, data):
                out += ["The synthesis is under “Synthesis” below.", ""]
            else:
                out += [demoted(c["text"], 4) if c["text"] else c["error"] or "(no text)", ""]
                out += thought_part(c.get("thought", ""))
                out += [*cited, ""] if (cited := story.sources_lines(c["sources"], c["unsourced"])) else []
    return out


def synthesis_part(synthesis: dict[str, Any] | None) -> list[str]:
    """The synthesis once, in the sections the page shows (``as_people_read_it``), its headings under ours."""
    if not synthesis:
        return []
    out = ["## Synthesis", ""]
    for heading, body in synthesis["sections"] or [["", synthesis["text"]]]:
        out += [*([f"### {heading}", ""] if heading else []), demoted(body.strip(), 4), ""]
    return out


def outcome_part(outcome: dict[str, Any] | None) -> list[str]:
    """Did the verdict hold: the judgement recorded on the page, when there is one."""
    if not outcome:
        return []
    by = outcome["marked_by"] or "an operator (command line)"
    note = f" {outcome['note']}" if outcome["note"] else ""
    return [
        "## Did the verdict hold?",
        "",
        f"**{outcome['outcome']}**, judged by {by} on {outcome['marked_at'][:10]}.{note}",
        "",
    ]


def identities_part(identities: list[dict[str, Any]]) -> list[str]:
    if not identities:
        return []
    fields = ("label", "name", "model", "family", "provider", "method")
    rows = [[who[f] for f in fields] for who in identities]
    return ["## Who was who", "", *table(("Label", "Panelist", "Model", "Family", "Provider", "Method"), rows)]
