"""The compiled run reader is optional: where no C compiler is found (the python:3.11-slim
image has none) the package still builds from what docker/Dockerfile copies, installs, and
scores the shipped samples exactly as the development install does with the extension."""
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .dockerfile import copy_build_context
from .test_production_install import _fresh_venv, _run

pytestmark = pytest.mark.slow  # a wheel built and installed into a fresh virtualenv

SAMPLES = Path(__file__).resolve().parents[2] / "evaluator" / "samples"


def _score(python, cwd: Path, env: dict | None = None) -> dict:
    args = ["-m", "evaluator", "score", "--format", "json", "--workers", "1", "--metrics", "nDCG@10,R@100,AP",
            "--qrels", *(f"{c}={SAMPLES}/qrels.miracl-v1.0-{c}-dev.tsv" for c in ("sw", "yo")),
            "--run", *(f"{c}={SAMPLES}/run.miracl.bm25.{c}.dev.txt" for c in ("sw", "yo"))]
    return json.loads(_run([python, *args], cwd=cwd, env=env))


def test_it_installs_and_scores_when_the_extension_cannot_build(tmp_path):
    context = copy_build_context(tmp_path / "app")
    env = {**os.environ, "CC": "false"}  # a compiler that always fails
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "--wheel-dir", str(tmp_path / "dist"), str(context)],
                           capture_output=True, text=True, timeout=300, env=env)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    [wheel] = (tmp_path / "dist").glob("cupboard-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "evaluator/io/compiled.py" in names and not any(name.endswith(".so") for name in names)
    python = _fresh_venv(tmp_path / "venv")
    _run([python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", str(wheel)], cwd=tmp_path)
    probe = "import evaluator.io.compiled as c; print(c.__file__, c.BUILT)"
    where, extension = _run([python, "-c", probe], cwd=tmp_path).split()
    assert "site-packages" in where and extension == "None"
    assert _score(python, tmp_path) == _score(sys.executable, tmp_path)
