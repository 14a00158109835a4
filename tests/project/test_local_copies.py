"""A process's own copies of versioned cache entries (cupboard/local_copies.py): a repeat hit
reads nothing from the shared cache, a new version is read fresh, the copies stay within their
bytes and never outlive the shared entry, and what says who someone is (a person's token, their
team's runs token, a session's lookup) is still read from the shared cache on every request, so
a log-out or a new run in another process is seen at once."""
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import caches
from django.urls import reverse

from cupboard import local_copies
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.local_copies import Copies, Stored
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for, personas  # noqa: F401
from tests.queries import page_and_queries

LIMIT = 64 * 1024


@pytest.fixture
def reads(monkeypatch) -> Counter:
    """The keys read from the shared cache (the suite's, a real in-memory one), counted."""
    shared = caches["default"]
    counted: Counter = Counter()
    real_get = shared.get

    def get(key, default=None, version=None):
        counted[key.split(":")[0]] += 1
        return real_get(key, default, version)
    monkeypatch.setattr(shared, "get", get)
    return counted


@pytest.fixture
def processes(monkeypatch, settings):
    """Two web processes' copies over one shared cache: `use(i)` makes process i the one serving."""
    settings.CUPBOARD_LOCAL_COPY_BYTES = LIMIT
    both = [local_copies.copies, Copies(lambda: settings.CUPBOARD_LOCAL_COPY_BYTES)]

    def use(i: int) -> None:
        monkeypatch.setattr(local_copies, "copies", both[i])
    return use


def _builder(value):
    built = []

    def build():
        built.append(value)
        return value
    return build, built


def test_a_second_hit_reads_nothing_from_the_shared_cache(reads):
    build, built = _builder((200, "text/html", b"<p>board</p>"))
    assert local_copies.cached("board:7:v1", build, 60) == (200, "text/html", b"<p>board</p>")
    assert reads["board"] == 1
    assert local_copies.cached("board:7:v1", build, 60) == (200, "text/html", b"<p>board</p>")
    assert reads["board"] == 1 and len(built) == 1


def test_another_process_copies_the_entry_once_from_the_shared_cache(processes, reads):
    build, built = _builder((200, "text/html", b"<p>board</p>"))
    processes(0)
    local_copies.cached("board:7:v1", build, 60)
    processes(1)
    for _ in range(3):
        assert local_copies.cached("board:7:v1", build, 60) == (200, "text/html", b"<p>board</p>")
    assert reads["board"] == 2 and len(built) == 1


def test_a_new_version_is_read_and_built_fresh(reads):
    local_copies.cached("board:7:v1", lambda: b"old", 60)
    assert local_copies.cached("board:7:v2", lambda: b"new", 60) == b"new"
    assert reads["board"] == 2


def test_a_mutable_value_is_never_copied(reads):
    local_copies.cached("history:7:v1", lambda: {"teams": 3}, 60)
    value = local_copies.cached("history:7:v1", lambda: {"teams": 4}, 60)
    value["teams"] = 99  # a caller changing its answer changes no other request's
    assert local_copies.cached("history:7:v1", lambda: {}, 60) == {"teams": 3}
    assert reads["history"] == 3


def test_the_bytes_bound_drops_the_least_recently_used(settings, reads):
    settings.CUPBOARD_LOCAL_COPY_BYTES = LIMIT
    for i in range(40):
        local_copies.put(f"page:{i}", b"x" * 2000, 60)
        local_copies.get("page:0")  # used again and again: kept
    assert local_copies.copies.size <= LIMIT
    assert 20 < len(local_copies.copies) < 40
    before = reads["page"]
    assert local_copies.get("page:0") == b"x" * 2000 and local_copies.get("page:39") == b"x" * 2000
    assert reads["page"] == before
    assert local_copies.get("page:1") == b"x" * 2000  # dropped here, still in the shared cache
    assert reads["page"] == before + 1


def test_an_entry_larger_than_an_eighth_of_the_bound_is_never_copied(settings, reads):
    settings.CUPBOARD_LOCAL_COPY_BYTES = LIMIT
    local_copies.put("topics:big", b"x" * (LIMIT // 8), 60)
    assert local_copies.get("topics:big") == b"x" * (LIMIT // 8)
    assert len(local_copies.copies) == 0 and reads["topics"] == 1


def test_none_are_kept_with_no_bytes(settings, reads):
    settings.CUPBOARD_LOCAL_COPY_BYTES = 0
    local_copies.put("page:1", b"x", 60)
    local_copies.get("page:1")
    assert len(local_copies.copies) == 0 and reads["page"] == 1


def test_a_copy_expires_when_the_shared_entry_does(processes, time_machine):
    time_machine.move_to("2026-12-06 12:00:00", tick=False)
    processes(0)
    local_copies.cached("page:1", lambda: b"first", 60)
    time_machine.shift(50)
    processes(1)
    assert local_copies.get("page:1") == b"first"  # copied 50 s into the shared entry's 60
    time_machine.shift(11)
    assert local_copies.cached("page:1", lambda: b"second", 60) == b"second"
    processes(0)
    assert local_copies.get("page:1") == b"second"


def test_an_entry_stored_without_its_expiry_is_a_miss():
    caches["default"].set("page:old", b"stored by an older release", 60)
    assert local_copies.get("page:old") is None
    local_copies.put("page:new", b"stored now", 60)
    assert isinstance(caches["default"].get("page:new"), Stored)


@pytest.mark.django_db
def test_a_kept_anonymous_page_hit_reads_nothing_from_the_shared_cache(personas, reads):
    url = reverse("competitions:page", args=["cup", "rules"])
    first = client_for(None).get(url, HTTP_ACCEPT_ENCODING="gzip")
    reads.clear()
    second = client_for(None).get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert second.content == first.content and second["Content-Encoding"] == "gzip"
    assert reads["page"] == 0


@pytest.fixture
def signed_in_urls(personas, settings):
    settings.CUPBOARD_BOARD_STATE_SECONDS = 3600  # the state kept all test long: no query from the clock
    dev = personas.competition.phases.get(slug="dev")
    run = make_scored(dev, team=personas.team_a, method="kept-run", scores=ndcg(sw=0.5, te=0.5))
    leaderboard_refresh(phase=dev)
    return {"submission": run.get_absolute_url(), "mine": reverse("submissions:mine", args=["cup"]),
            "board": reverse("leaderboards:phase", args=["cup", "dev"]),
            "json": reverse("leaderboards:export_json", kwargs={"competition_slug": "cup", "phase_slug": "dev"})}


def _kept(client, urls) -> None:
    for url in urls.values():
        for _ in range(3):
            client.get(url)


@pytest.mark.django_db
def test_a_signed_in_hit_reads_the_tokens_and_not_the_page(personas, signed_in_urls, reads):
    client = client_for(personas.participant)
    _kept(client, signed_in_urls)
    for name, url in signed_in_urls.items():
        reads.clear()
        _, queries = page_and_queries(client, url)
        assert queries == 0, name
        assert reads["own-page"] == reads["own-team"] == reads["leaderboard"] == reads["board-viewer"] == 0, name
        assert reads["person"] >= 1, name  # the session's lookup: this process's copy, checked by it
        assert reads["team-runs"] >= (name in ("submission", "mine")), name  # the team's own pages: its runs token


@pytest.mark.django_db
def test_a_log_out_in_another_process_is_seen_at_once(personas, signed_in_urls, processes):
    client = client_for(personas.participant)
    processes(0)
    _kept(client, signed_in_urls)
    thief = client_for(None)
    thief.cookies = client.cookies.__class__(client.cookies)
    processes(1)
    assert client.post(reverse("accounts:logout")).status_code == 302
    processes(0)
    assert b"kept-run" not in thief.get(signed_in_urls["submission"]).content
    assert thief.get(signed_in_urls["mine"]).status_code == 302


@pytest.mark.django_db
def test_a_new_run_scored_in_another_process_is_seen_at_once(personas, signed_in_urls, processes):
    client = client_for(personas.participant)
    processes(0)
    _kept(client, signed_in_urls)
    processes(1)
    make_scored(personas.competition.phases.get(slug="dev"), team=personas.team_a, method="newer-run",
                scores=ndcg(sw=0.1))
    processes(0)
    assert "newer-run" in page_and_queries(client, signed_in_urls["mine"])[0]



def test_threads_at_once_keep_the_bytes_counted(settings):
    settings.CUPBOARD_LOCAL_COPY_BYTES = LIMIT
    copies = Copies(lambda: LIMIT)

    def work(thread: int) -> None:
        for i in range(2000):
            copies.put(f"page:{(thread * 7 + i) % 90}", b"x" * (100 + i % 900), time.time() + 60)
            copies.get(f"page:{i % 90}", time.time())
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two bytecodes: a race shows
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(work, range(8)))
    finally:
        sys.setswitchinterval(interval)
    assert copies.size == sum(size for _, _, size in copies._items.values()) <= LIMIT
