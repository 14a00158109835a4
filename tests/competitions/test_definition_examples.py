"""The reference's examples (docs/definition.md shows them in full) hold the tasks they are
named after, loaded as a competition: CIRAL-like (four African languages, one average,
nDCG@20 and R@100), NeuCLIR-like (three languages, graded labels, English and native topics) and TREC DL-like (one
collection, deep measures scored whole)."""
import pytest

from cupboard.competitions.definition import EXAMPLES_DIR
from cupboard.competitions.services import competition_load

pytestmark = pytest.mark.django_db


def _load(name: str):
    competition = competition_load(data=EXAMPLES_DIR / f"{name}.yaml")
    subsets = list(competition.subsets.order_by("position", "code").values_list("code", "group__label"))
    return competition, subsets


def test_the_ciral_like_example():
    competition, subsets = _load("ciral-like")
    assert competition.benchmark == "generic"
    assert subsets == [("ha", "Avg"), ("so", "Avg"), ("sw", "Avg"), ("yo", "Avg")]
    assert competition.metrics == ["nDCG@20", "R@100"] and competition.scored_depth() == 100


def test_the_neuclir_like_example():
    competition, subsets = _load("neuclir-like")
    assert subsets == [("fa", "Avg"), ("ru", "Avg"), ("zh", "Avg")]
    assert competition.metrics == ["nDCG@20", "R@1000", "AP"] and competition.relevance_level == 1
    assert competition.scored_depth() == 1000
    assert [v["code"] for v in competition.topic_variants] == ["en", "native"]  # English and native topics


def test_the_trec_dl_like_example():
    competition, subsets = _load("trec-dl-like")
    assert subsets == [("passages", "Avg")]
    assert competition.metrics == ["nDCG@10", "R@1000", "AP", "RR@10"] and competition.relevance_level == 2
    assert competition.scored_depth() == 1000  # AP has no cutoff: whole runs, as trec_eval -c


def test_the_trec_covid_like_example():
    """Three rounds; rounds 2 and 3 scored on the residual collection (docs/campaign.md)."""
    competition, subsets = _load("trec-covid-like")
    assert subsets == [("docs", "Avg")]
    phases = {p.slug: p for p in competition.phases.all()}
    assert [phases[s].residual_of for s in ("round-1", "round-2", "round-3")] == [None, ["round-1"],
                                                                                  ["round-1", "round-2"]]
    assert all(p.assessor_fields == ["question", "narrative"] for p in phases.values())
    assert [p.is_final for p in competition.phases.order_by("position")] == [False, False, True]
    assert [p.has_official_results for p in competition.phases.order_by("position")] == [True, True, True]
