"""Every write of a row a kept page shows reaches the page at once (competitions/page_cache.py):
a save or delete through its signal, a bulk write through `RowsWritten` (cupboard/bulk_writes.py).

Which rows the pages show is not a list kept by hand: every page kept for everyone (each URL
whose view is `anonymous_cached`, found by walking the URLs) and each kept for a team's browser
is rendered, and every table its queries read must be one whose writes tell. A new model a page
reads, written without telling, fails here."""
import re
import threading
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import URLResolver, get_resolver, reverse
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.bulk_writes import TellingQuerySet
from cupboard.competitions import page_cache
from cupboard.competitions.models import PageChange
from cupboard.submissions.models import Submission
from tests.factories import make_topics
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for, personas  # noqa: F401

pytestmark = pytest.mark.django_db

_ARGUMENTS = {"slug": "cup", "competition_slug": "cup", "phase_slug": "dev", "code": "sw", "variant": "default",
              "page": "rules"}
# Read by the pages, told otherwise: a person's save (`person_changed`), a membership's
# (`people_changed`, m2m_changed), and the keys' own rows.
_TOLD_OTHERWISE = {"auth.user", "sessions.session", "competitions.pagechange"}


def _kept_urls(resolver=None, namespace: str = ""):
    """Every URL whose view keeps its answer for blank visitors, with the personas' cup's arguments."""
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _kept_urls(pattern, ":".join(n for n in (namespace, pattern.namespace) if n))
        elif hasattr(pattern.callback, "page_cache_scope"):
            names = re.findall(r"<(?:\w+:)?(\w+)>", str(pattern.pattern))
            yield reverse(f"{namespace}:{pattern.name}" if namespace else pattern.name,
                          kwargs={name: _ARGUMENTS[name] for name in names})


def _tables_read(client, url: str) -> set[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200, url
    return {table for query in queries.captured_queries for table in re.findall(r'(?:FROM|JOIN) "(\w+)"', query["sql"])}


def _models_read(personas) -> dict[str, type]:
    """{label: model} of every table the kept pages' renders read, in a cup with topics, a scored
    run, a public audit event and a submission page kept for its team."""
    dev = personas.competition.phases.get(slug="dev")
    for code in ("sw", "te"):
        make_topics(dev, code, {"1": f"a query in {code}"})
    run = make_scored(dev, team=personas.team_a, method="kept-run", scores=ndcg(sw=0.5, te=0.5))
    AuditEvent.objects.create(competition=personas.competition, action=AuditEvent.Action.QRELS_COMMITTED,
                              is_public=True, summary="public")
    urls = list(_kept_urls())
    assert len(urls) >= 15, urls  # the walk found the kept pages
    tables = set().union(*(_tables_read(client_for(None), url) for url in urls))
    member = client_for(personas.participant)
    for url in (run.get_absolute_url(), reverse("submissions:mine", args=["cup"])):
        tables |= _tables_read(member, url)
    by_table = {model._meta.db_table: model for model in apps.get_models(include_auto_created=True)}
    return {by_table[table]._meta.label_lower: by_table[table] for table in tables}


def _tells_its_writes(model) -> bool:
    return (page_cache._path_to_competition(model) is not None
            and isinstance(model._default_manager.all(), TellingQuerySet))


def test_every_model_a_kept_page_reads_tells_its_writes(personas):
    read = _models_read(personas)
    assert {"teams.team", "submissions.runfile", "audit.auditevent", "competitions.topicset"} <= read.keys()
    untold = sorted(label for label, model in read.items()
                    if label not in page_cache.VERSIONED | _TOLD_OTHERWISE and not model._meta.auto_created
                    and not _tells_its_writes(model))
    assert untold == [], "read by a kept page, written without telling it: give it TellingQuerySet"
    assert sorted(read.keys() & page_cache._UNSHOWN - _TOLD_OTHERWISE) == [], "read by a kept page: not unshown"


def test_every_model_whose_saves_tell_tells_its_bulk_writes_too():
    saves_tell = [model for model in apps.get_models()
                  if model.__module__.startswith("cupboard.") and page_cache._path_to_competition(model) is not None]
    assert len(saves_tell) > 20
    assert sorted(m._meta.label for m in saves_tell if not _tells_its_writes(m)) == []


def test_no_user_is_written_in_bulk():
    """A person's save tells (`person_changed`); auth's User manager is Django's, so none may be written in bulk."""
    from pathlib import Path

    platform = Path(__file__).resolve().parents[2] / "platform" / "cupboard"
    found = [f"{path}: {line.strip()}" for path in platform.rglob("*.py") if "migrations" not in path.parts
             for line in path.read_text().splitlines()
             if re.search(r"\b(User|get_user_model\(\))\.objects\b.*\.(update|bulk_create|bulk_update)\(", line)]
    assert found == []


def _audit(client=None) -> str:
    return (client or client_for(None)).get(reverse("audit:log", args=["cup"])).content.decode()


def test_a_bulk_create_a_bulk_update_and_a_queryset_delete_are_seen_at_once(personas):
    assert "Made in bulk" not in _audit()
    [event] = AuditEvent.objects.bulk_create([AuditEvent(
        competition=personas.competition, action=AuditEvent.Action.QRELS_COMMITTED, is_public=True,
        summary="Made in bulk")])
    assert "Made in bulk" in _audit()
    event.summary = "Rewritten in bulk"
    AuditEvent.objects.bulk_update([event], ["summary"])
    assert "Rewritten in bulk" in _audit()
    AuditEvent.objects.filter(pk=event.pk).update(summary="Updated in bulk")
    assert "Updated in bulk" in _audit()
    AuditEvent.objects.filter(pk=event.pk).delete()
    assert "Updated in bulk" not in _audit()


def test_a_team_renamed_in_bulk_is_seen_on_a_kept_page_at_once(personas):
    dev = personas.competition.phases.get(slug="dev")
    run = make_scored(dev, team=personas.team_a, method="kept-run", scores=ndcg(sw=0.5, te=0.5))
    member = client_for(personas.participant)
    for _ in range(2):  # the first answer sets the CSRF cookie, the second is kept for the browser
        assert "Renamed in bulk" not in member.get(run.get_absolute_url()).content.decode()
    personas.team_a.__class__.objects.filter(pk=personas.team_a.pk).update(name="Renamed in bulk")
    assert "Renamed in bulk" in member.get(run.get_absolute_url()).content.decode()


def test_a_bulk_write_tells_only_its_rows_competitions_and_a_quiet_one_none(personas):
    dev = personas.competition.phases.get(slug="dev")
    run = make_scored(dev, team=personas.team_a, method="quiet", scores=ndcg(sw=0.5))
    AuditEvent.objects.create(competition=personas.competition, action=AuditEvent.Action.QRELS_COMMITTED,
                              summary="backdated")
    before = {pk: PageChange.objects.filter(competition_id=pk).count()
              for pk in (personas.competition.pk, personas.other_competition.pk)}
    Submission.objects.filter(pk=run.pk).update(status=Submission.Status.SCORING, heartbeat_at=timezone.now(),
                                                progress=50)  # a worker's claim and beat
    AuditEvent.objects.filter(competition=personas.competition).update(
        created_at=timezone.now() - timedelta(days=1))
    after = {pk: PageChange.objects.filter(competition_id=pk).count() for pk in before}
    assert after == {personas.competition.pk: before[personas.competition.pk] + 1,
                     personas.other_competition.pk: before[personas.other_competition.pk]}


@pytest.mark.django_db(transaction=True)
def test_a_row_that_starts_matching_between_the_read_and_the_write_is_not_written_untold(personas, monkeypatch):
    """A bulk update reads the ids it tells (cupboard/bulk_writes.py), then writes: a row another
    connection makes match in between (committed) was written but never told, and its
    competition's pages stayed as they were for up to CUPBOARD_PAGE_CACHE_SECONDS. Every row
    written is a row told."""
    from cupboard import events

    mine, theirs = (AuditEvent.objects.create(competition=competition, action=AuditEvent.Action.QRELS_COMMITTED,
                                              summary=summary)
                    for competition, summary in ((personas.competition, "matching"),
                                                 (personas.other_competition, "not yet")))
    told: list[int] = []
    send = events.send
    monkeypatch.setattr(events, "send", lambda event: (  # what the update tells, not the other writer
        told.extend(event.rows) if "is_public" in (event.fields or ()) else None, send(event)))

    def another_writer(execute, sql, params, many, context):
        if sql.startswith("UPDATE") and not hasattr(another_writer, "done"):
            another_writer.done = True  # type: ignore[attr-defined]
            _meanwhile(lambda: AuditEvent.objects.filter(pk=theirs.pk).update(summary="matching"))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(another_writer):
        AuditEvent.objects.filter(summary="matching").update(is_public=True)
    written = set(AuditEvent.objects.filter(is_public=True).values_list("pk", flat=True))
    assert hasattr(another_writer, "done") and mine.pk in written
    assert written <= set(told), "written and never told"


def _meanwhile(write) -> None:
    """`write`, committed by another connection on PostgreSQL; on SQLite, whose lock keeps any
    other writer out of the update's transaction, by the update's own connection, as if it had."""
    if connection.vendor != "postgresql":
        write()
        return

    def in_its_own_connection() -> None:
        try:
            write()
        finally:
            connection.close()
    thread = threading.Thread(target=in_its_own_connection)
    thread.start()
    thread.join()


def test_an_update_of_more_rows_than_a_statement_takes_writes_and_tells_them_all(personas, monkeypatch):
    """500 ids a statement (cupboard/bulk_writes.py), all in one transaction."""
    from cupboard import events

    AuditEvent.objects.bulk_create([AuditEvent(competition=competition, action=AuditEvent.Action.QRELS_COMMITTED,
                                               summary="many")
                                    for competition in [personas.competition] * 1200 + [personas.other_competition]])
    told: list[int] = []
    send = events.send
    monkeypatch.setattr(events, "send", lambda event: (told.extend(event.rows), send(event)))
    with CaptureQueriesContext(connection) as queries:
        assert AuditEvent.objects.filter(summary="many").update(summary="rewritten") == 1201
    assert len(told) == 1201 == AuditEvent.objects.filter(summary="rewritten").count()
    assert sum(query["sql"].startswith("UPDATE") for query in queries.captured_queries) == 3
