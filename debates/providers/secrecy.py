"""A provider's key in every form a server or a model may echo it, removed from what we show.

A server may quote the key in an error (whole, truncated, masked, URL- or base64-encoded, as in
a Basic auth header); a model may quote it in its answer (asked to, or echoing a prompt) in any
rendering: hex, grouped in fours, reversed, JSON-escaped, split across the chunks of a stream.
Whatever reaches a page, the API, a chat client or the log went through here first: error
messages through ``Secret.redact``, a call's streamed text through ``Secret.stream``.
"""

import base64
import json
from urllib.parse import quote

KEY_REMOVED = "[key removed]"
# A truncated or masked key is removed too: any piece of a rendering this long.
KEY_PIECE = 8
GROUP = 4  # characters per group, as a key is read out or written on paper
HELD = 4  # the shortest end of a chunk held back as maybe a rendering still arriving
SEPARATORS = (" ", "-")


def echoed_forms(secret: str) -> list[str]:
    """The renderings of ``secret`` that are removed, with any piece of KEY_PIECE+ characters of them.

    Base64 of a longer text holding the key (``Bearer <key>``, ``user:<key>`` in Basic auth)
    spells the key's bytes by their place in a three-byte group: each of the three offsets
    gives its own characters, of which those that come from the key's bits alone are kept.
    """
    raw = secret.encode()
    every_byte = "".join(f"%{byte:02X}" for byte in raw)
    percent = quote(secret, safe="")
    escaped = json.dumps(secret)[1:-1]
    each_escaped = "".join(f"\\u{ord(char):04x}" for char in secret)
    forms = [secret, percent, percent.lower(), every_byte, every_byte.lower(), raw.hex(), raw.hex().upper()]
    forms += [escaped, escaped.replace("/", "\\/"), each_escaped, each_escaped.upper(), secret[::-1]]
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + raw).decode()
        start, end = -(-offset * 8 // 6), (offset + len(raw)) * 8 // 6
        core = encoded[start:end]
        forms += [core, core.replace("+", "-").replace("/", "_")]
    for first in range(GROUP):  # the first group may be short: a prefix ("sk-") written apart
        groups = [secret[:first], *(secret[i : i + GROUP] for i in range(first, len(secret), GROUP))]
        forms += [separator.join(g for g in groups if g) for separator in SEPARATORS]
    return list(dict.fromkeys(form for form in forms if len(form) >= 4))


class Secret:
    """One key: ``redact`` a whole text, or ``stream`` it chunk by chunk.

    A key shorter than four characters is no secret (and would blank common words).
    """

    def __init__(self, key: str) -> None:
        self.forms = echoed_forms(key) if len(key) >= 4 else []
        self.piece = min(KEY_PIECE, len(key))
        self.pieces = {form[i : i + self.piece] for form in self.forms for i in range(len(form) - self.piece + 1)}

    def redact(self, text: str) -> str:
        """``text`` with every piece of KEY_PIECE+ characters of a rendering replaced by KEY_REMOVED."""
        if not self.pieces:
            return text
        out: list[str] = []
        i = start = 0
        while i <= len(text) - self.piece:
            if text[i : i + self.piece] not in self.pieces:
                i += 1
                continue
            end = i + self.piece
            while end < len(text) and any(text[i : end + 1] in form for form in self.forms):
                end += 1
            out += [text[start:i], KEY_REMOVED]
            i = start = end
        out.append(text[start:])
        return "".join(out)

    def matching_end(self, text: str) -> int:
        """How long the longest end of ``text`` that is part of a rendering is: it may still become
        (or grow) a piece of one."""
        length = 0
        while length < len(text) and any(text[-length - 1 :] in form for form in self.forms):
            length += 1
        return length

    def stream(self) -> "Redacting":
        return Redacting(self)


class Redacting:
    """A stream's text redacted as it comes: each chunk goes out at once, less its end when that
    may be a rendering still arriving (a key split across chunks), which waits for the next chunk
    or ``rest``.

    An end shorter than HELD goes out: nearly every word ends in a character some rendering has,
    and held back it would show a word less its last letter until the next chunk. What went out
    of a rendering so (``recent``, fewer than HELD characters) is counted when the next chunk
    goes on with it, so that the rest of it is held, then removed.
    """

    def __init__(self, secret: Secret) -> None:
        self.secret = secret
        self.pending = ""  # held back
        self.recent = ""  # the end of what went out that is part of a rendering

    def feed(self, text: str) -> str:
        """What of ``text`` (after what was held back) may be shown now, redacted."""
        if not self.secret.pieces:
            return text
        new = self.pending + text
        length = self.secret.matching_end(self.recent + new)
        if length < HELD:
            shown = self._after(new)
            self.pending, self.recent = "", (self.recent + new)[len(self.recent + new) - length :]
            return shown
        cut = max(0, len(new) - length)  # where the rendering starts (its part in recent went out already)
        shown, self.pending = self._after(new[:cut]), new[cut:]
        if cut:
            self.recent = ""
        return shown

    def rest(self) -> str:
        """The end held back, redacted: the stream is over."""
        rest = self._after(self.pending)
        self.pending = self.recent = ""
        return rest

    def _after(self, text: str) -> str:
        """``text`` redacted as it reads after ``recent``: a piece that began there is removed from
        ``text`` too (what of it went out, fewer than HELD characters, stays out)."""
        redacted = self.secret.redact(self.recent + text)
        kept = next((i for i, (a, b) in enumerate(zip(self.recent, redacted, strict=False)) if a != b), None)
        return redacted[len(self.recent) if kept is None else kept :]
