import json

import pytest

from evaluator.cli import main


def test_it_compares_two_runs_per_language_with_both_tests(tmp_path, capsys):
    qrels = tmp_path / "qrels.miracl-v1.0-sw-dev.tsv"
    qrels.write_text("".join(f"q{i}\tQ0\t{i}#0\t1\n" for i in range(8)))
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    # good finds every query's relevant document first; bad finds it second in half the queries
    good.write_text("".join(f"q{i} Q0 {i}#0 1 2 a\nq{i} Q0 99#{i} 2 1 a\n" for i in range(8)))
    bad.write_text("".join(f"q{i} Q0 {i}#0 1 {1 if i % 2 else 3} b\nq{i} Q0 99#{i} 2 2 b\n" for i in range(8)))
    code = main(["compare", "--qrels", str(qrels), "--run-a", f"sw={good}", "--run-b", f"sw={bad}",
                 "--metrics", "RR@10", "--trials", "2000", "--seed", "4", "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    [row] = document["comparisons"]
    assert (row["subset"], row["metric"], row["a"], row["b"]) == ("sw", "RR@10", 1.0, 0.75)
    assert row["difference"] == 0.25 and row["queries"] == 8
    # 4 differences of 0.5 and 4 of 0: the exact two-sided permutation p is 2/16
    assert row["p_randomization"] == pytest.approx(2 / 16, abs=0.03)
    assert 0 < row["p_t"] < 0.1


def test_it_scores_whole_runs_for_a_measure_without_cutoff(tmp_path, capsys):
    """AP reads the whole run (the scoring depth's rule, as `score`): a relevant document at
    rank 150 counts, where the former fixed depth of 100 dropped it."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i}\tQ0\t{i}#0\t1\n" for i in range(4)))
    deep, shallow = tmp_path / "deep.txt", tmp_path / "shallow.txt"
    deep.write_text("".join(f"q{i} Q0 {'%d#0' % i if r == 150 else '9%d#%d' % (i, r)} {r} {1000 - r} a\n"
                            for i in range(4) for r in range(1, 201)))
    shallow.write_text("".join(f"q{i} Q0 9{i}#{r} {r} {1000 - r} b\n" for i in range(4) for r in range(1, 201)))
    code = main(["compare", "--benchmark", "generic", "--qrels", f"x={qrels}", "--run-a", f"x={deep}",
                 "--run-b", f"x={shallow}", "--metrics", "AP", "--trials", "100", "--format", "json"])
    assert code == 0
    [row] = json.loads(capsys.readouterr().out)["comparisons"]
    assert (row["a"], row["b"]) == (1 / 150, 0.0)


def test_it_refuses_a_measure_deeper_than_the_depth_given(tmp_path, capsys):
    assert main(["compare", "--qrels", "q.txt", "--run-a", "a.txt", "--run-b", "b.txt", "--metrics", "R@100",
                 "--depth", "10"]) == 2
    assert "R@100 looks deeper than the evaluation depth 10" in capsys.readouterr().err
