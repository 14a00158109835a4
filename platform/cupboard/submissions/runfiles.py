"""Run files on their way in and back out: spooling uploads to temporary files (with their
SHA-256 and size), and reading them with the evaluator against a phase's topics.

Uploads are copied to a private temporary folder first: one pass hashes them and enforces
the size cap, and the evaluator (which detects gzip itself) reads the copy. The same reader
runs at upload and again, on the stored file, when scoring.
"""
import hashlib
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from cupboard.competitions.models import Competition, Phase, Subset, TopicSet

from evaluator.benchmarks import get_benchmark
from evaluator.runs import read_run
from evaluator.topics import read_topics

from .errors import SubmissionRefused

CHUNK = 1024 * 1024


@dataclass(frozen=True)
class SpooledFile:
    name: str        # the name the participant gave it: errors point at this
    path: Path       # the temporary copy the evaluator reads
    sha256: str
    size: int


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


def read_topics_of(*, phase: Phase, subset: Subset) -> set[str] | None:
    """The query ids of one subset's topics in a phase, or None when the phase has none."""
    topic_set = TopicSet.objects.filter(phase=phase, subset=subset).first()
    if topic_set is None:
        return None
    with topic_set.file.open("rb") as stored:
        return set(read_topics(stored, name=topic_set.original_name))


def read_run_file(*, source, name: str, competition: Competition, topics: set[str]):
    """Read and validate one run (a path or an open binary file): (Run or None, ValidationReport),
    keeping the top 100 documents per query."""
    benchmark = get_benchmark(competition.benchmark)
    return read_run(source, name=name, topics=topics, docid_pattern=benchmark.docid_pattern,
                    max_depth=competition.max_run_depth)
