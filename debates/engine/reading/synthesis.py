"""The one reader of a moderator's synthesis: its sections in order, its verdict, its confidence.

Real models number their headings, translate them, bold a line instead of using a heading,
underline it (setext) or write ``# comment`` inside code. Headings come from markdown-it,
which knows fences and setext; bold lines used as headings come from a small rule here.
The synthesis prompts end with a closing block for machines::

    VERDICT: <one or two sentences>
    CONFIDENCE: <a number from 0 to 1>

read() finds it bold, bulleted, translated, fenced or as JSON, and takes it out of the
sections so it is not shown twice (a block that was all its section said leaves its verdict
there). Everything else the moderator wrote stays in exactly one section, in order; the verdict
is only ever what the moderator wrote as its verdict. for_people() gives the same text as one
Markdown document, without the lines a program reads: what a copy, an export or a client gets.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

from debates.engine.reading import confidence as confidences
from debates.engine.reading import jsonish
from debates.engine.reading.text import heading_key as normal
from debates.engine.reading.text import phrases, placeholder, words

VERDICT_CHARS = 400
MARKDOWN = MarkdownIt("commonmark")

# Heading words by role, lower case without accents, in English, Italian, Spanish, French,
# German and Portuguese; a verdict word's rank says how sure it is that it names the verdict.
ROLES: dict[str, tuple[str, ...]] = {
    "consensus": phrases(
        "consensus, consenso, konsens, agreement, agreements, agree, agrees, accordo, accordi, acuerdo, "
        "acuerdos, accord, accords, acordo, acordos, convergence, convergences, convergenza, convergenze, "
        "convergencia, convergencias, coincidencias, concordancia, einigkeit, ubereinstimmung, "
        "ubereinstimmungen, gemeinsamkeiten, common ground"
    ),
    "disagreements": phrases(
        "disagreement, disagreements, disagree, conflict, conflicts, dissent, divergence, divergences, "
        "disaccordo, disaccordi, divergenza, divergenze, conflitto, conflitti, desacuerdo, desacuerdos, "
        "discrepancia, discrepancias, conflicto, conflictos, divergencia, divergencias, desaccord, "
        "desaccords, conflit, conflits, dissens, meinungsverschiedenheit, meinungsverschiedenheiten, "
        "konflikt, konflikte, uneinigkeit, streitpunkte, desacordo, desacordos, conflito, conflitos, "
        "controversy, controversies, controversie, controversia, controversias, dispute, disputes"
    ),
}
VERDICT_WORDS: tuple[tuple[str, ...], ...] = (
    ("verdict", "verdicts", "verdetto", "veredicto", "veredito", "verdicto", "verdikt", "urteil"),
    phrases(
        "conclusion, conclusions, conclusione, conclusioni, conclusiones, conclusao, conclusoes, fazit, "
        "schlussfolgerung, schlussfolgerungen, bottom line"
    ),
    phrases(
        "recommendation, recommendations, raccomandazione, raccomandazioni, recomendacion, recomendaciones, "
        "recommandation, recommandations, recomendacao, recomendacoes, empfehlung, empfehlungen, "
        "final decision, decisione finale, decision final, decision finale, decisao final, final answer, "
        "risposta finale, respuesta final, reponse finale, resposta final, short answer, tl dr, tldr"
    ),
    ("answer", "risposta", "respuesta", "reponse", "resposta", "antwort"),
)
STANCE_LABELS = ("stances", "stance", "posizioni", "posiciones", "positions", "positionen")
CONFIDENCE_WORDS = phrases(
    "confidence, fiducia, confianza, confiance, confianca, konfidenz, zuversicht, vertrauen, sicherheit, "
    "certezza, certeza, certitude"
)
PLAIN_FENCES = {"", "text", "txt", "plaintext", "json", "yaml", "yml", "md", "markdown", "ini", "toml"}

LABEL_LINE = re.compile(
    r"^\s{0,3}(?:#{1,6}\s+|>\s*)?(?:[-*+]\s+)?[*_`]*\s*(?P<label>[^\W\d_][^\W\d]*(?:[ '’][^\W\d]+){0,3})"
    r"\s*[*_`]*\s*[:=]\s*[*_`]*\s*(?P<value>.*?)\s*$"
)
BOLD_LINE = re.compile(r"^\s{0,3}(\*\*|__)(?P<title>[^*_]+?)\1\s*(?P<sep>[:—–-])?\s*(?P<rest>.*)$")
PLAIN_LEAD = re.compile(r"^\s{0,3}(?P<title>[^\W\d_][^\W\d]*(?: [^\W\d]+){0,2})\s*:\s*(?P<rest>\S.*)$")
RULE = re.compile(r"^\s{0,3}([-*_=])(\s*\1){2,}\s*$")
HEADING = re.compile(r"^\s{0,3}#{1,6}(\s.*)?$")
FENCE_MARK = re.compile(r"^\s*(```|~~~)")
LIST_MARK = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+]|\d{1,3}[.)])\s+)?")


@dataclass(frozen=True)
class ReadSynthesis:
    """What a moderator wrote, read: every section in order, and the verdict it gave, if any."""

    sections: tuple[tuple[str, str], ...]  # (heading, body); text before the first heading has heading ""
    verdict: str  # one line (see headline), "" when the moderator wrote none
    confidence: float | None  # 0–1, from the closing block
    closing: str = ""  # the closing block as written, taken out of the sections; "" when none was
    stances: tuple[tuple[str, str], ...] = ()  # (label, agrees | partly | disagrees | unknown), from the block


@dataclass(frozen=True)
class Block:
    start: int  # first line
    end: int  # line after the last
    verdict: str
    confidence: float | None


@dataclass(frozen=True)
class Mark:
    start: int  # first line of the heading
    end: int  # first line of the body
    title: str
    depth: int  # 1–6 for markdown headings, 7 for a line used as one
    rest: str = ""  # what follows a lead-in ("**Verdict:** rest") on its line


def read(text: str) -> ReadSynthesis:
    """The sections, the verdict and the confidence of a moderator's synthesis."""
    lines, tokens = parsed(text)
    block = closing_block(lines, tokens)
    if block is None:
        plain = pairs(cut(lines, tokens, frozenset()))
        return ReadSynthesis(plain, verdict_of(plain), None)
    _shown, sections = without_block(lines, block)
    closing = "\n".join(lines[block.start : block.end])
    return ReadSynthesis(pairs(sections), headline(block.verdict), block.confidence, closing, stances_of(closing))


def for_people(text: str, names: Mapping[str, str] | None = None) -> str:
    """The synthesis as people read it: every line the moderator wrote, in order, without the closing
    block a program reads (VERDICT, CONFIDENCE, STANCES); where that block was all its section said,
    its verdict in its place. ``names``: label -> the revealed panelist, once there is a reveal.

    The page's copy, the exports and the clients outside the page all give this text.
    """
    lines, tokens = parsed(text)
    block = closing_block(lines, tokens)
    kept: list[str] = []
    after_block = False
    for line in without_block(lines, block)[0] if block else lines:
        if line is None:
            after_block = True
        elif not (after_block and not line.strip() and not (kept and kept[-1].strip())):
            kept.append(line)  # not a second blank line where the block was
            after_block = after_block and not line.strip()
    return named(trim(kept), names or {})


def parsed(text: str) -> tuple[list[str], list[Token]]:
    """The lines and markdown tokens of a synthesis; inside its fence, when all of it is in a ```markdown one."""
    lines = re.split(r"\r\n?|\n", text or "")
    tokens = MARKDOWN.parse("\n".join(lines))
    if len(tokens) == 1 and tokens[0].type == "fence" and tokens[0].info.strip().casefold() in ("markdown", "md"):
        return parsed(tokens[0].content)
    return lines, tokens


def without_block(lines: list[str], block: Block) -> tuple[list[str | None], list[tuple[str, str, int]]]:
    """The lines without the closing block's (None in their place) and the sections they make.

    A block that is all its section says leaves its verdict in its place, so that the section
    (a "## Verdict" holding only the block) still says what the moderator concluded.
    """
    inside = frozenset(range(block.start, block.end))
    shown: list[str | None] = [None if i in inside else line for i, line in enumerate(lines)]
    sections = _sections(shown, inside)
    holder = next((body for _heading, body, first in reversed(sections) if first <= block.start), "")
    if not words(holder) and words(block.verdict):  # a verdict of no word (a rule) says nothing there
        shown[block.start] = block.verdict
        sections = _sections(shown, inside)
    return shown, sections


def _sections(shown: list[str | None], no_marks: frozenset[int]) -> list[tuple[str, str, int]]:
    blanked = [line or "" for line in shown]
    return cut(blanked, MARKDOWN.parse("\n".join(blanked)), no_marks)


LABEL = re.compile(r"\bPanelist (?:[A-Z]|\d{1,2})\b")


def named(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each panelist's label followed by its revealed name: "Panelist A (Gamma house)"."""
    if not names:
        return text
    return LABEL.sub(lambda m: f"{m[0]} ({names[m[0]]})" if names.get(m[0]) else m[0], text)


# A voice's stance as a moderator words it, in the languages it answers in; the first word found wins.
STANCE_WORDS = {
    "partly": r"partly|partially|in part|with reservations?|reserv\w*|in parte|parzialmente|en parte|parcialmente|"
    r"en partie|partiellement|teilweise",
    "disagrees": r"disagrees?|dissents?|against|opposes?|in disaccordo|contrario|en desacuerdo|en désaccord|"
    r"dagegen|widerspricht",
    "agrees": r"agrees?|supports?|sides with|d'accordo|concorda|de acuerdo|d'accord|stimmt zu|einverstanden",
    "unknown": r"unknown|unclear|not known|non chiaro|desconocido|inconnu|unklar",
}
STANCE = re.compile(
    r"(?:Panelist\w*\s+)?\b(?P<who>[A-Z]|\d{1,2})\b\s*[:=(—–-]?\s*(?P<word>"
    + "|".join(f"(?P<{name}>{words})" for name, words in STANCE_WORDS.items())
    + r")",
    re.IGNORECASE,
)
STANCES_LINE = re.compile(
    r"^[\s*_>-]*(?:stances?|posizioni|posiciones|positions|positionen)\s*[:：]\s*(?P<said>.+)$",
    re.IGNORECASE | re.MULTILINE,
)


def stances_of(block: str) -> tuple[tuple[str, str], ...]:
    """The moderator's word on each voice's stance: "STANCES: Panelist A agrees; Panelist B disagrees"."""
    found: dict[str, str] = {}
    for line in STANCES_LINE.finditer(block):
        for match in STANCE.finditer(line["said"]):
            stance = next(name for name in STANCE_WORDS if match[name])
            found.setdefault(f"Panelist {match['who'].upper()}", stance)
    return tuple(found.items())


def headline(text: str) -> str:
    """The verdict as one line for lists: no headings or bullets, cut at a sentence near 400 characters."""
    pieces: list[str] = []
    for line in (text or "").splitlines():
        if HEADING.match(line) or RULE.match(line) or FENCE_MARK.match(line) or not line.strip():
            continue
        item = LIST_MARK.sub("", line).strip()
        if item != line.strip() and pieces and not pieces[-1].endswith((".", "!", "?", ";", ":", ",")):
            pieces[-1] += ";"  # bullets become clauses, not one run-on sentence
        pieces.append(item)
    plain = " ".join(" ".join(pieces).split())
    if len(plain) <= VERDICT_CHARS:
        return plain
    cut_at = plain[:VERDICT_CHARS]
    end = max(cut_at.rfind(". "), cut_at.rfind("! "), cut_at.rfind("? "))
    return cut_at[: end + 1] if end > VERDICT_CHARS // 2 else cut_at.rstrip() + "…"


def role(heading: str) -> str:
    """ "consensus", "disagreements" or "verdict" for a heading in any of our languages; "" for others."""
    found = roles(heading)
    return min(found, key=found.__getitem__) if found else ""


def roles(heading: str) -> dict[str, int]:
    """Each role a heading names, with where the first word naming it starts."""
    padded = f" {normal(heading)} "
    found = {}
    for name, said in (*ROLES.items(), ("verdict", tuple(p for ps in VERDICT_WORDS for p in ps))):
        if places := [padded.find(f" {p} ") for p in said if f" {p} " in padded]:
            found[name] = min(places)
    return found


def verdict_rank(heading: str) -> int | None:
    """How surely a heading names the verdict: 0 "Verdetto", 1 "Conclusion", 2 "Recommendation", 3 "Answer"."""
    padded = f" {normal(heading)} "
    return next((rank for rank, ps in enumerate(VERDICT_WORDS) if any(f" {p} " in padded for p in ps)), None)


def names_verdict(heading: str, most: int) -> bool:
    rank = verdict_rank(heading)
    return rank is not None and rank <= most


# --- the closing block ----------------------------------------------------------------------
def closing_block(lines: list[str], tokens: list[Token]) -> Block | None:
    """The last machine-readable block that gives a verdict: label lines, a fenced block or JSON."""
    fenced: set[int] = set()
    found: list[Block] = []
    for token in tokens:
        if token.type in ("fence", "code_block") and token.map:
            fenced.update(range(*token.map))
            language = token.info.strip().split(" ")[0].casefold() if token.type == "fence" else "-"
            items = from_json(token.content) if language in PLAIN_FENCES else None
            if items is None and language in PLAIN_FENCES:
                items = from_labels(token.content.splitlines(), strict=False)
            if items and items[0]:
                found.append(Block(token.map[0], token.map[1], *items))
    found += label_runs(lines, fenced)
    found += json_tails(lines, fenced)
    if not found:
        return None
    block = max(found, key=lambda b: b.start)
    before = previous_line(lines, block.start)
    if before is not None and RULE.match(lines[before]) and (before == 0 or not lines[before - 1].strip()):
        block = Block(before, block.end, block.verdict, block.confidence)  # the rule that set it apart
    return block


def label_of(line: str) -> tuple[str, str, str] | None:
    """(kind, label, value) of a "VERDICT: …" or "**Confidence:** …" line; None for prose."""
    match = LABEL_LINE.match(line)
    if not match:
        return None
    label = match["label"]
    name = normal(label)
    if name in CONFIDENCE_WORDS or any(f" {w} " in f" {name} " for w in CONFIDENCE_WORDS):
        kind = "confidence"
    elif name in STANCE_LABELS:
        kind = "stances"
    elif len(name.split()) <= 3 and names_verdict(name, most=2):
        kind = "verdict"
    else:
        return None
    return kind, label, match["value"].strip("*_`\"' ")


def from_labels(lines: list[str], strict: bool) -> tuple[str, float | None] | None:
    """Verdict and confidence of a run of label lines; strict (outside a fence) wants capitals or a confidence.

    A verdict goes on over the lines right under it; a template's placeholder ("<…>") is no verdict.
    """
    items: list[list[str]] = []  # [kind, label, value]
    going_on = False
    for line in lines:
        if labelled := label_of(line):
            kind, label, value = labelled
            echo = placeholder(value)
            items.append([kind, label, "" if echo else value])
            going_on = kind == "verdict" and not echo
        elif line.strip() and going_on and not HEADING.match(line):
            items[-1][2] = f"{items[-1][2]} {line.strip()}".strip()
        elif line.strip():
            return None
        elif items and items[-1][2]:
            going_on = False  # a blank line ends a verdict, unless it is still to come ("VERDICT:", blank, text)
    verdicts = [value for kind, _label, value in items if kind == "verdict" and value]
    levels = [confidences.value(value) for kind, _label, value in items if kind == "confidence"]
    loud = any(label.isupper() for _kind, label, _value in items) or any(c is not None for c in levels)
    if not verdicts or (strict and not loud):
        return None
    return verdicts[-1], next((c for c in reversed(levels) if c is not None), None)


def label_runs(lines: list[str], fenced: set[int]) -> list[Block]:
    """Runs of label lines outside code; a verdict may go on over the lines under its label."""

    def labelled(n: int) -> bool:
        return n < len(lines) and n not in fenced and label_of(lines[n]) is not None

    def opens(n: int) -> bool:  # a label with its value on the lines below ("VERDICT:" alone)
        label = label_of(lines[n])
        return label is not None and not label[2]

    runs, i = [], 0
    while i < len(lines):
        if not labelled(i):
            i += 1
            continue
        end, open_label = i + 1, opens(i)
        while True:
            if labelled(end):
                end, open_label = end + 1, opens(end)
            elif end < len(lines) and not lines[end].strip() and labelled(end + 1):
                end += 1  # one blank line between two labels
            else:
                more = end
                while more < len(lines) and more not in fenced and lines[more].strip() and not labelled(more):
                    if HEADING.match(lines[more]):
                        break  # a heading starts a section: no verdict goes on into it
                    more += 1
                if more == end or not (open_label or labelled(more)):
                    break
                end, open_label = more, False  # "VERDICT:" with the verdict under it, or a verdict on two lines
        if items := from_labels(lines[i:end], strict=True):
            runs.append(Block(i, end, *items))
        i = end
    return runs


def json_tails(lines: list[str], fenced: set[int]) -> list[Block]:
    """A bare JSON object closing the text: {"verdict": …, "confidence": …}."""
    last = previous_line(lines, len(lines))
    if last is None or last in fenced or not lines[last].strip().endswith("}"):
        return []
    for start in range(last, -1, -1):
        if start in fenced:
            return []
        if lines[start].lstrip().startswith("{"):
            items = from_json("\n".join(lines[start : last + 1]))
            return [Block(start, last + 1, *items)] if items and items[0] else []
    return []


def from_json(text: str) -> tuple[str, float | None] | None:
    """Verdict and confidence of a JSON object whose keys are labels in any of our languages."""
    data = jsonish.whole(text)
    if not isinstance(data, dict):
        return None
    verdict, level = "", None
    for key, value in data.items():
        labelled = label_of(f"{str(key).replace('_', ' ')}: x")
        if labelled and labelled[0] == "verdict" and isinstance(value, str) and not placeholder(value):
            verdict = value.strip()
        elif labelled and labelled[0] == "confidence":
            level = confidences.value(value)
    return verdict, level


def previous_line(lines: list[str], before: int) -> int | None:
    """The last non-blank line above ``before``."""
    return next((i for i in range(before - 1, -1, -1) if lines[i].strip()), None)


# --- sections ---------------------------------------------------------------------------------
def cut(lines: list[str], tokens: list[Token], no_marks: frozenset[int]) -> list[tuple[str, str, int]]:
    """The sections as (heading, body, the line where the section starts)."""
    marks = headings(lines, tokens, no_marks)
    first = marks[0].start if marks else len(lines)
    sections = [("", trim(lines[:first]), 0)] if words("\n".join(lines[:first])) else []
    for k, mark in enumerate(marks):
        stop = marks[k + 1].start if k + 1 < len(marks) else len(lines)
        sections.append((mark.title, trim(([mark.rest] if mark.rest else []) + lines[mark.end : stop]), mark.start))
    return sections


def pairs(sections: list[tuple[str, str, int]]) -> tuple[tuple[str, str], ...]:
    return tuple((heading, body) for heading, body, _start in sections)


def headings(lines: list[str], tokens: list[Token], no_marks: frozenset[int]) -> list[Mark]:
    """Where sections start: markdown headings at the top level and lines used as headings."""
    real = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0 and token.map:
            real.append(Mark(token.map[0], token.map[1], title(tokens[i + 1].content), int(token.tag[1])))
    # Sub-headings stay in their section's body: the outermost level splits, and a deeper
    # heading only when it names a role none of those does ("## Consensus" … "### Verdict").
    with_role = [m.depth for m in real if role(m.title)]
    depth = min(with_role or [m.depth for m in real] or [0])
    outer = {r for m in real if m.depth <= depth for r in roles(m.title)}
    marks = [m for m in real if m.depth <= depth or (role(m.title) and role(m.title) not in outer)]
    named = {r for m in marks for r in roles(m.title)}
    for token in tokens:
        if token.type != "paragraph_open" or token.level != 0 or not token.map:
            continue
        for n in range(*token.map):
            if n not in no_marks and (mark := line_heading(n, lines[n], named, bool(real))):
                marks.append(mark)
    return sorted(marks, key=lambda m: m.start)


def line_heading(n: int, line: str, named: set[str], has_headings: bool) -> Mark | None:
    """A bold line used as a heading, or a "**Verdict:** …" / "Verdict: …" lead-in.

    A bold line counts when it names a role no heading names, or when the text has no headings
    at all (its headings are bold lines); a plain "Verdict: …" only for the verdict.
    """
    if bold := BOLD_LINE.match(line):
        name = title(bold["title"])
        found = role(name)
        if not bold["rest"]:
            short = len(name.split()) <= 10 and not name.endswith((".", "!", "?"))
            return Mark(n, n + 1, name, 7) if short and ((found and found not in named) or not has_headings) else None
        lead = (bold["title"].rstrip().endswith(":") or bold["sep"]) and len(name.split()) <= 5
        return Mark(n, n + 1, name, 7, bold["rest"]) if lead and found and found not in named else None
    plain = PLAIN_LEAD.match(line)
    if plain and "verdict" not in named and set(roles(plain["title"])) == {"verdict"}:
        return Mark(n, n + 1, plain["title"], 7, plain["rest"]) if names_verdict(plain["title"], most=1) else None
    return None


def title(text: str) -> str:
    """A heading as written, without the bold around it or the colon after it."""
    plain = " ".join(text.split())
    for mark in ("**", "__", "*", "_"):
        if plain.startswith(mark) and plain.endswith(mark) and len(plain) > 2 * len(mark):
            plain = plain[len(mark) : -len(mark)].strip()
    return plain.rstrip(":").rstrip()


def trim(lines: list[str]) -> str:
    """Lines as written, without the blank ones around them."""
    return "\n".join(lines).strip("\n").rstrip()


def verdict_of(sections: tuple[tuple[str, str], ...]) -> str:
    """The verdict section's first paragraph as one line; "" when no section is named as the verdict.

    "## Verdict: Approve it" gives "Approve it". The section most surely named so wins (the
    later one when a moderator revises its verdict); one that also names another role
    ("Consensus and verdict") only when no other does.
    """
    best, line = None, ""
    for heading, body in sections:
        found = roles(heading)
        if "verdict" not in found:
            continue
        label, _, said = heading.partition(":")
        named_only = set(roles(label)) == {"verdict"} and len(label.split()) <= 3 and "(" not in label
        text = said if named_only and words(said) else first_paragraph(body)
        rank = (len(found) > 1, verdict_rank(heading))
        if headline(text) and (best is None or rank <= best):
            best, line = rank, headline(text)
    return line


def first_paragraph(body: str) -> str:
    """The verdict as the moderator opened its section: no "**Verdict:**" label, no echoed template.

    A paragraph ending with a colon ("My recommendation:") goes on with the block under it.
    """
    kept = [line for line in body.splitlines() if not echoed(line)]
    blocks = [b for b in re.split(r"\n\s*\n", "\n".join(kept)) if headline(b)]  # not a lone sub-heading
    if not blocks:
        return ""
    text = blocks[0] if not blocks[0].rstrip().endswith(":") or len(blocks) == 1 else "\n".join(blocks[:2])
    first, _, rest = text.partition("\n")
    lead = BOLD_LINE.match(first) or PLAIN_LEAD.match(first)
    if lead and lead["rest"] and names_verdict(lead["title"], most=1):
        return f"{lead['rest']}\n{rest}"
    return text


def echoed(line: str) -> bool:
    """A line of the prompt's closing block that the model copied with its placeholder."""
    labelled = label_of(line)
    return bool(labelled and placeholder(labelled[2]))
