"""The differential corpus: qrels and runs that trec_eval 10 and the evaluator must read and
score alike (or both refuse). Generated from a seed, plus the minimal cases of issue 16.

Each case is (name, qrels text, run text). Where the two knowingly part ways they are
left out, and docs/evaluator.md says how: a UTF-8 BOM (trec_eval makes it part of the
first qid; we strip it with a warning), blank lines in qrels, even of spaces only
(trec_eval refuses them; we skip them, as issue 16 asks), two `#` lines in a row in qrels (trec_eval reads the second as a judgment) or a `#` line
last (trec_eval reads past the end of the file and calls it malformed),
and scores trec_eval's atof takes but we refuse (`inf`, `3abc`). The inputs only a
competition refuses (long tags, odd ranks, `1.5` labels...) are in `trec_odd_cases.py`.
"""
from __future__ import annotations

import random

# trec_eval's names; the evaluator takes them as they are.
MEASURES = ("map", "ndcg", "ndcg_cut_5", "ndcg_cut_10", "recall_10", "recall_100", "P_5", "P_10",
            "recip_rank", "success_1", "success_10", "bpref", "Rprec", "num_rel_ret", "map_cut_10",
            "unj_5", "unj_10")

MINIMAL = [
    # 1. empty fields: trec_eval stops at "Malformed line"
    ("empty-docid", "1 0 d1 1\n1 0  1\n1 0 d2 1\n", "1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n"),
    ("empty-qid-tab", "1\t0\td1\t1\n\t0\td2\t1\n", "1 Q0 d1 1 3 r\n"),
    # 2. a comment line in qrels is skipped
    ("comment", "# judged by 3\n1 0 d1 1\n", "1 Q0 d1 1 3 r\n"),
    # 4. ndcg's ideal takes every relevant document, not only the first 100
    ("ndcg-ideal", "".join(f"1 0 d{i} 1\n" for i in range(150)),
     "".join(f"1 Q0 d{i} {i + 1} {1000 - i} r\n" for i in range(100))),
    # 5. relevant at ranks 1 and 150: AP 0.5067 at trec_eval's (unlimited) depth
    ("deep", "1 0 d0 1\n1 0 d149 1\n", "".join(f"1 Q0 d{i} {i + 1} {1000 - i} r\n" for i in range(200))),
    # 6. no run query is judged
    ("no-match", "1 0 d1 1\n2 0 d2 1\n", "01 Q0 d1 1 3 r\n02 Q0 d2 1 3 r\n"),
    # 7. blank lines in a run, trailing columns, CRLF, tabs and runs of spaces
    ("blank-run-lines", "1 0 d1 1\n", "1 Q0 d1 1 3 r\n\n\n"),
    ("odd-whitespace", "1\t0 \t d1  1 \r\n2 0 d2 1\r\n", " 1 \tQ0  d1 1 3 r extra words\r\n2 Q0 d2 1 1 r\n"),
    # 8. scores 1e-8 apart are not a tie (pytrec_eval's float32 makes them one)
    ("near-tie", "1 0 a 1\n1 0 b 0\n", "1 Q0 b 1 1.0 r\n1 Q0 a 2 1.00000001 r\n"),
    # both refuse
    ("run-five-columns", "1 0 d1 1\n", "1 Q0 d1 1 3\n"),
    ("qrels-five-columns", "1 0 d1 1 x\n", "1 Q0 d1 1 3 r\n"),
    ("run-duplicate-doc", "1 0 d1 1\n", "1 Q0 d1 1 3 r\n1 Q0 d1 2 2 r\n"),
    ("qrels-duplicate-doc", "1 0 d1 1\n1 0 d1 0\n", "1 Q0 d1 1 3 r\n"),
    ("empty-run", "1 0 d1 1\n", ""),
]


def _ids(rng: random.Random, n: int, style: str) -> list[str]:
    if style == "numeric":
        return [str(i) for i in rng.sample(range(1, 10 * n + 10), n)]
    if style == "padded":
        return [f"{i:03d}" for i in rng.sample(range(1, 10 * n + 10), n)]
    if style == "unicode":
        return [f"q{i}é" if i % 2 else f"д{i}" for i in rng.sample(range(1, 10 * n + 10), n)]
    return [f"FBIS{rng.randint(1, 9)}-{i}" for i in rng.sample(range(1, 100 * n + 10), n)]


def _join(rng: random.Random, fields: list[str], odd: bool) -> str:
    if not odd:
        return " ".join(fields)
    line = "".join(f + rng.choice([" ", "\t", "  ", " \t "]) for f in fields[:-1]) + fields[-1]
    return rng.choice(["", " ", "\t"]) + line + rng.choice(["", " ", "\r"])


def generated_case(seed: int) -> tuple[str, str, str]:
    """One random well-formed collection: graded or binary labels (some negative), ties,
    unjudged documents, queries missing on either side, odd whitespace in some cases."""
    rng = random.Random(seed)
    odd = rng.random() < 0.3
    tidy = not odd and rng.random() < 0.5  # as toolkits write runs: by query, scores falling, no ties
    qids = _ids(rng, rng.randint(1, 6), rng.choice(["numeric", "padded", "unicode", "trec"]))
    labels = rng.choice([(0, 1), (0, 1, 2, 3), (-1, 0, 1, 2)])
    pool = _ids(rng, rng.randint(5, 400), rng.choice(["numeric", "trec", "unicode"]))
    qrels, run = [], []
    for qid in qids:
        if rng.random() < 0.9:  # a few run-only queries
            for docid in rng.sample(pool, rng.randint(1, min(len(pool), 160))):
                qrels.append(_join(rng, [qid, rng.choice(["0", "Q0"]), docid, str(rng.choice(labels))], odd))
            if odd and rng.random() < 0.3:
                qrels.append("# a comment")
        if rng.random() < 0.85:  # a few judged queries the run lacks
            depth = rng.randint(1, len(pool))
            scale = rng.choice([1, 3, 1000])  # few distinct scores: many ties
            tidy_scores = sorted(rng.sample(range(10**6), depth), reverse=True)
            for rank, docid in enumerate(rng.sample(pool, depth), start=1):
                score = tidy_scores[rank - 1] / 7 if tidy else rng.randint(0, scale) / rng.choice([1, 7, 3.5])
                fields = [qid, "Q0", docid, str(rank), repr(score), "run"]
                if odd and rng.random() < 0.1:
                    fields.append("trailing")
                run.append(_join(rng, fields, odd))
                if odd and rng.random() < 0.02:
                    run.append(rng.choice(["", "   "]))
    while qrels and qrels[-1].startswith("#"):
        qrels.pop()  # trec_eval reads past a last `#` line and calls the file malformed
    if not tidy:
        rng.shuffle(run)
    return f"seed-{seed}", "\n".join(qrels) + "\n", "\n".join(run) + ("\n" if run else "")
