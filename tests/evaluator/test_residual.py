"""Residual collections (issue 34): documents judged for a topic in earlier rounds are removed
from a run before scoring (evaluator/residual.py). Every value must equal `trec_eval -q -c`
on the run file filtered as Anserini's filter_run_with_qrels filters it, here written
independently, line by line; documents below the removed ones move up into the scored depth."""
from __future__ import annotations

import contextlib
import io
import json
import random
import subprocess

import pytest

from evaluator.cli import main
from evaluator.io.qrels import read_qrels
from evaluator.io.runs import read_run
from evaluator.measures import trec_eval_measures
from evaluator.residual import residual_run

from .test_trec_eval_differential import TOLERANCE, _parse
from .trec_cases import MEASURES

SHALLOW = tuple(m for m in MEASURES if m != "recall_100")  # measures a depth of 10 or 20 can score
pytestmark = pytest.mark.usefixtures("run_reader")


def filtered(run_text: str, judged_texts: list[str]) -> str:
    """The run without the (qid, docid) pairs the judged qrels hold: the reference filter."""
    judged = {tuple(line.split()[0:3:2]) for text in judged_texts for line in text.splitlines() if line.strip()}
    return "".join(line + "\n" for line in run_text.splitlines() if tuple(line.split()[0:3:2]) not in judged)


def trec_eval_values(binary, qrels, run, *options: str, measures=MEASURES) -> dict:
    args = [arg for measure in trec_eval_measures(measures) for arg in ("-m", measure)]
    done = subprocess.run([str(binary), "-q", "-c", *options, *args, str(qrels), str(run)], capture_output=True,
                          timeout=60, check=True)
    return _parse(done.stdout.decode())


def ours(qrels, run, judged: list, *options: str, measures=MEASURES) -> dict:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["score", "--benchmark", "generic", "--qrels", str(qrels), "--run", str(run),
                     "--residual-qrels", *map(str, judged), "--metrics", ",".join(measures), "--format", "trec",
                     "--digits", "17", "--workers", "1", *options])
    assert code == 0, err.getvalue()
    return _parse(out.getvalue())


def assert_equal(got: dict, expected: dict) -> None:
    assert got.keys() == expected.keys(), sorted(got.keys() ^ expected.keys())[:5]
    wrong = {key: (got[key], expected[key]) for key in got if abs(got[key] - expected[key]) > TOLERANCE}
    assert not wrong, f"{len(wrong)} values differ, e.g. {list(wrong.items())[:3]}"


def synthetic_rounds(seed: int, topics: int = 12, docs: int = 60) -> tuple[str, list[str], str]:
    """(this round's qrels, earlier rounds' qrels, a run): a run retrieves many documents
    judged in earlier rounds near its top, as round-2 runs of TREC-COVID did."""
    rng = random.Random(seed)
    earlier: list[list[str]] = [[], []]
    current, run = [], []
    for t in range(1, topics + 1):
        pool = [f"doc{rng.randrange(200)}" for _ in range(docs)]
        pool = list(dict.fromkeys(pool))
        for i, doc in enumerate(pool):
            if i % 3 == 0:
                earlier[i % 2].append(f"{t} 0 {doc} {rng.choice((0, 1, 2))}\n")
            elif rng.random() < 0.6:
                current.append(f"{t} 0 {doc} {rng.choice((0, 0, 1, 2))}\n")
        for rank, doc in enumerate(pool, 1):
            run.append(f"{t} Q0 {doc} {rank} {round(100 - rank * rng.random(), 2)} r\n")
    return "".join(current), ["".join(part) for part in earlier], "".join(run)


@pytest.mark.parametrize("seed", range(6))
def test_residual_scores_equal_trec_eval_on_the_filtered_run(trec_eval, tmp_path, seed):
    current, earlier, run_text = synthetic_rounds(seed)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(current)
    run.write_text(run_text)
    judged = []
    for index, text in enumerate(earlier):
        judged.append(tmp_path / f"round{index + 1}.txt")
        judged[-1].write_text(text)
    reference = tmp_path / "residual-run.txt"
    reference.write_text(filtered(run_text, earlier))
    assert len(reference.read_text()) < len(run_text)  # something was removed
    assert_equal(ours(qrels, run, judged), trec_eval_values(trec_eval, qrels, reference))
    # a scored depth below the run's: the documents after the removed ones move up into it
    assert_equal(ours(qrels, run, judged, "--depth", "10", measures=SHALLOW),
                 trec_eval_values(trec_eval, qrels, reference, "-M", "10", measures=SHALLOW))


def test_residual_scores_equal_trec_eval_on_miracl(trec_eval, shared_data, tmp_path):
    """Real MIRACL sw judgments: a random half of them stand for round 1, the run ranks
    judged and unjudged passages together."""
    source = shared_data / "miracl-v1.0-dev" / "qrels.miracl-v1.0-sw-dev.tsv"
    lines = source.read_text().splitlines()
    rng = random.Random(34)
    round1 = "".join(line.replace("\t", " ") + "\n" for line in lines if rng.random() < 0.5)
    by_topic: dict[str, list[str]] = {}
    for line in lines:
        qid, _, docid, _ = line.split()
        by_topic.setdefault(qid, []).append(docid)
    run_text = "".join(f"{qid} Q0 {doc} {rank} {1000 - rank + rng.random():.6f} bm25\n"
                       for qid, docs in by_topic.items()
                       for rank, doc in enumerate(rng.sample(docs + [f"{rng.randrange(10**6)}#0" for _ in range(40)],
                                                             len(docs) + 40), 1))
    run, judged, reference = tmp_path / "run.txt", tmp_path / "round1.txt", tmp_path / "residual.txt"
    run.write_text(run_text)
    judged.write_text(round1)
    reference.write_text(filtered(run_text, [round1]))
    assert_equal(ours(source, run, [judged], "--depth", "20", measures=SHALLOW),
                 trec_eval_values(trec_eval, source, reference, "-M", "20", measures=SHALLOW))


def test_the_json_says_which_documents_were_removed(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 c 1\n")
    (tmp_path / "r1.txt").write_text("1 0 b 0\n2 0 a 1\n")
    (tmp_path / "run.txt").write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["score", "--qrels", str(tmp_path / "q.txt"), "--run", str(tmp_path / "run.txt"),
                     "--residual-qrels", str(tmp_path / "r1.txt"), "--metrics", "P@2", "--format", "json"])
    document = json.loads(out.getvalue())
    assert code == 0
    assert document["removed"] == {"default": {"1": ["b"]}}
    assert document["subsets"]["default"]["P@2"] == 1.0  # a and c are now ranks 1 and 2
    assert any(w["code"] == "residual" and "r1.txt" in w["message"] for w in document["warnings"])


def test_a_residual_run_keeps_its_order_and_reports_in_score_order():
    run, _ = read_run(io.BytesIO(b"q Q0 x 1 1.0 t\nq Q0 y 2 3.0 t\nq Q0 z 3 2.0 t\np Q0 x 1 1 t\n"), name="r",
                      keep_depth=1000)
    judged = read_qrels(io.BytesIO(b"q 0 x 0\nq 0 y 1\n"), name="j")
    residual, removed = residual_run(run, [judged], sources=["j"])
    assert removed.by_query == {"q": ["y", "x"]} and removed.count == 2
    assert list(zip(residual.qids, residual.docids, strict=True)) == [("q", "z"), ("p", "x")]


def test_a_bad_earlier_qrels_file_is_an_error_naming_its_line(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "r1.txt").write_text("1 0 b\n")
    (tmp_path / "run.txt").write_text("1 Q0 a 1 3 r\n")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["score", "--qrels", str(tmp_path / "q.txt"), "--run", str(tmp_path / "run.txt"),
                     "--residual-qrels", str(tmp_path / "r1.txt")])
    assert code == 1
    assert "r1.txt:1" in err.getvalue()
