"""What a participant needs to submit to a phase, built from the phase itself: a valid run
example on its real topic ids, the file names, the exact CLI command, and the two archives
(all topics of the phase; a sample submission of one valid run per language).

Everything here starts from `selectors.phase_downloads`, so it shows exactly the topics the
viewer may download: a surprise language stays out of the examples, the command and both
archives until its reveal, and a phase's topics until it opens.
"""
from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass

from cupboard.competitions import selectors
from cupboard.competitions.models import Competition, Phase, TopicSet
from cupboard.competitions.run_metadata import metadata_fields
from cupboard.competitions.topic_variants import default_variant, one_per_subset, variants

EXAMPLE_TAG = "mine"
SAMPLE_TAG = "sample"
SAMPLE_DEPTH = 3  # documents per query in the sample runs: enough to show the ranking, small to read
EXAMPLE_DOCIDS = 20  # a collection's own document ids the examples cycle through


def run_name(*, tag: str, code: str, phase: Phase) -> str:
    """`run.mine.sw.dev.txt`: the server reads the language between the dots."""
    return f"run.{tag}.{code}.{phase.slug}.txt"


def topic_ids(topic_set: TopicSet) -> list[str]:
    """The query ids of a stored topics file, in file order."""
    return list(topic_texts(topic_set))


def topic_texts(topic_set: TopicSet) -> dict[str, str]:
    """{query id: query} of a stored topics file, in file order."""
    from evaluator.io.topics import read_topics

    with topic_set.file.open("rb") as stored:
        return read_topics(io.BytesIO(stored.read()), name=topic_set.original_name)


def run_lines(qids: list[str], *, tag: str, depth: int = SAMPLE_DEPTH, docids: list[str] | None = None) -> list[str]:
    """TREC run lines (`qid Q0 docid rank score tag`). The documents are `docids` in turn (the
    collection's own ids, at least `depth` of them, so a query never lists one twice), else
    made-up `ARTICLE#PASSAGE` ids, which every benchmark's docid rule accepts."""
    def docid(n: int, rank: int) -> str:
        if docids and len(docids) >= depth:
            return docids[(n * depth + rank) % len(docids)]
        return f"{1000 + 10 * n + rank}#0"
    return [f"{qid} Q0 {docid(n, rank)} {rank + 1} {depth - rank:.1f} {tag}"
            for n, qid in enumerate(qids) for rank in range(depth)]


def collection_docids(rows: list[dict]) -> dict[str, list[str]]:
    """{subset code: document ids} of a collection of the organizers' own, for the examples:
    read from the head of a judgments file of the subset that the viewer may download (the
    rows of `selectors.phase_downloads`), so the sample looks like the collection and shows
    nothing the viewer could not fetch. A subset without one gets made-up ids (run_lines)."""
    found: dict[str, list[str]] = {}
    for row in rows:
        for qrels_file in row["qrels"]:
            if qrels_file.subset.code not in found:
                found[qrels_file.subset.code] = _head_docids(qrels_file)
    return found


def _head_docids(qrels_file, limit: int = EXAMPLE_DOCIDS) -> list[str]:
    with qrels_file.file.open("rb") as stored:
        head = stored.read(64 * 1024)
    if head[:2] == b"\x1f\x8b":  # a gzipped file: what its first block holds is enough
        head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 64 * 1024)
    docids: list[str] = []
    for line in head.decode("utf-8", "replace").splitlines()[:-1]:  # the last may be cut
        fields = line.split()
        if len(fields) == 4 and not line.startswith("#") and fields[2] not in docids:
            docids.append(fields[2])
        if len(docids) == limit:
            break
    return docids


@dataclass
class PhaseGuide:
    phase: Phase
    topic_sets: list[TopicSet]  # one per subset: the default topic variant's where it has one
    variants: list[dict]  # with several topic variants: [{variant, topic_sets}] for the downloads
    example: list[str]
    example_name: str
    command: str
    is_open: bool
    quota: object | None = None  # QuotaStatus for the viewer's team: the page fills it (submissions/views_guide.py)

    @property
    def example_text(self) -> str:
        return "\n".join(self.example)


def phase_guides(viewer, *, server: str) -> list[PhaseGuide]:
    """One guide per phase, with what this viewer (competitions/viewer.py) may see of it."""
    competition, now = viewer.competition, viewer.now
    guides = []
    rows = selectors.phase_downloads(viewer)
    docids = _docids(competition, rows)
    for row in rows:
        phase, topic_sets = row["phase"], _one_per_subset(row["topics"], competition)
        example, example_name = [], ""
        if topic_sets:
            first = topic_sets[0]
            example = run_lines(topic_ids(first)[:2], tag=EXAMPLE_TAG, docids=docids(first.subset.code))
            example_name = run_name(tag=EXAMPLE_TAG, code=first.subset.code, phase=phase)
        shown = [{"variant": v, "topic_sets": [t for t in row["topics"] if t.variant == v.code]}
                 for v in variants(competition)] if row["variants"] else []
        guides.append(PhaseGuide(
            phase=phase, topic_sets=topic_sets, variants=[v for v in shown if v["topic_sets"]],
            example=example, example_name=example_name,
            command=cli_command(competition, phase, topic_sets, server=server),
            is_open=phase.opens_at <= now < phase.closes_at))
    return guides


def cli_command(competition: Competition, phase: Phase, topic_sets: list[TopicSet], *, server: str) -> str:
    """The `cupboard-eval submit` line for this phase, one run per language the viewer sees,
    written by the CLI itself (evaluator.cli.submit.command_lines). With topic variants,
    `topic_sets` are the default's and `--meta topics=` names it (a required field)."""
    from evaluator.cli.submit import command_lines

    runs = [run_name(tag=EXAMPLE_TAG, code=t.subset.code, phase=phase) for t in topic_sets] or ["RUN_FILE"]
    # Required run metadata, with a choice's first option as the example (the page lists them all).
    meta = [(field.name, field.options[0][0] if field.options else field.type.upper())
            for field in metadata_fields(competition) if field.required]
    lines = command_lines(server=server, competition=competition.slug, phase=phase.slug, method="my first run",
                          runs=runs, topics=[t.original_name for t in topic_sets], meta=meta)
    return " \\\n    ".join(lines)


def topics_archive(viewer, phase: Phase) -> bytes | None:
    """A zip of every topics file of the phase the viewer may download, under their published
    names; None when there is none (the view's 404). With topic variants, the default's files
    are at the top (the names How to submit's command uses), each other variant's in a folder
    named by its code (`native/topics.fa.native.tsv`)."""
    topic_sets = _downloadable(viewer, phase)
    if not topic_sets:
        return None
    default = default_variant(viewer.competition)
    files = {}
    for topic_set in topic_sets:
        folder = "" if topic_set.variant == default else f"{topic_set.variant}/"
        with topic_set.file.open("rb") as stored:
            files[folder + topic_set.original_name] = stored.read()
    return _zipped(files)


def sample_submission(viewer, phase: Phase) -> bytes | None:
    """A zip of valid run files, one per language the viewer sees, each answering every topic
    of the phase (made-up documents): unzip, then upload them as they are to see the form work."""
    rows = selectors.phase_downloads(viewer)
    topic_sets = _one_per_subset(next((row["topics"] for row in rows if row["phase"].pk == phase.pk), []),
                                 viewer.competition)
    if not topic_sets:
        return None
    docids = _docids(viewer.competition, rows)
    return _zipped({run_name(tag=SAMPLE_TAG, code=t.subset.code, phase=phase):
                    ("\n".join(run_lines(topic_ids(t), tag=SAMPLE_TAG, docids=docids(t.subset.code))) + "\n").encode()
                    for t in topic_sets})


def _docids(competition: Competition, rows: list[dict]):
    """code -> the ids examples use: the collection's own for a competition without a benchmark
    of its own (`generic`), as made-up `ARTICLE#PASSAGE` ids would not look like its documents;
    a named benchmark's made-up ids follow its docid rule (None: run_lines makes them)."""
    if competition.named_benchmark:
        return lambda code: None
    own = collection_docids(rows)
    return lambda code: own.get(code) or [f"doc{n}" for n in range(1, EXAMPLE_DOCIDS + 1)]


def _zipped(files: dict[str, bytes]) -> bytes:
    """A zip of {name: content} with a fixed timestamp: the same files give the same bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in files.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), content,
                             compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _downloadable(viewer, phase: Phase) -> list[TopicSet]:
    return selectors.phase_topic_files(viewer, phase)


def _one_per_subset(topic_sets: list[TopicSet], competition: Competition) -> list[TopicSet]:
    """One topics file per subset, in order: the variants share their query ids, and a run
    answers the subset once (topic_variants.one_per_subset chooses the default's)."""
    chosen = set(one_per_subset(topic_sets, competition).values())
    return [t for t in topic_sets if t in chosen]
