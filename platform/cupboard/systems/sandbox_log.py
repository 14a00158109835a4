"""The log tail a team sees of its execution: bounded, and with the hidden topics taken out.

The whole point of a systems phase is that no team sees the topics, and a system can print what it
reads. So the tail is redacted before anything leaves the runner: every topic text (matched without
regard to case or runs of whitespace) and every word of four letters or more from them becomes
`[withheld]`; for scripts written without spaces (Chinese, Japanese, Thai...) every two-letter piece
of a topic word is withheld too, since a system may print part of a query. Only the last window of
the output is kept while the system runs (so a system flooding its output costs nothing but its own
time), and the first, possibly cut, line of a cut window is dropped, so half a topic cannot slip in at
the edge. What redaction cannot stop is a system that encodes the topics (base64, one letter per
line): docs/systems.md says so, and an organizer can hide the log tail from teams altogether.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

WITHHELD = "[withheld]"
WINDOW_BYTES = 256 * 1024
MIN_WORD = 4
_WORD = re.compile(r"\w+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _unspaced(word: str) -> bool:
    """Scripts written without spaces between words, where a word of the regex is a whole phrase."""
    return any(
        0x0E00 <= ord(ch) <= 0x0EFF  # Thai, Lao
        or 0x1000 <= ord(ch) <= 0x109F  # Myanmar
        or 0x1780 <= ord(ch) <= 0x17FF  # Khmer
        or 0x2E80 <= ord(ch) <= 0x9FFF  # CJK, kana
        or 0xAC00 <= ord(ch) <= 0xD7AF  # Hangul
        or 0xF900 <= ord(ch) <= 0xFAFF
        for ch in word
    )


class Redactor:
    """Takes the given secrets (topic texts) out of a text."""

    def __init__(self, secrets: Iterable[str]):
        phrases: set[str] = set()
        for secret in secrets:
            folded = " ".join(secret.casefold().split())
            if not folded:
                continue
            phrases.add(folded)
            for word in _WORD.findall(folded):
                if _unspaced(word):
                    phrases.update(word[i:i + 2] for i in range(len(word) - 1))
                    phrases.add(word)
                elif len(word) >= MIN_WORD:
                    phrases.add(word)
        # Longest first, so a whole topic is withheld as one piece rather than word by word.
        ordered = sorted(phrases, key=len, reverse=True)
        parts = [r"\s+".join(re.escape(piece) for piece in phrase.split(" ")) for phrase in ordered]
        self._pattern = re.compile("|".join(parts), re.IGNORECASE) if parts else None

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        # Matching on the casefolded text keeps offsets only where casefolding keeps lengths; where it
        # does not (German sharp s and a few others) fall back to matching case-insensitively as is.
        folded = text.casefold()
        if len(folded) != len(text):
            return self._pattern.sub(WITHHELD, text)
        pieces, last = [], 0
        for match in self._pattern.finditer(folded):
            pieces.append(text[last:match.start()])
            pieces.append(WITHHELD)
            last = match.end()
        pieces.append(text[last:])
        return "".join(pieces)


class LogTail:
    """The last WINDOW_BYTES of what the system wrote to stdout and stderr."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        self.buffer += data
        if len(self.buffer) > 2 * WINDOW_BYTES:
            del self.buffer[: len(self.buffer) - WINDOW_BYTES]

    def raw_text(self) -> str:
        """The window as text, unredacted: for the runner's own checks only (never shown to a team)."""
        window = bytes(self.buffer[-WINDOW_BYTES:])
        text = window.decode("utf-8", errors="replace")
        if self.total > len(window):
            text = text.partition("\n")[2]  # the first line may be cut: drop it
        return text

    def text(self, redactor: Redactor, limit: int) -> str:
        """The last `limit` characters (whole lines where possible), redacted, control characters removed."""
        text = _CONTROL.sub("", redactor(self.raw_text()))
        if len(text) <= limit:
            return text
        cut = text[-limit:]
        newline = cut.find("\n")
        return cut[newline + 1:] if 0 <= newline < len(cut) - 1 else cut
