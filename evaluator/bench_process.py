"""Whole-process times, start to exit, of three tools scoring the same files: this
evaluator (`python -m evaluator score`), trec_eval 10 built from its source
(`evaluator.reference`), and pytrec_eval with its own parsing, each as a process.

Three sizes, as issue 27 set them: 1,000 queries (~20 judged each) at depth 100 and
at depth 1000, scored for nDCG@10 and R@100 (`trec_eval -c -m ndcg_cut.10 -m recall.100`),
and the MIRACL test-B shaped submission of `evaluator.bench` (18 languages, 17,362 queries,
depth 100; trec_eval is called once per language, their times added). The goals are
relative, each against the other tools' times of the same sitting (`GOALS`), so a busy
machine slows both sides of a comparison. 1,000 queries at depth 100 has none since issue 35:
its time is start-up (the interpreter, numpy's import), which no user waits on; it is
still shown. Each time is the median of `repeat` runs, with the
CPU seconds beside it; each tool's peak memory is its processes' peaks added up
(workers included), from one more run (`run_measured`). No timed run compiles a module
(`bytecode_kept`): an installed tool's packages are compiled once, at install.
"""
from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

Seconds = dict[str, float]  # wall seconds by tool
# Issue 27's goals that issue 35 keeps, each a bound on the evaluator's wall time from the same
# sitting's others.
GOALS: dict[str, tuple[str, Callable[[Seconds], float | None]]] = {
    "1k queries, depth 1000": ("<= trec_eval / 2", lambda t: t["trec_eval"] / 2 if "trec_eval" in t else None),
    "test-B, depth 100": ("<= pytrec_eval / 4 and <= 0.5 s", lambda t: min(t["pytrec_eval"] / 4, 0.5)),
}
TOOLS = ("evaluator", "trec_eval", "pytrec_eval")
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


def bytecode_kept(directory: Path) -> dict[str, str]:
    """The measured processes' environment: bytecode read from and written to `directory`
    (PYTHONPYCACHEPREFIX), even where PYTHONDONTWRITEBYTECODE is set. A user's install
    compiles its packages once; but this project's CI and demo installs leave numpy's
    bytecode out (pip --no-compile), and with PYTHONDONTWRITEBYTECODE set every measured
    process compiled numpy's modules again, serially, before its workers started. The
    untimed first try of each tool (`timed`) writes what it imports here, for every tool alike."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(directory))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(processes: list[list[str]], repeat: int, env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """After one untimed try (it compiles what the processes import, see `bytecode_kept`),
    over `repeat` tries of running every process in turn: the median wall seconds and
    the median CPU seconds (user + system, of the processes and their workers, which a busy
    shared machine inflates far less than wall time); then, in one more try watched from a
    thread (so the watching costs the timed tries nothing), the largest peak memory in KiB."""
    for argv in processes:
        run_measured(argv, env=env)
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), 0.0
        for argv in processes:
            cpu += run_measured(argv, env=env)
        walls.append(time.perf_counter() - start)
        cpus.append(cpu)
    peak = 0
    for argv in processes:
        peaks: dict[int, int] = {}
        run_measured(argv, peaks, env=env)
        peak = max(peak, sum(peaks.values()))
    return statistics.median(walls), statistics.median(cpus), peak


def run_measured(argv: list[str], peaks: dict[int, int] | None = None, env: dict[str, str] | None = None) -> float:
    """Run one process to its end (in `env`, or this one's); its CPU seconds with its workers'.
    With `peaks`, fill it with each process's peak memory (`_watch`): their sum is an upper
    bound on the tree's peak (they need not peak together; a forked worker's pages shared with
    its parent count in both). Not ru_maxrss: Linux carries the parent's peak into a child
    across fork and exec."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    done = threading.Event()
    watcher = threading.Thread(target=_watch, args=(process.pid, peaks, done), daemon=True) if peaks is not None \
        else None
    if watcher:
        watcher.start()
    _, status, usage = os.wait4(process.pid, 0)
    done.set()
    if watcher:
        watcher.join()
    if status:
        raise subprocess.CalledProcessError(os.waitstatus_to_exitcode(status), argv)
    return usage.ru_utime + usage.ru_stime


def _watch(root: int, peaks: dict[int, int], done: threading.Event) -> None:
    """Every 2 ms until `done`: each process of the tree's high-water mark (VmHWM, which
    only grows while the process lives; the last 2 ms of a process may go unseen)."""
    while not done.is_set():
        for pid in _tree(root):
            try:
                with open(f"/proc/{pid}/status", "rb") as handle:
                    for line in handle:
                        if line.startswith(b"VmHWM:"):
                            peaks[pid] = max(peaks.get(pid, 0), int(line.split()[1]))
            except (OSError, ValueError):
                pass  # gone between the listing and the read
        done.wait(0.002)


def _tree(root: int) -> list[int]:
    """The process and its descendants, as /proc lists each one's children."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as handle:
                todo += map(int, handle.read().split())
        except OSError:
            pass
    return found


def verdict(size: str, walls: Seconds) -> tuple[str, str]:
    """(the goal as a bound in seconds, met or missed by how much)."""
    if size not in GOALS:
        return "none (start-up; issue 35)", "-"
    rule, bound_of = GOALS[size]
    bound, ours = bound_of(walls), walls["evaluator"]
    if bound is None:
        return rule, "not measured (no trec_eval)"
    if ours <= bound:
        return f"{rule}: <= {bound:.2f} s", "met"
    return f"{rule}: <= {bound:.2f} s", f"missed by {ours - bound:.2f} s ({ours / bound:.1f}x)"


def process_table(root: Path, repeat: int = 5) -> list[str]:
    """The markdown table: per size, each tool's seconds (CPU seconds) and peak MB, and the
    goal met or missed by how much."""
    from .bench import data_dir
    from .reference import trec_eval_binary, why_not

    trec_eval = None if why_not() else trec_eval_binary(full_precision=False)
    sizes = {"1k queries, depth 100": thousand_queries(root / "thousand", 100),
             "1k queries, depth 1000": thousand_queries(root / "thousand", 1000),
             "test-B, depth 100": miracl_files(data_dir(root, 100))}
    env = bytecode_kept(root / "pycache")
    load = os.getloadavg()[0]
    rows = ["| size | evaluator s (CPU s) | trec_eval C s (CPU s) | pytrec_eval s (CPU s) | peak MB: evaluator "
            "/ trec_eval / pytrec_eval | goal (same sitting) | met? (wall) |",
            "|---|---:|---:|---:|---:|---|---|"]
    for size, sets in sizes.items():
        measured = {tool: timed(argvs, repeat, env)
                    for tool, argvs in commands(sets, trec_eval).items()}
        goal, met = verdict(size, {tool: wall for tool, (wall, _, _) in measured.items()})
        cells = [f"{measured[t][0]:.2f} ({measured[t][1]:.2f})" if t in measured else "-" for t in TOOLS]
        peaks = " / ".join(f"{measured[t][2] / 1024:.0f}" if t in measured else "-" for t in TOOLS)
        rows.append(f"| {size} | {' | '.join(cells)} | {peaks} | {goal} | {met} |")
    rows.append(f"\nwhole processes, median of {repeat}; {os.cpu_count()} cores; load average {load:.2f} before, "
                f"{os.getloadavg()[0]:.2f} after" + ("" if trec_eval else f"; trec_eval not built: {why_not()}"))
    return rows
