"""trec_eval built from its source, once per machine, for the tests that compare with it.

The source is NIST's trec_eval 10 in ../shared/tools/trec_eval-src (or CUPBOARD_TREC_EVAL_SRC).
It is built with its `%6.4f` output changed to `%.17g`, so values compare at full precision,
into a cache folder keyed by the source's checksum; a test skips, saying why, where there
is no source or no C compiler.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.conftest import SHARED_DATA

SOURCE = Path(os.getenv("CUPBOARD_TREC_EVAL_SRC") or SHARED_DATA.parent / "tools" / "trec_eval-src")
CACHE = Path(os.getenv("XDG_CACHE_HOME") or Path.home() / ".cache") / "cupboard"
PRINTERS = ("meas_print_single.c", "meas_print_final.c")


def why_not() -> str | None:
    """Why trec_eval cannot be built here, or None when it can."""
    if not (SOURCE / "Makefile").is_file():
        return f"no trec_eval source at {SOURCE} (set CUPBOARD_TREC_EVAL_SRC)"
    if not shutil.which("cc") or not shutil.which("make"):
        return "no C compiler (cc) or make to build trec_eval from its source"
    return None


def trec_eval_binary() -> Path:
    """The full-precision trec_eval, built on first use (~20 s) and kept in the cache."""
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(SOURCE.glob("*.[ch]")))).hexdigest()[:16]
    binary = CACHE / f"trec_eval-{digest}-17g"
    if binary.exists():
        return binary
    with tempfile.TemporaryDirectory() as work:
        shutil.copytree(SOURCE, work, dirs_exist_ok=True)
        for name in PRINTERS:
            path = Path(work) / name
            path.write_text(path.read_text().replace("%6.4f", "%.17g"))
        subprocess.run(["make", "-j2", "-C", work], check=True, capture_output=True)
        CACHE.mkdir(parents=True, exist_ok=True)
        staged = CACHE / f".{binary.name}.{os.getpid()}"
        shutil.copy2(Path(work) / "trec_eval", staged)
        os.replace(staged, binary)  # two test workers may build at once: the last one wins, whole
    return binary
