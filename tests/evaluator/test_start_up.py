"""What `python -m evaluator score` imports on a small collection. Start-up is most of a small
collection's time, so a module that a change makes the command import again (pyarrow ~0.08 s
where the compiled reader is built, pandas more; the HTTP client, csv, uuid, the YAML
definition reader, the other subcommands, every benchmark's tables: each a few ms) fails
here, with its name, rather than as a slower bench. numpy is imported: the one engine scores
every collection, and what its import costs a small one is in docs/benchmarks.md (issue 35).
argparse reads the command line (its parser for the one subcommand named); the HTTP client is
loaded only for a phase and trec_format only for trec's output."""
import json
import os
import subprocess
import sys

import pytest

COSTLY = (
    "pyarrow", "pandas", "csv", "uuid", "yaml",
    "evaluator.api", "evaluator.client", "evaluator.client.http", "evaluator.client.cupboard", "evaluator.definition",
    "evaluator.cli.compare", "evaluator.cli.fuse", "evaluator.cli.submit", "evaluator.cli.validate",
    "evaluator.benchmarks.miracl", "evaluator.benchmarks.mrtydi", "evaluator.benchmarks.dureader",
    "evaluator.benchmarks.clirmatrix", "evaluator.benchmarks.lareqa",
)


def imported(argv: list[str]) -> tuple[set[str], str]:
    """The modules a `python -m evaluator` process imports (-X importtime lists each once), and its stdout."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "evaluator", *argv],
                          capture_output=True, text=True, check=True)
    names = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return names, done.stdout


@pytest.fixture
def small_collection(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {d % 3}\n" for q in range(20) for d in range(12)))
    run.write_text("".join(f"{q} Q0 d{d} {r} {100 - r} bm25\n" for q in range(20)
                           for r, d in enumerate(range(1, 31), start=1)))
    return ["--qrels", f"all={qrels}", "--run", f"all={run}"]


def costly(names: set[str]) -> list[str]:
    """The costly modules among `names`; pyarrow only where the compiled reader is built
    (without it, the numpy/pyarrow reader needs it)."""
    from evaluator.io import compiled

    found = {name for name in names if name in COSTLY or name.split(".")[0] in {"pyarrow", "pandas"}}
    return sorted(found if compiled.BUILT is not None else {n for n in found if n.split(".")[0] != "pyarrow"})


@pytest.mark.parametrize("fmt", ["json", "trec", "table"])
def test_score_on_a_small_collection_imports_nothing_costly(small_collection, fmt):
    names, out = imported(["score", "--benchmark", "generic", "--metrics", "ndcg_cut_10,recall_100",
                           "--format", fmt, *small_collection])
    assert "evaluator.engines.parallel" in names and "evaluator.benchmarks.generic" in names  # the list is read
    assert costly(names) == []
    assert ("evaluator.trec_format" in names) == (fmt == "trec")
    if fmt == "json":
        assert set(json.loads(out)["subsets"]["all"]) == {"ndcg_cut_10", "recall_100"}
    else:
        assert "ndcg_cut_10" in out


def test_validate_on_a_small_run_imports_nothing_costly(small_collection):
    names, out = imported(["validate", "--benchmark", "generic", "--format", "json", *small_collection[2:]])
    assert "evaluator.io.runs" in names
    assert costly(names - {"evaluator.cli.validate"}) == []
    assert json.loads(out)["runs"][0]["documents"] == 600


def test_scoring_a_plain_submission_with_the_compiled_reader_imports_no_pyarrow(tmp_path):
    """With the C reader built, a plainly valid submission of two languages (on two forked
    workers, tied scores included) is scored with numpy alone: pyarrow (~0.08 s CPU in the
    parent before the workers fork) is not imported. The numpy/pyarrow reader
    (CUPBOARD_PURE_PYTHON=1) gives the same output."""
    from evaluator.io import compiled

    if compiled.BUILT is None:
        pytest.skip("the C reader is not built (test_compiled_reader says why)")
    argv = ["score", "--benchmark", "generic", "--metrics", "ndcg_cut_10,recall_100", "--format", "json",
            "--workers", "2"]
    qrels, runs = [], []
    for language in ("aa", "bb"):
        (tmp_path / f"qrels.{language}.tsv").write_text(
            "".join(f"{language}{q}\t0\t{d}#0\t{(q + d) % 3}\n" for q in range(50) for d in range(0, 400, 37)))
        (tmp_path / f"run.{language}.txt").write_text(
            "".join(f"{language}{q} Q0 {d}#0 {r} {50 - r // 2} bm25\n" for q in range(50)
                    for r, d in enumerate(range(5, 405, 4), start=1)))
        qrels.append(f"{language}={tmp_path / f'qrels.{language}.tsv'}")
        runs.append(f"{language}={tmp_path / f'run.{language}.txt'}")
    argv += ["--qrels", *qrels, "--run", *runs]
    names, out = imported(argv)
    assert "evaluator.engines.parallel" in names and "numpy" in names
    assert not [name for name in names if name.split(".")[0] in {"pyarrow", "pandas"}]
    fallback = subprocess.run([sys.executable, "-m", "evaluator", *argv], capture_output=True, text=True, check=True,
                              env={**os.environ, "CUPBOARD_PURE_PYTHON": "1"})
    assert json.loads(out) == json.loads(fallback.stdout)
    assert json.loads(out)["subsets"]["aa"]["ndcg_cut_10"] > 0
