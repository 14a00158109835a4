"""The words of a results archive: its README and its suggested citation (BibTeX and plain),
shown on the results page and written into the zip (leaderboards/archive.py)."""
from __future__ import annotations

from cupboard.leaderboards.models import FrozenSnapshot, ResultsArchive
from cupboard.leaderboards.paper_tables import tex_escape


def citation_key(archive: ResultsArchive) -> str:
    phase = archive.phase
    return f"{phase.competition.slug}-{phase.slug}-results-v{archive.number}"


def _title(archive: ResultsArchive) -> str:
    phase = archive.phase
    return f"{phase.competition.title}: {phase.name} results archive, version {archive.number}"


def citation(archive: ResultsArchive, *, url: str) -> str:
    """One line for a reference list."""
    year = (archive.finished_at or archive.created_at).year
    return f"{archive.phase.competition.title} organizers ({year}). {_title(archive)}. {url}"


def bibtex(archive: ResultsArchive, *, url: str) -> str:
    """A @misc entry; its SHA-256 is named once the archive is built (the zip cannot hold its own)."""
    year = (archive.finished_at or archive.created_at).year
    lines = [f"@misc{{{citation_key(archive)},",
             f"  title = {{{{{tex_escape(_title(archive))}}}}},",
             f"  author = {{{{{tex_escape(archive.phase.competition.title)} organizers}}}},",
             f"  year = {{{year}}},",
             f"  howpublished = {{\\url{{{url}}}}},"]
    if archive.sha256:
        lines.append(f"  note = {{SHA-256 {archive.sha256}}},")
    return "\n".join([*lines, "}", ""])


def readme(archive: ResultsArchive, snapshot: FrozenSnapshot, data: dict, *, runs: int, url: str,
           counted: int | None = None) -> str:
    phase = archive.phase
    subsets = ", ".join(s["code"] for s in data["subsets"])
    return f"""# {_title(archive)}

The official results of {phase.name} of {phase.competition.title}, frozen {snapshot.frozen_at:%Y-%m-%d %H:%M} UTC
(qrels version {snapshot.qrels_release_number or '-'}), with what they are made of. Subsets: {subsets}.

- `results/official.csv`, `results/official.json`: the frozen results, byte for byte as published
  (CSV sha256 {snapshot.csv_sha256}, JSON sha256 {snapshot.json_sha256}).
- `results/tables/`: the overview paper's tables (LaTeX with booktabs, and Markdown).
- `qrels/v<N>/<subset>/`: every version of the judgments; `topics/<subset>/`: the queries.
- `runs/`: {runs} runs as their teams uploaded them, those whose team agreed to their release, and the
  baselines; `runs/runs.json` records every one of the {counted if counted is not None else runs} runs counted
  (scored, not disqualified): team, method, metadata, files, scores and per-topic values.
- `MANIFEST.sha256`: the SHA-256 of every other file (`sha256sum -c MANIFEST.sha256`).

Cite as: {citation(archive, url=url)}
The zip's own SHA-256 is in the competition's public audit log and on its results page, {url.rsplit('/', 1)[0]}/.
"""
