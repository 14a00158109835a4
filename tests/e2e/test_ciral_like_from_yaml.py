"""Issue 23's "done when", its YAML half: a CIRAL-like competition defined in one YAML file
(generic, four languages ha/so/sw/yo, a single average, nDCG@20, R@100, R@1000 and AP on
runs of 1000 documents, English and native topics), its topics and judgments imported with
the documented commands, two depth-1000 submissions uploaded with the How-to-submit command
exactly as the page prints it (only the run files are ours; the second says it used the
native topics), scored by a real worker; every stored value equals `trec_eval -c`
(trec_eval 10 built from its source) on the same files, to 1e-12.

CIRAL's files are not in ../shared: its four languages are made of MIRACL dev's, sw and yo
as they are, ko and de named ha and so (the first QUERIES queries of each, so that the test
stays within a few minutes on the shared 2-core machine), with runs made from the judgments
with a seed (evaluator.synthetic.run_over_qrels: most judged documents land below rank 100).
The native topics are MIRACL's queries; the English ones are stand-ins with the same ids
(MIRACL has no English versions of them), which is all scoring reads.
"""
from __future__ import annotations

import contextlib
import html
import io
import os
import re
import subprocess
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.io.qrels import read_qrels
from evaluator.synthetic import run_over_qrels
from tests.conftest import SHARED_DATA
from tests.e2e.stack import BIN, Stack, free_port, make_participant, wait_until
from tests.waiting import PATIENCE

pytestmark = [pytest.mark.worker, pytest.mark.slow, pytest.mark.shared_data]

SLUG = "ciral-like"
SOURCES = {"ha": "ko", "so": "de", "sw": "sw", "yo": "yo"}  # CIRAL's code: the MIRACL dev language it is made of
QUERIES = 60
TREC_MEASURES = ("ndcg_cut.20", "recall.100,1000", "map")  # trec_eval -m: one option per measure, its cutoffs joined
OUTPUT = {"nDCG@20": "ndcg_cut_20", "R@100": "recall_100", "R@1000": "recall_1000", "AP": "map"}

DEFINITION = f"""\
schema: 1
version: 1
slug: {SLUG}
title: "African-language passage retrieval"
benchmark: generic
description: English queries, passages in Hausa, Somali, Swahili and Yoruba.
metrics: [nDCG@20, R@100, R@1000, AP]
primary_metric: nDCG@20
max_run_depth: 1000
organizers: [organizer]
starts_at: 2026-01-01T00:00:00Z
topic_variants:
  - {{code: en, name: English queries}}
  - {{code: native, name: Native-language queries}}
subsets:
  - {{code: ha, name: Hausa}}
  - {{code: so, name: Somali}}
  - {{code: sw, name: Swahili}}
  - {{code: yo, name: Yoruba}}
phases:
  - slug: dev
    name: Development
    opens_at: 2026-01-01T00:00:00Z
    closes_at: 2030-12-31T23:59:59Z
"""


def ciral_like_files(folder: Path) -> dict[str, dict]:
    """{code: {"topics": [English, native], "qrels"}} written in `folder` (the topics in
    `folder/topics`, named with their subset and variant as published), from MIRACL dev."""
    (folder / "topics").mkdir()
    files = {}
    for code, source in SOURCES.items():
        topics = (SHARED_DATA / "miracl-v1.0-dev" / f"topics.miracl-v1.0-{source}-dev.tsv").read_text().splitlines()
        kept = topics[:QUERIES]
        qids = [line.split("\t")[0] for line in kept]
        qrels = [line for line in (SHARED_DATA / "miracl-v1.0-dev" / f"qrels.miracl-v1.0-{source}-dev.tsv")
                 .read_text().splitlines() if line.split()[0] in set(qids)]
        english, native = (folder / "topics" / f"topics.{SLUG}.{code}.dev.{variant}.tsv" for variant in ("en", "native"))
        english.write_text("".join(f"{qid}\tEnglish stand-in for query {qid}\n" for qid in qids))
        native.write_text("\n".join(kept) + "\n")
        files[code] = {"topics": [english, native], "qrels": folder / f"qrels.{SLUG}.{code}.dev.tsv"}
        files[code]["qrels"].write_text("\n".join(qrels) + "\n")
    return files


def printed_command(stack: Stack) -> str:
    """The Development phase's command on the How-to-submit page, as printed."""
    page = urllib.request.urlopen(f"{stack.url}/c/{SLUG}/how-to-submit/", timeout=120).read().decode()
    section = page[page.index('id="phase-dev"'):]
    return html.unescape(re.search(r'<pre class="command">(.*?)</pre>', section, re.S).group(1))


def trec_eval_c(binary: Path, qrels: Path, run: Path) -> dict[str, float]:
    measures = [arg for name in TREC_MEASURES for arg in ("-m", name)]
    done = subprocess.run([str(binary), "-c", *measures, str(qrels), str(run)], capture_output=True, check=True,
                          timeout=PATIENCE)
    values = {name: float(value) for name, _, value in (line.split() for line in done.stdout.decode().splitlines())}
    return {metric: values[OUTPUT[metric]] for metric in OUTPUT}


def test_a_ciral_like_competition_defined_in_yaml_scores_as_trec_eval(tmp_path, trec_eval):
    data = tmp_path / "organizer"
    data.mkdir()
    files = ciral_like_files(data)
    (data / f"{SLUG}.yaml").write_text(DEFINITION)
    with ciral_stack(tmp_path) as stack:
        stack.manage("first_organizer", "--noinput")
        # the organizer's commands, as docs/your-own-task.md gives them
        stack.manage("load_competition", str(data / f"{SLUG}.yaml"))
        stack.manage("import_topics", "--competition", SLUG, "--phase", "dev", str(data / "topics"))
        stack.manage("import_qrels", "--competition", SLUG, "--phase", "dev", "--note", "dev judgments",
                     *(f"{code}={f['qrels']}" for code, f in files.items()))
        stack.start_server(stack.port)
        stack.start_worker()
        stored, runs, board = submit_as_printed(stack, files, tmp_path)
    check_stored(stored, runs, board, files, trec_eval)


@contextlib.contextmanager
def ciral_stack(tmp_path: Path) -> Iterator[Stack]:
    """A migrated stack whose pages print its own address (How-to-submit's command names it)."""
    (tmp_path / "site").mkdir()
    port = free_port()
    with Stack(tmp_path / "site", CUPBOARD_SITE_URL=f"http://127.0.0.1:{port}") as stack:
        stack.port = port
        stack.migrate()
        yield stack


def submit_as_printed(stack: Stack, files: dict, tmp_path: Path) -> tuple[list[tuple], dict, str]:
    """A participant uploads two submissions of depth-1000 runs with the How-to-submit command
    as the page prints it, from a folder holding the page's topics zip and runs named as the
    command names them; once both are scored: (stored scores, {(method, code): run file}, the
    leaderboard page)."""
    token = make_participant(stack, username="ada", team="Lovelace", competition=SLUG)
    command = printed_command(stack)
    assert command.startswith("cupboard-eval submit") and f"--server {stack.url}" in command
    team = tmp_path / "team"
    team.mkdir()
    topics_zip = urllib.request.urlopen(f"{stack.url}/c/{SLUG}/dev/topics.zip", timeout=120).read()
    zipfile.ZipFile(io.BytesIO(topics_zip)).extractall(team)
    names = re.search(r"--run ([^\\\n]+)", command).group(1).split()
    assert sorted(names) == sorted(f"run.mine.{code}.dev.txt" for code in SOURCES), command
    assert "--meta topics=en" in command  # the default topics, which the command's --topics names
    runs = {}
    for number, method in enumerate(("my first run", "a second run")):
        for code in SOURCES:
            judgments = read_qrels(str(files[code]["qrels"])).judgments
            text = run_over_qrels(judgments, depth=1000, seed=100 * number + list(SOURCES).index(code))
            (team / f"run.mine.{code}.dev.txt").write_text(text)
            kept = tmp_path / f"submission-{number}.{code}.txt"
            kept.write_text(text)
            runs[method, code] = kept
        line = command if number == 0 else \
            command.replace("'my first run'", f"'{method}'").replace("--meta topics=en", "--meta topics=native")
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", line], cwd=team, capture_output=True, text=True,
                              timeout=600, env={**os.environ, "CUPBOARD_TOKEN": token,
                                                "PATH": f"{BIN}:{os.environ['PATH']}"})
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}\n{stack.log('worker')[-3000:]}"
        assert done.stdout.startswith(f"submission #{number + 1} scored"), done.stdout
    wait_until(lambda: stack.query("SELECT count(*) FROM submissions_submission WHERE status = 'scored'")
               == [(2,)], what="both submissions scored")
    stored = stack.query(
        "SELECT s.method_name, sub.code, sc.metric, sc.value FROM submissions_score sc "
        "JOIN submissions_submission s ON s.id = sc.submission_id JOIN competitions_subset sub ON sub.id = sc.subset_id")
    said = stack.query("SELECT method_name, json_extract(metadata, '$.topics') FROM submissions_submission")
    assert sorted(said) == [("a second run", "native"), ("my first run", "en")]
    board = urllib.request.urlopen(f"{stack.url}/c/{SLUG}/dev/leaderboard/", timeout=120).read().decode()
    return stored, runs, board


def check_stored(stored: list[tuple], runs: dict, board: str, files: dict, trec_eval: Path) -> None:
    """Every stored value (run x language x measure) equals trec_eval -c on the same files."""
    got = {(method, code, metric): value for method, code, metric, value in stored}
    expected = {(method, code, metric): value for (method, code), run in runs.items()
                for metric, value in trec_eval_c(trec_eval, files[code]["qrels"], run).items()}
    assert got.keys() == expected.keys()  # every measure x language x run, and nothing else
    wrong = {key: (got[key], expected[key]) for key in got if abs(got[key] - expected[key]) > 1e-12}
    assert not wrong, f"{len(wrong)} of {len(got)} stored values differ from trec_eval -c: {wrong}"
    # the runs reach below rank 100, so AP and R@1000 are told from a run cut at 100
    assert any(got[key] > got[key[:2] + ("R@100",)] for key in got if key[2] == "R@1000")
    # one average over the four languages, as the board shows it: Avg, no K.Avg or S.Avg
    assert ">Avg<" in board and "K.Avg" not in board and "S.Avg" not in board
