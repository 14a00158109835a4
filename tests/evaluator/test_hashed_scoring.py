"""Scoring without pyarrow: qrels and runs from the compiled reader carry docids as numpy
`Texts` with 64-bit hashes, and the scorer matches rows to judgments by (query, hash), each
match confirmed on the docid bytes, and orders tied scores by docid with numpy. Every value
must equal the Arrow path's (the numpy/pyarrow reader, `run_reader`'s "numpy" case)."""
import random

import numpy as np
import pytest

from evaluator.engines.scoring import Evaluator
from evaluator.io import compiled, validation_fast
from evaluator.io.qrels import read_qrels
from evaluator.io.runs import read_run
from evaluator.io.texts import Texts, join, same_values, sorted_descending
from evaluator.records import JudgedColumns, Qrels, Run

METRICS = ["ndcg_cut_10", "ndcg", "recall_20", "map", "P_10", "recip_rank", "bpref", "success_10"]
needs_compiled = pytest.mark.skipif(compiled.BUILT is None, reason="the C reader is not built")


def write_collection(tmp_path, seed: int):
    """Qrels and a run over the same docids: tied scores, queries out of order and split,
    docids that are prefixes of each other and non-ASCII (in the run), queries the qrels lack."""
    rng = random.Random(seed)
    judged = [f"d{n}" for n in range(40)] + [f"d{n}x" for n in range(10)]
    docs = judged + ["é1", "é10", "ü"]  # the C reader takes ASCII qrels only; a run's other blocks are read exactly
    qrels = "".join(f"q{q} 0 {d} {rng.choice((0, 1, 2, 2))}\n" for q in range(30) for d in rng.sample(judged, 12))
    lines = []
    for q in rng.sample(range(34), 34):
        for rank, d in enumerate(rng.sample(docs, rng.randint(1, 30)), start=1):
            lines.append(f"q{q} Q0 {d} {rank} {rng.choice((1.5, 2.0, 3.25, rng.random()))} tag\n")
    rng.shuffle(lines)
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "run.txt").write_text("".join(lines), encoding="utf-8")
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


def scored(qrels_path, run_path):
    qrels = read_qrels(qrels_path, strict=False)
    run, report = read_run(run_path, strict=False, threads=1)
    assert run is not None, report.errors
    evaluator = Evaluator(qrels, METRICS, depth=20)
    return evaluator, {k: v.tolist() for k, v in evaluator.per_query_arrays(run).items()}


@needs_compiled
@pytest.mark.parametrize("seed", range(6))
def test_the_numpy_path_scores_what_the_arrow_path_scores(tmp_path, monkeypatch, seed):
    paths = write_collection(tmp_path, seed)
    evaluator, hashed = scored(*paths)
    assert evaluator.index.hashed
    monkeypatch.setattr(compiled, "COMPILED", None)
    evaluator, arrow = scored(*paths)
    assert not evaluator.index.hashed
    assert hashed == arrow
    assert any(v > 0 for v in hashed["ndcg"])  # matches were found, not only misses


@needs_compiled
def test_a_docid_whose_hash_collides_with_a_judged_one_is_not_judged():
    """No short collision of the 64-bit hash is known, so one is made: run docid `zz` is
    given the hash of judged `d1`. The match is refused on the bytes; `d1` itself is found."""
    judged = Texts.from_strings(["d1", "d2"])
    hashes = validation_fast.docid_hashes(judged)
    qrels = Qrels(columns=JudgedColumns(["q"], np.zeros(2, np.int64), judged, np.array([1, 1]), hashes))
    evaluator = Evaluator(qrels, ["P_10", "recall_10"], depth=10)
    run = Run.from_columns(names=np.array(["q"], object), codes=np.zeros(2, np.int32),
                           docids=Texts.from_strings(["zz", "d2"]), scores=np.array([2.0, 1.0]),
                           hashes=np.array([hashes[0], hashes[1]], np.uint64))
    assert evaluator.index.hashed
    values = evaluator.per_query_arrays(run)
    assert values["P_10"].tolist() == [0.1] and values["recall_10"].tolist() == [0.5]


def test_tied_docids_sort_in_byte_order_descending_within_each_group():
    rng = random.Random(3)
    values = ["".join(rng.choice("ab\u00e9\u4e2d") for _ in range(rng.randint(1, 4))) for _ in range(300)]
    groups = np.array(sorted(rng.randrange(20) for _ in values))
    order = sorted_descending(groups, Texts.from_strings(values))
    expected = sorted(range(len(values)), key=lambda i: (-groups[i], values[i].encode()), reverse=True)
    got = [(int(groups[i]), values[i]) for i in order]
    assert got == [(int(groups[i]), values[i]) for i in expected]
    assert sorted_descending(np.zeros(2, np.int64), Texts.from_strings(["a\x00", "a"])) is None  # NULs: Arrow's job


def test_texts_join_take_and_compare_as_strings():
    a, b = Texts.from_strings(["x", "", "yz"]), Texts.from_strings(["é", "yz"])
    joined = join([a, b.take(np.array([1, 0]))])
    assert joined.to_pylist() == ["x", "", "yz", "yz", "é"]
    assert joined.arrow().to_pylist() == joined.to_pylist()
    assert Texts.from_arrow(joined.arrow()).to_pylist() == joined.to_pylist()
    assert same_values(joined, np.array([2, 0, 4, 1]), b, np.array([1, 1, 0, 0])).tolist() == [True, False, True, False]


@needs_compiled
def test_a_run_made_in_python_with_ties_is_ranked_as_trec_eval_ranks(tmp_path):
    """A Run not from the reader (Arrow docids, no hashes, tied scores out of docid order)
    scored on the hashed index: ties ordered by numpy, hashes computed on the way."""
    qrels_path, _ = write_collection(tmp_path, 9)
    qrels = read_qrels(qrels_path)
    rng = random.Random(9)
    rows = [(f"q{q}", f"d{d}", rng.choice((1.0, 2.0))) for q in range(30) for d in rng.sample(range(40), 25)]
    rng.shuffle(rows)
    run = Run(*(np.array(column, dtype=object) for column in zip(*rows, strict=True)))
    run.scores = run.scores.astype(np.float64)
    hashed, plain = Evaluator(qrels, METRICS, depth=20), Evaluator(Qrels(qrels.judgments), METRICS, depth=20)
    assert hashed.index.hashed and not plain.index.hashed
    assert ({k: v.tolist() for k, v in hashed.per_query_arrays(run).items()}
            == {k: v.tolist() for k, v in plain.per_query_arrays(run).items()})
