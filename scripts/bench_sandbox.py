"""What running a team's system costs on top of the system itself (`make bench-sandbox`; docs/benchmarks.md).

Prints a table: building the example image without Docker, unpacking it, an empty command in the
sandbox (the fixed cost of an execution: namespaces, mounts, seccomp, the watcher, tearing down),
the example BM25 on a synthetic corpus in the sandbox and the same by hand on the host, and the log
redaction with many topics. Needs bwrap (`make sandbox`); run as root to measure the root path
(uid drop, bind mounts, cgroup).
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cupboard.systems.images import Image, unpack_image
from cupboard.systems.sandbox import Limits, run_system, sandbox_problem
from cupboard.systems.sandbox_log import LogTail, Redactor
from scripts.build_system_image import build

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "systems" / "bm25"
LIMITS = Limits(cpu_seconds=600, memory_bytes=2 << 30, output_bytes=256 << 20, processes=64, wall_seconds=1200)
WORDS = [f"w{n}" for n in range(20_000)]


def timed(action):
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def synthetic(base: Path, passages: int, topics: int) -> tuple[Path, Path, list[str]]:
    rng = random.Random(7)
    (base / "topics").mkdir(parents=True)
    (base / "corpus").mkdir()
    queries = []
    for lang in ("en", "fr"):
        with open(base / "corpus" / f"{lang}.jsonl", "w") as handle:
            for n in range(passages):
                text = " ".join(rng.choices(WORDS, k=60))
                handle.write(json.dumps({"docid": f"{lang}{n}", "text": text}) + "\n")
        lines = []
        for q in range(topics):
            query = " ".join(rng.choices(WORDS[:5000], k=4))
            queries.append(query)
            lines.append(f"{q}\t{query}\n")
        (base / "topics" / f"{lang}.tsv").write_text("".join(lines))
    for path in [base, *base.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return base / "topics", base / "corpus", queries


def main() -> None:
    problem = sandbox_problem()
    if problem:
        sys.exit(f"bench-sandbox: {problem}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as work:
        base = Path(work)
        base.chmod(0o755)
        seconds, _ = timed(lambda: build(EXAMPLE, "bm25.py", base / "bm25.tar"))
        rows.append(("build the example image (no Docker)", seconds, f"{(base / 'bm25.tar').stat().st_size / 2**20:.0f} MiB tar"))
        seconds, image = timed(lambda: unpack_image(base / "bm25.tar", base / "root", max_bytes=1 << 30))
        rows.append(("unpack it", seconds, f"{image.unpacked_bytes / 2**20:.0f} MiB, {image.layers} layers"))
        topics, corpus, queries = synthetic(base / "data", passages=20_000, topics=50)
        empty = Image(sha256="", command=["python3", "-c", "pass"], env={}, workdir="/", rootfs=image.rootfs)
        walls = []
        for n in range(5):
            execution = run_system(empty, topics_dir=topics, corpus_dir=None, output_dir=base / f"empty{n}",
                                   limits=LIMITS, secrets=[])
            walls.append(execution.wall_seconds)
        seconds, _ = timed(lambda: run_system(empty, topics_dir=topics, corpus_dir=None, output_dir=base / "e",
                                              limits=LIMITS, secrets=[]))
        rows.append(("an empty command (python3 -c pass), median of 5", statistics.median(walls),
                     f"{seconds:.2f} s call to call, incl. set-up and tear-down"))
        seconds, execution = timed(lambda: run_system(image, topics_dir=topics, corpus_dir=corpus,
                                                      output_dir=base / "out", limits=LIMITS, secrets=queries))
        rows.append(("example BM25 in the sandbox: 2 x 20,000 passages, 2 x 50 topics", seconds,
                     f"{execution.cpu_seconds:.1f} CPU s, peak {execution.max_rss_bytes / 2**20:.0f} MiB"))
        (base / "hand").mkdir()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds, _ = timed(lambda: subprocess.run([sys.executable, EXAMPLE / "bm25.py", "--topics", topics,
                                                   "--corpus", corpus, "--output", base / "hand"], check=True))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        same = all((base / "out" / n).read_bytes() == (base / "hand" / n).read_bytes() for n in ("en.trec", "fr.trec"))
        rows.append(("the same by hand on the host", seconds, f"{cpu:.1f} CPU s; runs identical: {same}"))
    many = [f"topic {n} about subject{n} and more words {n}" for n in range(20_000)]
    seconds, redactor = timed(lambda: Redactor(many))
    rows.append(("redactor for 20,000 topics: built", seconds, ""))
    tail = LogTail()
    tail.feed("".join(f"line {n} subject{n} unrelated words\n" for n in range(10_000)).encode())
    seconds, _ = timed(lambda: tail.text(redactor, 4000))
    rows.append(("... applied to a full 256 KiB log window", seconds, ""))
    print(f"{'step':<66} {'seconds':>8}  notes")
    for step, seconds, notes in rows:
        print(f"{step:<66} {seconds:>8.2f}  {notes}")


if __name__ == "__main__":
    main()
