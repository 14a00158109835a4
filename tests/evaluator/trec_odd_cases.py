"""Inputs trec_eval scores that a competition refuses (issue 27, found 1): the generic profile
scores each as trec_eval does and warns with `code`; `--strict` refuses each with `refused`.

Each case is (name, qrels text, run text, warning code, error code under --strict).
"""
from __future__ import annotations

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 1\n2 0 d5 1\n3 0 d6 1\n"


def _run(tags=("r", "r", "r", "r", "r"), ranks=("1", "2", "3", "1", "2"), scores=("9", "8", "7", "5", "4"),
         docids=("d3", "d9", "d1", "d5", "d4"), qids=("1", "1", "1", "2", "2")) -> str:
    return "".join(f"{q} Q0 {d} {r} {s} {t}\n" for q, d, r, s, t in zip(qids, docids, ranks, scores, tags, strict=True))


LONG_QID, LONG_DOCID = "q" * 120, "doc-" + "x" * 140
ODD = [
    ("long-tag", QRELS, _run(tags=("a-run-tag-of-more-than-twenty-characters",) * 5), "", "bad-tag"),
    ("odd-tag", QRELS, _run(tags=("bm25+rm3/k=10",) * 5), "", "bad-tag"),
    ("concatenated-runs", QRELS, _run() + _run(tags=("other",) * 5, docids=("d7", "d8", "d2", "d10", "d11")),
     "several-tags", "several-tags"),
    ("ranks-as-floats", QRELS, _run(ranks=("1.0", "2.0", "3.0", "1.0", "2.0")), "odd-ranks", "bad-rank"),
    ("ranks-as-dashes", QRELS, _run(ranks=("-",) * 5), "odd-ranks", "bad-rank"),
    ("ranks-beyond-64-bits", QRELS, _run(ranks=(str(2**70), str(2**70 + 1), "3", "-" + str(2**64), "x")),
     "odd-ranks", "bad-rank"),
    ("long-docid", QRELS.replace("d3", LONG_DOCID), _run(docids=(LONG_DOCID, "d9", "d1", "d5", "d4")),
     "long-fields", "field-too-long"),
    ("long-qid", QRELS.replace("3 0 d6", f"{LONG_QID} 0 d6"), _run(qids=("1", "1", "1", LONG_QID, LONG_QID)),
     "long-fields", "field-too-long"),
    ("long-line", QRELS, _run().replace("1 Q0 d9 2 8 r\n", "1 Q0 d9 2 8 r " + "more " * 250 + "\n"),
     "long-lines", "line-too-long"),
    ("hex-scores", QRELS, _run(scores=("0x1.2p3", "0X8", "0x1p+2", "-0x.8", "-0x1P0")), "", "bad-score"),
    ("labels-atol", "1 0 d1 1.5\n1 0 d2 +1\n1 0 d3 2nd\n1 0 d9 x\n2 0 d4 -1.9\n2 0 d5 +2\n",
     _run(), "atol-labels", "bad-label"),
    ("qid-named-all", QRELS.replace("2 0", "all 0"), _run(qids=("1", "1", "1", "all", "all")), "", None),
]
