"""Reading a hostile upload costs what its first block costs (issue 15, finding 10).

A 650 KB gzip of one repeated line inflating to 256 MiB once held a web process for 55 s
and 3.4 GB. These tests fail if reading goes back to inflating, keeping or reporting
everything the file holds.
"""
import gzip
import json
import subprocess
import sys
import zlib

import pytest

from evaluator.io.runs import read_run
from tests.waiting import PATIENCE

LINE = b"1 Q0 13417#1 1 10 o\n"


@pytest.fixture(scope="module")
def bomb(tmp_path_factory):
    """256 MiB of one run line, gzip'd chunk by chunk (never held whole)."""
    path = tmp_path_factory.mktemp("bomb") / "run.sw.txt.gz"
    chunk = LINE * ((1 << 20) // len(LINE))
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    with open(path, "wb") as out:
        for _ in range((256 << 20) // len(chunk)):
            out.write(packer.compress(chunk))
        out.write(packer.flush())
    return path


_MEASURE = """
import io, json, resource, sys, time
from evaluator.io.runs import read_run
read_run(io.BytesIO(b"1 Q0 1#1 1 1 t\\n"))  # imports and warms up: only the read itself is measured
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
run, report = read_run(sys.argv[1], topics={"1"}, docid_pattern=r"[0-9]+#[0-9]+", max_depth=1000)
seconds = time.perf_counter() - start
extra = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps({"seconds": seconds, "extra_mb": extra, "report": report.as_dict(), "run": run is None}))
"""


def test_a_256_mib_gzip_bomb_is_refused_quickly_in_flat_memory(bomb):
    # A fresh process, so the peak resident size is this read's alone.
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(bomb)], capture_output=True, text=True,
                         check=True, timeout=PATIENCE)
    measured = json.loads(out.stdout)
    assert bomb.stat().st_size < 1 << 20
    assert measured["run"] and not measured["report"]["ok"]
    print(measured["seconds"], measured["extra_mb"])
    assert measured["seconds"] < 2.0, measured  # a safety bound, not a benchmark (it takes ~0.4 s)
    assert measured["extra_mb"] < 100, measured
    assert measured["report"]["truncated"] and measured["report"]["problem_count"].endswith("+")


def test_the_ratio_cap_stops_inflating_at_once(bomb):
    run, report = read_run(bomb, max_depth=10**9)
    assert run is None and [p.code for p in report.errors] == ["gzip-ratio"]


def test_reading_stops_at_the_depth_limit_naming_the_line_past_it(tmp_path):
    path = tmp_path / "deep.txt"
    path.write_bytes(b"".join(b"1 Q0 %d#0 %d 1 t\n" % (i, i + 1) for i in range(30))
                     + b"2 Q0 x#0 1 1 t\n")
    run, report = read_run(path, max_depth=10)
    assert run is None
    assert [(p.code, p.line) for p in report.errors] == [("too-deep", 11)]
    assert report.truncated and report.problem_count == "1+"


def test_duplicates_are_reported_up_to_the_problem_limit_only(tmp_path):
    path = tmp_path / "dups.txt.gz"
    path.write_bytes(gzip.compress(LINE * 5000))
    run, report = read_run(path, max_depth=10**6)
    assert run is None and len(report.errors) == 25
    assert {p.code for p in report.errors} == {"duplicate-docid"} and report.problem_count == "25+"


def test_a_clean_file_counts_its_problems_exactly(tmp_path):
    path = tmp_path / "two.txt"
    path.write_bytes(b"1 Q0 a 1 x t\n1 Q0 b 2 1 t\n1 Q0 c 3 y t\n")
    _, report = read_run(path)
    assert report.problem_count == "2" and not report.truncated
