"""The load test's data, generated once into a cache folder (default `loadtest-data/`) and reused.

A MIRACL-shaped phase as the demo's Cup has it: for each of the 18 languages, the first
half of the real MIRACL v1.0 dev topics (at most 120 queries) and their judgments, from
`../shared/data` when it is there, else the shipped samples and synthetic data
(`cupboard.demo.data`). Then `sets` submissions of 18 depth-100 run files each, made by
the demo's run generator at different qualities (about 8 MB a submission with the real
topics). The platform answers a repeat of the same files within a team with the earlier
submission, so each (team, set) pair is uploaded once: four teams need a quarter as many
sets as uploads. A marker file says a set is complete, so an interrupted generation
resumes where it stopped.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import sys
from dataclasses import dataclass
from pathlib import Path

from evaluator.benchmarks.miracl import LANGUAGES

PHASE_START, PHASE_STOP, PHASE_CAP = 0.0, 0.5, 120  # the demo Cup's dev slice (cupboard.demo.plan)
DEPTH = 100


@dataclass(frozen=True)
class RunSet:
    """One submission's files (one per language) and the SHA-256 of each."""

    number: int
    files: tuple[Path, ...]
    sha256: tuple[str, ...]

    @property
    def size(self) -> int:
        return sum(path.stat().st_size for path in self.files)


def _phase_data(data_dir: Path | None) -> dict:
    from cupboard.demo.data import miracl_subset

    return {code: miracl_subset(code, data_dir=data_dir, count=48).part(PHASE_START, PHASE_STOP, PHASE_CAP)
            for code in LANGUAGES}


def phase_folder(cache: Path, data_dir: Path | None) -> Path:
    """Topics and qrels of the phase, as `topics.miracl-v1.0-<code>-dev.tsv` and `qrels...`; made once."""
    folder = cache / "phase"
    if not (folder / ".complete").exists():
        folder.mkdir(parents=True, exist_ok=True)
        origins = set()
        for code, piece in _phase_data(data_dir).items():
            (folder / f"topics.miracl-v1.0-{code}-dev.tsv").write_bytes(piece.topics_tsv())
            (folder / f"qrels.miracl-v1.0-{code}-dev.tsv").write_bytes(piece.qrels_tsv())
            origins.add(piece.origin)
        (folder / "origin.txt").write_text(", ".join(sorted(origins)) + "\n")
        (folder / ".complete").touch()
    return folder


def origin(cache: Path) -> str:
    return (cache / "phase" / "origin.txt").read_text().strip()


def _generate_set(args: tuple[Path, Path, int]) -> None:
    """Write set `number` (18 run files and their digests) into its folder; in a pool process."""
    from cupboard.demo.data import SubsetData
    from cupboard.demo.runs import demo_run

    phase, folder, number = args
    folder.mkdir(parents=True, exist_ok=True)
    quality = 0.3 + 0.4 * ((number * 37) % 100) / 100  # a spread of leaderboard positions
    digests = {}
    for code in LANGUAGES:
        piece = SubsetData(_read_topics(phase, code), _read_qrels(phase, code), "")
        run = demo_run(piece, quality=quality, system=f"load-{number:03d}", code=code, depth=DEPTH)
        name = f"run.load-{number:03d}.{code}.dev.txt"
        (folder / name).write_bytes(run)
        digests[name] = hashlib.sha256(run).hexdigest()
    (folder / "sha256.json").write_text(json.dumps(digests, indent=0))
    (folder / ".complete").touch()


def _read_topics(phase: Path, code: str) -> dict[str, str]:
    from evaluator.io.topics import read_topics

    return read_topics(phase / f"topics.miracl-v1.0-{code}-dev.tsv")


def _read_qrels(phase: Path, code: str) -> dict[str, dict[str, int]]:
    from evaluator.io.qrels import read_qrels

    return read_qrels(phase / f"qrels.miracl-v1.0-{code}-dev.tsv").judgments


def run_sets(cache: Path, data_dir: Path | None, count: int) -> list[RunSet]:
    """`count` distinct submissions, generating the missing ones (on two processes)."""
    phase = phase_folder(cache, data_dir)
    folders = [cache / "sets" / f"{number:03d}" for number in range(count)]
    missing = [(phase, folder, number) for number, folder in enumerate(folders)
               if not (folder / ".complete").exists()]
    if missing:
        print(f"generating {len(missing)} submissions of {len(LANGUAGES)} depth-{DEPTH} runs into "
              f"{cache / 'sets'} (once) ...", file=sys.stderr, flush=True)
        with multiprocessing.get_context("fork").Pool(2) as pool:
            pool.map(_generate_set, missing, chunksize=1)
    out = []
    for number, folder in enumerate(folders):
        digests = json.loads((folder / "sha256.json").read_text())
        names = sorted(digests)
        out.append(RunSet(number, tuple(folder / name for name in names), tuple(digests[n] for n in names)))
    return out
