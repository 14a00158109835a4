"""The log tail a team sees of its execution: bounded, and with the hidden topics taken out.

The whole point of a systems phase is that no team sees the topics, and a system can print what it
reads. So the tail is redacted before anything leaves the runner: every word of four letters or more
of any topic becomes `[withheld]`, whatever its case, and so does a topic made only of shorter words;
for scripts written without spaces (Chinese, Japanese, Thai...) every two-letter piece of a topic is
withheld wherever it appears, since a system may print part of a query. Only the last window of
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
_WORD = re.compile(r"[^\W_]+")  # letters and digits: `painted_by` is two words
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
    """Takes the given secrets (topic texts) out of a text, in time linear in the text.

    Word by word rather than one pattern of every topic: a phase may have thousands of topics, and
    an alternation of tens of thousands of phrases over a 256 KiB log would take minutes.
    """

    def __init__(self, secrets: Iterable[str]):
        self.words: set[str] = set()
        self.bigrams: set[str] = set()
        phrases: set[str] = set()
        for secret in secrets:
            # Lower-cased and case-folded both: `ß` lower-cases to itself but case-folds to `ss`.
            for form in {" ".join(secret.lower().split()), " ".join(secret.casefold().split())}:
                if form and not self._add_words(form):
                    phrases.add(form)  # a topic of short words only ("who is it") is withheld whole
        parts = [r"\b" + r"\s+".join(re.escape(piece) for piece in phrase.split(" ")) + r"\b" for phrase in sorted(phrases)]
        self._phrases = re.compile("|".join(parts), re.IGNORECASE) if parts else None

    def _add_words(self, form: str) -> bool:
        added = False
        for word in _WORD.findall(form):
            if _unspaced(word) and len(word) > 1:
                self.bigrams.update(word[i:i + 2] for i in range(len(word) - 1))
                added = True
            elif len(word) >= MIN_WORD:
                self.words.add(word)
                added = True
        return added

    def __call__(self, text: str) -> str:
        if self.words or self.bigrams:
            text = _WORD.sub(self._word, text)
        return self._phrases.sub(WITHHELD, text) if self._phrases else text

    def _word(self, match: re.Match[str]) -> str:
        word = match.group()
        if word.lower() in self.words or word.casefold() in self.words:
            return WITHHELD
        if not self.bigrams or len(word) < 2 or not _unspaced(word):
            return word
        lowered = word.lower() if len(word.lower()) == len(word) else word
        covered = [False] * len(word)
        for i in range(len(word) - 1):
            if lowered[i:i + 2] in self.bigrams:
                covered[i] = covered[i + 1] = True
        pieces, i = [], 0
        while i < len(word):
            if covered[i]:
                while i < len(word) and covered[i]:
                    i += 1
                pieces.append(WITHHELD)
            else:
                pieces.append(word[i])
                i += 1
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
