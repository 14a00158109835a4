"""Reading one block of run lines: a vectorised fast path and the exact per-line path.

Both return the same `Rows` for the valid lines of a block. The fast path (pyarrow's CSV
parser plus numpy checks over the raw bytes) handles the common case: single spaces
between columns, ASCII, "\\n" line ends, every line valid. It returns None at the first
sign of anything else (a tab, a CR, a non-ASCII byte, an empty line, a bad value, an
unknown qid...), and the caller hands the block to `rows_exact`, which walks it line by
line with `LineRules` and reports each problem with its line and column. Per-line Python
is ~10x slower, so it only ever runs on blocks that need it.

Where the optional C extension `_lines` was built (see setup.py and io/compiled.py), it is the fast path:
the same checks in one pass over the bytes, 2.5x quicker than pyarrow's parser plus numpy.
`CUPBOARD_PURE_PYTHON=1` keeps to the numpy/pyarrow path, which
is what runs where the extension could not be built; both give identical rows. The
compiled path keeps docids as `texts.Texts` and never imports pyarrow; the other as Arrow arrays.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from . import compiled
from .texts import Texts
from .validation import MAX_FIELD_BYTES, TAG_RE, LineRules, ProblemLog

if TYPE_CHECKING:
    from types import ModuleType

    import pyarrow as pa

if compiled.COMPILED is None:  # the numpy/pyarrow reader: load pyarrow here, before any worker process forks
    import pyarrow  # noqa: F401


@dataclass(frozen=True, slots=True)
class Rows:
    """The valid lines of one block as columns; qids are codes into the reader's qid table."""

    qcodes: np.ndarray  # int32
    docids: Any  # Texts from the compiled reader, else an Arrow string array
    ranks: np.ndarray  # int64
    scores: np.ndarray  # float64
    lines: np.ndarray  # int64, 1-based line numbers in the file
    hashes: np.ndarray  # uint64 docid_hashes(docids), for the duplicate check


_NAMES = ["qid", "q0", "docid", "rank", "score", "tag"]
_KEPT = ["qid", "docid", "rank", "score"]


@cache
def _csv_options() -> tuple[Any, Any, Any]:
    """pyarrow's CSV read, parse and convert options for `_parse_arrow`."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    # One parser block per reader block (no chunks to stitch) and no threads: on a busy
    # two-core worker, threads cost more than they bring.
    read = pcsv.ReadOptions(column_names=_NAMES, block_size=1 << 24, use_threads=False)
    parse = pcsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False, ignore_empty_lines=False)
    # Every column is read as text: converting afterwards with compute kernels is ~2x faster
    # than the CSV reader's own typed conversion, and lets the rank bytes be checked first.
    # No UTF-8 check: `parse_fast` only parses blocks it has already found to be all ASCII.
    convert = pcsv.ConvertOptions(column_types={name: pa.string() for name in _KEPT}, include_columns=_KEPT,
                                  check_utf8=False, null_values=[], strings_can_be_null=False,
                                  quoted_strings_can_be_null=False)
    return read, parse, convert


_SLICE = 1 << 18  # bytes scanned per numpy call: small temporaries stay in the allocator's cache


def _line_ends(arr: np.ndarray) -> np.ndarray | None:
    """Where each line ends ("\\n", or the end of the block); None when the block holds any
    other control byte (tab, CR, NUL...): one pass finds both."""
    ends = np.concatenate([np.flatnonzero(arr[i:i + _SLICE] < 0x20) + i for i in range(0, arr.size, _SLICE)])
    if not np.all(arr[ends] == 10):
        return None
    return np.append(ends, arr.size) if arr[-1] != 10 else ends


def text_bytes(array: pa.Array) -> np.ndarray:
    """The bytes of all values of a string array, back to back (no copy)."""
    _, offsets, data = array.buffers()
    bounds = np.frombuffer(offsets, np.int32, count=2, offset=array.offset * 4) if len(array) else (0, 0)
    end = np.frombuffer(offsets, np.int32, count=1, offset=(array.offset + len(array)) * 4)[0]
    return np.frombuffer(data, np.uint8)[bounds[0]:end] if data is not None else np.zeros(0, np.uint8)


_PRIME = np.uint64(0x100000001B3)  # odd, so it has an inverse modulo 2**64
_PRIME_INVERSE = np.uint64(pow(0x100000001B3, -1, 2**64))
_MAX_SHIFT = 256
_INVERSE_POWERS = np.array([pow(0x100000001B3, -k, 2**64) for k in range(_MAX_SHIFT)], dtype=np.uint64)


_HASH_ROWS = 1 << 14
_POWER_CACHE = 1 << 18  # P^0 .. P^(256k-1): 2 MB, enough for 16k docids of up to 16 bytes
_cached_powers = np.zeros(0, np.uint64)


def _powers(n: int) -> np.ndarray:
    """P^0 .. P^(n-1) mod 2^64, from a table kept between blocks (threads may race to build
    it; either copy is right)."""
    global _cached_powers
    if n <= _cached_powers.size:
        return _cached_powers[:n]
    table = np.full(max(n, min(2 * n, _POWER_CACHE)), _PRIME, dtype=np.uint64)
    table[0] = 1
    np.cumprod(table, out=table)
    if table.size <= _POWER_CACHE:
        _cached_powers = table
    return table[:n]


def docid_hashes(docids: pa.Array | Texts) -> np.ndarray:
    """A 64-bit polynomial hash of each value (sum of byte_k * P^k, mod 2^64), computed over
    all bytes at once: prefix sums of byte * P^position, shifted back by P^-start. Equal
    strings get equal hashes; a shared hash is only a candidate and is confirmed exactly.
    Works through `_HASH_ROWS` values at a time, so its 8-byte-per-byte temporaries stay small."""
    if len(docids) > _HASH_ROWS:
        if isinstance(docids, Texts):
            return np.concatenate([docid_hashes(docids.take(np.arange(i, min(i + _HASH_ROWS, len(docids)))))
                                   for i in range(0, len(docids), _HASH_ROWS)])
        return np.concatenate([docid_hashes(docids.slice(i, _HASH_ROWS)) for i in range(0, len(docids), _HASH_ROWS)])
    if isinstance(docids, Texts):
        bounds, text = docids.compact()
    else:
        _, offsets, _ = docids.buffers()
        bounds = np.frombuffer(offsets, np.int32, count=len(docids) + 1, offset=docids.offset * 4).astype(np.int64)
        text = text_bytes(docids)
    bounds = bounds - bounds[0]
    if not text.size:
        return np.zeros(len(docids), dtype=np.uint64)
    prefix = np.empty(text.size + 1, dtype=np.uint64)
    prefix[0] = 0
    np.multiply(_powers(text.size), text, out=prefix[1:])
    np.cumsum(prefix, out=prefix)
    lengths = np.diff(bounds)
    short = lengths.max(initial=0) < _MAX_SHIFT
    # P^-start for each start, as running products of P^-length (lengths are short)
    step = _INVERSE_POWERS[lengths[:-1]] if short else np.power(_PRIME_INVERSE, lengths[:-1].astype(np.uint64))
    shift = np.cumprod(np.concatenate(([np.uint64(1)], step)), dtype=np.uint64)
    hashes: np.ndarray = (prefix[bounds[1:]] - prefix[bounds[:-1]]) * shift
    return hashes


def _docids_match(docids: pa.Array, pattern: str | None) -> bool:
    """Whether every docid matches the pattern: RE2 over the whole column, for every pattern
    (MIRACL's included: a numpy check of it alone saved nothing a user could see)."""
    if pattern is None:
        return True
    import pyarrow.compute as pc

    return bool(pc.all(pc.match_substring_regex(docids, f"^(?:{pattern})$")).as_py())


@dataclass(frozen=True, slots=True)
class Parsed:
    """A block that passed every per-line check, before its qids get the file's codes."""

    qid_values: list[str]
    qid_indices: np.ndarray
    docids: Any  # as Rows.docids
    ranks: np.ndarray
    scores: np.ndarray
    hashes: np.ndarray
    tag: str
    count: int


def _widths(array: pa.Array) -> np.ndarray:
    """Byte length of each value of a string array, from its offsets."""
    _, offsets, _ = array.buffers()
    return np.diff(np.frombuffer(offsets, np.int32, count=len(array) + 1, offset=array.offset * 4))


def _tag_of(block: bytes, ends: np.ndarray) -> str | None:
    """The tag every line ends with (" " + tag right before each line end); None when any
    line ends otherwise. Compares 8 bytes at a time, as little-endian words read at any
    byte offset of the block."""
    first = block[:ends[0]]
    tag = first[first.rfind(b" ") + 1:]
    if not TAG_RE.fullmatch(tag) or len(block) < 8:
        return None
    tail = b" " + tag
    words = np.ndarray((len(block) - 7,), "<u8", block, 0, (1,))  # words[i] = bytes i..i+7
    for back in range(0, len(tail), 8):  # `back` bytes before the line end
        piece = tail[max(0, len(tail) - back - 8):len(tail) - back]
        at = ends - back - 8
        if at.size and at.min() < 0:
            return None
        mask = np.uint64(((1 << (8 * len(piece))) - 1) << (8 * (8 - len(piece))))
        if not np.all((words[at] & mask) == np.uint64(int.from_bytes(piece.rjust(8, b"\0"), "little"))):
            return None
    return tag.decode()


def _query_codes(qid: pa.Array) -> tuple[list[str], np.ndarray]:
    """The distinct qids of a block and each row's index into them. Rows of a query come
    together, so the qids are run-length encoded first (half the cost of hashing each row)."""
    import pyarrow.compute as pc

    from .columns import numbers

    runs = pc.run_end_encode(qid)
    local: dict[str, int] = {}
    values = runs.values.to_pylist()
    codes = np.fromiter((local.setdefault(v, len(local)) for v in values), np.int32, len(values))
    return list(local), np.repeat(codes, np.diff(numbers(runs.run_ends), prepend=0))


def parse_fast(block: bytes, *, topics: frozenset[str] | None, docid_pattern: str | None) -> Parsed | None:
    """Parse a block when every line in it is plainly valid; None when any line needs a
    closer look. Touches no shared state, so blocks can be parsed on worker threads."""
    if compiled.COMPILED is not None:
        return _parse_compiled(compiled.COMPILED, block, topics=topics, docid_pattern=docid_pattern)
    return _parse_arrow(block, topics=topics, docid_pattern=docid_pattern)


_ARTICLE_PASSAGE = r"[0-9]+#[0-9]+"


def _parse_compiled(reader: ModuleType, block: bytes, *, topics: frozenset[str] | None,
                    docid_pattern: str | None) -> Parsed | None:
    """`parse_fast` by the C extension (it holds the GIL, but only for one block at a time).
    It checks the docid pattern itself only for article#passage ids; the
    docids are Texts, so no pyarrow is needed (but for another pattern's regex)."""
    parsed = reader.parse_run(block, docid_pattern == _ARTICLE_PASSAGE)
    if parsed is None:
        return None
    qid_values, qid_indices, offsets, text, ranks, scores, hashes, tag, count = parsed
    if topics is not None and not topics.issuperset(qid_values):
        return None
    docids = Texts.from_buffers(offsets, text)
    if docid_pattern not in (None, _ARTICLE_PASSAGE) and not _docids_match(docids.arrow(), docid_pattern):
        return None
    return Parsed(qid_values, np.frombuffer(qid_indices, np.int32), docids, np.frombuffer(ranks, np.int64),
                  np.frombuffer(scores, np.float64), np.frombuffer(hashes, np.uint64), tag, count)


def _parse_arrow(block: bytes, *, topics: frozenset[str] | None, docid_pattern: str | None) -> Parsed | None:
    """`parse_fast` by pyarrow's CSV parser and numpy checks over the raw bytes.

    The CSV parser checks that every line has six space-separated fields; the Q0 and tag
    columns are not materialised (a third of the parse time): the tag is checked on the
    raw bytes before each line end, and Q0's width is what is left of the line."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    from .columns import numbers

    arr = np.frombuffer(block, np.uint8)
    if arr.size == 0 or arr.max() >= 0x80:
        return None
    ends = _line_ends(arr)
    if ends is None:
        return None
    tag = _tag_of(block, ends)
    if tag is None:
        return None
    try:
        table = pcsv.read_csv(pa.py_buffer(block), *_csv_options())
    except pa.ArrowInvalid:
        return None  # a line without exactly six fields (an empty line, a double space...)
    if table.num_rows != ends.size:
        return None
    qid, docids, rank, score = (table.column(name).combine_chunks() for name in _KEPT)
    widths = [_widths(column) for column in (qid, docids, rank, score)]
    # every line is qid Q0 docid rank score tag with single spaces: what is left is Q0
    q0 = np.diff(ends, prepend=-1) - 1 - sum(widths) - len(tag) - 5
    if any(w.min() < 1 or w.max() > MAX_FIELD_BYTES for w in (*widths, q0)):
        return None  # an empty or over-long field (so no line is over MAX_LINE_BYTES either)
    rank_text = text_bytes(rank)
    if not np.all((rank_text - np.uint8(48) < 10) | (rank_text == 45)):
        return None  # only plain decimal digits here: the cast below would also take "0x1f"
    try:
        ranks, scores = pc.cast(rank, pa.int64()), pc.cast(score, pa.float64())
    except pa.ArrowInvalid:
        return None
    if not pc.all(pc.is_finite(scores)).as_py():
        return None
    qid_values, qid_indices = _query_codes(qid)
    if topics is not None and not topics.issuperset(qid_values):
        return None
    if not _docids_match(docids, docid_pattern):
        return None
    return Parsed(qid_values, qid_indices, docids, numbers(ranks), numbers(scores),
                  docid_hashes(docids), tag, ends.size)


def commit(parsed: Parsed, first_line: int, rules: LineRules, codes: dict[str, int]) -> Rows | None:
    """The parsed block's rows with the file's qid codes; None when its tag differs from the run's."""
    if rules.tag not in (None, parsed.tag):
        return None
    rules.tag = parsed.tag
    mapping = np.array([codes.setdefault(v, len(codes)) for v in parsed.qid_values], dtype=np.int32)
    return Rows(mapping[parsed.qid_indices], parsed.docids, parsed.ranks, parsed.scores,
                np.arange(first_line, first_line + parsed.count, dtype=np.int64), parsed.hashes)


def rows_fast(block: bytes, first_line: int, rules: LineRules, codes: dict[str, int],
              docid_pattern: str | None) -> Rows | None:
    """parse_fast then commit, on the calling thread."""
    parsed = parse_fast(block, topics=rules.topics, docid_pattern=docid_pattern)
    return None if parsed is None else commit(parsed, first_line, rules, codes)


def rows_exact(block: bytes, first_line: int, rules: LineRules, codes: dict[str, int],
               log: ProblemLog) -> tuple[Rows, int | None]:
    """The block's valid rows, logging every problem; also the first line that ends in CRLF."""
    lines = block.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    qcodes, docids, ranks, scores, numbers = [], [], [], [], []
    crlf = None
    for number, raw in enumerate(lines, start=first_line):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
            crlf = crlf or number
        row = rules.check(raw, number, log)
        if row is not None:
            qcodes.append(codes.setdefault(row[0], len(codes)))
            docids.append(row[1])
            ranks.append(row[2])
            scores.append(row[3])
            numbers.append(number)
        if log.full:
            break
    if compiled.COMPILED is not None:
        array = Texts.from_strings(docids)
    else:
        from .columns import strings

        array = strings(docids)
    rows = Rows(np.array(qcodes, dtype=np.int32), array, np.array(ranks, dtype=np.int64),
                np.array(scores, dtype=np.float64), np.array(numbers, dtype=np.int64), docid_hashes(array))
    return rows, crlf
