"""Issue 34's "done when": a three-round campaign stood up as docs/campaign.md says, from TREC XML
topics, a document list and per-round judgments (tests/data/campaign/, made up for the tests),
its runs scored, pooled, verified and archived by a real worker (`celery -A cupboard worker -B`).

- every stored value (each run's means and per-topic values of nDCG@10, P@5, AP and Bpref)
  equals `trec_eval -q -c` on the run filtered of what earlier rounds judged (rounds 2 and 3);
- a run naming a document outside the collection is refused at its line, nothing stored;
- the worker's round-2 pool holds no document judged in round 1;
- an assessor's page of round 2 shows the topic's narrative;
- each round's official results and its paper table of measures list every counted run (two
  per team, not one) with every measure, and the second engine checks them all;
- each round's results archive holds every run's scores and per-topic values, and the topics
  file byte for byte.

The shipped example's reveals are moved to 2030 so the worker's beat freezes nothing early;
the test freezes each round as its reveal would (`final_results_release_due` at that instant).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.e2e.stack import Stack, wait_until
from tests.submissions.test_campaign_example import DATA, MEASURES, a_run, judged, trec_eval_values

pytestmark = [pytest.mark.worker, pytest.mark.slow]

SLUG = "trec-covid-like"
EXAMPLE = Path(__file__).resolve().parents[2] / "platform/cupboard/competitions/definitions/examples/trec-covid-like.yaml"
REVEALS = {"2026-12-01T00:00:00Z": "2030-01-01T00:00:00Z", "2027-01-01T00:00:00Z": "2030-02-01T00:00:00Z",
           "2027-02-01T00:00:00Z": "2030-03-01T00:00:00Z"}
RUNS_PER_TEAM = 2
TEAMS = ("Alpha", "Beta")

# Runs uploaded within their round's window (the service checks it); printed: {method: pk}.
SUBMIT = """
import json, time_machine
from datetime import timedelta
from django.core.files.uploadedfile import SimpleUploadedFile
from cupboard.competitions.models import Phase
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.services import submission_create
from tests.factories import make_team, make_user

runs, done, refused = json.loads({runs!r}), {{}}, []
teams = {{}}
for item in runs:
    phase = Phase.objects.get(competition__slug={slug!r}, slug=item["phase"])
    if item["team"] not in teams:
        user = make_user(item["team"].lower())
        teams[item["team"]] = (make_team(phase.competition, name=item["team"], members=[user]), user)
    team, user = teams[item["team"]]
    with time_machine.travel(phase.opens_at + timedelta(days=1)):
        try:
            done[item["method"]] = submission_create(
                phase=phase, team=team, user=user, method_name=item["method"], judging_priority=item["priority"],
                topic_fields=["query", "question"],
                files=[(SimpleUploadedFile("run.docs.txt", open(item["path"], "rb").read()), None)]).pk
        except SubmissionRefused as error:
            refused.append([item["method"], [[p.file, p.line, p.code] for p in error.problems]])
print(json.dumps({{"done": done, "refused": refused}}))
"""

# Round 2's pool of every run (a worker builds it), a corpus and a judging round for an assessor.
POOL = """
import json
from cupboard.competitions.assessors import assessor_add
from cupboard.competitions.models import Phase
from cupboard.judging.assessment import corpus_upload
from cupboard.judging.pools import pool_export_create
from tests.factories import make_user

phase = Phase.objects.get(competition__slug={slug!r}, slug="round-2")
organizer = make_user("organizer")
phase.competition.organizers.add(organizer)
make_user("assessor")
assessor_add(competition=phase.competition, username="assessor", actor=organizer)
docs = phase.competition.subsets.get(code="docs")
corpus_upload(phase=phase, subset=docs, file=open({corpus!r}, "rb"), name="corpus.docs.tsv", actor=organizer)
export = pool_export_create(phase=phase, actor=organizer, depth=20, selection="priority",
                            priority_depths={{1: 20, 2: 10}}, with_baselines=False)
print(json.dumps({{"export": export.pk}}))
"""

# Once the pool is built: its rows, a judging round of it and the assessor's first page.
ASSESS = """
import io, json, zipfile
from django.test import Client
from django.urls import reverse
from django.contrib.auth import get_user_model
from cupboard.judging.assessment import judging_round_create
from cupboard.judging.models import PoolExport

export = PoolExport.objects.get(pk={export})
with export.file.open("rb") as stored, zipfile.ZipFile(io.BytesIO(stored.read())) as archive:
    rows = [line.split("\\t") for name in archive.namelist() for line in archive.read(name).decode().splitlines()[1:]]
users = get_user_model().objects
judging_round = judging_round_create(export=export, assessors={{"docs": [users.get(username="assessor")]}}, overlap=0,
                                     actor=users.get(username="organizer"))
task = judging_round.assignments.get()
client = Client(HTTP_HOST="127.0.0.1")  # a host the site allows (not testserver)
client.force_login(task.assessor)
page = client.get(reverse("judging:judge", args=[{slug!r}, task.pk]))
print(json.dumps({{"rows": [[r[0], r[2]] for r in rows], "status": page.status_code, "page": page.content.decode(),
                   "qid": task.items.order_by("position").first().qid}}))
"""

# Each round frozen as its reveal freezes it (the verification goes to the worker), then an archive asked.
FREEZE = """
import json, time_machine
from datetime import timedelta
from cupboard.competitions.models import Phase
from cupboard.leaderboards.releases import final_results_release_due

for phase in Phase.objects.filter(competition__slug={slug!r}).order_by("opens_at"):
    with time_machine.travel(phase.reveal_at + timedelta(seconds=1), tick=False):
        final_results_release_due()
print("frozen")
"""

ARCHIVES = """
from cupboard.competitions.models import Phase
from cupboard.leaderboards.archive import results_archive_create
for phase in Phase.objects.filter(competition__slug={slug!r}).order_by("opens_at"):
    results_archive_create(phase=phase, actor=None)
print("asked")
"""

# What the record says: each round's frozen results, its table of measures, its archive's members.
RECORD = """
import hashlib, io, json, zipfile
from cupboard.competitions.models import Phase
from cupboard.leaderboards.models import FrozenSnapshot, ResultsArchive
from cupboard.leaderboards.paper_tables import paper_table

found = {{}}
for phase in Phase.objects.filter(competition__slug={slug!r}):
    snapshot = FrozenSnapshot.objects.get(phase=phase)
    archive = ResultsArchive.objects.get(phase=phase, status="done")
    with archive.file.open("rb") as stored, zipfile.ZipFile(io.BytesIO(stored.read())) as zipped:
        members = {{name: zipped.read(name) for name in zipped.namelist()}}
    found[phase.slug] = {{"official": json.loads(snapshot.json), "table": paper_table(snapshot, table="measures",
                         fmt="md", metadata=[]), "runs": json.loads(members["runs/runs.json"]),
                         "topics": {{n: hashlib.sha256(v).hexdigest() for n, v in members.items()
                                     if n.startswith("topics/")}},
                         "verified": list(phase.verifications.values_list("status", "total"))}}
print(json.dumps(found))
"""


def run_files(folder: Path) -> list[dict]:
    """Two runs per team and round (priorities 1 and 2; the earlier rounds' judged documents
    near the top, as rounds 2+ runs had them), and one more in round 2 naming a document
    outside the collection at its 7th line."""
    runs = []
    topics = {1: ["1", "2", "3"], 2: ["1", "2", "3", "4"], 3: ["1", "2", "3", "4", "5"]}
    for k, qids in topics.items():
        for t, team in enumerate(TEAMS):
            for n in range(RUNS_PER_TEAM):
                path = folder / f"round{k}-{team}-{n}.txt"
                path.write_text(a_run(qids, seed=100 * k + 10 * t + n, earlier_rounds=tuple(range(1, k))))
                runs.append({"phase": f"round-{k}", "team": team, "method": f"r{k}-{team}-{n}", "path": str(path),
                             "priority": n + 1, "round": k})
    lines = a_run(topics[2], seed=7, earlier_rounds=(1,)).splitlines()
    lines[6] = lines[6].replace(lines[6].split()[2], "doc9999")
    bad = folder / "round2-unknown.txt"
    bad.write_text("\n".join(lines) + "\n")
    runs.append({"phase": "round-2", "team": "Beta", "method": "unknown-doc", "path": str(bad), "priority": None,
                 "round": 2})
    return runs


def residual(run: Path, k: int, folder: Path) -> Path:
    """The run without each topic's documents judged in rounds before k (filter_run_with_qrels)."""
    gone = judged(*range(1, k))
    kept = folder / f"{run.stem}.residual"
    kept.write_text("".join(line + "\n" for line in run.read_text().splitlines()
                            if line.split()[2] not in gone.get(line.split()[0], ())))
    return kept


def test_a_three_round_campaign_with_a_worker(tmp_path, trec_eval):
    folder = tmp_path / "files"
    folder.mkdir()
    definition = EXAMPLE.read_text()
    for old, new in REVEALS.items():
        definition = definition.replace(f"reveal_at: {old}", f"reveal_at: {new}")
    (folder / f"{SLUG}.yaml").write_text(definition)
    corpus = folder / "corpus.docs.tsv"
    corpus.write_text("".join(f"{d}\tTitle {d}\tThe text of {d}.\n" for d in (DATA / "documents.txt").read_text().split()))
    runs = run_files(folder)
    (tmp_path / "site").mkdir()
    with Stack(tmp_path / "site") as stack:
        stack.migrate()
        stack.manage("load_competition", str(folder / f"{SLUG}.yaml"))
        stack.manage("load_documents", SLUG, "docs", str(DATA / "documents.txt"))
        for k in (1, 2, 3):
            stack.manage("import_topics", "--competition", SLUG, "--phase", f"round-{k}",
                         f"docs={DATA / f'topics-round{k}.xml'}")
            stack.manage("import_qrels", "--competition", SLUG, "--phase", f"round-{k}",
                         f"docs={DATA / f'qrels-round{k}.txt'}")
        stack.start_worker()
        said = shell(stack, SUBMIT.format(runs=json.dumps(runs), slug=SLUG))
        # the run naming doc9999 is refused at its line, nothing stored of it
        assert said["refused"] == [["unknown-doc", [["run.docs.txt", 7, "unknown-docid"]]]]
        scored = len(runs) - 1
        wait_until(lambda: stack.query("SELECT count(*) FROM submissions_submission WHERE status = 'scored'")
                   == [(scored,)], what=lambda: f"{scored} runs scored\n{stack.log('worker')[-3000:]}")
        check_scores(stack, runs, said["done"], tmp_path, trec_eval)
        pool = shell(stack, POOL.format(slug=SLUG, corpus=str(corpus)))
        wait_until(lambda: stack.query("SELECT status FROM judging_poolexport WHERE id = ?", pool["export"])
                   == [("done",)], what=lambda: f"the pool built\n{stack.log('worker')[-3000:]}")
        assessed = shell(stack, ASSESS.format(export=pool["export"], slug=SLUG))
        shell(stack, FREEZE.format(slug=SLUG))
        wait_until(lambda: stack.query("SELECT count(*) FROM submissions_verification WHERE status = 'passed'")
                   == [(3,)], what=lambda: f"three rounds verified\n{stack.log('worker')[-3000:]}")
        shell(stack, ARCHIVES.format(slug=SLUG))
        wait_until(lambda: stack.query("SELECT count(*) FROM leaderboards_resultsarchive WHERE status = 'done'")
                   == [(3,)], what=lambda: f"three archives built\n{stack.log('worker')[-3000:]}")
        record = shell(stack, RECORD.format(slug=SLUG))
    check_pool_and_assessor(assessed)
    check_record(record, runs, said["done"])


def shell(stack: Stack, script: str) -> dict:
    out = stack.manage("shell", "-c", script).strip().splitlines()[-1]
    return json.loads(out) if out.startswith("{") else {"said": out}


def check_scores(stack: Stack, runs: list[dict], done: dict[str, int], tmp_path: Path, binary: Path) -> None:
    """Every stored mean and per-topic value equals trec_eval -q -c on the residual run."""
    means = {(pk, metric): value for pk, metric, value in
             stack.query("SELECT submission_id, metric, value FROM submissions_score")}
    per_topic = {pk: json.loads(values) for pk, values in
                 stack.query("SELECT submission_id, \"values\" FROM submissions_queryscores")}
    compared = 0
    for run in runs:
        if run["method"] not in done:
            continue
        pk, k = done[run["method"]], run["round"]
        expected = trec_eval_values(binary, DATA / f"qrels-round{k}.txt",
                                    residual(Path(run["path"]), k, tmp_path) if k > 1 else Path(run["path"]))
        for metric in MEASURES.values():
            assert means[pk, metric] == pytest.approx(expected[metric, "all"], abs=1e-12), (run["method"], metric)
            for qid, value in per_topic[pk][metric].items():
                assert value == pytest.approx(expected[metric, qid], abs=1e-12), (run["method"], metric, qid)
                compared += 1
    assert compared == 4 * RUNS_PER_TEAM * len(TEAMS) * (3 + 4 + 5)  # every measure, topic, run


def check_pool_and_assessor(assessed: dict) -> None:
    first = judged(1)
    assert assessed["rows"], "round 2's pool is empty"
    assert not [r for r in assessed["rows"] if r[1] in first.get(r[0], ())], "a document judged in round 1 pooled"
    narrative = next(line for line in (DATA / "topics-round2.xml").read_text().split("<topic ")
                     if f'number="{assessed["qid"]}"' in line).split("<narrative>")[1].split("</narrative>")[0]
    assert assessed["status"] == 200 and narrative.replace("'", "&#x27;") in assessed["page"]


def check_record(record: dict, runs: list[dict], done: dict[str, int]) -> None:
    for k in (1, 2, 3):
        found = record[f"round-{k}"]
        methods = sorted(run["method"] for run in runs if run["round"] == k and run["method"] in done)
        assert len(methods) == RUNS_PER_TEAM * len(TEAMS)
        official = found["official"]
        assert sorted(row["method"] for row in official["rows"]) == methods  # every run, not one per team
        assert all(set(row["averages"]["Avg"]) == set(MEASURES.values()) for row in official["rows"])
        header = found["table"].splitlines()[2]
        assert all(f" {m.replace('@', chr(92) + '@')} " in header for m in MEASURES.values()), header
        assert sum(line.startswith("| ") for line in found["table"].splitlines()) == 1 + len(methods)
        assert found["verified"] == [["passed", len(methods)]]
        archived = {run["method"]: run for run in found["runs"]["runs"]}
        assert sorted(archived) == methods
        for method in methods:
            assert set(archived[method]["scores"]["docs"]) == set(MEASURES.values())
            assert set(archived[method]["per_topic"]["docs"]) == set(MEASURES.values())
            assert archived[method]["topic_fields"] == ["query", "question"]
        [(name, digest)] = found["topics"].items()  # the XML as published, byte for byte
        assert name == f"topics/docs/topics-round{k}.xml"
        assert digest == hashlib.sha256((DATA / f"topics-round{k}.xml").read_bytes()).hexdigest()
