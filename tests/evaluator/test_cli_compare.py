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
