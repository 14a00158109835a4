"""Run files on their way in and back out: spooling uploads to temporary files (with their
SHA-256 and size), storing them gzipped, handing them back as uploaded, and reading them
with the evaluator against a phase's topics.

Uploads are copied to a private temporary folder first: one pass hashes them and enforces
the size cap, and the evaluator (which detects gzip itself) reads the copy. The same reader
runs at upload and again, on the stored file, when scoring.

Storage keeps runs gzipped (a run shrinks about 4x): a plain upload is compressed once it
has validated, before the upload's transaction (no lock is held meanwhile); a gzip upload is
kept as it came. SHA-256 and size stay those of the uploaded bytes, so duplicates are found
as before, and a download hands the team back exactly what it sent.
"""
import gzip
import hashlib
import io
import shutil
import tempfile
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from django.conf import settings
from django.core.files import File

from cupboard.competitions.models import Competition, DocumentList, Phase, QrelsFile, Subset, TopicSet
from cupboard.competitions.topic_variants import one_per_subset
from evaluator.benchmarks import get_benchmark
from evaluator.io.documents import DocumentCheck, read_documents
from evaluator.io.qrels import read_qrels
from evaluator.io.runs import read_run, run_query_ids
from evaluator.io.topics import read_topics
from evaluator.records import Problem
from evaluator.residual import residual_keep_depth, residual_run

from . import readcache
from .errors import SubmissionRefused
from .models import RunFile

CHUNK = 1024 * 1024
# Share of a refused file's query ids that must be another language's topics for the hint.
WRONG_LANGUAGE_SHARE = 0.9
GZIP_MAGIC = b"\x1f\x8b"
# zlib's fastest level: 3.8x smaller on MIRACL-shaped runs; level 6 gains a fifth more for 5x the time.
GZIP_LEVEL = 1
# Below this a run is one parsing block: a second thread would only add its start-up (which,
# for the demo's few hundred small runs, cost more than the parsing itself).
SMALL = 1024 * 1024


@dataclass(frozen=True)
class SpooledFile:
    name: str        # the name the participant gave it: errors point at this
    path: Path       # the temporary copy the evaluator reads
    sha256: str
    size: int
    stored: Path | None = None  # what storage keeps (see packed): a gzipped copy, or `path` if gzip already
    compressed: bool = False    # cupboard gzipped it; downloads inflate it back


@contextmanager
def spool_folder():
    """A private temporary folder removed with everything in it, whatever happens."""
    folder = Path(tempfile.mkdtemp(prefix="cupboard-run-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def spool(source, *, name: str, folder: Path, index: int) -> SpooledFile:
    """Copy an uploaded or stored file into `folder`, hashing it on the way; refuse oversize files."""
    base = Path(name).name or "run.txt"
    path = folder / f"{index}-{base}"
    digest, size = hashlib.sha256(), 0
    chunks = source.chunks(CHUNK) if hasattr(source, "chunks") else iter(lambda: source.read(CHUNK), b"")
    with open(path, "wb") as out:
        for chunk in chunks:
            size += len(chunk)
            if size > settings.CUPBOARD_MAX_UPLOAD_BYTES:
                raise SubmissionRefused(
                    f"{base}: larger than the {settings.CUPBOARD_MAX_UPLOAD_BYTES // (1024 * 1024)} MiB limit.",
                    code="too_large")
            digest.update(chunk)
            out.write(chunk)
    return SpooledFile(name=base, path=path, sha256=digest.hexdigest(), size=size)


def packed(copy: SpooledFile) -> SpooledFile:
    """The spooled run with the form storage keeps: itself when it is gzip already, else a gzipped
    copy beside it."""
    with open(copy.path, "rb") as source:
        if source.read(2) == GZIP_MAGIC:
            return replace(copy, stored=copy.path)
        source.seek(0)
        target = copy.path.with_name(copy.path.name + ".gz")
        with open(target, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=GZIP_LEVEL,
                                                      filename="", mtime=0) as out:
            shutil.copyfileobj(source, out, CHUNK)
    return replace(copy, stored=target, compressed=True)


def run_file_store(run_file: RunFile, copy: SpooledFile) -> None:
    """Write a packed copy to private storage (named as uploaded, plus .gz when cupboard compressed it)."""
    run_file.compressed = copy.compressed
    with open(copy.stored or copy.path, "rb") as handle:
        run_file.file.save(copy.name + (".gz" if copy.compressed else ""), File(handle), save=False)


def uploaded_chunks(run_file: RunFile) -> Iterator[bytes]:
    """A stored run's bytes as its team uploaded them: inflated when cupboard gzipped it."""
    with run_file.file.open("rb") as stored:
        source = gzip.GzipFile(fileobj=stored, mode="rb") if run_file.compressed else stored
        while chunk := source.read(CHUNK):
            yield chunk


def read_topics_of(*, phase: Phase, subset: Subset) -> frozenset[str] | None:
    """The query ids of one subset's topics in a phase, or None when the phase has none."""
    topic_set = one_per_subset(TopicSet.objects.filter(phase=phase, subset=subset), phase.competition).get(subset.pk)
    return None if topic_set is None else topic_set_ids(topic_set)


def topic_set_ids(topic_set: TopicSet) -> frozenset[str]:
    """The query ids of a topics file, read once per process for its content (readcache)."""
    def load() -> frozenset[str]:
        with topic_set.file.open("rb") as stored:
            return frozenset(read_topics(stored, name=topic_set.original_name))
    return readcache.topic_ids.get((topic_set.sha256, topic_set.file.name), load)


def read_run_file(*, source, name: str, competition: Competition, topics: Collection[str] | None,
                  keep_depth: int | None = None, documents: DocumentCheck | None = None):
    """Read and validate one run (a path or an open binary file): (Run or None, ValidationReport),
    keeping the top `keep_depth` documents per query (default: the depth scored); with
    `documents` (`document_check`), every docid checked against the subset's document list."""
    benchmark = get_benchmark(competition.benchmark)
    return read_run(source, name=name, topics=topics, docid_pattern=benchmark.docid_pattern,
                    max_depth=competition.max_run_depth, keep_depth=keep_depth or competition.scored_depth(),
                    threads=1 if _size(source) < SMALL else 2, documents=documents)


def document_check(row: DocumentList | None, *, refuse: bool) -> DocumentCheck | None:
    """A fresh check (it counts what it finds) of a run's docids against its subset's document list
    `row` (current_document_lists), refused at the line or one warning as the phase wants it (`refuse`);
    None where the subset has none. The list is read once per process: mapped from the file where
    storage has paths, else read whole (readcache)."""
    if row is None:
        return None

    def load():
        try:
            return read_documents(row.file.path, name=row.original_name)
        except NotImplementedError:  # storage without paths (S3)
            with row.file.open("rb") as stored:
                return read_documents(io.BytesIO(stored.read()), name=row.original_name)
    return DocumentCheck(readcache.documents.get((row.sha256, row.file.name), load), refuse=refuse)


def read_scored_run(*, source, name: str, competition: Competition, topics: Collection[str] | None,
                    judged: Sequence[QrelsFile] = (), keep_depth: int | None = None,
                    documents: DocumentCheck | None = None):
    """`read_run_file`, and on a residual phase (`judged`: its earlier rounds' qrels of this
    subset) the run without the documents they judged: (Run or None, report, Removed or None).
    A residual run is read whole first, so documents below the removed ones move up."""
    if not judged:
        run, report = read_run_file(source=source, name=name, competition=competition, topics=topics,
                                    keep_depth=keep_depth, documents=documents)
        return run, report, None
    run, report = read_run_file(source=source, name=name, competition=competition, topics=topics,
                                keep_depth=residual_keep_depth(competition.max_run_depth), documents=documents)
    if run is None:
        return None, report, None
    residual, removed = residual_run(run, [judged_qrels(f) for f in judged],
                                     sources=[f"{f.release.phase.name} qrels v{f.release.number}" for f in judged])
    return residual, report, removed


def judged_qrels(qrels_file: QrelsFile):
    """An earlier round's judgments, read once per process for their content (readcache)."""
    def load():
        with qrels_file.file.open("rb") as stored:
            return read_qrels(stored, name=qrels_file.original_name)
    return readcache.judged.get((qrels_file.sha256, qrels_file.file.name), load)


def _size(source) -> int:
    """Bytes of a path or an open file (stored files and uploads know theirs); large if unknown."""
    if isinstance(source, (str, Path)):
        return Path(source).stat().st_size
    size = getattr(source, "size", None)
    return size if isinstance(size, int) else SMALL


def wrong_language_hint(*, copy: SpooledFile, phase: Phase, subset: Subset, known: list[Subset],
                        own_topics: frozenset[str]) -> Problem | None:
    """For a file refused for unknown query ids: a hint when its ids are mostly another
    language's topics in this phase (a Swahili run named `.yo.`), else None. `known` are the
    uploader's visible subsets, so the hint never names a language still hidden from them.
    Reads the file and the other topic sets again, which only a refused upload pays for."""
    qids = run_query_ids(copy.path, name=copy.name)
    if not qids:
        return None
    best, best_share = None, len(qids & own_topics) / len(qids)
    for other in known:
        topics = read_topics_of(phase=phase, subset=other) if other.pk != subset.pk else None
        share = len(qids & topics) / len(qids) if topics else 0.0
        if share > best_share:
            best, best_share = other, share
    if best is None or best_share < WRONG_LANGUAGE_SHARE:
        return None
    return Problem("wrong-language", f"these query ids are {best.code}'s topics ({best.name}), not "
                   f"{subset.code}'s: is the file named for the wrong language?", copy.name)
