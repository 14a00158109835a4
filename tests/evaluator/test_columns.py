"""Runs and qrels kept as columns: the lazily made Python views match the columns, and
validating + scoring never imports pandas (pyarrow would, costing ~0.25 s per process)."""
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evaluator.io.columns import column, numbers, numbers_or, strings, take
from evaluator.io.qrels import read_qrels
from evaluator.records import Qrels, Run
from evaluator.synthetic import make_qrels, make_run, make_topics

NO_PANDAS = """
import sys
from evaluator.io.qrels import read_qrels
from evaluator.io.runs import read_run
from evaluator.engines.scoring import Evaluator
from evaluator.io.topics import read_topics
d = sys.argv[1]
run, report = read_run(d + "/r.txt", topics=read_topics(d + "/t.tsv"), docid_pattern="[0-9]+#[0-9]+")
assert report.ok, report.errors
print(Evaluator(read_qrels(d + "/q.tsv"), ["nDCG@10", "R@100"]).score(run).means["nDCG@10"])
assert "pandas" not in sys.modules, "pandas was imported"
"""


def test_it_validates_and_scores_without_importing_pandas(tmp_path):
    make_topics(tmp_path / "t.tsv", language="sw", count=30)
    make_qrels(tmp_path / "q.tsv", language="sw", count=30)
    make_run(tmp_path / "r.txt", language="sw", count=30, depth=120)
    done = subprocess.run([sys.executable, "-c", NO_PANDAS, str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert 0 < float(done.stdout) <= 1


def test_it_gives_a_run_built_from_columns_the_same_python_views():
    docids = strings(["d3", "d1", "d2"])
    run = Run.from_columns(names=np.array(["q1", "q2"], dtype=object), codes=np.array([1, 0, 0], np.int32),
                           docids=docids, scores=np.array([3.0, 2.0, 1.0]), tag="t")
    assert run.qids.tolist() == ["q2", "q1", "q1"] and run.docids.tolist() == ["d3", "d1", "d2"]
    assert len(run) == 3 and run.docid_array() is docids
    plain = Run(np.array(["q2", "q1", "q1"], dtype=object), np.array(["d3", "d1", "d2"], dtype=object),
                np.array([3.0, 2.0, 1.0]))
    names, codes = plain.query_codes()
    assert names[codes].tolist() == ["q2", "q1", "q1"]
    assert plain.docid_array().to_pylist() == ["d3", "d1", "d2"]


def test_it_reads_qrels_as_columns_that_match_the_judgments(tmp_path):
    path = make_qrels(tmp_path / "q.tsv", language="yo", count=40)
    qrels = read_qrels(path)
    expected = {}
    for line in path.read_text().splitlines():
        qid, _, docid, label = line.split()
        expected.setdefault(qid, {})[docid] = int(label)
    assert qrels.judgments == expected and list(qrels.judgments) == list(expected)
    assert len(qrels) == sum(map(len, expected.values())) and qrels.qids == list(expected)
    again = Qrels(expected).columns
    assert again.qids == qrels.columns.qids and again.labels.tolist() == qrels.columns.labels.tolist()


def test_it_moves_numbers_between_arrow_and_numpy_and_fills_nulls():
    values = np.arange(10, dtype=np.int64) * 3
    assert numbers(column(values)).tolist() == values.tolist()
    assert take(strings(list("abcdef")), np.array([5, 0])).to_pylist() == ["f", "a"]
    found = pc.index_in(strings(["x", "b", "y", "a"]), value_set=strings(["a", "b"]))
    assert numbers_or(found, -1).tolist() == [-1, 1, -1, 0]
    assert numbers_or(found.slice(1, 2), -1).tolist() == [1, -1]
    assert numbers(pa.chunked_array([column(values[:3]), column(values[3:])])).tolist() == values.tolist()
