"""Running images in the sandbox (cupboard.systems.sandbox) with real bubblewrap: the example system
gives the run it gives by hand, and hostile systems are stopped or contained, with a reason a team
can read and nothing leaked. Skipped, with the reason, where the host cannot make namespaces."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cupboard.systems.images import Image, unpack_image
from cupboard.systems.sandbox import Execution, Limits, run_system, sandbox_problem
from tests.systems.image_tars import EXAMPLE, example_image
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(bool(sandbox_problem()), reason=f"no sandbox here: {sandbox_problem()}")

TOPICS = {
    "en": {"101": "blue whale size", "102": "red fox habitat", "103": "zzzz unknown words"},
    "zh": {"201": "东京塔的高度", "202": "长城"},
}
CORPUS = {
    "en": ["The blue whale is the largest animal; its size is unmatched.", "A red fox jumps over a fence.",
           "Foxes live in a habitat of forests and fields.", "Whales sing songs.", "Size matters little."],
    "zh": ["东京塔是日本东京的电波塔，高度为333米。", "长城是中国古代的军事防御工程。", "北京是中国的首都。"],
}
LIMITS = Limits(cpu_seconds=20, memory_bytes=512 << 20, output_bytes=8 << 20, processes=16, wall_seconds=60)
SECRETS = [text for topics in TOPICS.values() for text in topics.values()]


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> Image:
    return unpack_image(example_image(), tmp_path_factory.mktemp("image") / "root", max_bytes=500_000_000)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("inputs")
    (base / "topics").mkdir(mode=0o700)  # the sandbox gets its own copy: these modes do not matter
    (base / "corpus").mkdir()
    for lang, topics in TOPICS.items():
        (base / "topics" / f"{lang}.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in topics.items()))
        (base / "topics" / f"{lang}.tsv").chmod(0o600)
        with open(base / "corpus" / f"{lang}.jsonl", "w") as handle:
            for number, text in enumerate(CORPUS[lang]):
                handle.write(json.dumps({"docid": f"{lang}-{number}", "title": "", "text": text}, ensure_ascii=False) + "\n")
    for path in [base, base / "corpus", *(base / "corpus").iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return base / "topics", base / "corpus"


def run(image: Image, inputs, tmp_path: Path, script: str | None = None, **limits) -> Execution:
    """The image as built, or the same root with a hostile `python3 -c script` as its command."""
    if script is not None:
        image = dataclasses.replace(image, command=["python3", "-c", script])
    execution = run_system(image, topics_dir=inputs[0], corpus_dir=inputs[1], output_dir=tmp_path / "out",
                           limits=dataclasses.replace(LIMITS, **limits), secrets=SECRETS)
    wait_until(lambda: not sandbox_processes(), what="no process of the sandbox left")
    return execution


def sandbox_processes() -> list[int]:
    """Processes running as a sandbox uid (at or above the base the runner uses)."""
    from cupboard.systems.sandbox import UID_BASE

    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.stat(f"/proc/{name}").st_uid >= UID_BASE:
                found.append(int(name))
        except OSError:
            pass
    return found


def test_the_example_writes_the_runs_it_writes_by_hand(image, inputs, tmp_path):
    execution = run(image, inputs, tmp_path)
    assert (execution.exit_code, execution.stopped_for, execution.reason) == (0, None, "finished")
    assert execution.outputs == ("en.trec", "zh.trec")
    assert 0 < execution.cpu_seconds < LIMITS.cpu_seconds and execution.max_rss_bytes > 1 << 20
    by_hand = tmp_path / "by-hand"
    by_hand.mkdir()
    subprocess.run([sys.executable, EXAMPLE / "bm25.py", "--topics", inputs[0], "--corpus", inputs[1],
                    "--output", by_hand], check=True, capture_output=True)
    for name in ("en.trec", "zh.trec"):
        assert (tmp_path / "out" / name).read_bytes() == (by_hand / name).read_bytes()
    first = (tmp_path / "out" / "en.trec").read_text().splitlines()
    assert first[0].split()[:3] == ["101", "Q0", "en-0"] and "202 Q0 zh-1 1" in (tmp_path / "out" / "zh.trec").read_text()
    assert "en: 5 passages" in execution.log_tail


def test_a_second_execution_gives_the_same_bytes(image, inputs, tmp_path):
    run(image, inputs, tmp_path / "one")
    run(image, inputs, tmp_path / "two")
    for name in ("en.trec", "zh.trec"):
        assert (tmp_path / "one" / "out" / name).read_bytes() == (tmp_path / "two" / "out" / name).read_bytes()
