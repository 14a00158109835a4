import pytest

from evaluator.aggregate import group_means

GROUPS = {"known": ["sw", "te", "yo-not-here"], "surprise": ["de"], "all": ["sw", "te", "yo-not-here", "de"]}
VALUES = {"sw": {"nDCG@10": 0.5, "R@100": 0.9}, "te": {"nDCG@10": 0.2, "R@100": 0.6}, "de": {"nDCG@10": 0.4}}


def test_it_averages_languages_with_equal_weight_and_missing_as_zero():
    means = group_means(VALUES, GROUPS)
    assert means["known"]["nDCG@10"] == pytest.approx((0.5 + 0.2 + 0) / 3)
    assert means["surprise"] == {"nDCG@10": 0.4, "R@100": 0.0}
    assert means["all"]["R@100"] == pytest.approx((0.9 + 0.6) / 4)


def test_it_marks_a_group_incomplete_when_asked():
    means = group_means(VALUES, GROUPS, missing="incomplete")
    assert means["known"] == {"nDCG@10": None, "R@100": None}
    assert means["surprise"] == {"nDCG@10": 0.4, "R@100": None}
    complete = group_means(VALUES, {"pair": ["sw", "te"]}, missing="incomplete")
    assert complete["pair"]["nDCG@10"] == pytest.approx(0.35)


def test_it_gives_none_for_an_empty_group_and_rejects_unknown_rules():
    assert group_means(VALUES, {"none": []}) == {"none": {"nDCG@10": None, "R@100": None}}
    with pytest.raises(ValueError, match="missing must be"):
        group_means(VALUES, GROUPS, missing="skip")


def test_it_does_not_change_its_input():
    before = {k: dict(v) for k, v in VALUES.items()}
    group_means(VALUES, GROUPS)
    assert VALUES == before
