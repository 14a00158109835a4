"""Assessor agreement (evaluator/agreement.py): Cohen's kappa and Krippendorff's alpha on the
worked examples of the literature, and against a second implementation on seeded data
(scikit-learn's cohen_kappa_score, the `krippendorff` package; both in the dev extras)."""
from __future__ import annotations

import math
import random

import pytest

from evaluator.agreement import cohen_kappa, krippendorff_alpha

# Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), section C: four
# observers, twelve units, values 1-5, missing values (None). His results: nominal 0.743,
# ordinal 0.815, interval 0.849.
_ = None
OBSERVERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
    [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
]
UNITS = list(zip(*OBSERVERS, strict=True))


@pytest.mark.parametrize(("level", "expected"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_it_gives_krippendorffs_own_values_on_his_example_with_missing_values(level, expected):
    assert round(krippendorff_alpha(UNITS, level=level), 3) == expected


def test_it_gives_krippendorffs_value_for_two_observers_and_binary_data():
    # Same paper, section A: two observers, ten units, 0/1: alpha = 0.095.
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert round(krippendorff_alpha(zip(a, b, strict=True)), 3) == 0.095


def test_it_gives_cohens_kappa_of_the_textbook_table():
    # 50 items: both yes 20, A yes B no 5, A no B yes 10, both no 15 -> p_o 0.7, p_e 0.5, kappa 0.4.
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_it_says_undefined_when_nobody_varies_and_perfect_when_they_agree():
    assert math.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))
    assert math.isnan(krippendorff_alpha([(1, 1), (1, 1)]))
    assert math.isnan(krippendorff_alpha([(1, None), (2, None)]))  # nothing pairable
    assert cohen_kappa([0, 1, 2, 1], [0, 1, 2, 1]) == 1.0
    assert krippendorff_alpha([(0, 0), (1, 1), (2, 2)], level="ordinal") == 1.0


def test_it_refuses_what_it_cannot_pair():
    with pytest.raises(ValueError, match="3 and 2 items"):
        cohen_kappa([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="no items"):
        cohen_kappa([], [])
    with pytest.raises(ValueError, match="unknown level 'ratio'"):
        krippendorff_alpha(UNITS, level="ratio")


def test_it_agrees_with_scikit_learn_on_seeded_labels():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(25)
    for trial in range(40):
        n = rng.randint(2, 60)
        labels = range(rng.randint(2, 4))
        a = [rng.choice(labels) for _ in range(n)]
        b = [x if rng.random() < 0.6 else rng.choice(labels) for x in a]
        ours, theirs = cohen_kappa(a, b), metrics.cohen_kappa_score(a, b)
        assert (math.isnan(ours) and math.isnan(theirs)) or ours == pytest.approx(theirs, abs=1e-12), trial


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_it_agrees_with_the_krippendorff_package_on_seeded_graded_labels(level):
    krippendorff = pytest.importorskip("krippendorff")
    rng = random.Random(f"alpha-{level}")
    for trial in range(25):
        raters, units = rng.randint(2, 5), rng.randint(3, 40)
        truth = [rng.randint(0, 3) for _ in range(units)]
        data = [[None if rng.random() < 0.3 else (t if rng.random() < 0.7 else rng.randint(0, 3)) for t in truth]
                for _ in range(raters)]
        matrix = [[math.nan if v is None else v for v in row] for row in data]
        pairable = sum(sum(v is not None for v in unit) >= 2 for unit in zip(*data, strict=True))
        if pairable == 0:
            continue
        ours = krippendorff_alpha(zip(*data, strict=True), level=level)
        theirs = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert (math.isnan(ours) and math.isnan(theirs)) or ours == pytest.approx(theirs, abs=1e-9), trial
