"""The claim ledger: who claims what, who attacked it, who conceded, who changed their mind.

Each contribution ends with a closing block our prompts ask for (``ANSWER:``, ``CLAIMS:``,
``ATTACKS:``, ``REPLIES:``, ``ON CLAIMS:``, ``CHANGE:``); ``read`` turns it into a small JSON
record stored with the contribution (so a resumed run keeps it), and ``Ledger`` puts the
records of a run together: claims, events on them, position changes, stances, the matrix.

Reading is lenient about form, as real models write it: headings in bold, markdown or another
language, numbered or bulleted items, tags in brackets or words, "90%" or "0.9", JSON instead
of lines, a ``<think>`` block first. It is strict about meaning: an attack must name a claim
that exists (else it is kept as unmatched, never counted), and a block that cannot be read
leaves the contribution an answer with its claims marked unreadable — never a phantom.
"""

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import json5
from rapidfuzz import fuzz

from debates.engine import consensus, gates

MAX_CLAIMS = 8
MAX_ITEMS = 30
MAX_FIELD = 400
SHARED_SIMILARITY = 72  # token-set similarity (0–100) at which two voices' claims count as one claim

# Headings of the closing block, in the languages models answer in; matched on the bare word.
HEADINGS: dict[str, tuple[str, ...]] = {
    "answer": ("answer", "final answer", "risposta", "respuesta", "réponse", "reponse", "antwort", "resposta"),
    "claims": (
        "claims", "central claims", "main claims", "key claims", "affermazioni", "tesi", "afirmaciones",
        "affirmations", "thèses", "theses", "behauptungen", "aussagen", "alegações",
    ),
    "attacks": ("attacks", "critiques", "objections", "attacchi", "ataques", "attaques", "angriffe", "einwände"),
    "replies": ("replies", "responses", "risposte", "respuestas", "réponses", "reponses", "antworten", "respostas"),
    "on_claims": ("on claims", "on the claims", "claim verdicts", "verdicts on claims", "sulle affermazioni",
                  "sobre las afirmaciones", "sur les affirmations", "zu den behauptungen"),
    "change": ("change", "position change", "change of position", "cambio", "cambiamento", "cambio de posición",
               "changement", "changement de position", "änderung", "positionswechsel", "mudança"),
}  # fmt: skip
KINDS = {  # claim tags
    "fact": ("fact", "factual", "fatto", "hecho", "fait", "tatsache", "fato"),
    "inference": ("inference", "inferred", "deduction", "inferenza", "inferencia", "inférence", "schlussfolgerung"),
    "speculation": ("speculation", "speculative", "conjecture", "hypothesis", "speculazione", "especulación",
                    "spéculation", "spekulation", "ipotesi", "hipótesis"),
}  # fmt: skip
ATTACK_KINDS = {
    "factual_error": ("factual", "fact", "wrong", "incorrect", "error", "errore", "erróneo", "erreur", "falsch"),
    "weak_evidence": ("evidence", "unsupported", "prove", "source", "evidenza", "evidencia", "preuve", "beleg"),
    "logical_gap": ("logic", "logical", "gap", "non sequitur", "follow", "logica", "lógica", "logique"),
    "overlooked_alternative": ("alternative", "overlook", "missed", "alternativa", "alternativ"),
    "hidden_assumption": ("assumption", "assume", "presuppos", "ipotesi nascosta", "supuesto", "hypothèse", "annahme"),
}  # fmt: skip
REPLY_WORDS = {
    "conceded": ("conced", "accept", "agree", "valid", "correct", "granted", "fair", "right", "concedo", "acepto",
                 "accetto", "concède", "zugestanden"),
    "defended": ("defend", "maintain", "reject", "stand", "keep", "hold", "disagree", "rebut", "difend", "difes",
                 "defiend", "defendid", "mantengo", "rejet", "maintien", "verteidig", "défend"),
    "partly": ("partial", "partly", "in part", "parzial", "parcial", "partiel", "teilweise"),
}  # fmt: skip
VERDICT_WORDS = {
    "confirm": ("confirm", "support", "agree", "holds", "conferm", "confirma", "confirme", "bestätig"),
    "correct": ("correct", "amend", "refine", "qualif", "corregg", "corrig", "korrigier"),
    "refute": ("refut", "reject", "false", "wrong", "disagree", "confut", "réfut", "widerleg"),
}  # fmt: skip
DEGREES = {
    "partial": ("partial", "partly", "partially", "some", "minor", "parziale", "parcial", "partiel", "teilweise"),
    "total": ("total", "full", "fully", "complete", "completely", "entire", "totale", "completo", "complet",
              "vollständig", "reversed", "reverse"),
    "none": ("none", "no", "unchanged", "no change", "nessuno", "nessun", "ninguno", "ningún", "aucun", "keine",
             "kein", "nenhuma"),
}  # fmt: skip

HEADING_MARKUP = " \t>#*_`"
ITEM = re.compile(r"^[ \t>]*(?:[-*•+]|\d{1,2}[.)]|\(\d{1,2}\))[ \t]+(?P<body>.+)$")
CLAIM_REF = re.compile(
    r"\b(?:(?P<who>[A-Z])(?:'s)?[\s.,#-]{0,3}(?:claim\s*)?(?:#|n\.?\s*)?(?P<n>\d{1,2})"
    r"|(?P<num>\d{1,2})\.(?P<m>\d{1,2}))\b"
)
QUOTE = re.compile(r"[\"“«„](?P<q>[^\"”»“]{3,400})[\"”»“]")
CONFIDENCE_FIELD = re.compile(
    r"(?:conf(?:idence|idenza|ianza|iance)?\.?|certainty|sicurezza)\s*[:=]?\s*(?P<v>[^|;,)\]]{1,20})", re.IGNORECASE
)
FALSIFIER = re.compile(
    r"(?:falsifi(?:ed|able|cation)(?:\s+(?:if|when|by|condition))?|fails?\s+(?:if|when)|would be (?:false|wrong) if|"
    r"wrong if|refuted (?:if|by)|falsificat[oa] se|falsificad[oa] si|réfuté si|widerlegt,? wenn)\s*[:=]?\s*",
    re.IGNORECASE,
)
SEPARATORS = " \t|;:—–-,.*_"
FENCE = re.compile(r"```[^\n]*\n(?P<body>.*?)```", re.DOTALL)


# --- reading one contribution ----------------------------------------------------------------


def read(kind: str, text: str, label: str) -> dict[str, Any]:
    """The ledger record of one contribution (a JSON-able dict), for the step kinds that have one.

    answer: ``answer``, ``claims``, ``claims_status`` (ok | missing | unreadable).
    critique: ``attacks``. final: ``replies``, ``change``, ``answer``. critique_final: attacks,
    change, answer. debate and dissent: ``verdicts`` (confirm / correct / refute per claim),
    change, answer. A vote carries its claims in the ballot's JSON (``claims``).
    """
    body = consensus.without_thinking(text)
    blocks = _blocks(body)
    record: dict[str, Any] = {}
    if kind in ("answer", "vote"):
        claims, status = _claims(blocks, body, label)
        record |= {"claims": claims, "claims_status": status}
    if kind in ("critique", "critique_final"):
        record["attacks"] = [a for a in map(_attack, blocks.get("attacks", [])) if a]
    if kind == "final":
        record["replies"] = [r for r in map(_reply, blocks.get("replies", [])) if r]
    if kind in ("debate", "dissent"):
        record["verdicts"] = [v for v in map(_verdict, blocks.get("on_claims", [])) if v]
    if kind in ("final", "critique_final", "debate", "dissent"):
        record["change"] = _change(blocks.get("change", []))
    if kind != "vote" and (answer := _one_line(blocks.get("answer", []))):
        record["answer"] = answer
    return record


def _key(word: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", word).casefold().replace("’", "'").split())


HEADING_OF = {_key(word): name for name, words in HEADINGS.items() for word in words}


def _blocks(text: str) -> dict[str, list[str]]:
    """The closing block's sections, by name: the lines under the last heading of each name.

    A heading's own line may carry its content (``ANSWER: 42``, ``CHANGE: partial — …``).
    Fence lines are skipped (some models put the whole block in one); after a blank line,
    prose that is not an item ends a section.
    """
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    blank = False
    for line in text.replace("\r\n", "\n").split("\n")[-2000:]:
        heading = _heading(line)
        if heading is not None:
            name, rest = heading
            current = found[name] = [rest] if rest else []  # a later block of the same name replaces one
            blank = False
            continue
        if current is None or line.strip().startswith("```"):
            continue
        if not line.strip():
            blank = True
            continue
        starts_item = bool(ITEM.match(line)) or _is_item_start(line)
        if blank and not starts_item and not line.startswith((" ", "\t")):
            current = None  # prose after the section
            continue
        blank = False
        if len(current) < MAX_ITEMS:
            current.append(line.rstrip())
    return found


def _heading(line: str) -> tuple[str, str] | None:
    """(section name, what follows on the line) when ``line`` is a heading of the closing block:
    "CLAIMS:", "**Claims**", "## Affermazioni", "ANSWER: 42", "Change (position): none"."""
    bare = line.strip().lstrip(HEADING_MARKUP)
    match = re.match(r"([^:：]{1,48})([:：])(.*)$", bare)
    head, colon, rest = (match[1], match[2], match[3]) if match else (bare, "", "")
    word = re.sub(r"\([^)]{0,40}\)", "", head).strip(HEADING_MARKUP)
    name = HEADING_OF.get(_key(word)) if 0 < len(word) <= 40 else None
    if name is None:
        return None
    if not colon and not (line.lstrip().startswith(("#", "*", "_")) or word.isupper()):
        return None  # a sentence that starts with "Answer" is not a heading
    return name, rest.strip().strip("*_ ").strip()


def _is_item_start(line: str) -> bool:
    return bool(re.match(r"^\s*(?:[A-Z]\d{1,2}|\[)", line))


def _items(lines: list[str]) -> list[str]:
    """Items of a list: a bullet or number starts one; an indented or bare line continues it."""
    items: list[str] = []
    for line in lines:
        match = ITEM.match(line)
        if match or not items or _is_item_start(line):
            items.append((match["body"] if match else line).strip())
        else:
            items[-1] += " " + line.strip()
    return [item[:1000] for item in items if item.strip(SEPARATORS)]


def _one_line(lines: list[str]) -> str:
    first = next((line for line in lines if line.strip()), "")
    return consensus.clean_decision(first)[:MAX_FIELD]


def _claims(blocks: dict[str, list[str]], body: str, label: str) -> tuple[list[dict[str, Any]], str]:
    prefix = claim_prefix(label)
    lines = blocks.get("claims")
    if lines is None:
        found = _json_claims(body, bare_lists=False)
        return ([_numbered(prefix, i, c) for i, c in enumerate(found, 1)], "ok") if found else ([], "missing")
    joined = "\n".join(lines).strip()
    raw = _json_claims(joined) if joined[:1] in "[{`" else []
    if not raw:
        raw = [c for c in map(_claim, _items(lines)) if c]
    claims = [_numbered(prefix, i, c) for i, c in enumerate(raw[:MAX_CLAIMS], 1)]
    return claims, "ok" if claims else "unreadable"


def _numbered(prefix: str, number: int, claim: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"{prefix}{number}", **claim}


def claim_prefix(label: str) -> str:
    """ "Panelist B" -> "B" (claims B1, B2…); "Panelist 12" -> "12." (claims 12.1…)."""
    suffix = label.rsplit(" ", 1)[-1]
    return f"{suffix}." if suffix.isdigit() else suffix


def _claim(item: str) -> dict[str, Any] | None:
    text = item
    kind = ""
    tag = re.match(r"^\s*[\[(*_]{1,2}\s*([^\])*_\n]{2,30}?)\s*[\])*_]{1,2}\s*[:—–-]?\s*", text)
    if tag and (found := _match_word(tag[1], KINDS)):
        kind, text = found, text[tag.end() :]
    elif (bare := re.match(r"^\s*([^\W\d_]{4,16})\s*[:—–-]\s+", text)) and (found := _match_word(bare[1], KINDS)):
        kind, text = found, text[bare.end() :]
    falsifier = ""
    if split := FALSIFIER.search(text):
        falsifier, text = _trim(text[split.end() :]), text[: split.start()]
    confidence = None
    if conf := CONFIDENCE_FIELD.search(text):
        confidence, text = _confidence(conf["v"]), text[: conf.start()] + text[conf.end() :]
    elif loose := re.search(r"[(\[]\s*(\d{1,3}(?:[.,]\d+)?\s*%|0?\.\d+)\s*[)\]]", text):
        confidence, text = _confidence(loose[1]), text[: loose.start()] + text[loose.end() :]
    text = _trim(re.sub(r"\(\s*\)|\[\s*\]", "", text))
    if not re.search(r"[^\W\d_]{2}", text):  # "???" or "-" is not a claim
        return None
    return {"text": text[:MAX_FIELD], "kind": kind, "confidence": confidence, "falsifier": falsifier[:MAX_FIELD]}


def _trim(text: str) -> str:
    """Separators off both ends, and a bracket off an end only where it is left unbalanced."""
    pairs = {"(": ")", "[": "]"}
    closing = {v: k for k, v in pairs.items()}
    text = text.strip(SEPARATORS)
    while text:
        last, first = text[-1], text[0]
        if last in pairs or (last in closing and text.count(last) > text.count(closing[last])):
            text = text[:-1].strip(SEPARATORS)
        elif first in closing or (first in pairs and text.count(first) > text.count(pairs[first])):
            text = text[1:].strip(SEPARATORS)
        elif first == "(" and last == ")" and text.count("(") == 1:
            text = text[1:-1].strip(SEPARATORS)  # "(A is right)": the reason in brackets
        else:
            break
    return text


def _json_claims(text: str, bare_lists: bool = True) -> list[dict[str, Any]]:
    """Claims given as JSON: under a "claims" key, or (under a CLAIMS heading) a bare list."""
    for fenced in [m["body"] for m in FENCE.finditer(text)] or [text]:
        for start in (i for i, ch in enumerate(fenced) if ch in "[{"):
            try:
                value = json5.loads(fenced[start : _matching(fenced, start)])
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                value = next((v for k, v in value.items() if _key(str(k)) in ("claims", "claim")), None)
            elif not bare_lists:
                continue
            if isinstance(value, list) and value:
                return [c for c in map(_json_claim, value[:MAX_CLAIMS]) if c]
    return []


def _matching(text: str, start: int) -> int:
    """The end of the bracketed span opening at ``start`` (quotes respected), or the text's end."""
    depth, quote = 0, ""
    for i in range(start, min(len(text), start + 20_000)):
        ch = text[i]
        if quote:
            quote = "" if ch == quote and text[i - 1] != "\\" else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _json_claim(value: object) -> dict[str, Any] | None:
    if isinstance(value, str):
        return _claim(value)
    if not isinstance(value, dict):
        return None
    fields = {_key(str(k)).replace(" ", "_"): v for k, v in value.items()}
    text = next((fields[k] for k in ("claim", "text", "statement", "content") if k in fields), "")
    if not isinstance(text, str) or len(text.strip()) < 3:
        return None
    kind = next((fields[k] for k in ("kind", "type", "tag", "category") if k in fields), "")
    falsifier = next((fields[k] for k in fields if k.startswith("falsif") or k in ("fails_if", "wrong_if")), "")
    return {
        "text": text.strip()[:MAX_FIELD],
        "kind": _match_word(str(kind), KINDS) or "",
        "confidence": _confidence(fields.get("confidence")),
        "falsifier": str(falsifier or "").strip()[:MAX_FIELD],
    }


def _confidence(value: object) -> float | None:
    if isinstance(value, str):
        value = value.strip(SEPARATORS + "()")
    try:
        return consensus.read_confidence(value)
    except consensus.VoteParseError:
        return None


def _match_word(text: str, table: Mapping[str, tuple[str, ...]]) -> str | None:
    """The first entry whose stem starts a word of ``text`` (so "factual" finds "fact")."""
    words = _key(text)
    for name, stems in table.items():
        if any(re.search(rf"(?<!\w){re.escape(stem)}", words) for stem in stems):
            return name
    return None


def _reference(item: str) -> tuple[str, str] | None:
    """The claim an item is about ("B2", "Panelist B, claim 2", "B.2") and the rest of the item."""
    match = CLAIM_REF.search(item[:80])
    if not match:
        return None
    target = f"{match['who']}{match['n']}" if match["who"] else f"{match['num']}.{match['m']}"
    return target, _trim(item[match.end() :])


def _attack(item: str) -> dict[str, Any] | None:
    found = _reference(item)
    if found is None:
        return None
    target, rest = found
    head = rest[:80]
    kind = _match_word(head.split('"')[0].split("“")[0], ATTACK_KINDS) or ""
    quote = QUOTE.search(rest)
    evidence = re.split(r"(?i)\bevidence\s*:", rest, maxsplit=1)
    reason = evidence[1] if len(evidence) > 1 else rest[quote.end() :] if quote else rest
    return {
        "target": target,
        "kind": kind,
        "quote": quote["q"].strip()[:MAX_FIELD] if quote else "",
        "evidence": _trim(reason)[:MAX_FIELD],
    }


def _reply(item: str) -> dict[str, Any] | None:
    return _answered(item, REPLY_WORDS)


def _verdict(item: str) -> dict[str, Any] | None:
    return _answered(item, VERDICT_WORDS)


def _answered(item: str, table: Mapping[str, tuple[str, ...]]) -> dict[str, Any] | None:
    """A claim reference, a verdict word from ``table`` early in the item, and the reason after it."""
    found = _reference(item)
    if found is None:
        return None
    target, rest = found
    hits = [
        (m.start(), m.end(), name)
        for name, stems in table.items()
        for stem in stems
        if (m := re.search(rf"(?<!\w){re.escape(stem)}\w*", rest[:60], re.IGNORECASE))
    ]
    if not hits:
        return None
    _, end, verdict = min(hits)
    reason = re.sub(r"^(?:because|since|as|perché|porque|parce que|weil)\b", "", _trim(rest[end:]), flags=re.I)
    return {"target": target, "verdict": verdict, "reason": _trim(reason)[:MAX_FIELD]}


def _change(lines: list[str]) -> dict[str, Any]:
    """``{"degree": none | partial | total | "", "reason": …}``; "" when no change line was read."""
    if not lines:
        return {"degree": "", "reason": ""}
    text = " ".join(line.strip() for line in lines[:4])
    head = re.split(r"[|:—–.;,(]|\s-\s", text, maxsplit=1)
    degree = ""
    for name in ("partial", "total", "none"):  # "not total" is rare; "partial" before "none" ("no, partial")
        if any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", _key(head[0])) for w in DEGREES[name]):
            degree = name
            break
    reason = head[1].strip(SEPARATORS + ")") if len(head) > 1 else ""
    return {"degree": degree, "reason": reason[:MAX_FIELD]}


def without_block(text: str) -> str:
    """The text before its closing block (the last heading of each block name, if they close it)."""
    lines = text.split("\n")
    last: dict[str, int] = {}
    for i, line in enumerate(lines):
        if (heading := _heading(line)) is not None:
            last[heading[0]] = i
    cut = min(last.values(), default=len(lines))
    prose = [line for line in lines[cut:] if line.strip() and _heading(line) is None and not ITEM.match(line)
             and not _is_item_start(line) and not line.startswith((" ", "\t"))]  # fmt: skip
    return "\n".join(lines[:cut]).rstrip() if 0 < cut < len(lines) and len(prose) <= 3 else text


def with_claims(text: str, record: Mapping[str, Any]) -> str:
    """An answer as a dossier shows it: its closing block rewritten with the claims numbered by
    label (B1, B2…), so that an attack can name one."""
    if "claims" not in record:
        return text
    body = without_block(text)
    answer = f"\n\nAnswer: {record['answer']}" if record.get("answer") else ""
    if not record["claims"]:
        return f"{body}{answer}\n\n(Its claims could not be read: critique the text itself.)"
    listed = "\n".join(f"{c['id']} ({_tag(c).lstrip(', ') or 'untagged'}) {c['text']}" for c in record["claims"])
    return f"{body}{answer}\n\nClaims:\n{listed}"


# --- the ledger of a run ---------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One contribution as the ledger sees it: who, in which round, of which kind, its record."""

    round: int
    label: str
    kind: str
    record: Mapping[str, Any]
    decision: str = ""  # a ballot's decision (vote protocol)
    reasoning: str = ""


@dataclass
class Ledger:
    """Claims and what happened to them, built from the entries of every panel round in order."""

    entries: list[Entry]
    similarity: float = 85.0
    claims: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for entry in self.entries:
            self._take(entry)

    def _take(self, entry: Entry) -> None:
        record = entry.record
        if "claims" in record:
            for claim in record["claims"]:
                self.claims.setdefault(claim["id"], {**claim, "author": entry.label, "round": entry.round})
            if record.get("claims_status") in ("missing", "unreadable"):
                self.unreadable.append(entry.label)
        for attack in record.get("attacks", []):
            self._event(entry, attack["target"], "attacked", attack.get("evidence", ""), kind=attack.get("kind", ""),
                        quote=attack.get("quote", ""))  # fmt: skip
        for reply in record.get("replies", []):
            self._event(entry, reply["target"], reply["verdict"], reply.get("reason", ""))
        for verdict in record.get("verdicts", []):
            self._event(entry, verdict["target"], verdict["verdict"], verdict.get("reason", ""))
        if (change := record.get("change")) and (change.get("degree") or change.get("reason")):
            self.changes[entry.label] = {**change, "round": entry.round, "kind": entry.kind}
        if entry.kind == "revote" and entry.decision:
            self._revote(entry)

    def _event(self, entry: Entry, target: str, what: str, reason: str, **extra: str) -> None:
        event = {"round": entry.round, "by": entry.label, "target": target, "what": what, "reason": reason, **extra}
        claim = self.claims.get(target)
        if claim is None:
            self.unmatched.append(event | {"why": f"no claim {target} in the ledger"})
            return
        own = claim["author"] == entry.label
        if own and what in ("correct", "refute"):
            event["what"] = "conceded"  # a voice correcting its own claim concedes it
        elif own and what == "confirm":
            event["what"] = "defended"
        elif own and what == "attacked":
            self.unmatched.append(event | {"why": "a voice attacking its own claim"})
            return
        elif not own and what in ("conceded", "defended", "partly"):
            self.unmatched.append(event | {"why": f"{entry.label} answered for a claim of {claim['author']}"})
            return
        elif not own and what in ("correct", "refute"):
            event |= {"what": "attacked", "kind": what}
        elif not own and what == "confirm":
            event["what"] = "supported"
        if event["what"] == "conceded" and not gates.substantive(reason):
            self.flags.append(f"{entry.label} conceded {target} without a reason of substance")
        self.events.append(event)

    def _revote(self, entry: Entry) -> None:
        earlier = [e for e in self.entries if e.label == entry.label and e.round < entry.round and e.decision]
        before = earlier[-1] if earlier else None
        if before is None:
            return
        same = consensus.relation(before.decision, entry.decision, self.similarity).same
        self.changes[entry.label] = {"degree": "none" if same else "total", "reason": "" if same else entry.reasoning,
                                     "round": entry.round, "kind": entry.kind}  # fmt: skip

    # --- what the page, the API and the moderator read ------------------------------------------
    def labels(self) -> list[str]:
        return sorted({e.label for e in self.entries}, key=_label_order)

    def decisions(self) -> dict[str, str]:
        """Each voice's latest decision: its ballot, or the ANSWER line of its latest contribution."""
        latest: dict[str, str] = {}
        for entry in self.entries:
            decision = entry.decision or str(entry.record.get("answer", ""))
            if decision:
                latest[entry.label] = decision
        return latest

    def first_decisions(self) -> dict[str, str]:
        first: dict[str, str] = {}
        for entry in self.entries:
            decision = entry.decision or str(entry.record.get("answer", ""))
            if decision:
                first.setdefault(entry.label, decision)
        return first

    def emerging(self) -> tuple[str, tuple[str, ...]] | None:
        """The largest group of latest decisions, when one group is larger than every other."""
        ballots = [consensus.Ballot(label, d, None, "") for label, d in self.decisions().items()]
        groups, _ = consensus.group(ballots, self.similarity) if ballots else ([], [])
        if not groups or (len(groups) > 1 and len(groups[1][1]) == len(groups[0][1])):
            return None
        return groups[0][0], tuple(b.label for b in groups[0][1])

    def stances(self) -> dict[str, dict[str, str]]:
        """Each voice against the emerging verdict: agrees, partly, disagrees (or unknown)."""
        emerging = self.emerging()
        decisions = self.decisions()
        out: dict[str, dict[str, str]] = {}
        for label in self.labels():
            change = self.changes.get(label, {})
            if label not in decisions or emerging is None:
                why = "no answer line to compare" if label not in decisions else "the panel is split evenly"
                out[label] = {"stance": "unknown", "why": why}
            elif label not in emerging[1]:
                out[label] = {"stance": "disagrees", "why": f"answers “{decisions[label]}”"}
            elif self._reservations(label, emerging[1]) or change.get("degree") == "partial":
                out[label] = {"stance": "partly", "why": "same answer, with reservations on claims of the majority"}
            else:
                out[label] = {"stance": "agrees", "why": f"answers “{decisions[label]}”"}
        return out

    def _reservations(self, label: str, majority: tuple[str, ...]) -> bool:
        """Whether ``label`` attacked a claim of the majority that its author did not concede."""
        conceded = {e["target"] for e in self.events if e["what"] == "conceded"}
        return any(
            e["by"] == label and e["what"] == "attacked" and e["target"] not in conceded
            and self.claims[e["target"]]["author"] in majority and self.claims[e["target"]]["author"] != label
            for e in self.events
        )  # fmt: skip

    def matrix(self) -> list[dict[str, Any]]:
        """One row per claim: per voice, the cell at round 0 and at the end.

        Cells: claimed, supported, attacked, conceded, defended, changed (its author changed
        position entirely), "" (nothing said).
        """
        rows = []
        labels = self.labels()
        first = self.first_decisions()
        for claim_id, claim in self.claims.items():
            cells = {}
            for label in labels:
                start = "claimed" if label == claim["author"] else self._shared_start(claim, label, first)
                cells[label] = {"start": start, "end": self._end(claim_id, claim, label, start)}
            rows.append({**claim, "cells": cells, "status": self._status(claim_id, claim)})
        return rows

    def _shared_start(self, claim: Mapping[str, Any], label: str, first: Mapping[str, str]) -> str:
        """Round 0: another voice supports a claim when one of its own claims says the same."""
        theirs = [c for c in self.claims.values() if c["author"] == label]
        return "supported" if any(same_claim(claim["text"], c["text"]) for c in theirs) else ""

    def _end(self, claim_id: str, claim: Mapping[str, Any], label: str, start: str) -> str:
        said = [e for e in self.events if e["target"] == claim_id and e["by"] == label]
        if label == claim["author"]:
            if self.changes.get(label, {}).get("degree") == "total":
                return "changed"
            return said[-1]["what"] if said else ("defended" if self._attacked(claim_id) else "claimed")
        return said[-1]["what"] if said else start

    def _attacked(self, claim_id: str) -> bool:
        return any(e["target"] == claim_id and e["what"] == "attacked" for e in self.events)

    def _status(self, claim_id: str, claim: Mapping[str, Any]) -> str:
        """standing (never attacked), contested (attacked, not conceded), conceded, withdrawn."""
        said = [e for e in self.events if e["target"] == claim_id]
        if any(e["what"] == "conceded" for e in said):
            return "conceded"
        if self.changes.get(claim["author"], {}).get("degree") == "total":
            return "withdrawn"
        return "contested" if any(e["what"] == "attacked" for e in said) else "standing"

    def change_flags(self) -> list[str]:
        """The sycophancy signal: a total change with no reason of substance; and unstated changes."""
        found = []
        first, latest = self.first_decisions(), self.decisions()
        for label, change in self.changes.items():
            if change.get("degree") == "total" and not gates.substantive(change.get("reason", "")):
                found.append(f"{label} changed its position entirely without a reason (sycophancy signal)")
            moved = (
                label in first
                and label in latest
                and not consensus.relation(first[label], latest[label], self.similarity).same
            )
            if change.get("degree") == "none" and moved:
                found.append(f"{label} says it did not change, but its answer went from “{first[label]}” "
                             f"to “{latest[label]}”")  # fmt: skip
        return found

    def as_dict(self) -> dict[str, Any]:
        """The ledger as stored on the question and served by the API."""
        return {
            "claims": self.matrix(),
            "events": self.events,
            "unmatched": self.unmatched,
            "changes": self.changes,
            "stances": self.stances(),
            "emerging": (self.emerging() or ("", ()))[0],
            "unreadable": self.unreadable,
            "flags": [*self.flags, *self.change_flags()],
            "labels": self.labels(),
        }

    def for_moderator(self) -> str:
        """The ledger in words, for the synthesis prompt: the audit trail is built from it."""
        if not self.claims and not self.changes:
            return ""
        lines = ["Claims (round 0):"]
        lines += [f"- {c['id']} ({c['author']}{_tag(c)}): {c['text']}" for c in self.claims.values()]
        if self.unreadable:
            lines.append(f"- claims of {', '.join(self.unreadable)}: could not be read (judge their text)")
        if self.events:
            lines.append("What happened to them:")
            lines += [f"- {e['by']} {e['what']} {e['target']}{_detail(e)}" for e in self.events]
        if self.changes:
            lines.append("Position changes:")
            lines += [
                f"- {label}: {c.get('degree') or 'not stated'} — {c.get('reason') or 'no reason given'}"
                for label, c in self.changes.items()
            ]
        if flags := [*self.flags, *self.change_flags()]:
            lines.append("Signals:")
            lines += [f"- {flag}" for flag in flags]
        return "\n".join(lines)


def _tag(claim: Mapping[str, Any]) -> str:
    parts = [claim.get("kind") or ""]
    if claim.get("confidence") is not None:
        parts.append(f"{round(claim['confidence'] * 100)}%")
    falsifier = f"; falsified if {claim['falsifier']}" if claim.get("falsifier") else ""
    shown = ", ".join(p for p in parts if p)
    return (f", {shown}" if shown else "") + falsifier


def _detail(event: Mapping[str, Any]) -> str:
    kind = f" ({event['kind'].replace('_', ' ')})" if event.get("kind") else ""
    quote = f" on “{event['quote']}”" if event.get("quote") else ""
    reason = f": {event['reason']}" if event.get("reason") else ": no reason given"
    return f"{kind}{quote}{reason}"


def _label_order(label: str) -> tuple[int, str]:
    suffix = label.rsplit(" ", 1)[-1]
    return (int(suffix), "") if suffix.isdigit() else (0, label)


def same_claim(a: str, b: str) -> bool:
    """Two voices' claims that say the same thing (for what the panel shares): similar words and
    no negation or antonym on one side only."""
    if fuzz.token_set_ratio(_key(a), _key(b)) < SHARED_SIMILARITY:
        return False
    return not _negated(a, b)


def _negated(a: str, b: str) -> bool:
    words_a, words_b = set(consensus.normalise(a).split()), set(consensus.normalise(b).split())
    return bool((words_a ^ words_b) & consensus.NEGATIONS)


# --- debate only where the panel splits ----------------------------------------------------------


@dataclass(frozen=True)
class DissentCheck:
    """What the blind round showed: skip the debate, or debate only the contested claims."""

    skip: bool
    reason: str
    agreement: str = ""  # "3/3"
    threshold: str = ""
    contested: tuple[str, ...] = ()  # claim ids
    shared: tuple[str, ...] = ()
    calls_saved: int = 0
    tokens_saved: int = 0
    cost_saved: Decimal = Decimal("0")

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": "on_dissent",
            "skipped": self.skip,
            "reason": self.reason,
            "agreement": self.agreement,
            "threshold": self.threshold,
            "contested": list(self.contested),
            "shared": list(self.shared),
            "calls_saved": self.calls_saved,
            "tokens_saved": self.tokens_saved,
            "cost_saved": str(self.cost_saved),
        }


def shared_claims(ledger: Ledger) -> tuple[list[str], list[str]]:
    """(contested, shared) claim ids: a claim is shared when every other voice made one like it."""
    by_voice: dict[str, list[dict[str, Any]]] = {}
    for claim in ledger.claims.values():
        by_voice.setdefault(claim["author"], []).append(claim)
    contested: list[str] = []
    shared: list[str] = []
    for claim_id, claim in ledger.claims.items():
        others = [label for label in by_voice if label != claim["author"]]
        alike = others and all(any(same_claim(claim["text"], c["text"]) for c in by_voice[o]) for o in others)
        (shared if alike else contested).append(claim_id)
    return contested, shared


def dissent(
    ledger: Ledger, agreed: bool, agreement: str, threshold: str, heterogeneous: bool, contradicted: Iterable[str]
) -> DissentCheck:
    """Skip the debate only when a heterogeneous panel agrees and no claim contradicts the verified facts."""
    contested, shared = shared_claims(ledger)
    contradicted = list(contradicted)
    if agreed and heterogeneous and not contradicted:
        return DissentCheck(True, f"the panel agreed ({agreement} on the same answer, threshold {threshold})",
                            agreement, threshold, tuple(contested), tuple(shared))  # fmt: skip
    if not agreed:
        why = f"the panel split ({agreement} on the largest answer, threshold {threshold})"
    elif not heterogeneous:
        why = "the panel agreed, but its voices share a model family: agreement is weak evidence"
    else:
        why = "claims contradict the verified facts"
    return DissentCheck(False, why, agreement, threshold, tuple(contested), tuple(shared))
