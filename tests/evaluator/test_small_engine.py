"""The pure-Python engine (evaluator.engines.small) and the vectorised one agree: fed the same
random and malformed files, the small engine either declines (and the vectorised one
reads the file, reporting any problem) or gives the same report and the same scores. Every
test runs twice: with the small engine's lines split by the compiled reader, and by its
bytes operations alone (as where no C compiler built the reader)."""
import random

import pytest

from evaluator.benchmarks import get_benchmark
from evaluator.engines import small
from evaluator.engines.jobs import Job, Scoring
from evaluator.engines.parallel import score_job
from evaluator.engines.small import score_small_job
from evaluator.io import compiled

from .trec_cases import MEASURES

SCORING = Scoring(MEASURES + ("Judged@10", "nDCG(gain=exp)@10", "P(rel=2)@5", "RR@10"), depth=100, max_depth=140,
                  strict=False)
TOPICS = "".join(f"q{i}\tquery {i}\n" for i in range(8))


@pytest.fixture(autouse=True, params=["compiled", "pure"])
def reader(request, monkeypatch):
    """The small engine's way of splitting lines for this test."""
    if request.param == "compiled" and compiled.COMPILED is None:
        pytest.skip("the compiled reader is not built here")
    if request.param == "pure":
        monkeypatch.setattr(compiled, "COMPILED", None)
    return request.param

# Ways to spoil one line of a good run; each must be declined or read the same by both.
SPOIL = [
    lambda f: f[:5], lambda f: f + ["extra"], lambda f: [f[0], "", *f[1:]],
    lambda f: [*f[:4], "nan", f[5]], lambda f: [*f[:4], "1_0", f[5]], lambda f: [*f[:4], "1e999", f[5]],
    lambda f: [*f[:3], "99999999999999999999", *f[4:]], lambda f: [*f[:3], "-3", *f[4:]],
    lambda f: [*f[:5], "other"], lambda f: [*f[:5], "bad+tag"], lambda f: [f[0], f[1], "é" + f[2], *f[3:]],
    lambda f: ["#" + f[0], *f[1:]], lambda f: [f[0], f[1], "d" * 101, *f[3:]], lambda f: ["q99", *f[1:]],
    lambda f: [*f[:4], f[4] + "0", f[5]], lambda f: [*f[:3], "0" + f[3], *f[4:]], lambda f: [f[0], "0", *f[2:]],
]


def good_run(rng: random.Random) -> list[list[str]]:
    lines = []
    for q in rng.sample(range(8), rng.randint(1, 8)):
        docs = rng.sample(range(150), rng.randint(1, 140))
        scores = sorted(rng.sample(range(10**6), len(docs)), reverse=True)
        lines += [[f"q{q}", "Q0", f"d{d}", str(rank), str(s / 13), "run"] for rank, (d, s) in enumerate(zip(docs, scores, strict=True), 1)]
    return lines


def qrels_text(rng: random.Random) -> str:
    return "".join(f"q{q} 0 d{d} {rng.choice([-1, 0, 1, 2, 3])}\n" for q in range(7) for d in rng.sample(range(150), 30))


def job_of(tmp_path, qrels: str, run: str, topics: bool) -> Job:
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_bytes(run.encode())
    (tmp_path / "t").write_text(TOPICS)
    return Job("x", str(tmp_path / "q"), str(tmp_path / "r"), str(tmp_path / "t") if topics else None)


def both(tmp_path, qrels: str, run: str, *, topics: bool):
    job = job_of(tmp_path, qrels, run, topics)
    return score_small_job(job, scoring=SCORING), score_job(job, scoring=SCORING, threads=1)


def same(small, big) -> None:
    assert big.errors == () and small.report == big.report and small.warnings == big.warnings
    assert small.result.means.keys() == big.result.means.keys()
    for metric, value in big.result.means.items():
        assert small.result.means[metric] == pytest.approx(value, abs=1e-12), metric
        for qid, v in big.result.per_query[metric].items():
            assert small.result.per_query[metric][qid] == pytest.approx(v, abs=1e-12), (metric, qid)


@pytest.mark.parametrize("seed", range(40))
def test_it_reads_and_scores_good_runs_as_the_vectorised_engine(tmp_path, seed):
    rng = random.Random(seed)
    run = "".join(" ".join(line) + "\n" for line in good_run(rng))
    small, big = both(tmp_path, qrels_text(rng), run, topics=seed % 2 == 0)
    assert small is not None, "a plain run must take the pure-Python path"
    same(small, big)


def spoilt(seed: int) -> tuple[str, str, bool]:
    """(qrels, run, with topics): a good run with 0-2 lines spoilt, odd whitespace in some."""
    rng = random.Random(seed)
    lines = good_run(rng)
    for _ in range(rng.choice([0, 1, 1, 2])):
        at = rng.randrange(len(lines))
        lines[at] = rng.choice(SPOIL)(lines[at])
    odd = rng.random() < 0.3  # odd separators and line ends in some lines
    run = "".join(rng.choice([" "] * 20 + ["  ", "\t"] if odd else [" "]).join(line)
                  + rng.choice(["\n"] * 30 + ["\r\n", " \n", "\n\n"] if odd else ["\n"]) for line in lines)
    if rng.random() < 0.2:
        run += " ".join(lines[0]) + "\n"  # a duplicate
    return qrels_text(rng), run, seed % 3 == 0


SPOILT = range(120)


@pytest.mark.parametrize("seed", SPOILT)
def test_it_declines_or_agrees_on_spoilt_runs(tmp_path, seed):
    qrels, run, topics = spoilt(seed)
    small, big = both(tmp_path, qrels, run, topics=topics)
    if small is not None:
        same(small, big)


def test_the_small_engine_takes_some_spoilt_runs(tmp_path):
    """Else the test above would compare nothing."""
    taken = [seed for seed in SPOILT if score_small_job(job_of(tmp_path, *spoilt(seed)), scoring=SCORING) is not None]
    assert len(taken) >= 10, taken


def test_a_small_collection_is_scored_without_importing_numpy_or_pyarrow(tmp_path):
    import subprocess
    import sys

    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "r").write_text("1 Q0 d2 1 2.5 run\n1 Q0 d1 2 1.5 run\n")
    script = ("import sys; from evaluator.cli import main; "
              f"code = main(['score', '--qrels', {str(tmp_path / 'q')!r}, '--run', {str(tmp_path / 'r')!r}]); "
              "print(code, 'numpy' in sys.modules, 'pyarrow' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "0 False False"


def test_both_engines_store_one_exact_mean_summed_in_qid_order(tmp_path):
    """Judged@10 of these 16 queries is 0.525 summed in qid order (trec_eval's), but
    0.5249999999999999 summed pairwise (numpy) or in file order: rounded, 0.53 or 0.52."""
    judged = [9, 1, 4, 1, 7, 7, 7, 10, 6, 3, 1, 7, 0, 6, 6, 9]
    qids = [str(i) for i in range(16)]
    qrels = "".join(f"{q} 0 d{d} 1\n" for q, k in zip(qids, judged, strict=True) for d in range(k))
    qrels += "".join(f"{q} 0 unretrieved 0\n" for q in qids)
    run = "".join(f"{q} Q0 d{d} {d + 1} {20 - d} run\n" for q in reversed(qids) for d in range(10))
    small, big = both(tmp_path, qrels, run, topics=False)
    in_qid_order = 0.0
    for qid in sorted(qids):
        in_qid_order += big.result.per_query["Judged@10"][qid]
    assert small.result.means["Judged@10"] == big.result.means["Judged@10"] == in_qid_order / 16 == 0.525


def test_lines_of_seven_and_five_fields_are_declined_not_read_as_two_of_six(tmp_path):
    """Split as one list, `q Q0 d1 1 3.0 run q` + `Q0 d2 2 2.0 run` reads as two good lines:
    the field and space counts of the whole file are those of two six-field lines. Each line
    is checked on its own, so the small engine declines and the vectorised one says what is
    wrong (main's small engine scored this file: nDCG@10 1.0, no problem reported)."""
    job = job_of(tmp_path, "q 0 d1 1\nq 0 d2 0\n", "q Q0 d1 1 3.0 run q\nQ0 d2 2 2.0 run\n", False)
    assert score_small_job(job, scoring=SCORING) is None
    big = score_job(job, scoring=SCORING, threads=1)
    assert [(p.code, p.line) for p in big.errors] == [("columns", 2)]
    assert [(p.code, p.line) for p in big.warnings] == [("extra-columns", 1)]


@pytest.mark.parametrize("seed", range(10))
def test_the_compiled_reader_and_the_bytes_operations_split_good_runs_alike(seed, reader):
    if reader == "pure":
        pytest.skip("compares the two")
    data = "".join(" ".join(line) + "\n" for line in good_run(random.Random(seed))).encode()
    by_c, split = small._compiled_ranked(data, compiled.COMPILED, 140), small._split_ranked(data, 140)
    assert by_c is not None and by_c == split and by_c[2] == b"run"
    assert sum(map(len, by_c[0].values())) == by_c[1] == data.count(b"\n")


def validated(tmp_path, capsys, run: bytes, *, gzipped: bool, topics: bool) -> dict:
    """`validate --format json` of the run, file names left out; gzip sends it to the full reader."""
    import gzip
    import json

    from evaluator.cli import main

    path = tmp_path / ("run.gz" if gzipped else "run.txt")
    path.write_bytes(gzip.compress(run) if gzipped else run)
    (tmp_path / "t").write_text(TOPICS)
    code = main(["validate", "--benchmark", "generic", "--format", "json", "--max-depth", "140",
                 "--run", f"x={path}", *(["--topics", f"x={tmp_path / 't'}"] if topics else [])])
    document = json.loads(capsys.readouterr().out)
    for entry in document["errors"] + document["warnings"] + document["runs"]:
        entry.pop("file")
    return {"exit": code, **document}


@pytest.mark.parametrize("seed", range(0, 120, 4))
def test_validate_reads_small_runs_as_the_full_reader_does(tmp_path, capsys, seed):
    """validate takes a small plain run through the small engine's reader (no numpy): it
    declines or says what the full reader says of the same lines (here gzipped)."""
    from evaluator.cli.common import Inputs
    from evaluator.cli.validate import read_small_run

    _, run, topics = spoilt(seed)
    small = validated(tmp_path, capsys, run.encode(), gzipped=False, topics=topics)
    assert small == validated(tmp_path, capsys, run.encode(), gzipped=True, topics=topics)
    good = "".join(" ".join(line) + "\n" for line in good_run(random.Random(seed))).encode()
    (tmp_path / "good.txt").write_bytes(good)
    taken = read_small_run(Inputs(get_benchmark("generic"), strict=False), f"x={tmp_path / 'good.txt'}", max_depth=140)
    assert taken is not None and taken["documents"] == good.count(b"\n")


GOOD = ["q1 Q0 a 1 3.5 run", "q1 Q0 b 2 2.5 run", "q1 Q0 c 3 1.5 run", "q2 Q0 a 1 9 run", "q2 Q0 d 2 8 run"]
NOT_PLAIN = {  # what the small engine declines, grouped in C or by the bytes operations
    "a tie": ["q1 Q0 a 1 3.5 run", "q1 Q0 b 2 3.5 run"],
    "a docid twice": ["q1 Q0 a 1 3.5 run", "q1 Q0 a 2 2.5 run"],
    "a query back after another": [*GOOD, "q1 Q0 z 4 0.5 run"],
    "scores rising": ["q1 Q0 a 1 1.5 run", "q1 Q0 b 2 2.5 run"],
    "ranks falling": ["q1 Q0 a 2 3.5 run", "q1 Q0 b 1 2.5 run"],
    "a score past float": ["q1 Q0 a 1 1e999 run", "q1 Q0 b 2 2.5 run"],
    "past the depth limit": [f"q1 Q0 d{i} {i} {100 - i} run" for i in range(1, 5)],
}


@pytest.mark.parametrize("case", NOT_PLAIN)
def test_it_declines_runs_that_are_not_plainly_ordered(tmp_path, case, reader):
    (tmp_path / "r").write_text("\n".join(NOT_PLAIN[case]) + "\n")
    if reader == "compiled":  # declined by group_ranked itself, not only by the bytes operations after it
        assert small._compiled_ranked((tmp_path / "r").read_bytes(), compiled.COMPILED, 3) is None
    assert small.read_plain_run(str(tmp_path / "r"), topics=None, docid_pattern=None, max_depth=3, strict=False) is None


def test_it_groups_a_plain_run_by_query_in_file_order(tmp_path):
    (tmp_path / "r").write_text("\n".join(GOOD) + "\n")
    ranked, report = small.read_plain_run(str(tmp_path / "r"), topics=None, docid_pattern=None, max_depth=3,
                                          strict=False)
    assert ranked == {"q1": [b"a", b"b", b"c"], "q2": [b"a", b"d"]}
    assert (report.lines, report.queries) == (5, 2)


def test_the_cut_off_follows_the_reader(tmp_path, reader):
    """A 12 MB run is the small engine's with the compiled reader (twice as quick as the bytes
    operations: docs/benchmarks.md), the vectorised engine's without it."""
    run = tmp_path / "r"
    with open(run, "wb") as handle:
        handle.write(b"q1 Q0 d1 1 2.5 run\n")
        handle.truncate(12 << 20)  # a sparse file: only its size is looked at
    assert small.is_small(Job("x", None, str(run))) == (reader == "compiled")
    assert small.PURE_RUN_BYTES < 12 << 20 <= small.SMALL_RUN_BYTES
