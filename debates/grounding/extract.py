"""Finding the maths in a question: what to compute, as screened SymPy-syntax strings.

Two passes over a normalised copy of the text. First, phrases that ask for a computation
("solve …", "derivative of …", "is 91 prime"), whose expression is the run of maths after the
phrase. Then free-standing runs that are unmistakably maths: an equation, or arithmetic with
+, *, ^ or !. A bare "3 servers" or "2-3 days" is prose; a guess there would put a bogus fact
in front of the panel, so ambiguity means skipping.
"""

import re
from dataclasses import asdict, dataclass

from debates.grounding.screen import NotMaths, Unsafe, screen
from debates.grounding.worker import NAMES

MAX_TASKS = 8


@dataclass(frozen=True)
class Task:
    """One computation for the worker; ``kind`` "equation" lets it pick solve or identity_check."""

    kind: str
    expr: str
    rhs: str = ""
    var: str = ""
    lower: str = ""
    upper: str = ""
    point: str = ""

    def describe(self) -> str:
        claim = f"{self.expr} = {self.rhs}" if self.rhs else self.expr
        return claim if self.kind in ("arithmetic", "equation") else f"{self.kind} {claim}"

    def payload(self) -> dict[str, str]:
        return asdict(self)


UNICODE = str.maketrans({"×": "*", "·": "*", "÷": "/", "−": "-", "–": "-", "²": "^2", "³": "^3"})
UNICODE_WORDS = {"π": " pi ", "∞": " oo ", "→": "->", "≠": " ≠ ", "∫": " integral of "}
LATEX = [
    (re.compile(r"\\(?:cdot|times)"), "*"),
    (re.compile(r"\\div"), "/"),
    (re.compile(r"\\(?:to|rightarrow)\b"), "->"),
    (re.compile(r"\\infty"), " oo "),
    (re.compile(r"\\int\b"), " integral of "),
    (re.compile(r"\\(?:left|right)\b|\\[,;!]"), " "),
    (re.compile(r"\\([A-Za-z]+)"), r" \1"),
    (re.compile(r"_"), " "),
]
FRAC = re.compile(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
CODE = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.S)
DOLLARS = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)

WORD = re.compile(r"\w+|.", re.S)
TOKEN = re.compile(r"[ \t]+|\d+(?:\.\d+)?|[A-Za-z]+|\*\*|[-+*/^()!,=]")
STRONG = re.compile(r"[+*^!]|[A-Za-z]+\s*\(")
FILLER = re.compile(r"(?:\s+|:|\b(?:the|an|equation|expression|polynomial|number|value|of)\b|\ba\s+(?=[a-z]{2}))*")
WRT = re.compile(r"\s*(?:with\s+respect\s+to|wrt)\s+([a-z])\b", re.I)
FOR_VAR = re.compile(r"\s*for\s+([a-z])\b", re.I)
DVAR = re.compile(r"\s*d([a-z])\b")
BOUNDS = re.compile(r"\s*from\s+(-?\s*[\w.]+)\s+to\s+(-?\s*[\w.]+)\s*(?:of\b)?", re.I)
POINT = r"(-?\s*(?:\d+(?:\.\d+)?|oo|pi|e))"
APPROACH = r"\s*(?:->|approaches|tends\s+to|goes\s+to)\s*"
LIMIT_AFTER = re.compile(rf",?\s*(?:as\s+)?([a-z]){APPROACH}{POINT}", re.I)
LIMIT_BEFORE = re.compile(rf"[\s(]*([a-z]){APPROACH}{POINT}[\s)]*", re.I)
KEYWORD = re.compile(
    r"\b(?:(?P<solve>solve)|(?P<derivative>derivative\s+of|differentiate)|d/d(?P<dvar>[a-z])"
    r"|(?P<integral>integral\s+of|integrate)|(?P<limit>limit(?:\s+of)?|lim)"
    r"|(?P<factor>factori[sz]e|factor|factori[sz]ation\s+of|prime\s+factors\s+of)"
    r"|(?P<simplify>simplify)|(?P<evaluate>compute|calculate|evaluate|what\s+is|what's|how\s+much\s+is))\b",
    re.I,
)
REST = re.compile(r"[^\n?]*?(?=\.\s|[\n?]|$)")
CODE_SMELL = re.compile(r"__|['\"\[\]{};\\]|\b(?:import|lambda|exec|eval|open)\b|[A-Za-z]\.[A-Za-z_]")
DETERMINER = re.compile(r"\b(?:a|an|the|one|key|main|major|big|this|that)\s*$", re.I)
PRIME = re.compile(
    r"\bis\s+(\d+)\s+(?:a\s+)?prime\b|\b(\d+)\s+is\s+(?:a\s+)?prime\b"
    r"|\bisprime\s*\(\s*(\d+)\s*\)|\bprimality\s+of\s+(\d+)",
    re.I,
)


def extract(text: str) -> tuple[list[Task], list[str]]:
    """The tasks to compute, and notes on candidates refused as code or as too costly."""
    notes: list[str] = []
    text = normalise(text)
    tasks: list[Task] = []
    taken: list[range] = []
    for match in PRIME.finditer(text):
        tasks.append(Task("isprime", next(g for g in match.groups() if g)))
        taken.append(range(match.start(), match.end()))
    for match in KEYWORD.finditer(text):
        if match.group("factor") and DETERMINER.search(text[: match.start()]):
            continue  # "a key factor in …" is prose
        found = phrase_task(text, match, notes)
        if found:
            task, end = found
            taken.append(range(match.start(), end))
            tasks.append(task)
    for start, end in runs(text):
        if not any(start in span or end - 1 in span for span in taken):
            free = free_task(text[start:end])
            if free:
                tasks.append(free)
    return screened(tasks, notes), notes


def normalise(text: str) -> str:
    """Plain text: code unwrapped, LaTeX and Unicode maths spelled the way the parser reads it."""
    text = CODE.sub(lambda m: f" {m.group(1) or m.group(2)} ", text)
    text = DOLLARS.sub(lambda m: f" {latex(next(g for g in m.groups() if g))} ", text)
    for symbol, replacement in UNICODE_WORDS.items():
        text = text.replace(symbol, replacement)
    text = re.sub(r"\binfinity\b", "oo", text.translate(UNICODE), flags=re.I)
    return text.replace("!=", " ≠ ")


def latex(source: str) -> str:
    for _ in range(10):  # innermost first; ten levels of \frac is plenty
        source = SQRT.sub(r"sqrt(\1)", FRAC.sub(fraction, source))
    for pattern, replacement in LATEX:
        source = pattern.sub(replacement, source)
    return source.replace("{", "(").replace("}", ")")


def fraction(match: re.Match[str]) -> str:
    top, bottom = (p if re.fullmatch(r"\s*\w+\s*", p) else f"({p})" for p in match.groups())
    return f"({top.strip()}/{bottom.strip()})"


def scan(text: str, pos: int, equals: bool = True) -> int:
    """Where the run of maths starting at ``pos`` ends (a line, a word or prose punctuation)."""
    depth = 0
    while match := TOKEN.match(text, pos):
        token = match.group(0)
        if token.isalpha() and len(token) > 1 and token not in NAMES:
            break
        if token == "=" and not equals:
            break
        if token == "," and depth == 0:
            break
        depth += {"(": 1, ")": -1}.get(token, 0)
        pos = match.end()
    return pos


def runs(text: str) -> list[tuple[int, int]]:
    found, pos = [], 0
    while pos < len(text):
        end = scan(text, pos)
        if end > pos:
            if re.search(r"[\w(]", text[pos:end]):
                found.append((pos, end))
            pos = end
        else:  # prose: skip the whole word, not letter by letter
            pos = match_at(WORD, text, pos).end()
    return found


def match_at(pattern: re.Pattern[str], text: str, pos: int) -> re.Match[str]:
    """``pattern.match`` for the patterns that match anywhere, if only the empty string (FILLER, REST, WORD)."""
    match = pattern.match(text, pos)
    assert match is not None, f"{pattern.pattern!r} matches at any position"
    return match


def tidy(run: str) -> str:
    """Trim operators left dangling at either end and parentheses the prose opened or closed."""
    run = run.strip().rstrip("+-*/^=,. ").lstrip("+*/^=,) ")
    excess = run.count("(") - run.count(")")
    while excess > 0 and run.startswith("("):
        run, excess = run[1:].lstrip(), excess - 1
    while excess < 0 and run.endswith(")"):
        run, excess = run[:-1].rstrip(), excess + 1
    return run


def phrase_task(text: str, match: re.Match[str], notes: list[str]) -> tuple[Task, int] | None:
    """The task a phrase like "derivative of …" asks for, and where its clauses end."""
    groups = match.groupdict()
    kind = "derivative" if groups.pop("dvar") else next(k for k, v in groups.items() if v)
    pos = match_at(FILLER, text, match.end()).end()
    var = match.group("dvar") or ""
    bounds = point = None
    if kind == "solve" and (m := FOR_VAR.match(text, pos)):
        var, pos = m.group(1), match_at(FILLER, text, m.end()).end()
    if kind == "integral" and (m := BOUNDS.match(text, pos)):
        bounds, pos = m.groups(), match_at(FILLER, text, m.end()).end()
    if kind == "limit" and (m := LIMIT_BEFORE.match(text, pos)):
        var, point, pos = m.group(1), m.group(2), m.end()
    end = scan(text, pos, equals=kind in ("solve", "evaluate"))
    expr = tidy(text[pos:end])
    rest = match_at(REST, text, pos).group(0)
    if CODE_SMELL.search(rest) and len(expr) < len(rest.strip()):
        notes.append(f"Refused {kind} {rest.strip()[:80]}: it reads as code, not maths.")
        return None
    if not expr or (kind in ("simplify", "evaluate") and not re.search(r"[-+*/^!(]", expr)):
        return None
    for clause in (WRT, FOR_VAR, DVAR, BOUNDS, LIMIT_AFTER):
        if m := clause.match(text, end):
            if clause is BOUNDS:
                bounds = m.groups()
            elif clause is LIMIT_AFTER and point is None:
                var, point = m.groups()
            elif clause is not LIMIT_AFTER:
                var = m.group(1)
            end = m.end()
    if kind == "limit" and point is None:
        return None
    lower, upper = bounds or ("", "")
    if kind in ("solve", "evaluate") and "=" in expr:
        left, _, right = expr.partition("=")
        return Task("solve", left, right.lstrip("="), var), end
    if kind == "evaluate":
        kind = "simplify"
    return Task(kind, expr, var=var, lower=lower, upper=upper, point=point or ""), end


def free_task(run: str) -> Task | None:
    run = tidy(run)
    if "=" in run:
        sides = [side.strip() for side in re.split(r"==?", run)]
        if len(sides) != 2 or not all(sides):
            return None
        if any(re.fullmatch(r"[A-Za-z]", side) for side in sides):
            return None  # "x = 3" defines, it does not claim
        if not any(re.search(r"[-+*/^!(]", side) for side in sides):
            return None
        return Task("equation", sides[0], sides[1])
    names = {name for name in re.findall(r"[A-Za-z]+", run) if name not in NAMES}
    if not names and re.search(r"\d", run) and STRONG.search(run):
        return Task("arithmetic", run)
    return None


def screened(tasks: list[Task], notes: list[str]) -> list[Task]:
    kept: list[Task] = []
    for task in dict.fromkeys(tasks):
        try:
            for source in (task.expr, task.rhs, task.lower, task.upper, task.point):
                if source:
                    screen(source)
        except Unsafe as refusal:
            notes.append(f"Refused {task.describe()[:80]}: {refusal}.")
            continue
        except NotMaths:
            continue
        kept.append(Task(**{k: tidy_spaces(v) for k, v in task.payload().items()}))
    if len(kept) > MAX_TASKS:
        notes.append(f"Computed the first {MAX_TASKS} of {len(kept)} expressions.")
    return kept[:MAX_TASKS]


def tidy_spaces(source: str) -> str:
    return re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", " ".join(source.split())))
