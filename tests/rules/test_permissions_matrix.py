"""Who may see and do what: every URL of the project x every persona x competition state,
with exact statuses.

The URL resolver is walked, so a new URL without a row here fails
`test_it_has_a_row_for_every_url`. Each row (tests/rules/matrix_rows.py) names a URL with arguments pointing at real
rows of `tests.rules.world`, the method, and what each persona must get: a tuple of statuses
(what the view answers while the competition is visible to them), or, where the answer moves
with the clock or the phase's rules, a function of the persona's `Viewer`. The competition
states (`STATES`: published, draft, after the surprise reveal, after the test-B reveal, and
each final-phase rule of test B) are applied to the same rows, and the expected status is
generated from the Viewer's rules: whoever `Viewer.sees_competition` refuses gets the 404 of
a missing page for everything in that competition (its real teams, invites, submissions and
files), after the method check (405), the API's token check (401) and, for anonymous
visitors, the log-in redirect (302). POSTs run inside a savepoint that is rolled back, so
one persona's action (leaving a team, disqualifying) never changes what the next one sees.

Personas, in the order of the status tuples below:
    anon  participant  teammate  outsider  organizer  other_organizer  staff  assessor
(outsider = the member of another team; staff is_staff but holds no model permissions;
assessor = named by the organizer to judge the cup's pools, in no team. A row of seven
statuses gives the assessor the other organizer's.)
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import transaction
from django.test import Client, TestCase
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from cupboard.competitions.models import Competition, Phase
from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.cache import forget_recent_states
from cupboard.submissions.models import Submission
from cupboard.systems.models import System
from cupboard.teams.models import Team
from tests.personas import client_for
from tests.rules.matrix_rows import Row, rows
from tests.rules.world import (
    SURPRISE_WORD,
    TAG_A,
    TAG_B,
    TAG_BASELINE,
    TAG_DRAFT,
    TAG_TEST_B_BASELINE,
    build_world,
    hidden_markers,
)

PERSONAS = ("anonymous", "participant", "teammate", "outsider", "organizer", "other_organizer", "staff", "assessor")
NON_ORGANIZERS = ("anonymous", "participant", "teammate", "outsider", "other_organizer", "assessor")
# Rows written before the assessor (seven statuses): the assessor gets what the other
# organizer gets, someone logged in who is in no team and organizes nothing here.
AS_IF_ASSESSOR = "other_organizer"


@dataclass(frozen=True)
class State:
    """A state of the personas' cup: `change(world)` edits rows (inside the test's rollback),
    `at(world)` is the instant the requests are made (None: now)."""

    name: str
    change: Callable = lambda world: None
    at: Callable = lambda world: None


def about_test_b(world, row: Row) -> bool:
    """Rows whose answer a final-phase rule of test B can change: its pages and its submissions."""
    return "test-b" in row.args or bool({world.sub_a_test_b.pk, world.baseline_test_b.pk} & set(row.args))


def _freeze(phase: Phase) -> None:
    from cupboard.leaderboards.snapshots import snapshot_freeze

    assert snapshot_freeze(phase=phase, now=phase.reveal_at + timedelta(seconds=1)) is not None


def _final_rule(rule: str) -> Callable:
    return lambda world: Phase.objects.filter(pk=world.test_b.pk).update(before_reveal=rule)


STATES = (
    State("published"),
    State("draft", change=lambda w: Competition.objects.filter(pk=w.competition.pk).update(is_published=False)),
    State("after the surprise reveal", at=lambda w: w.competition.groups.get(name="surprise").reveal_at
          + timedelta(seconds=1)),
    # ... when the beat task has frozen test B's official results (leaderboards/releases.py).
    State("after the test-B reveal", change=lambda w: _freeze(w.test_b), at=lambda w: w.test_b.reveal_at
          + timedelta(seconds=1)),
    *(State(f"test B shows {rule} before its reveal", change=_final_rule(rule)) for rule in Phase.BeforeReveal.values),
)


# Django's admin: staff log in; our staff persona holds no model permissions, so it sees the
# index and nothing else. Everyone else is sent to the admin's login page.
# Object pages ask about a missing object (pk 999999): change and delete check permissions
# first; history looks the object up first and sends staff back to the index.
ADMIN_SUFFIXES = {"changelist": 403, "add": 403, "change": 403, "delete": 403, "history": 302}
ADMIN_NAMES = {"admin:index": 200, "admin:login": 302, "admin:logout": 405, "admin:password_change": 200,
               "admin:password_change_done": 200, "admin:jsi18n": 200, "admin:app_list": 404,
               "admin:autocomplete": 403, "admin:view_on_site": 404}
ADMIN_ANONYMOUS = {"admin:login": 200}


def url_names(resolver=None, namespace: str = "") -> set[str]:
    names = set()
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}:{pattern.namespace}" if namespace and pattern.namespace else \
                pattern.namespace or namespace
            names |= url_names(pattern, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:  # unnamed: the admin's catch-all 404
            names.add(f"{namespace}:{pattern.name}" if namespace else pattern.name)
    return names


def admin_rows() -> list[Row]:
    result = []
    for name in sorted(n for n in url_names() if n.startswith("admin:")):
        suffix = name.rsplit("_", 1)[-1]
        staff = ADMIN_NAMES.get(name, ADMIN_SUFFIXES.get(suffix))
        assert staff is not None, f"no expected status for {name}: add it to ADMIN_NAMES"
        args = {"admin:app_list": ("competitions",), "admin:view_on_site": (1, 1)}.get(name)
        if name not in ADMIN_NAMES and suffix in {"change", "delete", "history"}:
            args = (999999,)
        others = 302 if name not in ADMIN_ANONYMOUS else ADMIN_ANONYMOUS[name]
        statuses = (ADMIN_ANONYMOUS.get(name, 302),) + (others,) * 5 + (staff,)
        result.append(Row(name, args or (), "GET", statuses))
    return result


def _token(world, persona: str) -> str:
    """The persona's API token, made once per world (the JSON API takes tokens only)."""
    from cupboard.accounts.services import api_token_create

    tokens = world.__dict__.setdefault("tokens", {})
    if persona not in tokens:
        tokens[persona] = api_token_create(user=getattr(world, persona))
    return tokens[persona]


def _client(world, persona: str) -> Client:
    """A fresh client carrying the persona's session: logged in once per world (a log-in per
    request, a session written and the user's last_login updated, was a quarter of the matrix's
    time) and again only when that session has expired at the instant of the request (a state's
    reveal weeks ahead; `_rolled_back` forgets a session made inside what it rolls back). Fresh
    for each request, so what one answer does to the cookies (a log-out, a rotated session)
    never reaches the next."""
    user, client = getattr(world, persona), Client()
    if user is None or not user.is_authenticated:
        return client
    sessions = world.__dict__.setdefault("sessions", {})
    if persona not in sessions or sessions[persona][1] <= timezone.now():
        key = client_for(user).cookies[settings.SESSION_COOKIE_NAME].value
        sessions[persona] = (key, Session.objects.get(session_key=key).expire_date)
    client.cookies[settings.SESSION_COOKIE_NAME] = sessions[persona][0]
    return client


@contextmanager
def _rolled_back(world):
    """A transaction rolled back at the end, and the sessions `_client` made inside it forgotten."""
    sessions = dict(world.__dict__.setdefault("sessions", {}))
    try:
        with transaction.atomic():
            yield
            transaction.set_rollback(True)
    finally:
        world.sessions = sessions


def request(world, row: Row, persona: str):
    """One request by one persona; POSTs are rolled back so every persona sees the same world.
    API rows authenticate with the persona's token (the anonymous visitor has none), and so do
    rows of a leaderboard's JSON marked "token" (its exports take a token or the session)."""
    url = reverse(row.name, args=row.args)
    headers, data = {}, dict(row.data or {})
    api = row.name.startswith(("submissions:api_", "systems:api_")) and not data.pop("session_only", False)
    if (data.pop("token", False) or api) and persona != "anonymous":  # "token": a page's JSON read by a script
        headers["HTTP_AUTHORIZATION"] = f"Token {_token(world, persona)}"
    client = _client(world, persona)
    with transaction.atomic():
        response = client.post(url, data, **headers) if row.method == "POST" else client.get(url, data, **headers)
        transaction.set_rollback(True)
    return response


def _body(response) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode("utf-8", "replace")


def _competition_of(row: Row) -> Competition | None:
    """The competition a row's URL belongs to, from its arguments: a slug, a submission's pk or
    a team's invite code (None: accounts, the admin, a missing submission)."""
    if not row.args or row.name.startswith(("admin:", "accounts:", "notifications:")):
        return None
    first = row.args[0]
    if isinstance(first, int):
        model = System if row.name.startswith("systems:") else Submission
        found = model.objects.select_related("phase__competition").filter(pk=first).first()
        return found.phase.competition if found else None
    competition = Competition.objects.filter(slug=first).first()
    if competition is None and row.name in ("teams:join", "teams:merge"):
        team = Team.objects.select_related("competition").filter(invite_code=first).first()
        competition = team.competition if team else None
    return competition


def expected(world, row: Row, persona: str, now=None, read: dict | None = None) -> int:
    """The status the Viewer's rules give `persona` for `row` at `now`, in the current state.
    `read`: what was read already in this state (each row's competition, each persona's Viewer of
    it), reused rather than read again for every persona and row."""
    read = {} if read is None else read
    if (row.name, row.args) not in read:
        read[row.name, row.args] = _competition_of(row)
    competition, viewer = read[row.name, row.args], None
    if competition is not None:
        if (persona, competition.pk) not in read:
            read[persona, competition.pk] = Viewer(getattr(world, persona), competition, now)
        viewer = read[persona, competition.pk]
    if callable(row.statuses):
        answer = row.statuses(viewer)
    elif persona == "assessor" and len(row.statuses) == len(PERSONAS) - 1:
        answer = row.statuses[PERSONAS.index(AS_IF_ASSESSOR)]
    else:
        answer = row.statuses[PERSONAS.index(persona)]
    if viewer is None or viewer.sees_competition:
        return answer
    # Everything of a competition the viewer may not see is missing, once the method, the API
    # token and (for anonymous visitors) the log-in are checked.
    if answer in (405, 401) or (persona == "anonymous" and answer == 302):
        return answer
    return 404


class Answers(dict):
    """(state, row, persona) -> (status, body: kept for non-organizers only) of every request a
    class's tests made: a state's status test and its leak test read the same answers, each
    request made once. Django gives each test a deep copy of what setUpTestData set (the world);
    this dict is shared by them all, not copied."""

    def __deepcopy__(self, memo):
        return self


def answers_in(world, state: State, rows_: list[Row], personas=PERSONAS) -> list[tuple[Row, str, int, str]]:
    """(row, persona, status, body) of each persona's answer to each row in `state`: at its
    instant (the clock stopped there), the process's kept leaderboard states forgotten after the
    change (the states change rows with update(), which sends no save signal: leaderboards/cache.py).
    The requests no test of the class made yet are made here, in one transaction rolled back after them."""
    kept = world.answers

    def key(row: Row, persona: str) -> tuple:
        return state.name, row.name, row.args, row.method, repr(row.data), persona

    missing = [(row, persona) for row in rows_ for persona in personas if key(row, persona) not in kept]
    if missing:
        with _rolled_back(world):
            state.change(world)
            forget_recent_states()
            now = state.at(world)
            with time_machine.travel(now or timezone.now(), tick=False):
                for row, persona in missing:
                    response = request(world, row, persona)
                    body = _body(response) if persona in NON_ORGANIZERS else ""
                    kept[key(row, persona)] = (response.status_code, body)
    return [(row, persona, *kept[key(row, persona)]) for row in rows_ for persona in personas]


def mismatches_in(world, state: State, rows_: list[Row]) -> list[str]:
    """Every (row, persona) whose status differs from `expected`, in `state`."""
    answers, found = answers_in(world, state, rows_), []
    with _rolled_back(world):
        state.change(world)
        now, read = state.at(world), {}
        with time_machine.travel(now or timezone.now(), tick=False):
            for row, persona, got, _ in answers:
                want = expected(world, row, persona, now, read)
                if got != want:
                    found.append(f"[{state.name}] {row.method} {row.name}{row.args} as {persona}: {got}, "
                                 f"expected {want}")
    return found


def leaks_in(world, state: State, rows_: list[Row]) -> list[str]:
    """What a non-organizer's answers show that they may not see (in a state before any reveal):
    test-B judgments or per-query values, full-precision hidden scores, the surprise language,
    run files of other teams, of a draft, or of a baseline on test B."""
    markers = hidden_markers(world)
    assert all(markers.values()), markers  # the world really holds each kind of secret
    leaks = []
    for row, persona, _, body in answers_in(world, state, rows_, NON_ORGANIZERS):
        where = f"[{state.name}] {row.method} {row.name}{row.args} as {persona}"
        leaks += [f"{where}: {kind} {marker!r}" for kind, found in markers.items() for marker in found
                  if marker in body]
        if SURPRISE_WORD.search(body):
            leaks.append(f"{where}: the surprise code yo")
        foreign = {"participant": [TAG_B], "teammate": [TAG_B], "outsider": [TAG_A]}.get(persona, [TAG_A, TAG_B])
        foreign += [TAG_DRAFT, TAG_TEST_B_BASELINE]
        leaks += [f"{where}: run file {tag}" for tag in foreign if tag in body]
    return leaks


class WorldTestCase(TestCase):
    """The world, the personas' API tokens and sessions and the answers they got (`Answers`), built
    once per class and rolled back after it."""

    @classmethod
    def setUpTestData(cls):
        cls.world = build_world()
        cls.world.answers = Answers()
        for persona in PERSONAS[1:]:
            _token(cls.world, persona)
            _client(cls.world, persona)


@pytest.mark.slow
class PermissionsMatrixTests(WorldTestCase):

    def test_it_has_a_row_for_every_url(self):
        covered = {row.name for row in rows(self.world)} | {row.name for row in admin_rows()}
        assert url_names() - covered == set(), "URLs without a row in the permissions matrix"

    def test_it_gives_every_persona_exactly_the_expected_status(self):
        found = mismatches_in(self.world, STATES[0], rows(self.world) + admin_rows())
        assert not found, "\n".join(found)

    def test_a_draft_hides_everything_in_it_even_from_its_teams(self):
        """The personas' cup unpublished, with its real teams, invites and submissions: what
        caught the draft team page answering 200 to anyone."""
        assert STATES[1].name == "draft"
        found = mismatches_in(self.world, STATES[1], rows(self.world))
        assert not found, "\n".join(found)

    def test_it_never_shows_hidden_data_to_a_non_organizer(self):
        """Published and draft, every row; under each final-phase rule, test B's rows."""
        w = self.world
        found = leaks_in(w, STATES[0], rows(w)) + leaks_in(w, STATES[1], rows(w))
        for state in STATES[4:]:
            found += leaks_in(w, state, [row for row in rows(w) if about_test_b(w, row)])
        assert not found, "\n".join(found)

    def test_it_serves_run_files_to_their_team_and_organizers_and_baselines_to_all(self):
        w = self.world
        own = request(w, Row("submissions:download", (w.sub_a_dev.pk, "sw"), "GET", ()), "teammate")
        assert TAG_A in _body(own)
        for persona in PERSONAS:
            body = _body(request(w, Row("submissions:download", (w.baseline.pk, "te"), "GET", ()), persona))
            assert TAG_BASELINE in body, persona
        assert Submission.objects.filter(pk=w.sub_b_dev.pk, disqualified=False).exists()  # POSTs were rolled back
