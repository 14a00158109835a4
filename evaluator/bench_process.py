"""Whole-process times, start to exit, of three tools scoring the same files: this
evaluator (`python -m evaluator score`), trec_eval 10 built from its source
(`evaluator.reference`), and pytrec_eval with its own parsing, each as a process.

Three sizes, as issue 16 sets the goals: 1,000 queries (~20 judged each) at depth 100 and
at depth 1000, scored for nDCG@10 and R@100 (`trec_eval -c -m ndcg_cut.10 -m recall.100`),
and the MIRACL test-B shaped submission of `evaluator.bench` (18 languages, 17,362 queries,
depth 100; trec_eval is called once per language, their times added). Each is the median
of `repeat` runs; the machine's load average is printed with the table, since a shared
machine slows every tool.
"""
from __future__ import annotations

import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

GOALS = {"1k queries, depth 100": 0.15, "1k queries, depth 1000": 0.6, "test-B, depth 100": 0.8}
_PYTREC = """
import sys, pytrec_eval
for qrels_path, run_path in zip(sys.argv[1::2], sys.argv[2::2]):
    with open(qrels_path) as q, open(run_path) as r:
        qrels, run = pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)
    pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100"}).evaluate(run)
"""


def thousand_queries(directory: Path, depth: int) -> list[tuple[str, Path, Path]]:
    """1,000 queries, 10-30 judgments each (two thirds relevant), a run of `depth` per query."""
    marker = directory / f".complete-{depth}"
    qrels, run = directory / "qrels.txt", directory / f"run{depth}.txt"
    if not marker.exists():
        directory.mkdir(parents=True, exist_ok=True)
        rng = random.Random(16)
        judged = {q: rng.sample(range(60000), rng.randint(10, 30)) for q in range(1000)}
        qrels.write_text("".join(f"{q} 0 {d}#0 {rng.choice((0, 1, 1))}\n" for q, docs in judged.items() for d in docs))
        with open(run, "w") as out:
            for q, docs in judged.items():
                found = rng.sample(docs, len(docs) // 2) + rng.sample(range(60000, 200000), depth)
                out.writelines(f"{q} Q0 {d}#0 {rank} {1000 - rank * 0.25:.2f} bm25\n"
                               for rank, d in enumerate(found[:depth], start=1))
        marker.touch()
    return [("all", qrels, run)]


def miracl_files(directory: Path) -> list[tuple[str, Path, Path]]:
    from .bench import files

    return [(code, paths["qrels"], paths["run"]) for code, paths in files(directory).items()]


def commands(sets: list[tuple[str, Path, Path]], trec_eval: Path | None) -> dict[str, list[list[str]]]:
    """Per tool, the processes to run one after another (trec_eval: one per subset)."""
    ours = [sys.executable, "-m", "evaluator", "score", "--benchmark", "generic", "--metrics", "ndcg_cut_10,recall_100",
            "--format", "json", "--qrels", *(f"{c}={q}" for c, q, _ in sets), "--run", *(f"{c}={r}" for c, _, r in sets)]
    tools = {"evaluator": [ours],
             "pytrec_eval": [[sys.executable, "-c", _PYTREC, *(str(p) for _, q, r in sets for p in (q, r))]]}
    if trec_eval is not None:
        tools["trec_eval"] = [[str(trec_eval), "-c", "-m", "ndcg_cut.10", "-m", "recall.100", str(q), str(r)]
                              for _, q, r in sets]
    return tools


def timed(processes: list[list[str]], repeat: int) -> tuple[float, float]:
    """Medians over `repeat` tries of running every process in turn: wall seconds, and CPU
    seconds (user + system, of the processes and their workers), which a busy shared
    machine inflates far less than wall time."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = _children_cpu()
        start = time.perf_counter()
        for argv in processes:
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - before)
    return statistics.median(walls), statistics.median(cpus)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_table(root: Path, repeat: int = 5) -> list[str]:
    """The markdown table: seconds per tool and size, and each goal met or missed by how much."""
    import os

    from .bench import data_dir
    from .reference import trec_eval_binary, why_not

    trec_eval = None if why_not() else trec_eval_binary(full_precision=False)
    sizes = {"1k queries, depth 100": thousand_queries(root / "thousand", 100),
             "1k queries, depth 1000": thousand_queries(root / "thousand", 1000),
             "test-B, depth 100": miracl_files(data_dir(root, 100))}
    load = os.getloadavg()[0]
    rows = ["| size | evaluator s (CPU s) | trec_eval C s (CPU s) | pytrec_eval s (CPU s) | goal | met? (wall) |",
            "|---|---:|---:|---:|---:|---|"]
    nan = (float("nan"), float("nan"))
    for size, sets in sizes.items():
        seconds = {tool: timed(argvs, repeat if size.startswith("1k") else max(1, repeat // 2))
                   for tool, argvs in commands(sets, trec_eval).items()}
        (ours, _), goal = seconds["evaluator"], GOALS[size]
        verdict = "met" if ours <= goal else f"missed by {ours - goal:.2f} s ({ours / goal:.1f}x)"
        cells = [f"{wall:.2f} ({cpu:.2f})" for wall, cpu in (seconds["evaluator"], seconds.get("trec_eval", nan),
                                                            seconds["pytrec_eval"])]
        rows.append(f"| {size} | {' | '.join(cells)} | <= {goal} | {verdict} |")
    rows.append(f"\nwhole processes, median of {repeat}; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after"
                + ("" if trec_eval else f"; trec_eval not built: {why_not()}"))
    return rows
