import pytest

from evaluator.measures import Metric, parse_metric


@pytest.mark.parametrize("name, family, cutoff", [
    ("nDCG@10", "nDCG", 10), ("R@100", "R", 100), ("RR@100", "RR", 100), ("MRR@100", "RR", 100),
    ("RR@10", "RR", 10), ("AP", "AP", None), ("AP@5", "AP", 5), ("P@20", "P", 20), ("Success@5", "Success", 5),
    ("R@1", "R", 1), ("R@50", "R", 50), ("Judged@10", "Judged", 10), ("ndcg@10", "nDCG", 10),
    ("MAP", "AP", None), ("RR", "RR", None),
])
def test_it_parses_the_names_ir_people_write(name, family, cutoff):
    metric = parse_metric(name)
    assert (metric.family, metric.cutoff) == (family, cutoff)


@pytest.mark.parametrize("name, canonical", [
    ("ndcg_cut_10", "nDCG@10"), ("recall_100", "R@100"), ("recip_rank", "RR"), ("map", "AP"),
    ("map_cut_10", "AP@10"), ("P_5", "P@5"), ("success_10", "Success@10"),
])
def test_it_accepts_trec_eval_names(name, canonical):
    assert str(parse_metric(name)) == canonical


def test_it_reads_parameters_and_prints_a_canonical_name():
    assert parse_metric("P(rel=2)@10") == Metric("P", 10, rel=2)
    assert parse_metric("nDCG(gain=exp)@10") == Metric("nDCG", 10, gain="exp")
    assert parse_metric("nDCG(dcg='exp-log2')@10") == Metric("nDCG", 10, gain="exp")
    assert str(parse_metric(" MRR@100 ")) == "RR@100"
    assert str(parse_metric("P(rel=2)@10")) == "P(rel=2)@10"


@pytest.mark.parametrize("name, why", [
    ("nDCG@", "expected NAME"), ("BLEU@4", "no metric called 'BLEU'"), ("P", "P needs a cutoff"),
    ("Judged", "Judged needs a cutoff"), ("Success", "needs a cutoff"), ("R@0", "at least 1"),
    ("nDCG(rel=2)@10", "takes no parameter 'rel'"), ("nDCG(gain=cube)@10", "gain must be"),
    ("P(rel=high)@10", "rel must be an integer"), ("", "expected NAME"),
])
def test_it_rejects_unknown_names_with_a_clear_message(name, why):
    with pytest.raises(ValueError, match="unknown metric") as error:
        parse_metric(name)
    assert why in str(error.value)
