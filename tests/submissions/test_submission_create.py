"""submission_create: what it accepts, stores and enqueues, and every refusal (which stores nothing)."""
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from cupboard.submissions import services
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.models import RunFile, Submission
from cupboard.submissions.runfiles import uploaded_chunks
from cupboard.submissions.services import submission_create
from cupboard.submissions.tasks import score_submission
from tests.factories import make_user, stored_private_files

from .conftest import good_sw, upload


def create(world, files, *, user=None, team=None, phase=None, **kwargs):
    kwargs.setdefault("method_name", "BM25")
    return submission_create(phase=phase or world.dev, team=team or world.team_a, user=user or world.participant,
                             files=files, **kwargs)


def refusal(world, files, **kwargs) -> SubmissionRefused:
    before = (Submission.objects.count(), RunFile.objects.count())
    with pytest.raises(SubmissionRefused) as caught:
        create(world, files, **kwargs)
    assert (Submission.objects.count(), RunFile.objects.count()) == before
    return caught.value


def test_it_stores_files_and_queues(world, django_capture_on_commit_callbacks, monkeypatch):
    sent = []
    monkeypatch.setattr("cupboard.celery.send_task_message", lambda task, pk: sent.append((task, pk)))
    with django_capture_on_commit_callbacks() as callbacks:
        submission = create(world, [(upload("run.bm25.sw.txt", good_sw()), None),
                                    (upload("mine.txt.gz", {"1": ["10#1"]}, gz=True), "te")])
    assert submission.status == Submission.Status.QUEUED
    assert submission.number == 1 and submission.queued_at is not None
    files = {f.subset.code: f for f in submission.run_files.select_related("subset")}
    assert set(files) == {"sw", "te"}
    assert files["sw"].lines == 6 and files["sw"].queries == 3 and len(files["sw"].sha256) == 64
    assert files["te"].original_name == "mine.txt.gz"
    assert b"".join(uploaded_chunks(files["sw"])).startswith(b"1 Q0 11#0 1")
    assert sent == []  # the scoring message goes out only once the row is committed
    for callback in callbacks:
        callback()
    assert sent == [(score_submission, submission.pk)]


def test_it_numbers_submissions_per_team_and_phase(world):
    first = create(world, [(upload("a.sw.txt", good_sw()), None)])
    second = create(world, [(upload("b.sw.txt", {"1": ["10#0"]}), None)])
    other = create(world, [(upload("a.sw.txt", good_sw()), None)], user=world.outsider, team=world.team_b)
    assert (first.number, second.number, other.number) == (1, 2, 1)


def test_it_returns_the_existing_submission_for_the_same_files(world):
    first = create(world, [(upload("a.sw.txt", good_sw()), None)])
    again = create(world, [(upload("renamed.sw.txt", good_sw()), None)], method_name="again")
    assert again.pk == first.pk
    assert Submission.objects.count() == 1


def test_a_repeat_of_files_a_submission_lost_makes_a_new_submission(world):
    broken = create(world, [(upload("a.sw.txt", good_sw()), None)])
    lost = broken.run_files.get()
    lost.file.storage.delete(lost.file.name)  # as an outage at upload did before commits kept their files
    again = create(world, [(upload("a.sw.txt", good_sw()), None)])
    assert again.pk != broken.pk and b"".join(uploaded_chunks(again.run_files.get())).startswith(b"1 Q0 11#0 1")


def test_it_refuses_before_the_phase_opens(world):
    with time_machine.travel(world.test_b.opens_at - timedelta(minutes=1)):
        error = refusal(world, [(upload("a.sw.txt", good_sw()), None)], phase=world.test_b)
    assert error.code == "phase_not_open"
    assert "not open yet" in error.message and world.test_b.opens_at.strftime("%Y-%m-%d %H:%M") in error.message


def test_it_refuses_at_the_closing_instant(world):
    with time_machine.travel(world.dev.closes_at):
        error = refusal(world, [(upload("a.sw.txt", good_sw()), None)])
    assert error.code == "phase_closed"


def test_it_refuses_a_user_outside_the_team(world):
    assert refusal(world, [(upload("a.sw.txt", good_sw()), None)], user=world.outsider).code == "not_member"
    stranger = make_user()
    assert refusal(world, [(upload("a.sw.txt", good_sw()), None)], user=stranger).code == "not_member"


def test_it_refuses_a_hidden_surprise_language_like_an_unknown_one(world):
    hidden = refusal(world, [(upload("a.txt", {"1": ["10#2"]}), "yo")])
    unknown = refusal(world, [(upload("a.txt", {"1": ["10#2"]}), "zz")])
    assert hidden.code == unknown.code == "unknown_subset"
    assert hidden.message.replace("'yo'", "X") == unknown.message.replace("'zz'", "X")
    # From the file name, a hidden code is simply not recognised.
    assert refusal(world, [(upload("run.yo.txt", {"1": ["10#2"]}), None)]).code == "subset_not_named"


def test_a_refusal_names_the_languages_there_are_but_no_hidden_one(world):
    unnamed = refusal(world, [(upload("run.txt", good_sw()), None)]).message
    unknown = refusal(world, [(upload("a.txt", good_sw()), "es")]).message
    assert "the codes here: sw, te)" in unnamed and "its languages are sw, te." in unknown
    assert "yo" not in unnamed and "yo" not in unknown  # the surprise language is not revealed yet


def test_a_run_for_a_language_the_phase_lacks_names_those_it_takes(world):
    world.dev.topic_sets.filter(subset__code="te").delete()
    error = refusal(world, [(upload("run.te.txt", good_sw()), None)])
    assert error.code == "no_topics"
    assert error.message == ("run.te.txt: Development has no topics for te, so a run for it cannot be scored here; "
                             "it takes runs for sw.")


def test_it_accepts_a_surprise_language_after_its_reveal(world):
    reveal_at = world.competition.groups.get(name="surprise").reveal_at
    with time_machine.travel(reveal_at + timedelta(seconds=1)):
        submission = create(world, [(upload("run.yo.txt", {"1": ["10#2"]}), None)])
    assert submission.run_files.get().subset.code == "yo"


def test_it_refuses_two_files_for_one_language(world):
    error = refusal(world, [(upload("a.sw.txt", good_sw()), None), (upload("b.txt", good_sw()), "sw")])
    assert error.code == "duplicate_subset"


def test_it_lists_every_invalid_line_of_every_file(world):
    bad_sw = b"1 Q0 10#0 1 2.0 t\n1 Q0 notadoc 2 1.0 t\n"
    bad_te = b"1 Q0 10#1 1 high t\n99 Q0 10#1 1 1.0 t\n"
    error = refusal(world, [(upload("a.sw.txt", bad_sw), None), (upload("b.te.txt", bad_te), None)])
    assert error.code == "invalid_run"
    where = {(p.file, p.line) for p in error.problems}
    assert ("a.sw.txt", 2) in where and ("b.te.txt", 1) in where and ("b.te.txt", 2) in where
    assert all(p.message for p in error.problems)


def _form_errors(form_class, data: dict, files: dict) -> dict[str, set[str]]:
    from django.utils.datastructures import MultiValueDict

    form = form_class(data, MultiValueDict(files), subsets=[])
    assert not form.is_valid()
    return {field: {e.code for e in errors} for field, errors in form.errors.as_data().items()}


@pytest.mark.parametrize("form_class", ["UploadForm", "ApiUploadForm"])
def test_the_forms_refuse_no_files_and_no_method_name(form_class):
    """The service trusts its forms for these (it checks only what needs the database)."""
    from cupboard.submissions import forms

    errors = _form_errors(getattr(forms, form_class), {"method_name": "  "}, {})
    assert errors["method_name"] == {"required"} and errors["files"] & {"required", "no_files"}


def test_it_lets_organizers_add_baselines_any_time(world):
    with time_machine.travel(world.dev.closes_at + timedelta(days=3)):
        baseline = create(world, [(upload("bm25.sw.txt", good_sw()), None)], user=world.organizer, team=None,
                          is_baseline=True)
    assert baseline.is_baseline and baseline.team is None and baseline.number == 1
    assert world.competition.audit_events.filter(action="baseline_added").count() == 1
    assert refusal(world, [(upload("x.sw.txt", good_sw()), None)], team=None, is_baseline=True).code == "not_organizer"


def test_it_does_not_count_the_clock_of_the_client(world):
    # The window is judged by the server clock alone: a phase closed a second ago refuses.
    with time_machine.travel(timezone.now() + timedelta(days=40)):
        assert refusal(world, [(upload("a.sw.txt", good_sw()), None)]).code == "phase_closed"


@pytest.mark.parametrize("form_class", ["UploadForm", "ApiUploadForm"])
def test_the_forms_refuse_links_that_are_not_web_addresses(form_class):
    from cupboard.submissions import forms

    errors = _form_errors(getattr(forms, form_class), {"method_name": "x", "paper_url": "javascript:alert(1)"},
                          {"files": [upload("a.sw.txt", good_sw())]})
    assert errors == {"paper_url": {"invalid"}}


def test_a_failure_after_the_files_are_stored_leaves_neither_rows_nor_files(world, monkeypatch):
    def broken_enqueue(**_):  # the last step inside the transaction, after both files were written
        raise RuntimeError("broker exploded")
    monkeypatch.setattr(services, "submission_enqueue", broken_enqueue)
    with pytest.raises(RuntimeError):
        create(world, [(upload("run.rolled-back-run.sw.txt", good_sw()), None),
                       (upload("run.rolled-back-run.te.txt", {"1": ["10#1"]}), None)])
    assert (Submission.objects.count(), RunFile.objects.count()) == (0, 0)
    assert stored_private_files("rolled-back-run") == []
    monkeypatch.undo()
    create(world, [(upload("run.rolled-back-run.sw.txt", good_sw()), None)])
    assert len(stored_private_files("rolled-back-run")) == 1  # the same upload, without the failure, is stored


def test_every_status_is_one_the_code_sets(world):
    """Validation runs in the request, before any row exists: an upload is born queued, and no
    status is left that nothing ever sets (received and validating were)."""
    submission = create(world, [(upload("a.sw.txt", good_sw()), None)])
    assert submission.status == Submission.Status.QUEUED
    assert set(Submission.Status.values) == {"queued", "scoring", "scored", "rejected", "failed"}
    assert Submission._meta.get_field("status").default == Submission.Status.QUEUED


_ODD_RUNS = {  # what `python -m evaluator score` scores with a warning (issue 27); uploads keep their rules
    "bad-tag": b"1 Q0 10#0 1 2.0 a-run-tag-of-more-than-twenty-characters\n",
    "several-tags": b"1 Q0 10#0 1 2.0 one\n2 Q0 20#0 1 2.0 two\n",
    "bad-rank": b"1 Q0 10#0 1.0 2.0 t\n",
    "field-too-long": b"1 Q0 " + b"9" * 120 + b"#0 1 2.0 t\n",
    "line-too-long": b"1 Q0 10#0 1 2.0 t" + b" more" * 250 + b"\n",
    "bad-score": b"1 Q0 10#0 1 0x1.8p1 t\n",
}


@pytest.mark.parametrize("code", sorted(_ODD_RUNS))
def test_uploads_keep_competition_rules_even_on_a_generic_competition(world, code):
    """The generic profile's trec_eval reading is the command line's; the platform passes its
    rules (read_run's default strict), even for a competition of the generic benchmark."""
    world.competition.benchmark = "generic"
    world.competition.save(update_fields=["benchmark"])
    error = refusal(world, [(upload("a.sw.txt", _ODD_RUNS[code]), None)])
    assert error.code == "invalid_run"
    assert code in {p.code for p in error.problems}


def test_a_file_whose_name_gives_no_language_hides_no_other_problem(world):
    """Issue 33, item 13: the unnamed file's refusal came alone, and the other file's bad lines
    only after it was fixed and sent again."""
    bad_sw = b"1 Q0 10#0 1 2.0 t\n1 Q0 notadoc 2 1.0 t\n"
    error = refusal(world, [(upload("run.txt", good_sw()), None), (upload("run.sw.txt", bad_sw), None),
                            (upload("run.xx.txt", good_sw()), "xx")])
    assert error.code == "subset_not_named" and error.message.startswith("run.txt: cannot tell the language")
    assert "And 2 more problems below; nothing was stored." in error.message
    assert [(p.file, p.code) for p in error.problems] == [
        ("run.txt", "subset_not_named"), ("run.xx.txt", "unknown_subset"), ("run.sw.txt", "bad-docid")]
    assert error.problems[2].line == 2
