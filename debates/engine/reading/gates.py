"""Checks on what a voice returned: the verification gate and the anti-pattern flags.

The gate keeps phantom panelists out (a voice that "answers" with a status or an error): a text
that is *only* a status message, an error dump with no prose explaining it, or a refusal is not
an answer and never reaches a dossier. An answer that quotes an error to explain it is an
answer: root-cause questions are a core use. The flags mark agreement or reversal without a
substantive reason, confidence without a specific falsification condition and critiques that
target no claim; they are shown to the user and the moderator, never used to drop a voice.
"""

import re

from debates.engine.reading import jsonish
from debates.providers.cli import notices

MIN_ANSWER_CHARS = 20
WORD = re.compile(r"\w{4,}", re.UNICODE)
PROSE_WORD = re.compile(r"(?<!\S)[^\W\d_]{2,}[,.;:!?)]*(?!\S)")

# --- the gate: status messages --------------------------------------------------------
_STATUS = (
    r"(?:status|state|stato|estado)?\s*(?:(?:the|your|this|my|la|tu|su)\s+)?"
    r"(?:task|request|job|query|answer|response|run|process|operation|richiesta|risposta|solicitud|respuesta|tarea)?"
    r"\s*(?:id\s*[\w-]+\s*)?(?:has\s+been|is\s+being|is|was|been|è|è\s+stata|está|ha\s+sido)?\s*"
    r"(?:processing|being\s+processed|working(?:\s+on\s+it)?|thinking|running|started|starting|queued|enqueued|"
    r"pending|in\s+progress|submitted|accepted|received|loading|generating(?:\s+(?:a|the|your)?\s*(?:response|answer))?|"
    r"ok|okay|done|success|completed?|please\s+wait(?:\s+while\s+.{0,60})?|wait|one\s+moment|just\s+a\s+moment|"
    r"hold\s+on|stand\s*by|still\s+working|almost\s+(?:done|there)|retrying|initiali[sz]ing|searching|let\s+me\s+think|"
    r"analy[sz]ing(?:\s+(?:the|your)\s+(?:question|request))?|"
    r"this\s+(?:may|might|can|will)\s+take\s+(?:a\s+)?(?:few\s+|several\s+)?(?:moments?|minutes?|seconds?|while)|"
    r"(?:check|come)\s+back\s+(?:later|soon)|(?:it|the\s+answer|your\s+answer)\s+will\s+be\s+ready\s+(?:soon|shortly)|"
    r"in\s+coda|in\s+elaborazione|elaborazione\s+in\s+corso|attendere|attendi|un\s+momento|sto\s+elaborando|"
    r"procesando|en\s+cola|en\s+proceso|espere|cargando|pensando|bitte\s+warten|wird\s+bearbeitet|"
    r"en\s+cours(?:\s+de\s+traitement)?|veuillez\s+patienter|traitement\s+en\s+cours)?"
    r"(?:\s+(?:please|prego|por\s+favor|bitte|s'il\s+vous\s+plaît))?"
)
_ERROR_STATUS = (
    r"(?:an?\s+)?(?:unexpected\s+|internal\s+|unknown\s+)?(?:error|exception|failure)(?:\s+(?:has\s+)?occurred)?"
    r"(?:\s+while\s+.{0,60})?|something\s+went\s+wrong|rate[\s-]limit(?:ed|\s+exceeded|\s+reached)?|"
    r"too\s+many\s+requests|quota\s+exceeded|(?:the\s+)?(?:request|connection)\s+timed\s+out|time-?out|"
    r"gateway\s+time-?out|bad\s+gateway|service\s+(?:temporarily\s+)?unavailable|internal\s+server\s+error|"
    r"server\s+error|connection\s+(?:reset|refused|error|lost)|network\s+error|upstream\s+(?:connect\s+)?error.{0,60}|"
    r"(?:please\s+)?try\s+again(?:\s+later|\s+in\s+a\s+(?:few\s+)?(?:moments?|minutes?))?|"
    r"(?:the\s+)?(?:model|server|service)\s+(?:is\s+)?(?:overloaded|not\s+found|unavailable|busy)|overloaded|"
    r"not\s+found|forbidden|unauthori[sz]ed|access\s+denied|invalid\s+api\s+key.{0,40}|"
    r"error(?:\s+code)?\s*:?\s*\d{3}|\d{3}(?:\s+[a-z ]{3,40})?|(?:maximum\s+)?context\s+length\s+exceeded.{0,60}|"
    r"no\s+response|empty\s+response|null|none|undefined|n/a|errore|error\s+interno|fehler|erreur|"
    r"(?:this\s+model['’]s\s+)?maximum\s+context\s+length\s+is\s+\d+\s+tokens|"
    r"your\s+(?:messages?|request|prompt|input)\s+resulted\s+in\s+\d+\s+tokens.{0,60}|"
    r"please\s+reduce\s+the\s+length\s+of\s+the\s+(?:messages?|prompt|input)"
)
STATUS_CLAUSE = re.compile(rf"(?i)(?:{_STATUS})")
ERROR_CLAUSE = re.compile(rf"(?i)(?:{_ERROR_STATUS})")
FILLER_CLAUSE = re.compile(
    r"(?i)(?:however|also|sorry|oops|\d+(?:\.\d+)?\s*%|step\s+\d+\s+(?:of|/)\s+\d+|\d+\s*/\s*\d+|eta\s*\d+\s*\w*|"
    r"id\s*[\w-]+|)"
)
CLAUSE_BREAK = re.compile(r"\.\.\.|[.!?…,;:\n()\[\]{}—–|]+|\s-\s")

# --- the gate: error dumps ------------------------------------------------------------
EXPLAINED = re.compile(
    r"(?i)\b(?:because|means?|meaning|is\s+raised|is\s+thrown|raised\s+when|happens|occurs|the\s+cause|root\s+cause|"
    r"this\s+(?:is|means)|to\s+fix|fix\s+(?:it|this)|you\s+(?:need|should|must|can)|make\s+sure|the\s+reason|"
    r"indicates?|tells\s+you|which\s+means|perché|significa|indica|succede|accade|devi|bisogna|porque|ocurre|"
    r"debes|hay\s+que|parce\s+que|signifie|weil|bedeutet)\b"
)
DUMP_LINE = re.compile(
    r"(?:Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|Caused by:|"
    r"During handling of the above exception|The above exception was|Exception in thread|"
    r"[\w.$]*(?:Error|Exception|Warning|Fault|Exit|Interrupt|Failure)\b(?:\[\w+\])?(?::.*)?$|"
    r"HTTP/\d(?:\.\d)? \d{3}\b.*|"
    r"(?:ERROR|FATAL|CRITICAL|PANIC|[Ee]rror|[Ff]atal)(?:\[\w+\])?[:!]\s?.*|(?:Error|ERROR)\s*(?:code)?\s*:?\s*\d{3}\b.*|"
    r"\S*\s*\d{4}-\d\d-\d\d[T ][\d:.,]+\S*\s+(?:ERROR|FATAL|CRITICAL|ERR)\b.*|"
    r"thread '.*' panicked at.*|panic: .*|goroutine \d+ \[.*|Segmentation fault.*|npm ERR!.*|make: \*\*\*.*|"
    r"curl: \(\d+\).*|error\[E\d+\]:.*|at [\w$.<>]+ ?\(.*\)$|\^[\^~\s]*$|~+$|\.\.\. ?\d* ?more|"
    r"(?:LINE \d+|HINT|DETAIL|CONTEXT|STATEMENT|QUERY):.*|\[Previous line repeated \d+ more times\])"
)
HEADER_LINE = re.compile(r"[A-Za-z][\w-]*:\s*\S.*")
HTML_ERROR = re.compile(
    r"(?i)\b(?:[45]\d\d|error|bad gateway|unavailable|not found|forbidden|too many requests|timed? ?out|"
    r"cloudflare|nginx|access denied|maintenance)\b"
)

# --- the gate: refusals ---------------------------------------------------------------
_SORRY = (
    r"(?:(?:i['’]?m|i\s+am)\s+(?:really\s+|very\s+|so\s+)?(?:sorry|afraid)|sorry|(?:my\s+)?apologies|unfortunately|"
    r"i\s+apologi[sz]e|mi\s+dispiace|spiacente|purtroppo|scusa(?:mi)?|lo\s+siento(?:\s+mucho)?|disculpa|perdón|"
    r"lamentablemente|desafortunadamente|je\s+suis\s+désolée?|désolée?|malheureusement|es\s+tut\s+mir\s+leid|leider)"
)
_AS_AI = (
    r"(?:(?:as|come|como|en\s+tant\s+qu['’]?e?)\s+(?:an?\s+|un[ao]?\s+)?(?:ai|ia|intelligenza\s+artificiale|"
    r"inteligencia\s+artificial|(?:ai\s+)?(?:language\s+)?model|modello(?:\s+linguistico)?|modelo(?:\s+de\s+lenguaje)?|"
    r"assistant|assistente|asistente|llm)[^,]{0,40},\s*)"
)
_CANNOT = (
    r"(?:i\s+(?:can(?:no|['’])?t|cannot|am\s+(?:not\s+able|unable)|['’]m\s+(?:not\s+able|unable)|won['’]?t|will\s+not|"
    r"must\s+decline|have\s+to\s+decline|do(?:\s+not|n['’]t)\s+feel\s+comfortable|(?:am|['’]m)\s+not\s+(?:allowed|permitted))"
    r"\s+(?:to\s+)?(?:help|assist|comply|fulfil+|provide|answer|respond|do\s+that|support|engage|continue|create|"
    r"generate|discuss|share|give|offer|express|have|form|take|participate|produce|write)\b|"
    r"non\s+(?:posso|sono\s+in\s+grado\s+di|mi\s+è\s+(?:possibile|consentito))\s+(?:aiutar|assister|rispondere|fornir|"
    r"dare|soddisfare|esprimere|fare|procedere|partecipare)|"
    r"no\s+(?:puedo|soy\s+capaz\s+de|me\s+es\s+posible|estoy\s+autorizad[oa]\s+para)\s+(?:ayudar|asistir|responder|"
    r"proporcionar|dar|cumplir|expresar|hacer|ofrecer|participar)|"
    r"je\s+ne\s+(?:peux|suis)\s+pas\s+(?:en\s+mesure\s+de\s+)?(?:vous\s+|t['’]\s*)?(?:aider|répondre|fournir|assister|donner)|"
    r"ich\s+kann\s+(?:dir\s+|ihnen\s+)?(?:dabei\s+|damit\s+|hierbei\s+)?nicht\s+(?:helfen|antworten|weiterhelfen|behilflich)|"
    r"(?:dabei|damit)\s+kann\s+ich\s+(?:dir\s+|ihnen\s+)?nicht\s+helfen)"
)
REFUSAL = re.compile(rf"(?i)^(?:{_SORRY}[,.!]?\s*(?:(?:but|ma|pero|mais|aber)\s+)?)?{_AS_AI}?{_CANNOT}")
PIVOT = re.compile(  # after it the answer starts: "I can't give one number: it depends on …"
    r"(?i)[:;—–]|,?\s*\b(?:but|however|though|although|yet|instead|ma|però|tuttavia|pero|sin\s+embargo|aunque|aber|"
    r"jedoch|mais|cependant)\b"
)
BOILERPLATE = re.compile(
    r"(?i)if\s+you\s+have|feel\s+free|let\s+me\s+know|anything\s+else|happy\s+to\s+help|(?:help|assist)\s+(?:you\s+)?with\s+"
    r"(?:something|other|another|a\s+different)|i\s+hope\s+you\s+understand|(?:please\s+)?(?:consult|contact|reach\s+out)|"
    r"thank(?:s|\s+you)\s+for|se\s+hai\s+altre|fammi\s+sapere|posso\s+aiutarti\s+con\s+altro|altre\s+domande|"
    r"si\s+tienes\s+otra|otras\s+preguntas|avísame|no\s+dudes|n['’]hésitez\s+pas|andere\s+fragen"
)
# Spaces after a sentence's end, or line breaks; opening on \s lets the engine skip to whitespace.
SENTENCE_END = re.compile(r"\s(?:(?<=[.!?]\s)\s*|(?<=\n)\n*)")


def _status(text: str) -> str:
    """'status' or 'error' when the text is only a status or error message, else ''."""
    body = jsonish.whole(text)
    if (
        isinstance(body, dict)
        and body
        and all(isinstance(v, str | int | float | bool) or v is None for v in body.values())
    ):
        state = str(body.get("status", body.get("state", "")))
        if state and STATUS_CLAUSE.fullmatch(state) and not {"answer", "text", "content", "result"} & set(body):
            return "status"
    if len(text) > 300:
        return ""
    clauses = [c.strip(" \t'\"`*_~⏳⌛🔄✅❌") for c in CLAUSE_BREAK.split(text)]
    if not any(clauses):
        return ""
    kind = "status"  # while every clause is a status or a filler; one error clause makes it "error"
    for clause in clauses:
        if STATUS_CLAUSE.fullmatch(clause) or FILLER_CLAUSE.fullmatch(clause):
            continue
        if not ERROR_CLAUSE.fullmatch(clause):
            return ""
        kind = "error"
    return kind


def _error_dump(text: str) -> bool:
    """Only an error body, an error page or traceback lines, with no prose explaining them."""
    body = jsonish.whole(text)
    if isinstance(body, dict) and {"error", "errors", "fault"} & {str(k).casefold() for k in body}:
        return True
    stripped = jsonish.unfenced(text)
    if re.match(r"(?i)\{\s*['\"](?:error|errors|detail)['\"]\s*:", stripped) and stripped.endswith("}"):
        return True  # a Python repr of an error body: single quotes, not JSON
    if re.match(r"(?i)<!doctype html|<html", stripped) and re.search(r"(?i)</html>\s*$", stripped):
        visible = re.sub(r"(?is)<(script|style)\b.*?</\1>|<[^>]+>", " ", stripped)
        return bool(HTML_ERROR.search(visible)) and len(PROSE_WORD.findall(visible)) < 80
    dump, prose, in_http, in_trace = False, 0, False, False
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("```"):
            in_http = in_http and bool(s)
        elif in_trace and line[:1].isspace():
            continue  # the code a traceback quotes
        elif (dumped := DUMP_LINE.match(s)) or (in_http and HEADER_LINE.fullmatch(s)):
            # Only a dump or header line needs the costly EXPLAINED: any other line is prose anyway.
            if EXPLAINED.search(s) and not s.startswith("Caused by"):
                prose += len(PROSE_WORD.findall(s))
            elif dumped:
                dump = True
                in_http = in_http or s.startswith("HTTP/")
                in_trace = in_trace or s.startswith(("Traceback", "File "))
        else:
            prose += len(PROSE_WORD.findall(s))
        if prose >= 8:
            return False  # prose only grows: the rest cannot make it a bare dump
    return dump


def _refusal(text: str) -> bool:
    """A refusal and, around it, nothing of substance (thanks, apologies, offers of other help)."""
    refused, rest = False, []
    for sentence in SENTENCE_END.split(text):
        sentence = sentence.strip(" \t*_>\"'")
        if refusal := REFUSAL.match(sentence):
            refused = True
            pivot = PIVOT.search(sentence, refusal.end())
            sentence = sentence[pivot.end() :] if pivot else ""
        rest.append(sentence)
    if not refused:
        return False  # the costly count of substance only matters around a refusal
    substance = 0
    for sentence in rest:
        if sentence and not BOILERPLATE.search(sentence):
            substance += len(PROSE_WORD.findall(sentence))
            if substance >= 12:
                return False
    return True


def gate(text: str) -> str:
    """Why ``text`` is not an answer at all (a phantom panelist), or "" when it is one.

    Whether it answers *this* question is not judged here: an answer that shares no word with the
    question is kept and flagged (``off_topic``), and the judge may say it answers another one.
    """
    stripped = text.strip()
    if not stripped:
        return "empty answer"
    # A CLI's own status line ("Please run /login", a usage limit); a rate limit is an error message below.
    if (found := notices.notice(stripped)) and found.kind != notices.Kind.RATE:
        return f"a {found.kind} notice, not an answer ({_quoted(stripped)})"
    kind = _status(stripped)
    if kind == "status":
        return f"a status message, not an answer ({_quoted(stripped)})"
    if kind == "error":
        return f"an error message, not an answer ({_quoted(stripped)})"
    if _error_dump(stripped):
        return "an error dump (a traceback, an error body or an error page) with no explanation, not an answer"
    if _refusal(stripped):
        return f"a refusal, not an answer ({_quoted(stripped)})"
    if len(stripped) < MIN_ANSWER_CHARS:
        return f"too short to be an answer ({len(stripped)} characters)"
    return ""


OFF_TOPIC = "possibly off-topic: it shares no term with the question (kept: the judge reads it)"


def off_topic(text: str, question: str) -> str:
    """The flag of an answer that shares no term with a question wordy enough to judge; "" otherwise."""
    asked = {w.casefold() for w in WORD.findall(question)}
    return OFF_TOPIC if len(asked) >= 4 and _shares_nothing(text, asked) else ""


def _quoted(text: str) -> str:
    flat = " ".join(text.split())
    return f"“{flat if len(flat) <= 60 else flat[:57] + '…'}”"


def _shares_nothing(text: str, asked: set[str]) -> bool:
    """At least ten distinct words, none of them ``asked``; the first shared word ends the scan."""
    said = set()
    for match in WORD.finditer(text):
        word = match.group().casefold()
        if word in asked:
            return False
        said.add(word)
    return len(said) >= 10


# --- flags: agreement or reversal without a substantive reason ------------------------
# A long word list opens with a lookahead on the letters its words start with: the engine then
# rejects most positions with one set test instead of trying every word. Exact: every word starts
# with one of those letters, and the set folds case as the words do (ſ, K, ı included).
DEFERENCE = re.compile(
    r"(?i)\b(?=[cehijmprsty])(?:i\s+concede|i\s+was\s+wrong|i\s+now\s+(?:agree|side)|i\s+fully\s+agree|i\s+stand\s+corrected|i\s+withdraw|"
    r"i\s+retract|i\s+adopt\s+(?:panelist|the)|i\s+defer\s+to|i\s+switch|i\s+reverse|i\s+revise\s+my\s+(?:position|answer)|"
    r"i(?:['’]ve|\s+have)?\s+changed?\s+my\s+(?:mind|position|answer|view)|i(?:['’]m|\s+am)\s+(?:now\s+)?(?:convinced|persuaded)|"
    r"(?:they|the\s+others|you|panelist\s+\w)\s+(?:have\s+)?convinced\s+me|i(?:['’]ll|\s+will)\s+go\s+with\s+"
    r"(?:the\s+)?(?:majority|others|consensus|panelist)|"
    r"i\s+(?:fully\s+|completely\s+|entirely\s+|wholeheartedly\s+)?(?:agree|concur)\s+with\s+(?:the\s+)?(?:other|all|every|"
    r"panel|everyone|majority|them)|i(?:['’]m|\s+am)\s+in\s+(?:full\s+|complete\s+)?agreement\s+with|"
    r"ho\s+cambiato\s+(?:idea|posizione|opinione)|mi\s+(?:hanno|ha)\s+convint[oa]|mi\s+ricredo|"
    r"cambio\s+(?:la\s+mia\s+)?(?:posizione|idea|opinione)|(?:concordo|sono\s+d['’]accordo)\s+con\s+(?:gli\s+altri|tutti|"
    r"il\s+panel|la\s+maggioranza)|he\s+cambiado\s+(?:de\s+)?(?:opinión|posición|idea)|me\s+(?:han|ha)\s+convencido|"
    r"me\s+convencieron|cambio\s+(?:mi\s+)?(?:posición|opinión)|rectifico|"
    r"(?:estoy\s+de\s+acuerdo|coincido)\s+con\s+(?:los\s+demás|todos|el\s+panel|la\s+mayoría|los\s+otros)|"
    r"je\s+suis\s+d['’]accord\s+avec\s+(?:les\s+autres|tous)|ich\s+stimme\s+(?:den\s+anderen|allen)\s+zu)"
)
# A deferential "reason": the others, not the matter, are what it gives.
DEFERRING = re.compile(
    r"(?i)(?=[abcefghikmnoprstvw])(?:\b(?:good|valid|strong|fair|great|compelling|convincing|excellent|solid|persuasive)\s+(?:points?|arguments?|"
    r"case|reasons?)|convinced\s+me|persuaded\s+me|changed\s+my\s+mind|(?:are|were|is|was)\s+right|know\s+better|"
    r"makes?\s+(?:a\s+lot\s+of\s+|more\s+)?sense|majority|consensus|outnumber|i\s+trust|i\s+defer|"
    r"(?:better|stronger|more\s+(?:convincing|compelling|persuasive))\s+(?:argument|case|answer|reasoning)|"
    r"(?:argument|case|answer|reasoning)s?\s+(?:is|are|was|were|seems?)\s+(?:stronger|better|more|compelling|"
    r"persuasive|solid|sound|convincing)|i\s+was\s+wrong|nothing\s+(?:more\s+|else\s+)?to\s+add|"
    r"(?:hanno|ha)\s+ragione|mi\s+(?:hanno|ha)\s+convint|buoni\s+argomenti|argomenti\s+validi|convincent[ie]|"
    r"maggioranza|(?:tienen|tiene)\s+razón|me\s+convenc|buenos\s+argumentos|argumentos\s+válidos|convincentes?|mayoría)"
)
EVIDENCE = re.compile(
    r"(?i)\b(?=[abcdefmoprst])(?:benchmark|measur|profil(?:e|ed|ing)|the\s+(?:logs?|trace|data|docs|documentation|spec(?:ification)?|"
    r"source\s+code|study|paper|changelog)|according\s+to|as\s+shown|shows?\s+that|demonstrat|reproduc|counter-?example|"
    # Evidence or an argument named as the reason ("the critique's replica-lag evidence", "the point about lag").
    r"(?<=['’]s\s)(?:[\w-]+\s+){0,2}evidence|evidence\s+(?:of|that|on|from)\b|"
    r"(?:argument|critique|objection|attack|point)(?:['’]s)?\s+(?:about|on|that|against)\b|"
    r"for\s+(?:example|instance)|e\.g\.|specifically|RFC\s*\d|documented|proof|derivation|calculat|"
    r"dati|misur|per\s+esempio|ad\s+esempio|controesempio|documentazione|datos|medici|por\s+ejemplo|contraejemplo|"
    r"documentación)"
)
NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?!\s*(?:other|panelist|voice|answer|of\s+(?:you|them)))")
QUOTED = re.compile(r"[\"“«„][^\"“”«»„]{8,}[\"”»“]")
CONFIDENCE_STATEMENT = re.compile(
    r"(?i)(?=[cf\d])(?:\b(?:confiden(?:ce|t)|fiducia|confianza)\b\W{0,3}(?:\w+\W{0,3})?\d+\s*%?|\d+\s*%\s*confiden\w*)"
)
LABEL = re.compile(r"\bPanelist\w*\s+\w{1,2}\b")
# The closing block's answer line states a position, which is no reason for it.
ANSWER_LINE = re.compile(
    r"^[\s*#>_-]*(?:final\s+|endgültige\s+)?(?:answer|risposta|respuesta|r[ée]ponse|antwort|resposta)"
    r"(?:\s+final[ea]?)?\s*[:：].*$",
    re.IGNORECASE | re.MULTILINE,
)
# A claim named by its id ("A1", "B2", "claim 3"): our closing block's references, no number of substance.
CLAIM_ID = re.compile(r"\b[A-Z]\d{1,2}\b|\bclaims?\s*#?\d{1,2}\b", re.IGNORECASE)
REASONS_FROM = re.compile(
    r"(?i)(?=[abdgpsvwy:—])(?:\b(?:because|since|given\s+that|due\s+to|as\s+(?=\w+\s+\w+\s+(?:is|are|was|were|has|have|shows?))|"
    r"perché|poiché|dato\s+che|visto\s+che|porque|ya\s+que|dado\s+que|puisque|parce\s+que|weil|da)\b|:|—)"
)
CLAUSE_END = re.compile(r"[.!?;\n]|$")


def _clause(text: str, start: int) -> str:
    """The text from ``start`` to the end of its clause."""
    end = CLAUSE_END.search(text, start)
    assert end is not None, "CLAUSE_END matches at the end of the text at the latest"
    return text[start : end.start()]


def _content_words(text: str, ignore: frozenset[str] = frozenset()) -> int:
    return sum(1 for w in re.findall(r"[^\W\d_]{4,}", text.casefold()) if w not in ignore)


def substantive(text: str) -> bool:
    """Whether ``text`` gives a reason of substance — evidence, a number, a quoted claim, a
    mechanism or a counterexample — rather than deference ("because they make good points")."""
    body = CLAIM_ID.sub(" ", LABEL.sub(" ", CONFIDENCE_STATEMENT.sub(" ", ANSWER_LINE.sub(" ", text))))
    if NUMBER.search(body) or QUOTED.search(body) or EVIDENCE.search(body):
        return True
    for start in REASONS_FROM.finditer(body):
        clause = _clause(body, start.end())
        if not DEFERRING.search(clause) and not DEFERENCE.search(clause) and _content_words(clause) >= 2:
            return True
    return False


# --- flags: confidence without a specific falsification condition ---------------------
CONFIDENCE = re.compile(
    r"(?i)(?=[cfks\d])(?:\b(?:confiden(?:ce|t)|fiducia|confianza|confiance|konfidenz)\b|"
    r"\b(?:sure|sicur[oa]|segur[oa])\s+(?:at|al|del)?\s*\d+\s?%|\d{1,3}\s?%\s+(?:sure|certain|likely))"
)
FALSIFIED_IF = re.compile(
    r"(?i)\b(?=[acdefimoprsuw])(?:would\s+change\s+(?:my\s+(?:mind|position|answer|view)\s+)?if|"
    r"i(?:['’]d|\s+would)\s+(?:change|reverse|revise|switch|drop|abandon|reconsider)\b[^.;\n]{0,40}?\b(?:if|when)|"
    r"changes?d?\s+if|fails?\s+(?:if|when|once)|wrong\s+if|(?:falsified|refuted|invalidated?|disproved?)\s+(?:if|by|when)|"
    r"unless|provided\s+that|only\s+if|counter-?example|cambierei\s+(?:idea\s+|posizione\s+|opinione\s+)?se|"
    r"sarebbe\s+sbagliat[oa]\s+se|fallisce\s+se|a\s+meno\s+che(?:\s+non)?|"
    r"cambiar[íi]a\s+(?:de\s+)?(?:opinión\s+|posición\s+|idea\s+)?si|ser[íi]a\s+(?:incorrect[oa]|err[óo]ne[oa])\s+si|"
    r"falla\s+si|a\s+menos\s+que|salvo\s+que|changerais\s+d['’]avis\s+si|sauf\s+si|es\s+sei\s+denn|"
    r"meinung\s+ändern,?\s+wenn)"
)
# A specific condition names an input, a number, a source or an observation.
SPECIFIC = re.compile(
    r"(?i)\d|[\"“«'][^\"“”«»']{3,}[\"”»']|\b(?:double|triple|twice|half|halve|doubles|triples|ten|hundred|thousand|"
    r"exceeds?|above|below|over|under|more\s+than|less\s+than|greater|fewer|drops?|rises?|grows?|falls?|"
    r"raddoppi\w*|triplic\w*|dimezz\w*|supera\w*|oltre|sotto|sopra|duplic\w*|mitad|más\s+de|menos\s+de|por\s+encima|"
    r"por\s+debajo)\b"
)
_VAGUE_WORDS = (
    "new evidence emerges emerge emerged something anything changes change changed circumstances information more "
    "further data facts situation otherwise proven proves prove shown arise arises comes light contrary different "
    "things better arguments argument compelling convincing significant relevant additional strong stronger someone "
    "presents presented provided appears appear learn becomes available wrong important factors considerations "
    "nuove nuovi prove evidenze emergono emerge qualcosa cambia cambiano circostanze informazioni situazione "
    "nuevas nuevos pruebas evidencia evidencias surgen surge algo cambian circunstancias información situación "
    "cambio cambios would could should were that this there with their they them what when where have been"
)
VAGUE = frozenset(_VAGUE_WORDS.split())


def specific(condition: str) -> bool:
    """Whether a falsification condition names an input, a number, a source or an observation."""
    return bool(SPECIFIC.search(condition)) or _content_words(condition, VAGUE) >= 2


def _falsification(text: str) -> str:
    """'specific', 'vague' (only conditions like "if new evidence emerges") or '' (none)."""
    found = ""
    for trigger in FALSIFIED_IF.finditer(text):
        condition = _clause(text, trigger.end())
        if "counter" in trigger.group(0).casefold() or specific(condition):
            return "specific"
        found = "vague"
    return found


# --- flags: a critique must attack a specific claim -----------------------------------
NOT_AN_OBJECTION = re.compile(
    r"(?i)(?=[cdhnw])(?:\b(?:no|without\s+(?:any\s+)?)\s*(?:obvious\s+|real\s+|major\s+|significant\s+)?(?:flaws?|errors?|issues?|"
    r"problems?|mistakes?|weakness(?:es)?|objections?)\b|nothing\s+(?:is\s+)?(?:wrong|incorrect|missing)|"
    r"not\s+(?:wrong|incorrect|flawed)|(?:can['’]?t|cannot|couldn['’]?t)\s+find\s+(?:any\s+)?(?:fault|flaws?|errors?|"
    r"issues?|problems?)|(?:don['’]?t|do\s+not)\s+disagree|no\s+disagreement|hard\s+to\s+disagree|"
    r"nessun\s+(?:errore|difetto|problema)|niente\s+da\s+obiettare|ningún\s+(?:error|fallo|problema)|nada\s+que\s+objetar)"
)
OBJECTION = re.compile(
    r"(?i)\b(?=[abcdefimnoqrstuw])(?:incorrect|wrong|false|fails?|flaw(?:ed|s)?|errors?|mistak\w*|unsupported|unfounded|overlook\w*|ignor\w*|"
    r"disagree\w*|refut\w*|overstat\w*|understat\w*|overestimat\w*|underestimat\w*|(?:doesn['’]t|does\s+not)\s+"
    r"(?:hold|follow|scale|work)|not\s+true|untrue|misses|missing|omits?|neglect\w*|contradict\w*|counter-?example|"
    r"dubious|questionable|breaks?|won['’]t\s+work|too\s+(?:optimistic|pessimistic|high|low)|naive|conflat\w*|"
    r"assum\w*|conflicts?\s+with|inconsistent|(?:that|this|it)\s+(?:is\s+not|isn['’]t|doesn['’]t|does\s+not|won['’]t|"
    r"can['’]t)|they\s+(?:can['’]t|cannot|don['’]t|do\s+not)|"
    r"sbagliat\w*|errat\w*|fals[oa]|non\s+regge|non\s+è\s+vero|trascura|manca|omette|non\s+considera|infondat\w*|"
    r"sovrastim\w*|sottostim\w*|contraddi\w*|controesempio|incorrect[oa]|equivocad\w*|err[óo]ne\w*|omite|olvida|"
    r"no\s+considera|no\s+es\s+cierto|infundad\w*|sobreestim\w*|subestim\w*|contradic\w*|contraejemplo)"
)
TARGET = re.compile(
    r"[\"“«„'][^\"“”«»„']{8,}[\"”»“']|\d|"
    r"(?i:\bPanelist\w*\s+\w{1,2}\b(?:['’]s)?\s+(?:claims?|says|argues|states|suggests|assumes|estimates?|recommends?|"
    r"writes|proposes|asserts|assumption|argument|figure|number|conclusion|premise|point|reasoning|calculation|"
    r"benchmark|recommendation|proposal|statement|cost|plan|sostiene|afferma|dice|propone|stima|ipotesi|tesi|afirma|"
    r"estimación|hipótesis|tesis)|"
    r"\bPanelist\w*\s+\w{1,2}\b[^.!?\n]{0,60}?\b(?:ignores|overlooks|misses|omits|neglects|underestimates|"
    r"overestimates|overstates|understates|conflates|confuses|forgets|assumes|trascura|ignora|omette|sottostima|"
    r"sovrastima|presuppone|omite|olvida|subestima|sobreestima|supone)\b|"
    r"\b(?:the|this|that|its|their)\s+(?:claim|assumption|estimate|argument|figure|number|conclusion|premise|statement|"
    r"recommendation|proposal|calculation|cost\s+estimate)|\b(?:claim|assumption|estimate|premise|statement|idea)\s+that|"
    r"\b(?:l['’]affermazione|la\s+tesi|la\s+stima|l['’]ipotesi|l['’]idea\s+che|la\s+afirmación|la\s+tesis|"
    r"la\s+estimación|la\s+hipótesis|la\s+idea\s+de\s+que))"
)


SYCOPHANCY_TOTAL = "sycophancy: changed its position entirely without a reason of substance"
SYCOPHANCY_PARTIAL = "sycophancy: changed its position in part for the others' sake, not for a reason of substance"


def change_flag(degree: str, reason: str) -> str:
    """The sycophancy signal of a stated position change, or "": a total change without a reason of
    substance, or a partial one whose reason defers to the others ("they make good points")."""
    if degree == "total" and not substantive(reason):
        return SYCOPHANCY_TOTAL
    if degree == "partial" and not substantive(reason) and (DEFERRING.search(reason) or DEFERENCE.search(reason)):
        return SYCOPHANCY_PARTIAL
    return ""


def flags(kind: str, text: str) -> tuple[str, ...]:
    """Anti-pattern flags for one contribution of the given kind."""
    found = []
    if kind in {"final", "critique_final", "debate", "revote"} and DEFERENCE.search(text) and not substantive(text):
        found.append(
            "sycophancy: agreed or changed position without a substantive reason "
            "(evidence, a number, a mechanism, a quoted claim)"
        )
    if kind in {"final", "critique_final", "answer"} and CONFIDENCE.search(text):
        falsification = _falsification(text)
        if not falsification:
            found.append("confidence theatre: a confidence without a falsification condition counts as missing")
        elif falsification == "vague":
            found.append(
                "confidence theatre: the falsification condition is vague; it must name an input, a number, "
                "a source or an observation"
            )
    if kind in {"critique", "critique_final"}:
        body = NOT_AN_OBJECTION.sub(" ", text)
        if not (OBJECTION.search(body) and TARGET.search(body)):
            found.append("no attack: a critique must target a specific claim; agreement or praise is a failed round")
    return tuple(found)
