"""Text clean-up every reader shares: thinking blocks, decorations around a value, our template's
unfilled slots (and placeholders echoed in free text), a small model's loop of one sentence, and
the keys words and headings are compared by."""

import re
import unicodedata

THINK_CLOSE = re.compile(r"</think(?:ing)?\s*>", re.IGNORECASE)
THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
SMART_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"})
# A slot of our own template left unfilled ("<your answer in a few words>", "<0–100>", "<…>") inside
# a line; not an HTML tag a voice wrote ("<b>", "<a href=…>"), which is its text, shown escaped.
SLOT = re.compile(
    r"(?<![\w<])<(?:…|\.\.\.|[\d.]+\s*[–-]\s*[\d.]+|(?=\S)[^<>\n=/]{0,200}\s[^<>\n=/]{0,200}(?<=\S))>(?!>)"
)
# A whole value that is our template's placeholder, echoed: "<…>", "[your decision]", "…", or a
# value that still speaks to the reader ("your decision here").
PLACEHOLDER = re.compile(
    r"<[^<>]*>|\[[^\[\]]*(?:your|decision|answer|verdict|choice|insert|here|text|…|\.\.\.)[^\[\]]*\]|\.\.\.|…"
    r"|.*\byour (?:decision|answer|verdict|choice)\b.*",
    re.IGNORECASE | re.DOTALL,
)


# A placeholder of ours echoed in free text, speaking to the reader: "[Your version of the text]",
# "[insert the verdict here]", "<your verdict in one or two sentences…>"; not a Markdown link
# ("[your account](…)").
ECHOED = re.compile(
    r"\[[^\[\]\n]*\b(?:your|insert)\b[^\[\]\n]*\](?!\()|<(?:your\b|…|\.\.\.)[^<>\n]{0,200}>", re.IGNORECASE
)
# A sentence: up to its end mark, or to the end of its line.
SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
LOOP_WORDS = 3  # a sentence this long said twice in a row is a loop, not emphasis ("No. No.")


def _sentences(text: str) -> list[tuple[re.Match[str], str]]:
    """Each sentence with the key it repeats by (only those long enough to count as a loop have one)."""
    found = []
    for match in SENTENCE.finditer(text):
        if not match.group().strip():
            continue  # the spacing after the last sentence
        key = normal(match.group())
        found.append((match, key if len(re.findall(r"[^\W\d_]{2,}", key)) >= LOOP_WORDS else ""))
    return found


def repeats(text: str) -> int:
    """How many times the text's last sentence was said in a row at its end (1: no loop)."""
    sentences = [key for _match, key in _sentences(text)]
    if not sentences or not sentences[-1]:
        return 1
    run = 1
    while run < len(sentences) and sentences[-1 - run] == sentences[-1]:
        run += 1
    return run


# A run of one sentence this long is a loop (a model's, to its token limit); twice in a row may be a
# list's or a table's line written twice on purpose.
LOOP_RUN = 3
# Code, where a line said again is meant (``fenced``, or indented by four): never cut.
CODE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\1[^\n]*$|\Z)|^(?: {4}|\t)[^\n]*$", re.M | re.S)


def without_loops(text: str) -> str:
    """``text`` with every run of LOOP_RUN or more sayings of one sentence cut to its first saying
    (code left as it is)."""
    parts, start = [], 0
    for code in CODE.finditer(text):
        parts += [_cut_loops(text[start : code.start()]), code.group()]
        start = code.end()
    return "".join([*parts, _cut_loops(text[start:])])


def _cut_loops(text: str) -> str:
    sentences = _sentences(text)
    cut: list[tuple[int, int]] = []  # spans of the repeats to drop
    run_start = 0
    for index in range(1, len(sentences) + 1):
        if index < len(sentences) and sentences[index][1] and sentences[index][1] == sentences[run_start][1]:
            continue
        if index - run_start >= LOOP_RUN:
            cut.append((_line_start(text, sentences[run_start + 1][0].start()), sentences[index - 1][0].end()))
        run_start = index
    for begin, end in reversed(cut):
        text = text[:begin] + text[end:]
    return text


def _line_start(text: str, at: int) -> int:
    """Where the spacing before ``at`` begins (a dropped sentence takes its separator with it)."""
    while at > 0 and text[at - 1] in " \t\n":
        at -= 1
    return at


def without_thinking(text: str) -> str:
    """What follows the last think block (closed, or with only its end kept by the server), and
    nothing of a think block cut off before it closed."""
    closes = [m.end() for m in THINK_CLOSE.finditer(text)]
    if closes:
        text = text[closes[-1] :]
    opened = THINK_OPEN.search(text)
    return text[: opened.start()] if opened else text


def clean_value(text: str) -> str:
    """A value as written, without the markdown, quotes and end punctuation around it."""
    text = " ".join(text.split())
    while True:
        stripped = text.strip(" *_`\"'“”‘’").rstrip(".!;:,").strip()
        if stripped == text:
            return text
        text = stripped


def placeholder(value: str) -> bool:
    """Whether ``value`` is only our template's placeholder, echoed instead of filled in."""
    return bool(PLACEHOLDER.fullmatch(value.strip()))


def normal(text: str) -> str:
    """A word or phrase as compared: NFKC, case-folded, one space between words."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().replace("’", "'").split())


def fold(text: str) -> str:
    """``text`` without its accents ("concédée" → "concedee"), where that keeps every position."""
    folded = "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))
    return folded if len(folded) == len(text) else text


def heading_key(text: str) -> str:
    """A heading as compared: lower case, no accents, no numbering or punctuation
    ("## **3. Verdetto:**" → "verdetto")."""
    plain = unicodedata.normalize("NFKD", text.casefold()).encode("ascii", "ignore").decode()
    return " ".join(w for w in re.split(r"[^a-z0-9]+", plain) if w and not w.isdigit())


def words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text)


def phrases(listed: str) -> tuple[str, ...]:
    """Comma-separated phrases written as one string: a long list of words and phrases stays readable."""
    return tuple(phrase.strip() for phrase in listed.split(",") if phrase.strip())
