"""Reading, validating and writing TREC run files (`qid Q0 docid rank score tag`).

`read_run` makes one streaming pass: blocks of lines are checked and parsed (see
`validation_fast.py`), then the checks that span lines (depth, duplicate docids, ties,
rank order, missing queries) run vectorised over the parsed columns, and only the top
`keep_depth` documents of each query are kept, in trec_eval order.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import re
import sys
from collections import deque
from collections.abc import Callable, Collection
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, TextIO, TypeVar

import numpy as np

from ..records import InputError, Run, ValidationReport
from .documents import DocumentCheck
from .order import position_in_query, trec_order
from .sources import BLOCK_SIZE, DEFAULT_MAX_BYTES, GZIP_MAGIC, Source, iter_blocks, plain_file_head, source_name
from .validation import BOM, MAX_PROBLEMS, TAG_RE, LineRules, ProblemLog, looks_binary
from .validation_collect import RunCollector
from .validation_fast import Parsed, commit, parse_fast, rows_exact

T = TypeVar("T")
Pending = tuple[bytes, Future[Parsed | None]]  # a block and its parsing, maybe on another thread

_LIBC: ctypes.CDLL | None
try:  # glibc only; elsewhere freed memory is simply left to the allocator
    _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _LIBC.malloc_trim  # noqa: B018 (probe: musl and macOS have no malloc_trim)
except (OSError, AttributeError):
    _LIBC = None


def read_run(source: Source, *, name: str | None = None, topics: Collection[str] | None = None,
             docid_pattern: str | None = None, max_depth: int = 1000, keep_depth: int = 100,
             max_problems: int = MAX_PROBLEMS, progress: Callable[[int, int], None] | None = None,
             max_bytes: int = DEFAULT_MAX_BYTES, threads: int = 2,
             strict: bool = True, documents: DocumentCheck | None = None) -> tuple[Run | None, ValidationReport]:
    """Validate and parse one TREC run file in one streaming pass.

    `source` is a path or a binary file object (e.g. a Django UploadedFile), plain or gzip
    (detected by magic bytes). Returns (None, report) when the report has errors. The Run
    keeps only the top `keep_depth` docs per query by trec_eval order (score descending,
    then docid descending), as `trec_eval -M keep_depth` scores. `progress(done, total)` is
    called after each block with bytes read and the file size (0 when unknown, e.g. gzip).
    `threads=1` parses on the calling thread, for callers that already keep every core busy
    with one file each (`evaluator.engines.parallel`): extra threads would only take turns there.
    `strict=False` reads what trec_eval reads, warning where a competition would refuse
    (see `LineRules`): any run tag and several, long lines and fields, any rank, hex scores.
    `documents` checks every docid against the collection's document list (io/documents.py).
    """
    file = source_name(source, name)
    log = ProblemLog(file, max_problems)
    rules = LineRules(topics=None if topics is None else frozenset(topics),
                      docid_re=re.compile(docid_pattern.encode()) if docid_pattern else None,
                      strict=strict)
    codes: dict[str, int] = {}
    collector = RunCollector(keep_depth, max_depth, log)
    line, done, total = 1, 0, _plain_size(source)
    # Blocks are parsed on `threads` threads (pyarrow and numpy release the GIL) while this
    # thread gives them their qid codes and line numbers in file order; with one thread,
    # each block is parsed and taken in turn, so only one is ever held.
    ahead = 1 if threads > 1 else 0  # blocks parsed ahead of the one being taken
    with (ThreadPoolExecutor(max_workers=threads) if threads > 1 else _Inline()) as pool:
        queue: deque[Pending] = deque()
        try:
            for block in iter_blocks(source, file=file, max_bytes=max_bytes,
                                     block_size=_block_size(total, threads)):
                if line == 1 and not done and block.startswith(BOM):
                    block = block[len(BOM):]
                    log.warn("bom", "the file starts with a UTF-8 byte order mark; it was ignored", 1)
                if line == 1 and not done and looks_binary(block):
                    log.error("not-text", "not a text file: a run is plain text (or gzip of it), one "
                              "`qid Q0 docid rank score tag` line per document")
                    return None, log.report(lines=0)
                done += len(block)
                queue.append((block, pool.submit(parse_fast, block, topics=rules.topics, docid_pattern=docid_pattern)))
                while len(queue) > ahead and not log.full:
                    line = _take(queue.popleft(), line, rules, codes, log, collector, documents)
                if progress:
                    progress(done, total)
                if log.full:
                    break
            while queue and not log.full:
                line = _take(queue.popleft(), line, rules, codes, log, collector, documents)
        except InputError as exc:  # unreadable, too large, a damaged or bomb gzip: reading stopped there
            log.stop()
            for problem in exc.problems:
                log.error(problem.code, problem.message, problem.line, problem.column)
            return None, log.report(lines=line - 1)
        finally:
            for _, future in queue:
                future.cancel()
    if documents is not None:
        documents.finish(log)
    run, queries = collector.finish(list(codes), log, topics=topics, tag=rules.tag or "")
    del collector
    if done >= _TRIM_AFTER:
        _give_back_memory()
    return (None if log.errors else run), log.report(lines=line - 1, queries=queries)


def run_query_ids(source: Source, *, name: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> set[str]:
    """The first column of every line of a run, unchecked: what a refused run was about, so
    a caller can tell a file named for the wrong language (its ids are another one's topics)."""
    qids: set[str] = set()
    for block in iter_blocks(source, file=source_name(source, name), max_bytes=max_bytes):
        for raw in block.split(b"\n"):
            first = raw.split(None, 1)[:1]
            if first and not first[0].startswith(b"#"):
                qids.add(first[0].decode("utf-8", "replace"))
    return qids


def _take(item: Pending, line: int, rules: LineRules, codes: dict[str, int], log: ProblemLog,
          collector: RunCollector, documents: DocumentCheck | None = None) -> int:
    """Add one parsed block (or check it line by line) and return the next block's first line."""
    block, future = item
    parsed = future.result()
    rows = None if parsed is None else commit(parsed, line, rules, codes)
    if parsed is not None and rows is not None:
        count = parsed.count
    else:
        rows, crlf = rows_exact(block, line, rules, codes, log)
        if crlf:
            log.warn("crlf", "lines end in CRLF (Windows); accepted", crlf)
        count = block.count(b"\n") + (not block.endswith(b"\n"))
    if documents is not None:
        documents.rows(rows.hashes, rows.lines, rows.docids, log)
    collector.add(rows)
    return line + count


def _block_size(total: int, threads: int) -> int:
    """Two blocks for a file of a few MB, so both parsing threads get one (a 5 MB file in
    4 MB blocks would leave one thread idle most of the time); 4 MiB blocks otherwise."""
    if not total or threads < 2:
        return BLOCK_SIZE
    return min(BLOCK_SIZE, max(1 << 20, total // 2 + 1))


class _Inline(Executor):
    """Runs each call at once on the calling thread: `read_run` with `threads=1`."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to whoever asks for the result, as a pool would
            future.set_exception(exc)
        return future


_TRIM_AFTER = 32 << 20  # bytes read; below that, what is kept is small and reused soon


def _give_back_memory() -> None:
    """Return the freed parsing temporaries to the system. Each parsing thread allocates
    from its own malloc arena, and what one arena keeps free the next file's threads may
    not reuse, so without this the peak of a many-file submission drifts up by tens of MB."""
    pa = sys.modules.get("pyarrow")  # not loaded on the compiled reader's path
    if pa is not None:
        pa.default_memory_pool().release_unused()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc mallopt() parameters


def keep_freed_memory() -> None:
    """Let this process's allocator keep what it frees, for a process that reads one file
    after another and then exits (a worker of `evaluator.engines.parallel`). By default glibc
    gives big blocks back to the system at once and the next block takes them again page
    by page: at depth 100 those page faults were a quarter of a worker's time. Its peak
    is unchanged: what is kept is what the next block reuses."""
    if _LIBC is not None and hasattr(_LIBC, "mallopt"):
        _LIBC.mallopt(_M_MMAP_THRESHOLD, 256 << 20)
        _LIBC.mallopt(_M_TRIM_THRESHOLD, 1 << 30)


def _plain_size(source: Source) -> int:
    """The size to report progress against: a plain file's size; 0 when unknown (gzip, a pipe)."""
    head = plain_file_head(source)
    return head[1] if head is not None and head[0] != GZIP_MAGIC else 0


def write_run(run: Run, handle: TextIO, *, tag: str | None = None) -> None:
    """Write valid TREC lines, in trec_eval order with ranks 1..n per query."""
    label = tag or run.tag or "run"
    if not TAG_RE.fullmatch(label.encode()):
        raise ValueError(f"run tag {label!r} is not 1-20 characters from A-Z a-z 0-9 _ . -")
    _, q = run.query_codes()
    order, _, _ = trec_order(q, np.asarray(run.scores, dtype=np.float64), run.docid_array())
    positions = position_in_query(q[order]) + 1
    handle.writelines(f"{run.qids[i]} Q0 {run.docids[i]} {p} {float(run.scores[i])!r} {label}\n"
                      for i, p in zip(order.tolist(), positions.tolist(), strict=True))
