"""Where the demo's topics and judgments come from, per subset.

Real files when the machine has them (MIRACL v1.0 dev and Mr. TyDi v1.1 test under
`../shared/data`), else the tiny MIRACL samples shipped in `evaluator/samples`, else
MIRACL-shaped synthetic data (`evaluator.synthetic`), so a fresh clone loads the same
competitions, only smaller. Each phase gets its own slice of a subset's queries: the
demo's test sets are held-out dev queries, not the hidden MIRACL test sets.

Synthetic data is seeded per competition (`CompetitionPlan.seed`), and its query ids start
at `seed * QID_SPAN`: with one seed for all, Mr. TyDi's hidden test judgments were MIRACL's
public dev judgments of the same language, which anyone could download.
"""
from __future__ import annotations

import tempfile
import zlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pyarrow as pa

from evaluator import synthetic
from evaluator.io.qrels import read_qrels
from evaluator.io.topics import read_topics
from evaluator.samples import sample_path

# The folder with MIRACL and Mr. TyDi files, next to the repository, when it exists.
SHARED_DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data"
# Synthetic query ids of seed s lie in [s * QID_SPAN, (s + 1) * QID_SPAN): no two seeds share one.
QID_SPAN = 1_000_000


@dataclass(frozen=True)
class SubsetData:
    """Topics and judgments of one subset (or of one phase's slice of it)."""

    topics: dict[str, str]
    judgments: dict[str, dict[str, int]]
    origin: str  # "MIRACL v1.0 dev", "sample", "synthetic", ...

    def part(self, start: float, stop: float, cap: int) -> SubsetData:
        """The queries between two fractions of the topic list, at most `cap` of them."""
        qids = list(self.topics)
        lo, hi = round(start * len(qids)), round(stop * len(qids))
        chosen = qids[lo:min(hi, lo + cap)] or qids[:1]
        return SubsetData({q: self.topics[q] for q in chosen},
                          {q: self.judgments[q] for q in chosen if q in self.judgments}, self.origin)

    @cached_property
    def qid_array(self) -> np.ndarray:
        """The query ids in topic order, as an object array (demo.runs indexes it by position)."""
        return np.asarray(list(self.topics), dtype=object)

    @cached_property
    def judgment_arrays(self) -> tuple[np.ndarray, pa.Array, np.ndarray]:
        """Every judgment as (query position, docid, label) columns, in topic order: made once
        per slice, then shared by the ~20 runs generated from it."""
        position = {qid: i for i, qid in enumerate(self.topics)}
        rows = [(position[qid], docid, label) for qid, docs in self.judgments.items() if qid in position
                for docid, label in docs.items()]
        rows.sort(key=lambda row: row[0])  # stable: each query's judgments keep their order
        return (np.fromiter((r[0] for r in rows), np.int64, len(rows)),
                pa.array([r[1] for r in rows], pa.string()),
                np.fromiter((r[2] for r in rows), np.float64, len(rows)))

    def topics_tsv(self) -> bytes:
        return "".join(f"{qid}\t{' '.join(text.split())}\n" for qid, text in self.topics.items()).encode()

    def qrels_tsv(self) -> bytes:
        return "".join(f"{qid}\tQ0\t{docid}\t{label}\n"
                       for qid, docs in self.judgments.items() for docid, label in docs.items()).encode()


def _read(topics: Path, qrels: Path, origin: str) -> SubsetData:
    return SubsetData(read_topics(topics), read_qrels(qrels).judgments, origin)


def synthetic_subset(code: str, *, count: int, max_label: int = 1, seed: int = 0) -> SubsetData:
    """MIRACL-shaped synthetic queries and ~10 judgments each, drawn with `seed` and numbered
    from `seed * QID_SPAN`; with `max_label` above 1, relevant documents get graded labels
    1..max_label (CLIRMatrix)."""
    with tempfile.TemporaryDirectory(prefix="cupboard-demo-") as folder:
        topics = synthetic.make_topics(Path(folder) / "topics.tsv", language=code, count=count, seed=seed)
        qrels = synthetic.make_qrels(Path(folder) / "qrels.tsv", language=code, count=count, seed=seed)
        data = _read(topics, qrels, "synthetic")
    if max_label > 1:
        rng = np.random.default_rng([seed, zlib.crc32(code.encode())])
        graded = {qid: {doc: int(rng.integers(1, max_label + 1)) if label else 0 for doc, label in docs.items()}
                  for qid, docs in data.judgments.items()}
        data = SubsetData(data.topics, graded, "synthetic")
    return _numbered_from(data, seed * QID_SPAN)


def _numbered_from(data: SubsetData, offset: int) -> SubsetData:
    def qid(old: str) -> str:
        return str(int(old) + offset)

    return SubsetData({qid(q): text for q, text in data.topics.items()},
                      {qid(q): docs for q, docs in data.judgments.items()}, data.origin)


def miracl_subset(code: str, *, data_dir: Path | None, count: int, seed: int = 0) -> SubsetData:
    """A MIRACL language's dev topics and qrels: real, sample or synthetic (in that order)."""
    folder = data_dir / "miracl-v1.0-dev" if data_dir else None
    if folder and (folder / f"topics.miracl-v1.0-{code}-dev.tsv").exists():
        return _read(folder / f"topics.miracl-v1.0-{code}-dev.tsv", folder / f"qrels.miracl-v1.0-{code}-dev.tsv",
                     "MIRACL v1.0 dev")
    if sample_path("topics", code).exists():
        return _read(sample_path("topics", code), sample_path("qrels", code), "MIRACL v1.0 dev sample")
    return synthetic_subset(code, count=count, seed=seed)


def mrtydi_subset(code: str, *, data_dir: Path | None, count: int, seed: int = 0) -> SubsetData:
    """A Mr. TyDi language's test topics and qrels: real, else synthetic."""
    folder = data_dir / "mrtydi-v1.1-test" if data_dir else None
    if folder and (folder / f"topics.mrtydi-v1.1-{code}.test.txt.gz").exists():
        return _read(folder / f"topics.mrtydi-v1.1-{code}.test.txt.gz", folder / f"qrels.mrtydi-v1.1-{code}.test.txt",
                     "Mr. TyDi v1.1 test")
    return synthetic_subset(code, count=count, seed=seed)
