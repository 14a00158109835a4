"""What an execution is given: the phase's topics as the image reads them, the corpus, the limits.

The image sees `/input/topics/<code>.tsv` (one `qid<TAB>query` line per topic, the default
topic variant's), `/input/corpus/` (JSONL, where the runner host has the competition's corpus)
and writes `/output/<code>.trec` (docs/systems.md). The topics are those of the subsets the
submitter sees now, as an upload's languages are: a surprise language joins at its reveal.
"""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path

from django.conf import settings

from cupboard.competitions.models import Phase, TopicSet
from cupboard.competitions.submitting import topic_texts
from cupboard.competitions.topic_variants import one_per_subset
from cupboard.competitions.viewer import Viewer


@dataclass(frozen=True)
class Topics:
    hashes: dict[str, str]  # {subset code: SHA-256 of the file written}: the record
    queries: list[str]  # every query's text: what the log tail must never show


def limits_now() -> dict:
    """The limits of an execution started now (settings: CUPBOARD_SYSTEM_*), as recorded."""
    return {"cpu_seconds": settings.CUPBOARD_SYSTEM_CPU_SECONDS, "memory_bytes": settings.CUPBOARD_SYSTEM_MEMORY_BYTES,
            "output_bytes": settings.CUPBOARD_SYSTEM_OUTPUT_BYTES, "processes": settings.CUPBOARD_SYSTEM_PROCESSES,
            "wall_seconds": settings.CUPBOARD_SYSTEM_WALL_SECONDS}


def topics_write(*, phase: Phase, user, folder: Path) -> Topics:
    """Write the phase's current topics into `folder` (one TSV per subset); what was written."""
    folder.mkdir(parents=True, exist_ok=True)
    seen = {s.pk for s in Viewer(user, phase.competition).subsets}
    chosen = one_per_subset(TopicSet.objects.filter(phase=phase, subset_id__in=seen).select_related("subset"),
                            phase.competition)
    hashes, queries = {}, []
    for topic_set in sorted(chosen.values(), key=lambda t: t.subset.code):
        texts = topic_texts(topic_set)
        content = "".join(f"{qid}\t{' '.join(query.split())}\n" for qid, query in texts.items()).encode()
        (folder / f"{topic_set.subset.code}.tsv").write_bytes(content)
        hashes[topic_set.subset.code] = hashlib.sha256(content).hexdigest()
        queries += [" ".join(query.split()) for query in texts.values() if query.strip()]
    return Topics(hashes=hashes, queries=queries)


def corpus_dir(phase: Phase) -> Path | None:
    """The runner host's corpus of the competition (CUPBOARD_SYSTEMS_CORPUS_DIR/<slug>/), if any."""
    folder = Path(settings.CUPBOARD_SYSTEMS_CORPUS_DIR) / phase.competition.slug
    return folder if folder.is_dir() else None


def output_runs(folder: Path, codes: list[str]) -> tuple[dict[str, Path], dict[str, str], str]:
    """The runs a system wrote: ({code: path} of `<code>.trec` for the subsets it was given,
    {file name: SHA-256} of every regular file in /output, and one SHA-256 of them all by name:
    two executions that wrote the same files have the same)."""
    files = {path.name: path for path in sorted(folder.iterdir()) if path.is_file() and not path.is_symlink()} \
        if folder.is_dir() else {}
    hashes = {name: _sha256(path) for name, path in files.items()}
    overall = hashlib.sha256("".join(f"{name}\t{digest}\n" for name, digest in hashes.items()).encode()).hexdigest()
    return {code: files[f"{code}.trec"] for code in codes if f"{code}.trec" in files}, hashes, overall


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


def as_record(limits) -> dict:
    """A sandbox `Limits` as the execution record keeps it."""
    return asdict(limits)
