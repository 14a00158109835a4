"""Pools and pool bias on hand-made runs and qrels whose answers can be checked by eye:
`evaluator.pooling` (top documents, pools, unique relevant) and Judged@k / Unjudged@k."""
import io

import pytest

from evaluator.engines.scoring import Evaluator
from evaluator.io.qrels import read_qrels
from evaluator.io.runs import read_run
from evaluator.pooling import Contribution, pool, top_documents, unique_relevant

QRELS = """\
1 0 a 1
1 0 b 0
1 0 c 2
2 0 x 1
2 0 y -1
"""


def qrels():
    return read_qrels(io.BytesIO(QRELS.encode()), name="qrels.txt")


def run(text: str, name: str = "run.txt"):
    parsed, report = read_run(io.BytesIO(text.encode()), name=name, strict=False)
    assert parsed is not None, report.errors
    return parsed


# Query 1: c (score 9), d (8), a (8: d > a, docids descending on a tie), e (1). Query 2: z, y.
RUN_A = "1 Q0 a 3 8 r\n1 Q0 c 1 9 r\n1 Q0 d 2 8 r\n1 Q0 e 4 1 r\n2 Q0 z 1 5 r\n2 Q0 y 2 4 r\n"
RUN_B = "1 Q0 a 1 9 r\n1 Q0 f 2 8 r\n2 Q0 x 1 5 r\n3 Q0 q 1 5 r\n"


def test_it_takes_the_top_documents_in_trec_eval_order_not_by_the_rank_column():
    assert top_documents(run(RUN_A), 3) == {"1": ["c", "d", "a"], "2": ["z", "y"]}
    assert top_documents(run(RUN_A), 1) == {"1": ["c"], "2": ["z"]}
    assert top_documents(None, 10) == {}
    with pytest.raises(ValueError):
        top_documents(run(RUN_A), 0)


def test_it_pools_the_union_of_the_top_documents_without_what_is_judged():
    tops = [top_documents(run(RUN_A), 3), top_documents(run(RUN_B), 3)]
    # judged: a, b, c (query 1), x and y (-1: looked at, so not sent again)
    assert pool(tops, judged=qrels()) == {"1": ["d", "f"], "2": ["z"], "3": ["q"]}
    assert pool(tops, judged=qrels(), queries=["1", "2"]) == {"1": ["d", "f"], "2": ["z"]}
    assert pool(tops) == {"1": ["a", "c", "d", "f"], "2": ["x", "y", "z"], "3": ["q"]}


def test_it_counts_relevant_documents_only_one_group_retrieved():
    tops_a, tops_b = top_documents(run(RUN_A), 3), top_documents(run(RUN_B), 3)
    found = unique_relevant({"Team A": [tops_a], "Team B": [tops_b]}, qrels())
    # relevant: a, c (query 1), x (query 2). A finds a and c; B finds a and x.
    assert found == [Contribution("Team A", 2, 1), Contribution("Team B", 2, 1)]
    # two runs of one team count together: a is found by both runs of A only
    assert unique_relevant({"Team A": [tops_a, tops_b]}, qrels()) == [Contribution("Team A", 3, 3)]
    # at level 2 only c is relevant
    assert unique_relevant({"A": [tops_a], "B": [tops_b]}, qrels(), relevance_level=2) == [
        Contribution("A", 1, 1), Contribution("B", 0, 0)]


def test_judged_and_unjudged_at_k_on_a_hand_made_run():
    # Query 1 top 5: c d a e (4 retrieved): judged c, a -> Judged@5 2/5; unjudged d, e -> 2/5.
    # Query 2 top 5: z y: y is judged -1 (trec_eval: not in the pool) -> Judged@5 1/5, Unjudged@5 2/5.
    metrics = ("Judged@5", "Unjudged@5", "unj_2")
    result = Evaluator(qrels(), list(metrics), depth=100).score(run(RUN_A))
    assert result.per_query["Judged@5"] == {"1": 2 / 5, "2": 1 / 5}
    assert result.per_query["Unjudged@5"] == {"1": 2 / 5, "2": 2 / 5}
    assert result.per_query["unj_2"] == {"1": 1 / 2, "2": 2 / 2}
