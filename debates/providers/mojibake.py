"""Text that was UTF-8 read as Windows-1252 ("donâ€™t"), mended as it streams ("don’t").

SmolLM2 learnt such text from the web: its vocabulary has one token for "€™", and a repeat
penalty that has already pushed it off both "’" and "'t" leaves "â" next in line (1.9 % after
"don" at temperature 0.7). A mangled character comes in two tokens or more, so text is mended a
whole word at a time.
"""

import ftfy

HOLES = {0x81, 0x8D, 0x8F, 0x90, 0x9D}  # bytes Windows-1252 leaves undefined: shown as Latin-1


def byte(char: str) -> int | None:
    """The byte above ASCII that Windows-1252 writes this character as, if it is one."""
    try:
        code = char.encode("cp1252")[0]
    except UnicodeEncodeError:
        code = ord(char) if ord(char) in HOLES else 0
    return code if code >= 0x80 else None


def continuations(lead: int) -> int:
    """How many bytes UTF-8 puts after this first byte of a character (0: it opens none)."""
    return 1 if 0xC2 <= lead <= 0xDF else 2 if 0xE0 <= lead <= 0xEF else 3 if 0xF0 <= lead <= 0xF4 else 0


def unfinished(text: str) -> int:
    """How many characters at the end of ``text`` could be the start of a mangled character."""
    for back in range(1, min(3, len(text)) + 1):
        code = byte(text[-back])
        if code is None:
            return 0
        if need := continuations(code):
            return back if back <= need else 0
        if code > 0xBF:  # neither a first byte nor a following one
            return 0
    return 0


class Mend:
    """Mends a stream piece by piece: each call returns what can be shown now, ``rest`` the end.

    A word waits for the space after it, because ftfy reads a word better than a fragment ("Ñ‚"
    alone could be meant); mangled bytes never hold an ASCII space. A word longer than ``WORD``
    goes out but for the characters that could open a mangled one.
    """

    WORD = 32

    def __init__(self) -> None:
        self._held = ""

    def __call__(self, piece: str) -> str:
        text = self._held + piece
        cut = max(text.rfind(space) for space in " \t\r\n") + 1
        if len(text) - cut > self.WORD:
            cut = len(text) - unfinished(text)
        self._held = text[cut:]
        return ftfy.fix_encoding(text[:cut])

    def rest(self) -> str:
        text, self._held = self._held, ""
        return ftfy.fix_encoding(text)
