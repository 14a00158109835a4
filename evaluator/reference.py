"""trec_eval built from its source, once per machine: the reference the tests compare with
and `make bench` times.

The source is NIST's trec_eval 10 in ../shared/tools/trec_eval-src beside the checkout (or
CUPBOARD_TREC_EVAL_SRC). It is built into a cache folder keyed by the source's checksum,
as published (`%6.4f` output, for timing) or with `%.17g` output, so values compare at
full precision; where there is no source or no C compiler, `why_not` says so and the
callers skip.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

_SHARED = Path(os.getenv("CUPBOARD_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data").parent
SOURCE = Path(os.getenv("CUPBOARD_TREC_EVAL_SRC") or _SHARED / "tools" / "trec_eval-src")
CACHE = Path(os.getenv("XDG_CACHE_HOME") or Path.home() / ".cache") / "cupboard"
PRINTERS = ("meas_print_single.c", "meas_print_final.c")


def why_not() -> str | None:
    """Why trec_eval cannot be built here, or None when it can."""
    if not (SOURCE / "Makefile").is_file():
        return f"no trec_eval source at {SOURCE} (set CUPBOARD_TREC_EVAL_SRC)"
    if not shutil.which("cc") or not shutil.which("make"):
        return "no C compiler (cc) or make to build trec_eval from its source"
    return None


def trec_eval_binary(*, full_precision: bool = True) -> Path:
    """trec_eval, built on first use (~20 s) and kept in the cache; with `full_precision`
    its values are printed with %.17g instead of %6.4f."""
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(SOURCE.glob("*.[ch]")))).hexdigest()[:16]
    binary = CACHE / f"trec_eval-{digest}{'-17g' if full_precision else ''}"
    if binary.exists():
        return binary
    with tempfile.TemporaryDirectory() as work:
        shutil.copytree(SOURCE, work, dirs_exist_ok=True)
        for name in PRINTERS if full_precision else ():
            path = Path(work) / name
            path.write_text(path.read_text().replace("%6.4f", "%.17g"))
        subprocess.run(["make", "-j2", "-C", work], check=True, capture_output=True)
        CACHE.mkdir(parents=True, exist_ok=True)
        staged = CACHE / f".{binary.name}.{os.getpid()}"
        shutil.copy2(Path(work) / "trec_eval", staged)
        os.replace(staged, binary)  # two test workers may build at once: the last one wins, whole
    return binary
