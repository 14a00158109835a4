"""A competition in full swing for the rules tests, built through the real services.

The personas' cup (known sw, te; surprise yo revealed in 10 days; phases dev and test-b),
topics for every subset of both phases, open dev judgments and hidden test-B judgments,
and scored submissions: team A on dev and test-b, team B on dev, a public baseline on dev
with a run for the still-hidden yo. Every secret carries a marker that cannot occur by
chance, so a test can look for it in any response body or log line:

    TEST_B_DOCIDS    judged only in the hidden test-B qrels; no run retrieves them
    TAG_A / TAG_B    the run tags inside team A's / team B's run files
    MODEL_TEST_B     the model team A's test-B run names in its run metadata: its team's and the
                     organizers' until test B's leaderboard is public
    "Yoruba"         the name of the surprise language (its code, yo, is checked as a word)
    BLIND_MARKER     in every query of the blind phase (a systems phase): its organizers' alone
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from django.core.files.uploadedfile import SimpleUploadedFile

from cupboard.competitions.assessors import assessor_add
from cupboard.competitions.models import TopicsFile, TopicsVersion
from cupboard.competitions.services import qrels_release_create
from cupboard.judging.assessment import corpus_upload, judging_round_create
from cupboard.judging.pools import pool_export_build, pool_export_create
from cupboard.leaderboards.bands import bands_compute
from cupboard.leaderboards.models import BandsJob
from cupboard.submissions.models import QueryScores, Score, Submission
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.factories import make_competition, make_team, make_topics, make_user, qrels_text, set_run_metadata
from tests.personas import Cast, build_cast

QIDS = ["1", "2", "3", "4"]
TAG_A, TAG_B, TAG_BASELINE = "tagTeamAlphaSecret", "tagTeamBravoSecret", "tagPublicBaseline"
TAG_DRAFT = "tagDraftTeamSecret"
TAG_TEST_B_BASELINE = "tagTestBBaselineRun"  # a baseline's run on test B: the organizers' until its judgments are public
# Found by runs: ARTICLE#PASSAGE ids per (subset, phase); the hidden ones nobody retrieves.
DEV_JUDGMENTS = {code: {q: {f"{q}0{i}#{i}": int(i < 2) + int(i == 0) for i in range(3)} for q in QIDS}
                 for code in ("sw", "te", "yo")}
TEST_B_DOCIDS = ["8675309#17", "5551212#23", "4815162#42"]
TEST_B_JUDGMENTS = {code: {q: {**{f"{q}0{i}#{i}": int(i != 1) for i in range(3)},
                               TEST_B_DOCIDS[(int(q) + k) % 3]: 2}
                           for q in QIDS} for k, code in enumerate(("sw", "te", "yo"))}
BLIND_MARKER = "quokkaBlindTopic"
SURPRISE_WORD = re.compile(r"\byo\b")
MODEL_TEST_B = "modelTeamAlphaTestB"
# The cup's run metadata (competitions/run_metadata.py), optional so every upload here may omit it.
RUN_METADATA = [{"name": "zero_shot", "label": "Zero-shot", "type": "boolean"},
                {"name": "model", "label": "Model", "type": "text"}]


def run_bytes(*, tag: str, shift: int = 0) -> bytes:
    """A valid run on QIDS: the three dev-judged passages of each query, rotated by `shift`."""
    lines = []
    for qid in QIDS:
        docids = [f"{qid}0{i}#{i}" for i in range(3)]
        docids = docids[shift % 3:] + docids[:shift % 3]
        lines += [f"{qid} Q0 {docid} {rank} {10 - rank}.5 {tag}\n" for rank, docid in enumerate(docids, start=1)]
    return "".join(lines).encode()


def upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="text/plain")


@dataclass
class World:
    cast: Cast
    dev: object
    test_b: object
    draft: object
    draft_team: object
    draft_sub: Submission
    sub_a_dev: Submission
    sub_a_test_b: Submission
    sub_b_dev: Submission
    baseline: Submission
    baseline_test_b: Submission
    pool_test_b: object = None  # a built pool export of test B (organizers only)
    assessor: object = None  # named by the organizer to judge the cup's pools (competitions/assessors.py)
    task_test_b: object = None  # the assessor's judging task of test B's pool (sw)
    blind: object = None  # a systems phase: its topics are its organizers' alone (cupboard/systems/)
    blind_system: object = None  # team A's system in it, waiting for a runner

    def __getattr__(self, name):
        # The personas and teams, as world.organizer etc. (not during copying, before `cast` exists).
        if name.startswith("__") or "cast" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.cast, name)


def submit(phase, *, team, user, tag: str, codes=("sw", "te"), shift: int = 0, baseline: bool = False,
           score: bool = True, metadata: dict | None = None) -> Submission:
    """Upload through `submission_create` (real validation) and score in-process."""
    files = [(upload(f"run.{tag}.{code}.txt", run_bytes(tag=tag, shift=shift)), code) for code in codes]
    submission = submission_create(phase=phase, team=team, user=user, files=files, method_name=f"method {len(codes)}.{shift}",
                                   is_baseline=baseline, metadata=metadata)
    if score:
        assert submission_score(submission_id=submission.pk) == "scored"
        submission.refresh_from_db()
    return submission


def _topics_version(phase, sets) -> None:
    """The topics as the phase's change 1, as migration 0019 records topics stored before
    versions: what the organizers' topics-file URL serves."""
    version = TopicsVersion.objects.create(phase=phase, number=1)
    for topic_set in sets:
        TopicsFile.objects.create(version=version, subset=topic_set.subset, variant=topic_set.variant,
                                  file=topic_set.file.name, original_name=topic_set.original_name,
                                  sha256=topic_set.sha256, query_count=topic_set.query_count)


def build_world() -> World:
    cast = build_cast()
    dev, test_b = cast.competition.phases.get(slug="dev"), cast.competition.phases.get(slug="test-b")
    for phase in (dev, test_b):
        sets = [make_topics(phase, code, QIDS) for code in ("sw", "te", "yo")]
        _topics_version(phase, sets)
    qrels_release_create(phase=dev, files={c: qrels_text(j) for c, j in DEV_JUDGMENTS.items()}, actor=cast.organizer)
    qrels_release_create(phase=test_b, files={c: qrels_text(j) for c, j in TEST_B_JUDGMENTS.items()},
                         actor=cast.organizer)
    # A draft with real objects in it: a team (the outsider's) and its submission, as when a
    # competition is unpublished after teams formed. Nobody but its organizers may see any of it.
    draft = make_competition(slug="draft", organizers=[cast.organizer], is_published=False)
    for competition in (cast.competition, draft):  # the organizers' own pages (competitions/pages.py)
        competition.pages = {"rules": "Be **fair**."}
        competition.save(update_fields=["pages"])
        set_run_metadata(competition, RUN_METADATA)
    draft_dev = draft.phases.get(slug="dev")
    make_topics(draft_dev, "sw", QIDS)
    draft_team = make_team(draft, name="Draft Team", members=[cast.outsider])
    world = World(
        cast=cast, dev=dev, test_b=test_b, draft=draft, draft_team=draft_team,
        draft_sub=submit(draft_dev, team=draft_team, user=cast.outsider, tag=TAG_DRAFT, codes=("sw",), score=False),
        sub_a_dev=submit(dev, team=cast.team_a, user=cast.participant, tag=TAG_A, metadata={"zero_shot": "yes"}),
        sub_a_test_b=submit(test_b, team=cast.team_a, user=cast.participant, tag=TAG_A, shift=1,
                            metadata={"zero_shot": "yes", "model": MODEL_TEST_B}),
        sub_b_dev=submit(dev, team=cast.team_b, user=cast.outsider, tag=TAG_B, shift=2, metadata={"zero_shot": "no"}),
        baseline=submit(dev, team=None, user=cast.organizer, tag=TAG_BASELINE, codes=("sw", "te", "yo"),
                        baseline=True),
        baseline_test_b=submit(test_b, team=None, user=cast.organizer, tag=TAG_TEST_B_BASELINE, baseline=True),
    )
    for phase in (dev, test_b):  # the bands job each board's scorings sent, run as the worker runs it
        assert bands_compute(job_id=BandsJob.objects.get(phase=phase).pk) == "landed"
    world.blind, world.blind_system = _blind_phase(cast)
    world.pool_test_b = pool_export_create(phase=test_b, actor=cast.organizer)
    assert pool_export_build(export_id=world.pool_test_b.pk) == "done"
    world.pool_test_b.refresh_from_db()
    world.assessor = make_user("assessor")
    assessor_add(competition=cast.competition, username="assessor", actor=cast.organizer)
    world.task_test_b = _judging_task(world)
    return world


def _blind_phase(cast):
    """A systems phase (cupboard/systems/): topics nobody but its organizers may read, and a
    system of team A, uploaded and waiting for a runner."""
    from cupboard.competitions.models import Phase
    from cupboard.systems.services import system_upload
    from tests.factories import make_phase
    from tests.systems.conftest import image_upload

    blind = make_phase(cast.competition, slug="blind", name="Blind round", position=2)
    Phase.objects.filter(pk=blind.pk).update(kind=Phase.Kind.SYSTEMS)
    blind.refresh_from_db()
    _topics_version(blind, [make_topics(blind, code, {q: f"{BLIND_MARKER} {code} {q}" for q in QIDS})
                            for code in ("sw", "te", "yo")])
    system = system_upload(phase=blind, team=cast.team_a, user=cast.participant, image=image_upload(),
                           method_name="blind BM25")
    return blind, system


def _judging_task(world: World):
    """The assessor's task on a pool of test B (sw), its passages from a corpus of the pooled
    docids. Every document the runs retrieve is judged there, so the pool is built as if no
    judgments existed yet (a first round of judging)."""
    from cupboard.judging.models import PoolExport
    from cupboard.judging.pools import pool_member

    export = pool_export_create(phase=world.test_b, actor=world.organizer, depth=2)
    PoolExport.objects.filter(pk=export.pk).update(qrels_release=None)
    assert pool_export_build(export_id=export.pk) == "done"
    export.refresh_from_db()
    sw = world.competition.subsets.get(code="sw")
    docids = {line.split("\t")[2] for line in pool_member(export, "sw").decode().splitlines()[1:]}
    corpus = SimpleUploadedFile("corpus.sw.tsv", "".join(f"{d}\tT\tpassage {d}\n" for d in sorted(docids)).encode())
    corpus_upload(phase=world.test_b, subset=sw, file=corpus, name="corpus.sw.tsv", actor=world.organizer)
    judging_round = judging_round_create(export=export, assessors={"sw": [world.assessor]}, overlap=0,
                                         actor=world.organizer)
    return judging_round.assignments.get()


def _distinctive(value: float) -> bool:
    """Not a small fraction (2/3 also sits in plotly's colour scales): only such values
    prove a leak when found in a page."""
    return all(abs(value * k - round(value * k)) > 1e-9 for k in range(1, 25))


def hidden_markers(world: World) -> dict[str, list[str]]:
    """Strings no non-organizer may ever read, by what they are."""
    test_b_lines = [line for line in qrels_text(TEST_B_JUDGMENTS["sw"]).decode().splitlines()]
    per_query = {repr(v) for qs in QueryScores.objects.filter(submission__phase=world.test_b)
                 for by_qid in qs.values.values() for v in by_qid.values() if _distinctive(v)}
    full_precision = {repr(s.value) for s in Score.objects.filter(submission__phase=world.test_b)
                      if _distinctive(s.value)}
    return {"test-B docids": TEST_B_DOCIDS, "test-B qrels lines": test_b_lines,
            "test-B per-query values": sorted(per_query), "test-B full-precision scores": sorted(full_precision),
            "surprise language name": ["Yoruba"], "blind phase topics": [BLIND_MARKER]}
