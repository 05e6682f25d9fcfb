"""The closing block of a contribution, read: what our prompts ask each voice to end with.

``ANSWER:``, ``CLAIMS:`` (tagged, with a confidence and a falsifier), ``ATTACKS:`` naming
claims by number, ``REPLIES:`` (conceded / defended), ``ON CLAIMS:`` (confirm / correct /
refute), ``CHANGE:`` and ``CALC:`` (the computations the claims rest on, each naming its claim,
which SymPy checks between rounds); ``read`` turns them into the small JSON record stored with
each contribution, which engine.ledger puts together for the run.

Reading is lenient about form, as real models write it: headings in bold, markdown or another
language, numbered or bulleted items, tags in brackets or words, "90%" or "0.9", JSON or a
table instead of lines, a ``<think>`` block first. It is strict about meaning: a slot of our
template left unfilled (``<your answer…>``) says nothing, and a block that cannot be read leaves
the contribution an answer with its claims marked unreadable — never a phantom. The corpus in
tests/corpus/ledger/ holds what real models send.
"""

import re
from collections.abc import Mapping
from typing import Any

from debates.engine.reading import confidence as confidences
from debates.engine.reading import gates, jsonish
from debates.engine.reading.text import SLOT, clean_value, fold, phrases, without_thinking
from debates.lib.sentences import normal

MAX_CLAIMS = 8
MAX_ITEMS = 30
MAX_FIELD = 400

# Headings of the closing block, in the languages models answer in; matched on the bare word.
HEADINGS: dict[str, tuple[str, ...]] = {
    "answer": phrases(
        "answer, final answer, risposta, risposta finale, respuesta, respuesta final, réponse, reponse, "
        "réponse finale, reponse finale, antwort, endgültige antwort, resposta"
    ),
    "claims": phrases(
        "claims, central claims, main claims, key claims, affermazioni, tesi, afirmaciones, affirmations, "
        "thèses, theses, behauptungen, aussagen, alegações"
    ),
    "attacks": ("attacks", "critiques", "objections", "attacchi", "ataques", "attaques", "angriffe", "einwände"),
    "replies": ("replies", "responses", "risposte", "respuestas", "réponses", "reponses", "antworten", "respostas"),
    "on_claims": phrases(
        "on claims, on the claims, claim verdicts, verdicts on claims, sulle affermazioni, "
        "sobre las afirmaciones, sur les affirmations, zu den behauptungen"
    ),
    "change": phrases(
        "change, position change, change of position, cambio, cambiamento, cambio de posición, changement, "
        "changement de position, änderung, positionswechsel, mudança"
    ),
    "calc": ("calc", "calcs"),  # our label only: "Calculations:" heads a model's own prose too
}
KINDS = {  # claim tags
    "fact": ("fact", "factual", "fatto", "hecho", "fait", "tatsache", "fato"),
    "inference": ("inference", "inferred", "deduction", "inferenza", "inferencia", "inférence", "schlussfolgerung"),
    "speculation": phrases(
        "speculation, speculative, conjecture, hypothesis, speculazione, especulación, spéculation, "
        "spekulation, ipotesi, hipótesis"
    ),
}
ATTACK_KINDS = {
    "factual_error": ("factual", "fact", "wrong", "incorrect", "error", "errore", "erróneo", "erreur", "falsch"),
    "weak_evidence": ("evidence", "unsupported", "prove", "source", "evidenza", "evidencia", "preuve", "beleg"),
    "logical_gap": ("logic", "logical", "gap", "non sequitur", "follow", "logica", "lógica", "logique"),
    "overlooked_alternative": ("alternative", "overlook", "missed", "alternativa", "alternativ"),
    "hidden_assumption": phrases(
        "assumption, assume, presuppos, ipotesi nascosta, supuesto, suposici, hypothèse, annahme"
    ),
}
REPLY_WORDS = {
    "conceded": phrases(
        "conced, concess, accept, agree, valid, correct, granted, fair, right, acept, accett, concède, "
        "zugestanden, eingeräumt"
    ),
    "defended": phrases(
        "defend, maintain, reject, stand, keep, hold, disagree, rebut, difend, difes, defiend, defendid, "
        "manten, rejet, maintien, mainten, verteidig, défend"
    ),
    "partly": ("partial", "partly", "in part", "parzial", "parcial", "partiel", "teilweise"),
}
VERDICT_WORDS = {
    "confirm": phrases(
        "confirm, support, agree, holds, stands, is correct, is right, conferm, è corrett, confirma, "
        "es correct, confirme, est correct, bestätig, ist richtig, ist korrekt"
    ),
    "correct": ("correct", "amend", "refine", "qualif", "corregg", "corrig", "corrij", "korrigier"),
    "refute": ("refut", "reject", "false", "wrong", "disagree", "confut", "réfut", "widerleg"),
}
DEGREES = {
    "partial": phrases(
        "partial, partly, partially, some, minor, minimal, slight, parziale, parcial, partiel, teilweise"
    ),
    "total": phrases(
        "total, full, fully, complete, completely, entire, totale, completo, complet, vollständig, reversed, reverse"
    ),
    "none": phrases("none, no, unchanged, no change, nessuno, nessun, ninguno, ningún, aucun, keine, kein, nenhuma"),
}

HEADING_MARKUP = " \t>#*_`"
ITEM = re.compile(r"^[ \t>]*(?:[-*•+]|\d{1,2}[.)]|\(\d{1,2}\))[ \t]+(?P<body>.+)$")
CLAIM_REF = re.compile(
    r"\b(?:(?P<who>[A-Z])(?:'s)?[\s.,#-]{0,3}(?:claim\s*)?(?:#|n\.?\s*)?(?P<n>\d{1,2})"
    r"|(?P<num>\d{1,2})\.(?P<m>\d{1,2}))\b"
)
# A CALC line: the claim it rests on first ("1 |", "A2:", "[claim 3]"), then the computation.
CALC_REF = re.compile(r"^\[?\s*(?:claim\s*)?(?:(?P<who>[A-Z])\s*)?(?P<n>\d{1,2})\s*\]?\s*[|:]\s*(?=\S)", re.IGNORECASE)
COMPUTATION = re.compile(r"\d[^=≈\n]*(?:==?|≈)\s*[-+−]?\s*\d")  # "7 × 8 = 54": a claim even without words
QUOTE = re.compile(r"[\"“«„](?P<q>[^\"”»“]{3,400})[\"”»“]")
CONFIDENCE_FIELD = re.compile(
    r"\b(?:conf(?:idence|idenza|ianza|iance|iança)?|konfidenz|fiducia|certainty|sicurezza)\b\.?\s*[:=]?\s*"
    r"(?P<v>[^|;,)\]]{1,20})",
    re.IGNORECASE,
)
FALSIFIER = re.compile(
    r"(?:falsifi(?:ed|able|cation)(?:\s+(?:if|when|by|condition))?|fails?\s+(?:if|when)|would be (?:false|wrong) if|"
    r"wrong if|refuted (?:if|by)|falsificat[oa] se|falsificad[oa] si|réfuté si|falsifié si|"
    r"(?:widerlegt|falsifiziert),? wenn)\s*[:=]?\s*",
    re.IGNORECASE,
)
KIND_FIELD = re.compile(r"\b(?:type|kind|tag|tipo|typ|category)\s*[:=]\s*(?P<v>[^\W\d_]+)", re.IGNORECASE)
BRACKETED = re.compile(r"[(\[](?P<inner>[^()\[\]\n]{1,40})[)\]]")
BRACKETED_CONFIDENCE = re.compile(r"\d{1,3}(?:[.,]\d+)?\s*%|0?\.\d+")
NO_CLAIM = re.compile(r"^(?:n/?a|none|nothing|nessuna|ninguna|aucune|keine)\s*(?:$|[—–:.;,(-])", re.IGNORECASE)
EVIDENCE_LABEL = re.compile(r"\b(?:evidence|evidenza|evidencia|preuve|beleg)\s*:", re.IGNORECASE)
NEGATION = re.compile(r"(?:\bnot|\bnon|\bno|\bnicht|\bpas)\s+$", re.IGNORECASE)
NEGATED = {"conceded": "defended"}  # "not conceded"; other negated verdicts say too little to read
# Where a CHANGE line's degree ends and its reason begins: "partial — …", "total: …", "… completely because …".
REASON_SPLIT = re.compile(
    r"[|:—–.;,(]|\s-\s|\s(?:because|perché|poiché|porque|parce que|puisque|weil)\s", re.IGNORECASE
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
    body = without_thinking(text)
    blocks = _blocks(body)
    record: dict[str, Any] = {}
    json_answer = ""
    if kind in ("answer", "vote"):
        claims, status, json_answer = _claims(blocks, body, label)
        record |= {"claims": claims, "claims_status": status}
    if kind in ("critique", "critique_final"):
        record["attacks"] = [a for a in map(_attack, _items(blocks.get("attacks", []))) if a]
    if kind == "final":
        record["replies"] = [r for r in map(_reply, _items(blocks.get("replies", []))) if r]
    if kind in ("debate", "dissent"):
        record["verdicts"] = [v for v in map(_verdict, _items(blocks.get("on_claims", []))) if v]
    if kind in ("final", "critique_final", "debate", "dissent"):
        record["change"] = _change(blocks.get("change", []))
    if kind != "vote" and (calcs := [c for item in _items(blocks.get("calc", [])) if (c := _calc(item, label))]):
        record["calcs"] = calcs
    if kind != "vote" and (answer := _one_line(blocks.get("answer", [])) or json_answer):
        record["answer"] = answer
    return record


HEADING_OF = {normal(word): name for name, words in HEADINGS.items() for word in words}
KIND_OF = {normal(word): name for name, words in KINDS.items() for word in words}


def _blocks(text: str) -> dict[str, list[str]]:
    """The closing block's sections, by name: the lines under the last heading of each name.

    A heading's own line may carry its content (``ANSWER: 42``, ``CHANGE: partial — …``).
    Fence lines are skipped (some models put the whole block in one), but inside a fence only
    a label in capitals is a heading: ``claims:`` there is a key of someone's YAML. After a
    blank line, prose that is not an item ends a section that already has content.
    """
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    blank = fenced = False
    for line in text.replace("\r\n", "\n").split("\n")[-2000:]:
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        heading = _heading(line)
        if heading is not None and (not fenced or _in_capitals(line)):
            name, rest = heading
            current = found[name] = [rest] if rest else []  # a later block of the same name replaces one
            blank = False
            continue
        if current is None:
            continue
        if not line.strip():
            blank = True
            continue
        starts_item = bool(ITEM.match(line)) or _is_item_start(line)
        if blank and current and not starts_item and not line.startswith((" ", "\t")):
            current = None  # prose after the section
            continue
        blank = False
        if len(current) < MAX_ITEMS:
            current.append(line.rstrip())
    return found


def _in_capitals(line: str) -> bool:
    label = re.split(r"[:：]", line, maxsplit=1)[0]
    return label == label.upper()


def _heading(line: str) -> tuple[str, str] | None:
    """(section name, what follows on the line) when ``line`` is a heading of the closing block:
    "CLAIMS:", "**Claims**", "## Affermazioni", "ANSWER: 42", "Change (position): none"."""
    bare = line.strip().lstrip(HEADING_MARKUP)
    match = re.match(r"([^:：]{1,48})([:：])(.*)$", bare)
    head, colon, rest = (match[1], match[2], match[3]) if match else (bare, "", "")
    word = re.sub(r"\([^)]{0,40}\)", "", head).strip(HEADING_MARKUP)
    name = HEADING_OF.get(normal(word)) if 0 < len(word) <= 40 else None
    if name is None:
        return None
    if not colon and not (line.lstrip().startswith(("#", "*", "_")) or word.isupper()):
        return None  # a sentence that starts with "Answer" is not a heading
    return name, rest.strip().strip("*_ ").strip()


def _is_item_start(line: str) -> bool:
    return bool(re.match(r"^\s*(?:[A-Z]\d{1,2}|\[)", line))


FIELD_ITEM = re.compile(r"^[^\W\d_]+(?: [^\W\d_]+){0,3}\s*:")  # "Confidence: 85%", "Falsified if: …"


def _items(lines: list[str]) -> list[str]:
    """Items of a list: a bullet, a number or a claim named first starts one ("Panelist B, claim 2 —");
    an indented or bare line continues it ("   Evidence: …"), and so does a field bulleted under it
    ("   - Confidence: 85%")."""
    items: list[str] = []
    indent = 0
    for line in lines:
        match = ITEM.match(line)
        depth = len(line) - len(line.lstrip(" \t>"))
        field = bool(items and match and depth > indent and FIELD_ITEM.match(match["body"]))
        named = depth == 0 and bool(CLAIM_REF.search(line[:40]))
        if (match or not items or named or _is_item_start(line)) and not field:
            items.append((match["body"] if match else line).strip())
            indent = depth
        else:
            items[-1] += " " + line.strip()
    return [item[:1000] for item in items if item.strip(SEPARATORS)]


def _one_line(lines: list[str]) -> str:
    first = next((line for line in (SLOT.sub("", line) for line in lines) if line.strip()), "")
    return clean_value(first)[:MAX_FIELD]


def _claims(blocks: dict[str, list[str]], body: str, label: str) -> tuple[list[dict[str, Any]], str, str]:
    """The claims, their status, and the answer of a voice that answered in JSON instead of lines."""
    prefix = claim_prefix(label)
    lines = blocks.get("claims")
    if lines is None:
        found, answer = _json_claims(body, bare_lists=False)
        claims = [_numbered(prefix, i, c) for i, c in enumerate(found, 1)]
        return claims, "ok" if claims else "missing", answer
    joined = "\n".join(lines).strip()
    raw = _json_claims(joined)[0] if joined[:1] in "[{`" else []
    if not raw:
        raw = [c for c in map(_json_claim, _table(lines)) if c] or [c for c in map(_claim, _items(lines)) if c]
    claims = [_numbered(prefix, i, c) for i, c in enumerate(raw[:MAX_CLAIMS], 1)]
    return claims, "ok" if claims else "unreadable", ""


def _numbered(prefix: str, number: int, claim: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"{prefix}{number}", **claim}


def claim_prefix(label: str) -> str:
    """ "Panelist B" -> "B" (claims B1, B2…); "Panelist 12" -> "12." (claims 12.1…)."""
    suffix = label.rsplit(" ", 1)[-1]
    return f"{suffix}." if suffix.isdigit() else suffix


def _table(lines: list[str]) -> list[dict[str, str]]:
    """The rows of a markdown table, keyed by its header ("Claim", "Type", "Confidence", …)."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines if line.lstrip()[:1] == "|"]
    rows = [row for row in rows if not all(re.fullmatch(r"\s*:?-*:?\s*", cell) for cell in row)]
    header, *body = rows or [[]]
    return [dict(zip(header, row, strict=False)) for row in body]


def _claim(item: str) -> dict[str, Any] | None:
    """One claim line: its text, and the tag, confidence and falsifier wherever the voice put them."""
    text = SLOT.sub("", item)
    falsifier = ""
    if split := FALSIFIER.search(text):
        falsifier, text = _trim(text[split.end() :]), text[: split.start()]
    confidence = None
    if conf := CONFIDENCE_FIELD.search(text):
        confidence, text = _confidence(conf["v"]), text[: conf.start()] + text[conf.end() :]
    kind = ""
    for group in reversed(list(BRACKETED.finditer(text))):  # "(fact)", "[FACT]", "(70%)", "(fact, 95%)"
        tags = [_bracket_tag(part) for part in re.split(r"[,;]", group["inner"])]
        if all(tag is not None for tag in tags):
            kind = next((t for t in tags if isinstance(t, str)), kind)
            confidence = next((t for t in tags if isinstance(t, float)), confidence)
            text = text[: group.start()] + text[group.end() :]
    if not kind:
        kind, text = _written_tag(text)
    text = _trim(re.sub(r"\(\s*\)|\[\s*\]", "", text))
    if not _says_something(text):
        return None
    return _calibrated(
        {"text": text[:MAX_FIELD], "kind": kind, "confidence": confidence, "falsifier": falsifier[:MAX_FIELD]}
    )


def _calc(item: str, label: str) -> dict[str, str] | None:
    """One CALC line: the computation as written, and the claim it rests on ("A2"; "" when it names none)."""
    text = SLOT.sub("", item).strip(" `*_")
    claim = ""
    if ref := CALC_REF.match(text):
        who = ref["who"].upper() if ref["who"] else claim_prefix(label)
        claim, text = f"{who}{ref['n']}", text[ref.end() :].strip(" `*_")
    if not COMPUTATION.search(text) or NO_CLAIM.match(text):
        return None
    return {"claim": claim, "text": text[:MAX_FIELD]}


def _written_tag(text: str) -> tuple[str, str]:
    """(kind, text without it) for a tag written before the claim ("**Fact:**", "*Inference* —",
    "[factual claim]") or as a field after it ("Type: fact"); ("", text) when there is none."""
    tag = re.match(r"^\s*[\[(*_]{1,2}\s*([^\])*_\n]{2,30}?)\s*[\])*_]{1,2}\s*[:—–-]?\s*", text)
    if tag and (found := _match_word(tag[1], KINDS)):
        return found, text[tag.end() :]
    bare = re.match(r"^\s*([^\W\d_]{4,16})\s*[:—–-]\s+", text)
    if bare and (found := _match_word(bare[1], KINDS)):
        return found, text[bare.end() :]
    field = KIND_FIELD.search(text)
    if field and (found := _match_word(field["v"], KINDS)):
        return found, text[: field.start()] + text[field.end() :]
    return "", text


def _bracket_tag(part: str) -> str | float | None:
    """A claim's kind or confidence as written in brackets ("fact", "95%", "0.8"), else None."""
    part = part.strip()
    if kind := KIND_OF.get(normal(part)):
        return kind
    return _confidence(part) if BRACKETED_CONFIDENCE.fullmatch(part) else None


# A word: two letters or more, or one ideograph (scripts written without spaces).
WORD = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]|[^\W\d_]{2,}")


def _says_something(text: str) -> bool:
    """Whether ``text`` can be a claim: two words at least ("fa" is a cut, "???" is nothing) or a
    computation ("7 × 8 = 54"), and not a way of saying there are none ("N/A — a single documented fact")."""
    return (len(WORD.findall(text)) >= 2 or bool(COMPUTATION.search(text))) and not NO_CLAIM.match(text)


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


def _json_claims(text: str, bare_lists: bool = True) -> tuple[list[dict[str, Any]], str]:
    """Claims given as JSON: under a "claims" key (with the object's "answer"), or (under a CLAIMS
    heading) a bare list."""
    for fenced in [m["body"] for m in FENCE.finditer(text)] or [text]:
        for value in jsonish.values(fenced, "[{"):
            found = _claims_in(value, bare_lists)
            if found is not None:
                listed, answer = found
                claims = [c for c in map(_json_claim, listed[:MAX_CLAIMS]) if c]
                return claims, clean_value(SLOT.sub("", answer))[:MAX_FIELD]
    return [], ""


def _claims_in(value: object, bare_lists: bool, depth: int = 0) -> tuple[list[Any], str] | None:
    """(the claims, the answer beside them) in a JSON value: a "claims" list, at any depth, or a bare list."""
    if isinstance(value, list):
        return (value, "") if bare_lists and value else None
    if not isinstance(value, dict):
        return None
    fields = {normal(str(k)).replace(" ", "_"): v for k, v in value.items()}
    listed = next((v for k, v in fields.items() if k in ("claims", "claim")), None)
    if isinstance(listed, list) and listed:
        answer = fields.get("answer", fields.get("final_answer", ""))
        return listed, str(answer) if isinstance(answer, str | int | float) else ""
    nested = (_claims_in(v, False, depth + 1) for v in value.values() if isinstance(v, dict) and depth < 3)
    return next((found for found in nested if found is not None), None)


def _json_claim(value: object) -> dict[str, Any] | None:
    if isinstance(value, str):
        return _claim(value)
    if not isinstance(value, dict):
        return None
    fields = {normal(str(k)).replace(" ", "_"): v for k, v in value.items()}
    text = next((fields[k] for k in ("claim", "text", "statement", "content") if k in fields), "")
    text = _trim(SLOT.sub("", text)) if isinstance(text, str) else ""
    if not _says_something(text):
        return None
    kind = next((fields[k] for k in ("kind", "type", "tag", "category") if k in fields), "")
    falsifier = next((fields[k] for k in fields if k.startswith("falsif") or k in ("fails_if", "wrong_if")), "")
    return _calibrated(
        {
            "text": text[:MAX_FIELD],
            "kind": _match_word(str(kind), KINDS) or "",
            "confidence": _confidence(fields.get("confidence")),
            "falsifier": _trim(SLOT.sub("", str(falsifier or "")))[:MAX_FIELD],
        }
    )


def _calibrated(claim: dict[str, Any]) -> dict[str, Any]:
    """A claim whose confidence has no specific falsification condition keeps it only as stated:
    confidence theatre counts as missing, claim by claim ("if new evidence emerges" is no condition)."""
    if claim["confidence"] is None or gates.specific(claim["falsifier"]):
        return claim
    why = "a vague falsification condition" if claim["falsifier"] else "no falsification condition"
    return claim | {"confidence": None, "stated": claim["confidence"], "void": why}


def _confidence(value: object) -> float | None:
    if isinstance(value, str):
        value = value.strip(SEPARATORS + "()")
    return confidences.value(value)


def _words(text: str, table: Mapping[str, tuple[str, ...]]) -> list[tuple[int, int, int, str]]:
    """(start, rank, end, entry) of each word of ``text`` that a stem of ``table`` starts (so
    "factual" finds "fact"), accents and case aside; rank is the entry's place in the table."""
    folded = fold(text)
    return [
        (m.start(), rank, m.end(), name)
        for rank, (name, stems) in enumerate(table.items())
        for stem in stems
        for m in re.finditer(rf"(?<!\w){re.escape(fold(stem))}\w*", folded, re.IGNORECASE)
    ]


def _earliest(text: str, table: Mapping[str, tuple[str, ...]]) -> tuple[int, int, str] | None:
    """(start, end, entry) of the first word of ``text`` from ``table``; on one word, the earlier entry."""
    hits = _words(text, table)
    if not hits:
        return None
    start, _, end, name = min(hits)
    return start, end, name


def _match_word(text: str, table: Mapping[str, tuple[str, ...]]) -> str | None:
    found = _earliest(text, table)
    return found[2] if found else None


def _reference(item: str) -> tuple[str, str] | None:
    """The claim an item is about ("B2", "Panelist B, claim 2", "B.2") and the rest of the item."""
    match = CLAIM_REF.search(item[:80])
    if not match:
        return None
    target = f"{match['who']}{match['n']}" if match["who"] else f"{match['num']}.{match['m']}"
    return target, _trim(item[match.end() :])


def _attack(item: str) -> dict[str, Any] | None:
    """An attack; its kind is read before the quote and the evidence, never in them."""
    filled = SLOT.sub("", item)
    found = _reference(filled)
    if found is None:
        return None
    target, rest = found
    head = re.split(r"[\"“«„|]", EVIDENCE_LABEL.split(rest[:80], maxsplit=1)[0], maxsplit=1)[0]
    kind = _match_word(head, ATTACK_KINDS) or ""
    quote = QUOTE.search(rest)
    evidence = EVIDENCE_LABEL.split(filled, maxsplit=1)  # not in ``rest``: trimming it may eat the label's colon
    reason = _trim(evidence[1] if len(evidence) > 1 else rest[quote.end() :] if quote else rest)
    if filled != item and not (quote or reason):
        return None  # a line of our template, left unfilled
    return {
        "target": target,
        "kind": kind,
        "quote": quote["q"].strip()[:MAX_FIELD] if quote else "",
        "evidence": reason[:MAX_FIELD],
    }


def _reply(item: str) -> dict[str, Any] | None:
    return _answered(item, REPLY_WORDS)


def _verdict(item: str) -> dict[str, Any] | None:
    return _answered(item, VERDICT_WORDS)


def _answered(item: str, table: Mapping[str, tuple[str, ...]]) -> dict[str, Any] | None:
    """A claim reference, a verdict word from ``table`` early in the item, and the reason after it.

    The verdict is looked for first in the item's head, before its first separator: "partly"
    there qualifies any other word ("concessa in parte"), and a negated word reads as its
    opposite where that is unambiguous ("not conceded"), else as no verdict.
    """
    filled = SLOT.sub("", item)
    found = _reference(filled)
    if found is None:
        return None
    target, rest = found
    head = re.split(r"[|:;.—–]|\s-\s", rest, maxsplit=1)[0]
    hit = _earliest(head, table) or _earliest(rest[:60], table)
    if hit is None:
        return None
    start, end, verdict = hit
    end = max([end] + [word[2] for word in _words(head, table)])  # the reason follows "partly conceded"
    if "partly" in table and _earliest(head, {"partly": table["partly"]}):
        verdict = "partly"
    elif NEGATION.search(rest[:start]):
        if verdict not in NEGATED:
            return None
        verdict = NEGATED[verdict]
    reason = re.sub(r"^(?:because|since|as|perché|porque|parce que|weil)\b", "", _trim(rest[end:]), flags=re.I)
    if filled != item and not _trim(reason):
        return None  # a line of our template, left unfilled
    return {"target": target, "verdict": verdict, "reason": _trim(reason)[:MAX_FIELD]}


def _change(lines: list[str]) -> dict[str, Any]:
    """``{"degree": none | partial | total | "", "reason": …}``; "" when no change line was read."""
    text = SLOT.sub("", " ".join(line.strip() for line in lines[:4]))
    head = REASON_SPLIT.split(text, maxsplit=1)
    degree = ""
    for name in ("partial", "total", "none"):  # "not total" is rare; "partial" before "none" ("no, partial")
        if any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", normal(head[0])) for w in DEGREES[name]):
            degree = name
            break
    reason = head[1].strip(SEPARATORS + ")") if len(head) > 1 else ""
    return {"degree": degree, "reason": reason[:MAX_FIELD]}


def without_block(text: str) -> str:
    """The text before its closing block (the last heading of each block name, if they close it)."""
    found = around_block(text)
    return found[0] if found else text


def around_block(text: str) -> tuple[str, str] | None:
    """(the prose before the closing block, the prose after it); None when the block cannot be told
    from the prose (more than three lines of prose after its first heading)."""
    lines = text.split("\n")
    last: dict[str, int] = {}
    for i, line in enumerate(lines):
        if (heading := _heading(line)) is not None:
            last[heading[0]] = i
    cut = min(last.values(), default=len(lines))
    after = lines[cut:]
    if not 0 < cut < len(lines) or sum(map(_prose, after)) > 3:
        return None
    # The block ends at the first line of prose after a blank one ("Note: …" under it).
    end = next((i for i in range(1, len(after)) if not after[i - 1].strip() and _prose(after[i])), len(after))
    before = lines[:cut]
    if sum(bool(FENCE_LINE.match(line)) for line in before) % 2:  # the block's own fence opened above it
        before = before[: max(i for i, line in enumerate(before) if FENCE_LINE.match(line))]
    return "\n".join(before).rstrip(), "\n".join(after[end:]).strip()


FENCE_LINE = re.compile(r"^\s*(```|~~~)")


def _prose(line: str) -> bool:
    """A line that is neither the block's (a heading, an item, its continuation) nor blank."""
    return bool(
        line.strip()
        and _heading(line) is None
        and not ITEM.match(line)
        and not _is_item_start(line)
        and not line.startswith((" ", "\t"))
        and not FENCE_LINE.match(line)
    )


def with_claims(text: str, record: Mapping[str, Any]) -> str:
    """An answer as a dossier shows it: its closing block rewritten with the claims numbered by
    label (B1, B2…), so that an attack can name one."""
    if "claims" not in record:
        return text
    body = without_block(text)
    answer = f"\n\nAnswer: {record['answer']}" if record.get("answer") else ""
    if not record["claims"]:
        return f"{body}{answer}\n\n(Its claims could not be read: critique the text itself.)"
    listed = "\n".join(f"{c['id']} ({tag(c).lstrip(', ') or 'untagged'}) {c['text']}" for c in record["claims"])
    calcs = "\n".join(f"{c['claim']}: {c['text']}" if c["claim"] else c["text"] for c in record.get("calcs", []))
    return f"{body}{answer}\n\nClaims:\n{listed}" + (f"\n\nComputations:\n{calcs}" if calcs else "")


# What the record of a closing block holds, by the block's section that gave it.
READ_AS = {
    "answer": "answer",
    "claims": "claims",
    "attacks": "attacks",
    "replies": "replies",
    "on_claims": "verdicts",
    "calc": "calcs",
}


def for_people(text: str, record: Mapping[str, Any]) -> str:
    """A contribution as people read it: its prose, then its closing block as read (``in_words``),
    never the lines a program reads. A block with a section that could not be read stays as written,
    so nothing the voice said is lost."""
    found = parts(text, record)
    shown = "\n\n".join(part for part in found if part) if found else text
    return shown if shown.strip() else text  # a block of empty headings alone (“CLAIMS:”) is shown as written


def parts(text: str, record: Mapping[str, Any], change: bool = True) -> tuple[str, str, str] | None:
    """(the prose before the closing block, the block as read in words, the prose after it); None
    when the text is to be shown as written (no block told from the prose, or a part of it unread).
    ``change``: whether the words say the change of position (the page's card says it above them)."""
    found = around_block(text)
    blocks = _blocks(without_thinking(text))
    unread = [name for name, key in READ_AS.items() if _said(blocks.get(name)) and not record.get(key)]
    if found is None or unread or (_said(blocks.get("change")) and not _changed(record)):
        return None
    return found[0], in_words(record, change), found[1]


def in_words(record: Mapping[str, Any], change: bool = True) -> str:
    """A closing block's record as Markdown a person reads: the answer, each claim with its tag and
    falsifier, what the voice said of others' claims and of its own, and its change of position."""
    out = [f"**Answer:** {record['answer']}"] if record.get("answer") else []
    if claims := record.get("claims"):
        out.append("**Claims:**\n" + "\n".join(f"- **{c['id']}** {_claim_in_words(c)}" for c in claims))
    listed = (
        ("Attacks", record.get("attacks", []), _attack_in_words),
        ("Replies", record.get("replies", []), _said_in_words),
        ("On claims", record.get("verdicts", []), _said_in_words),
    )
    for heading, items, words in listed:
        if items:
            out.append(f"**{heading}:**\n" + "\n".join(f"- **{item['target']}** {words(item)}" for item in items))
    if calcs := record.get("calcs"):
        out.append("**Computations:**\n" + "\n".join(f"- {_calc_in_words(c)}" for c in calcs))
    if change and _changed(record):
        said = record["change"]
        out.append(f"**Change:** {said.get('degree') or 'not stated'} — {said.get('reason') or 'no reason given'}")
    return "\n\n".join(out)


def _said(lines: list[str] | None) -> bool:
    return bool(lines and SLOT.sub("", " ".join(lines)).strip(SEPARATORS))


def _changed(record: Mapping[str, Any]) -> bool:
    change = record.get("change") or {}
    return bool(change.get("degree") or change.get("reason"))


def _claim_in_words(claim: Mapping[str, Any]) -> str:
    facts = [claim.get("kind") or ""]
    if claim.get("confidence") is not None:
        facts.append(f"{round(claim['confidence'] * 100)}%")
    elif claim.get("stated") is not None:
        facts.append(f"{round(claim['stated'] * 100)}% stated, counted as missing ({claim.get('void', '')})")
    shown = " · ".join(f for f in facts if f)
    cited = "".join(f"[{n}]" for n in claim.get("sources") or ())  # its footnotes (engine.sourcing)
    said = f"{claim['text']} {cited}" if cited else claim["text"]
    falsifier = f" — *falsified if* {claim['falsifier']}" if claim.get("falsifier") else ""
    return f"({shown}) {said}{falsifier}" if shown else f"{said}{falsifier}"


def _calc_in_words(calc: Mapping[str, Any]) -> str:
    said = f"`{calc['text'].replace('`', '')}`"
    return f"**{calc['claim']}** {said}" if calc.get("claim") else said


def _attack_in_words(attack: Mapping[str, Any]) -> str:
    kind = f"({attack['kind'].replace('_', ' ')}) " if attack.get("kind") else ""
    quote = f"on “{attack['quote']}”: " if attack.get("quote") else ""
    return f"{kind}{quote}{attack.get('evidence') or 'no evidence given'}"


def _said_in_words(said: Mapping[str, Any]) -> str:
    return f"{said['verdict']}: {said.get('reason') or 'no reason given'}"


def tag(claim: Mapping[str, Any]) -> str:
    """ ", fact, 85%; falsified if …": how a claim's tag reads after its id."""
    parts = [claim.get("kind") or ""]
    if claim.get("confidence") is not None:
        parts.append(f"{round(claim['confidence'] * 100)}%")
    falsifier = f"; falsified if {claim['falsifier']}" if claim.get("falsifier") else ""
    shown = ", ".join(p for p in parts if p)
    return (f", {shown}" if shown else "") + falsifier


BASIS_LINE = re.compile(
    r"^[\s*_>#-]*(?:basis|base|fondamento|fundamento|raison|grundlage)\s*[:：]\s*(?P<reason>.*)$",
    re.IGNORECASE | re.MULTILINE,
)


def basis(text: str) -> str:
    """The reason a voice gave when asked for the basis of its change; "" when it says it has none."""
    body = without_thinking(text)
    lines = BASIS_LINE.findall(body)
    reason = _trim(SLOT.sub("", lines[-1] if lines else body))
    return "" if not reason or NO_CLAIM.match(reason) or normal(reason) in ("no", "no basis", "nessuno") else reason
