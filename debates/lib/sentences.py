"""Sentences of a model's text, on the ground floor (the embedded model's generation stops on a
loop, the dossier cuts one): the key a phrase is compared by, and a loop of one sentence said over
and over, as a 135M model does to its token limit."""

import re
import unicodedata


def normal(text: str) -> str:
    """A word or phrase as compared: NFKC, case-folded, one space between words."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().replace("’", "'").split())


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
