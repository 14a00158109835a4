"""`score --check`: pytrec_eval recomputes every score; float32 ties are told apart from
real disagreements (issue 12, and issue 16 item 8 on pytrec_eval's float32 scores)."""
import json

import numpy as np

from evaluator.cli import main
from evaluator.engines import check
from evaluator.engines.scoring import Evaluator
from evaluator.records import Qrels, Run

METRICS = ["nDCG@10", "RR", "AP", "R@100", "P@10", "Bpref", "Rprec", "NumRelRet", "ndcg", "Judged@10"]


def test_it_agrees_with_pytrec_eval_and_says_what_it_cannot_check(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 r\n1 Q0 a 2 2 r\n1 Q0 x 3 1 r\n2 Q0 y 1 1 r\n")
    code = main(["score", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"), "--metrics", ",".join(METRICS),
                 "--check", "--format", "json", "--workers", "1"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and not document["errors"]
    assert [w["message"][:9] for w in document["warnings"] if w["code"] == "check-skipped"] == ["Judged@10"]


def test_it_reports_a_float32_tie_as_a_warning_keeping_the_exact_value():
    qrels = Qrels({"1": {"a": 1, "b": 0}})
    run = Run(np.array(["1", "1"], dtype=object), np.array(["b", "a"], dtype=object), np.array([1.0, 1.00000001]))
    evaluator = Evaluator(qrels, ["RR"])
    assert evaluator.score(run).means["RR"] == 1.0  # trec_eval's value
    found = check.check_with_pytrec_eval(evaluator, qrels, run, file="r")
    assert [(p.code, p.severity) for p in found] == [("check-float32-ties", "warning")]


def test_it_fails_loudly_when_the_engines_disagree(monkeypatch):
    qrels = Qrels({"1": {"a": 1}})
    run = Run(np.array(["1"], dtype=object), np.array(["a"], dtype=object), np.array([1.0]))
    monkeypatch.setattr(check, "_in_child", lambda *args: {"1": {"recip_rank": 0.5}})
    found = check.check_with_pytrec_eval(Evaluator(qrels, ["RR"]), qrels, run, file="r")
    assert [(p.code, p.severity) for p in found] == [("check-differs", "error")]
    assert "pytrec_eval gives 0.5 for query '1', the evaluator 1.0" in found[0].message
