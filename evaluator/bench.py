"""`make bench` / `python -m evaluator.bench`: validate + score a full-size MIRACL test-B
shaped submission (18 languages, test-B query counts) at depth 100 and 1000, with this
engine and with pytrec_eval (including its own file parsing), and print one table.

Each measurement runs in a fresh subprocess so its peak memory (ru_maxrss) is its own;
ours scores the languages on worker processes as `python -m evaluator score` does
(`evaluator.engines.parallel`), and their memory is added in (see `tree_peak_kb`). Timing starts
after imports and covers: starting the workers, reading qrels and topics, reading and
validating every run against its topics (ours) or parsing it (pytrec_eval's parse_run),
and scoring nDCG@10 and R@100 for every language. The data is generated once into bench-data/.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

METRICS = ("nDCG@10", "R@100")
PYTREC_MEASURES = {"ndcg_cut_10", "recall_100"}
DEPTHS = (100, 1000)


def data_dir(root: Path, depth: int) -> Path:
    """The generated set for one depth, made on first use (a marker file says it is complete).

    It is generated in a subprocess of its own: a measured process inherits its parent's peak
    resident memory (Linux keeps ru_maxrss across fork and exec), so this process must stay
    small, or the first `make bench` on a new machine would report the generator's peak."""
    directory = root / f"miracl-test-b-depth{depth}"
    if not (directory / ".complete").exists():
        print(f"generating {directory} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "evaluator.bench", "--generate", str(depth), str(directory)], check=True)
    return directory


def generate(depth: int, directory: Path) -> None:
    from .synthetic import make_miracl_set

    make_miracl_set(directory, depth=depth)
    (directory / ".complete").touch()


def files(directory: Path) -> dict[str, dict[str, Path]]:
    from .io.naming import subset_from_filename
    from .synthetic import MIRACL_TEST_B_QUERY_COUNTS

    out: dict[str, dict[str, Path]] = {}
    for path in sorted(directory.iterdir()):
        code = subset_from_filename(path.name, MIRACL_TEST_B_QUERY_COUNTS)
        if code and not path.name.startswith("."):
            out.setdefault(code, {})[path.name.split(".")[0]] = path
    return out


def ours(directory: Path, *, workers: int | None = None, documents: Path | None = None) -> dict[str, Any]:
    """Validate and score every language as `python -m evaluator score` does: one job per
    language, on every core (`evaluator.engines.parallel`); with `documents`, every docid
    checked against that document list too (read in the timed part)."""
    from .benchmarks import get_benchmark
    from .engines.parallel import Job, Scoring, score_submission

    scoring = Scoring(METRICS, docid_pattern=get_benchmark("miracl").docid_pattern, max_depth=1000, per_query=False,
                      documents=None if documents is None else str(documents))
    jobs = [Job(code, str(paths["qrels"]), str(paths["run"]), str(paths["topics"]))
            for code, paths in files(directory).items()]
    forked_from = _resident_kb()  # what each worker process shares with this one from the start
    start, cpu = time.perf_counter(), _cpu_seconds()
    outcomes = score_submission(jobs, scoring=scoring, workers=workers)
    seconds, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    means = {}
    for code, outcome in outcomes.items():
        if outcome.result is None:
            raise SystemExit(f"{outcome.subset} was rejected: {outcome.errors[:3]}")
        means[code] = outcome.result.means
    return {"seconds": seconds, "cpu": cpu, "lines": sum(o.report.lines for o in outcomes.values() if o.report),
            "means": means, "forked_from_kb": forked_from}


def _cpu_seconds() -> float:
    """CPU time of this process and its finished workers: on a shared machine, wall time
    measures the neighbours too."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytrec(directory: Path) -> dict[str, Any]:
    import pytrec_eval

    start = time.perf_counter()
    means = {}
    for code, paths in files(directory).items():
        with open(paths["qrels"], encoding="utf-8") as handle:
            qrels = pytrec_eval.parse_qrel(handle)
        with open(paths["run"], encoding="utf-8") as handle:
            run = pytrec_eval.parse_run(handle)
        values = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(run)
        # trec_eval -c: every judged query counts, a missed one as 0
        means[code] = {name: sum(values.get(q, {}).get(measure, 0.0) for q in qrels) / len(qrels)
                       for name, measure in zip(METRICS, ("ndcg_cut_10", "recall_100"), strict=True)}
    return {"seconds": time.perf_counter() - start, "means": means}


def measure(engine: str, directory: Path) -> dict[str, Any]:
    """Run one engine in a fresh interpreter; its wall time and peak resident memory."""
    done = subprocess.run([sys.executable, "-m", "evaluator.bench", "--worker", engine, str(directory)],
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{engine} failed:\n{done.stderr}")
    measured: dict[str, Any] = json.loads(done.stdout)
    return measured


def worker(engine: str, directory: Path) -> None:
    if engine.startswith("ours+"):  # ours+PATH: with a document list
        result = ours(directory, documents=Path(engine[len("ours+"):]))
    else:
        result = (ours if engine == "ours" else pytrec)(directory)
    result["peak_mb"] = tree_peak_kb(result.pop("forked_from_kb", 0)) / 1024
    json.dump(result, sys.stdout)


def tree_peak_kb(inherited_kb: int) -> int:
    """Peak resident memory of this process and its (finished) worker processes together,
    an upper bound: this process's own peak, plus for each worker the largest worker's
    peak less what it inherited at fork (pages it shares with this process until either
    writes them, already counted once here). ru_maxrss is in KiB on Linux."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    from .engines.parallel import usable_cores

    workers = usable_cores() if children else 0
    return own + workers * max(children - inherited_kb, 0)


def _resident_kb() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGESIZE") // 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.environ.get("CUPBOARD_BENCH_DATA", "bench-data"))
    parser.add_argument("--depths", default=",".join(map(str, DEPTHS)))
    parser.add_argument("--tables", default="engine,processes,documents",
                        help="engine: in-process against pytrec_eval; processes: whole processes against trec_eval C "
                             "and pytrec_eval (evaluator.bench_process); documents: the test-B submission checked "
                             "against an 8.8 M document list")
    parser.add_argument("--repeat", type=int, default=5, help="runs per process timing (the median is shown)")
    parser.add_argument("--worker", nargs=2, metavar=("ENGINE", "DIR"), help=argparse.SUPPRESS)
    parser.add_argument("--generate", nargs=2, metavar=("DEPTH", "DIR"), help=argparse.SUPPRESS)
    parser.add_argument("--generate-documents", nargs=2, metavar=("RUNS", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], Path(args.worker[1]))
        return 0
    if args.generate:
        generate(int(args.generate[0]), Path(args.generate[1]))
        return 0
    if args.generate_documents:
        generate_documents(Path(args.generate_documents[0]), Path(args.generate_documents[1]))
        return 0
    tables = args.tables.split(",")
    if "engine" in tables:
        engine_table(args)
    if "documents" in tables:
        documents_table(args)
    if "processes" in tables:
        from .bench_process import process_table

        print("\n".join(["", *process_table(Path(args.data), repeat=args.repeat)]))
    return 0


def engine_table(args: argparse.Namespace) -> None:
    """In-process validation and scoring of the test-B shaped submission, against pytrec_eval."""
    rows = []
    load = os.getloadavg()[0]  # the machine may be shared: say how busy it was
    for depth in map(int, args.depths.split(",")):
        directory = data_dir(Path(args.data), depth)
        a, b = measure("ours", directory), measure("pytrec_eval", directory)
        worst = max(abs(a["means"][c][m] - b["means"][c][m]) for c in a["means"] for m in METRICS)
        rows.append((depth, a["lines"], a, b, worst))
    print("| depth | run lines | cupboard s | cupboard peak MB | pytrec_eval s | pytrec_eval peak MB "
          "| speed-up | max abs diff of means |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for depth, lines, a, b, worst in rows:
        print(f"| {depth} | {lines:,} | {a['seconds']:.2f} | {a['peak_mb']:.0f} | {b['seconds']:.2f} "
              f"| {b['peak_mb']:.0f} | {b['seconds'] / a['seconds']:.1f}x | {worst:.1e} |")
    print(f"\n{os.cpu_count()} cores; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")


DOCUMENTS = 8_841_823  # MS MARCO v1's passages


def documents_dir(root: Path, runs: Path) -> Path:
    """An MS MARCO-sized document list holding every docid of the test-B runs, as an id file
    and as its saved .npy; generated once, in a subprocess (see `data_dir`)."""
    directory = root / "documents-8.8M"
    if not (directory / ".complete").exists():
        print(f"generating {directory} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "evaluator.bench", "--generate-documents", str(runs), str(directory)],
                       check=True)
    return directory


def generate_documents(runs: Path, directory: Path) -> None:
    from .io.documents import read_documents

    directory.mkdir(parents=True, exist_ok=True)
    seen: set[bytes] = set()
    for paths in files(runs).values():
        with open(paths["run"], "rb") as handle:
            seen.update(line.split()[2] for line in handle if line.strip())
    with open(directory / "ids.txt", "wb") as out:
        out.write(b"".join(docid + b"\n" for docid in sorted(seen)))
        out.write(b"".join(b"%d#%d\n" % divmod(n, 7) for n in range(10**7, 10**7 + DOCUMENTS - len(seen))))
    read_documents(directory / "ids.txt").save(directory / "ids.npy")
    (directory / ".complete").touch()


def documents_table(args: argparse.Namespace) -> None:
    """The test-B submission (depth 100) scored without and with the 8.8 M document list, each
    in a fresh process: the check's extra time and memory (issue 34's budget: < 1 s, < 200 MB)."""
    runs = data_dir(Path(args.data), 100)
    documents = documents_dir(Path(args.data), runs)
    load = os.getloadavg()[0]
    rows = [(label, measure(engine, runs)) for label, engine in (
        ("no document list", "ours"), ("saved list (.npy, 70 MB)", f"ours+{documents / 'ids.npy'}"),
        ("id file (8.8 M lines)", f"ours+{documents / 'ids.txt'}"))]
    base = rows[0][1]
    print("\n| test-B, depth 100 | run lines | wall s | CPU s | peak MB | + wall s | + CPU s | + MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, got in rows:
        print(f"| {label} | {got['lines']:,} | {got['seconds']:.2f} | {got['cpu']:.2f} | {got['peak_mb']:.0f} "
              f"| {got['seconds'] - base['seconds']:+.2f} | {got['cpu'] - base['cpu']:+.2f} "
              f"| {got['peak_mb'] - base['peak_mb']:+.0f} |")
    print(f"\n{DOCUMENTS:,} documents; {os.cpu_count()} cores; load average {load:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    sys.exit(main())
