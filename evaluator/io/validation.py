"""The exact rules for one line of a TREC run, and the log that collects problems.

This is the one definition of a valid line. The fast paths of `validation_fast.py` (the C
reader, `_lines.parse_run`, and pyarrow's where it is not built) only ever *accept* blocks in
which every line would pass here and decline anything unusual to `LineRules`; they never
report a problem, so every refusal names its file, line and column from here, whichever
path read the block (`tests/evaluator/test_validate_run.py`, run with both), and both paths
yield the same rows (`tests/evaluator/test_validate_fast_path.py`). What spans lines (depth,
duplicate docids, ties, rank order) is checked once, for both, in `validation_collect.py`.

Problem columns are 1-based column (field) numbers of the TREC line: 1 qid, 2 Q0,
3 docid, 4 rank, 5 score, 6 tag; None when the problem is about the whole line.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..records import Problem, ValidationReport

MAX_PROBLEMS = 25
MAX_LINE_BYTES = 1024
MAX_FIELD_BYTES = 100
RUN_COLUMNS = ("qid", "Q0", "docid", "rank", "score", "tag")
BOM = b"\xef\xbb\xbf"

TAG_RE = re.compile(rb"[A-Za-z0-9_.-]{1,20}")
RANK_RE = re.compile(rb"[+-]?[0-9]+")
# What a finite decimal number looks like; `nan`, `inf`, `1_000` and full-width digits are
# not (Python's float() would accept all four, so it is not used as the check).
SCORE_RE = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
INT64_MAX = 2**63 - 1


@dataclass
class ProblemLog:
    """Errors (at most `max_problems`) and warnings (one per kind) of one file.

    Reading stops once the log is `full` or `stopped` (e.g. at the depth limit): a file
    with a million bad lines costs what its first 25 cost. The report then says the list
    may go on (`truncated`), so nobody reads "25 problems" as the true total."""

    file: str
    max_problems: int = MAX_PROBLEMS
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    stopped: bool = False

    @property
    def full(self) -> bool:
        return self.stopped or len(self.errors) >= self.max_problems

    def error(self, code: str, message: str, line: int | None = None, column: int | None = None) -> None:
        if len(self.errors) < self.max_problems:
            self.errors.append(Problem(code, message, self.file, line, column))

    def stop(self) -> None:
        """Read no further: what comes next could only add problems to a refused file."""
        self.stopped = True

    def warn(self, code: str, message: str, line: int | None = None, column: int | None = None) -> None:
        if all(w.code != code for w in self.warnings):
            self.warnings.append(Problem(code, message, self.file, line, column, severity="warning"))

    def report(self, *, lines: int = 0, queries: int = 0) -> ValidationReport:
        return ValidationReport(self.file, tuple(self.errors), tuple(self.warnings), lines, queries,
                                truncated=self.full and bool(self.errors))


# How much of a file's start is sniffed, and the share of it that must be binary (NUL and
# other control bytes, invalid UTF-8) to call the whole file "not a text file": random or
# compressed bytes score about 50%, a run with a stray NUL or Latin-1 byte on a line about 1%.
SNIFF_BYTES = 8192
BINARY_SHARE = 0.10
# Not text: an undecodable byte (U+FFFD once decoded), DEL, and a control character other than
# tab, line feed, form feed and carriage return. Counted by the regex engine, not by a Python
# loop over the 8,192 characters of every file read.
_NOT_TEXT = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ufffd]")


def looks_binary(start: bytes) -> bool:
    """Whether the first bytes of a (decompressed) file are not text: one clear refusal is
    then worth more than a page of bad-utf8 and nul-byte lines."""
    sample = start[:SNIFF_BYTES].decode("utf-8", "replace")
    if not sample:
        return False
    return len(_NOT_TEXT.findall(sample)) / len(sample) > BINARY_SHARE


def field_of(line: bytes, pos: int) -> int:
    """The column number holding byte `pos` of a line (1 if it sits before any field)."""
    return max(1, len(line[: pos + 1].split()))


def _show(value: bytes, limit: int = 40) -> str:
    text = value.decode("utf-8", "backslashreplace")
    return repr(text if len(text) <= limit else text[:limit] + "...")


def is_finite_decimal(value: bytes) -> bool:
    return SCORE_RE.fullmatch(value) is not None and math.isfinite(float(value))


HEX_SCORE_RE = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")


def hex_score(value: bytes) -> float | None:
    """A C hexadecimal float (`0x1.8p1`, `-0x10`) as strtod reads it; None otherwise or
    when it is not finite."""
    if HEX_SCORE_RE.fullmatch(value) is None:
        return None
    try:
        number = float.fromhex(value.decode())
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def is_integer(value: bytes) -> bool:
    return RANK_RE.fullmatch(value) is not None and abs(int(value)) <= INT64_MAX


@dataclass
class LineRules:
    """What one run line is checked against: the topic set, the docid pattern and how strict.

    `strict` (a competition's upload, a benchmark profile, `--strict`) keeps the limits a
    leaderboard needs: lines of at most 1,024 bytes, fields of at most 100, one tag of
    TAG_RE's shape, ranks that are 64-bit integers, decimal scores. Not strict (the generic
    profile) reads what trec_eval reads, which has none of these limits and ignores the
    rank column: each such line is scored, and each kind is said once as a warning."""

    topics: frozenset[str] | None = None
    docid_re: re.Pattern[bytes] | None = None
    strict: bool = True
    tag: str | None = None  # the run's tag, set by its first line with a valid tag
    other_tags: set[str] = field(default_factory=set)

    def check(self, raw: bytes, number: int, log: ProblemLog) -> tuple[str, str, int, float] | None:
        """Check one line (without its "\\n"); return (qid, docid, rank, score) when it is valid.
        Fields are split on runs of whitespace and lines past the sixth field are ignored,
        as trec_eval reads them; blank and `#` lines are skipped (each kind said once)."""
        if len(raw) > MAX_LINE_BYTES:
            if self.strict:
                log.error("line-too-long", f"line is {len(raw):,} bytes long; the limit is {MAX_LINE_BYTES:,}", number)
                return None
            log.warn("long-lines", f"line {number} is {len(raw):,} bytes long, over the {MAX_LINE_BYTES:,} a "
                     "competition allows; read whole, as trec_eval does (--strict refuses it)", number)
        nul = raw.find(b"\x00")
        if nul >= 0:
            log.error("nul-byte", "line contains a NUL byte", number, field_of(raw, nul))
            return None
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            log.error("bad-utf8", f"invalid UTF-8 at byte {exc.start + 1} of the line", number, field_of(raw, exc.start))
            return None
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            kind = "blank-lines" if not fields else "comment-lines"
            log.warn(kind, f"{'blank' if not fields else '# comment'} lines are skipped, as trec_eval does "
                     f"(first on line {number})", number)
            return None
        if len(fields) < 6:
            log.error("columns", f"expected 6 columns (qid Q0 docid rank score tag), found {len(fields)}: "
                      f"the {RUN_COLUMNS[len(fields)]} column is missing", number, len(fields) + 1)
            return None
        if len(fields) > 6:
            log.warn("extra-columns", f"lines have more than 6 columns (first on line {number}); the rest of "
                     "each line is ignored, as trec_eval does", number, 7)
            fields = fields[:6]
        ok = self._check_lengths(fields, number, log)
        qid_b, _, docid_b, rank_b, score_b, tag_b = fields
        qid, docid = qid_b.decode(), docid_b.decode()
        if ok and self.topics is not None and qid not in self.topics:
            log.error("unknown-qid", f"query {_show(qid_b)} is not in the topics", number, 1)
            ok = False
        if ok and self.docid_re is not None and not self.docid_re.fullmatch(docid_b):
            log.error("bad-docid", f"docid {_show(docid_b)} does not match the pattern "
                      f"{self.docid_re.pattern.decode()}", number, 3)
            ok = False
        rank = self._rank(rank_b, number, log)
        score = self._score(score_b, number, log)
        tag_ok = self.check_tag(tag_b, number, log)
        if not ok or not tag_ok or rank is None or score is None:
            return None
        return qid, docid, rank, score

    def _check_lengths(self, fields: list[bytes], number: int, log: ProblemLog) -> bool:
        """Fields over MAX_FIELD_BYTES: refused when strict, else one warning (trec_eval has no limit)."""
        ok = True
        for column, value in enumerate(fields, start=1):
            if len(value) <= MAX_FIELD_BYTES:
                continue
            name = RUN_COLUMNS[column - 1]
            if self.strict:
                if column < 6:  # the tag's length is checked with its shape
                    log.error("field-too-long", f"{name} is {len(value)} bytes long; the limit is "
                              f"{MAX_FIELD_BYTES}", number, column)
                    ok = False
            else:
                log.warn("long-fields", f"the {name} on line {number} is {len(value)} bytes long, over the "
                         f"{MAX_FIELD_BYTES} a competition allows; read whole, as trec_eval does "
                         "(--strict refuses it)", number, column)
        return ok

    def _rank(self, rank_b: bytes, number: int, log: ProblemLog) -> int | None:
        """The rank as written; not strict, a rank that is no 64-bit integer (`3.0`, `-`, 20
        digits) is taken as the line number, since trec_eval never reads the column (the
        line number keeps the rank-order warning for what the file order says)."""
        if is_integer(rank_b):
            return int(rank_b)
        if self.strict:
            log.error("bad-rank", f"rank {_show(rank_b)} is not a 64-bit integer", number, 4)
            return None
        log.warn("odd-ranks", f"rank {_show(rank_b)} on line {number} is not a 64-bit integer; the rank column "
                 "is ignored, as trec_eval ignores it (--strict refuses it)", number, 4)
        return number

    def _score(self, score_b: bytes, number: int, log: ProblemLog) -> float | None:
        """A finite decimal score; not strict, also a C hexadecimal one (`0x1.8p1`), as
        trec_eval's atof (strtod) reads it."""
        if is_finite_decimal(score_b):
            return float(score_b)
        if not self.strict and (value := hex_score(score_b)) is not None:
            return value
        log.error("bad-score", f"score {_show(score_b)} is not a finite decimal number", number, 5)
        return None

    def check_tag(self, tag_b: bytes, number: int, log: ProblemLog) -> bool:
        if self.strict and not TAG_RE.fullmatch(tag_b):
            log.error("bad-tag", f"run tag {_show(tag_b)} is not 1-20 characters from A-Z a-z 0-9 _ . -", number, 6)
            return False
        tag = tag_b.decode()
        if self.tag is None:
            self.tag = tag
        elif tag != self.tag and not self.strict:
            log.warn("several-tags", f"run tag {_show(tag_b)} differs from {_show(self.tag.encode())} (line "
                     f"{number}); scored as one run, as trec_eval does", number, 6)
        elif tag != self.tag:
            if tag not in self.other_tags:
                self.other_tags.add(tag)
                log.error("several-tags", f"run tag {tag!r} differs from {self.tag!r}: a run has one tag", number, 6)
            return False
        return True


def warn_missing_queries(log: ProblemLog, topics: Iterable[str], present: Iterable[str]) -> None:
    """The topics a run has no line for: they score 0 (trec_eval -c)."""
    missing = sorted(set(topics) - set(present))
    if missing:
        log.warn("missing-queries", f"{len(missing)} of {len(set(topics))} queries have no results and "
                 f"score 0 (e.g. {', '.join(missing[:5])})")


def decoded_lines(lines: Iterable[tuple[int, bytes]], log: ProblemLog) -> Iterator[tuple[int, str]]:
    """Text lines of a qrels or topics file from `sources.iter_lines`: BOM dropped, bad
    UTF-8 and NUL bytes logged and skipped, blank lines skipped (editors leave them at the end)."""
    for number, raw in lines:
        if number == 1 and raw.startswith(BOM):
            raw = raw[len(BOM):]
        if b"\x00" in raw:
            log.error("nul-byte", "line contains a NUL byte", number)
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            log.error("bad-utf8", f"invalid UTF-8 at byte {exc.start + 1} of the line", number)
            continue
        if text.strip():
            yield number, text
        if log.full:
            return
