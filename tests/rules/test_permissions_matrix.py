"""Who may see and do what: every URL of the project x every persona, with exact statuses.

The URL resolver is walked, so a new URL without a row here fails
`test_it_has_a_row_for_every_url`. Each row names a URL with arguments pointing at real
rows of `tests.rules.world`, the method, and the status each persona must get. POSTs run
inside a savepoint that is rolled back, so one persona's action (leaving a team,
disqualifying) never changes what the next one sees.

Personas, in the order of the status tuples below:
    anon  participant  teammate  outsider  organizer  other_organizer  staff
(outsider = the member of another team; staff is_staff but holds no model permissions.)
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.test import TestCase
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from cupboard.submissions.models import Submission
from tests.personas import client_for
from tests.rules.world import SURPRISE_WORD, TAG_A, TAG_B, TAG_BASELINE, TAG_DRAFT, build_world, hidden_markers

PERSONAS = ("anonymous", "participant", "teammate", "outsider", "organizer", "other_organizer", "staff")
NON_ORGANIZERS = ("anonymous", "participant", "teammate", "outsider", "other_organizer")


@dataclass(frozen=True)
class Row:
    name: str
    args: tuple
    method: str
    statuses: tuple  # one per persona, in PERSONAS order
    data: dict | None = None


def every(status: int) -> tuple:
    return (status,) * 7


def login(status: int, *, anon: int = 302) -> tuple:
    """Logged-in users get `status`; the anonymous visitor is sent to log in."""
    return (anon,) + (status,) * 6


def team_a(member: int, other: int, *, anon: int | None = None) -> tuple:
    """Team A's own things: its members and this competition's organizers (and staff) get `member`."""
    return (other if anon is None else anon, member, member, other, member, other, member)


def captain(ok: int, other: int) -> tuple:
    """Team A's captain (participant, its first member) gets `ok`; the anonymous visitor logs in first."""
    return (302, ok) + (other,) * 5


def organizers(ok: int, other: int, *, anon: int | None = None) -> tuple:
    """Organizer-only things: the organizer of this competition and staff get `ok`."""
    return (other if anon is None else anon, other, other, other, ok, other, ok)


def rows(w) -> list[Row]:
    """The matrix. Arguments are resolved from the world `w` (pks are only known at run time)."""
    a, a_b, b, base = w.sub_a_dev.pk, w.sub_a_test_b.pk, w.sub_b_dev.pk, w.baseline.pk
    invite = w.team_a.invite_code
    return [
        Row("accounts:signup", (), "GET", every(200)),
        Row("accounts:signup", (), "POST", every(200), {"username": ""}),  # the form again, with errors
        Row("accounts:login", (), "GET", every(200)),
        Row("accounts:login", (), "POST", every(200), {"username": "participant", "password": "wrong"}),
        Row("accounts:profile", (), "GET", login(200)),
        Row("accounts:token_create", (), "GET", login(405)),
        Row("accounts:token_create", (), "POST", login(200)),  # the new token, shown in this answer only
        Row("accounts:logout", (), "GET", every(405)),
        Row("accounts:logout", (), "POST", every(302)),
        Row("teams:join", (invite,), "GET", login(200)),
        # Members go to their team page; another team's member is refused (the page again); the rest join.
        Row("teams:join", (invite,), "POST", (302, 302, 302, 200, 302, 302, 302)),
        # Merging: every logged-in POST ends on a redirect (merged, or back to the invite with the reason).
        Row("teams:merge", (invite,), "GET", login(405)),
        Row("teams:merge", (invite,), "POST", login(302)),
        Row("teams:merge", (w.draft_team.invite_code,), "POST", organizers(302, 404, anon=302)),
        Row("teams:create", ("cup",), "GET", login(200)),
        Row("teams:create", ("cup",), "POST", (302, 200, 200, 200, 302, 302, 302), {"name": "Fresh team"}),
        Row("teams:create", ("draft",), "GET", organizers(200, 404, anon=302)),
        Row("teams:detail", ("cup", "team-a"), "GET", every(200)),
        # A draft's team pages, invites, submissions and files: organizers only, even for its members.
        Row("teams:detail", ("draft", "draft-team"), "GET", organizers(200, 404)),
        Row("teams:detail", ("draft", "nobody"), "GET", every(404)),
        # Members are asked to confirm; non-members are sent back: "you are not in this team".
        Row("teams:leave", ("cup", "team-a"), "GET", (302, 200, 200, 302, 302, 302, 302)),
        Row("teams:leave", ("cup", "team-a"), "POST", login(302)),
        # The captain (participant, Team A's first member) alone removes members and replaces the invite.
        Row("teams:member_remove", ("cup", "team-a", "teammate"), "GET", captain(200, 403)),
        Row("teams:member_remove", ("cup", "team-a", "teammate"), "POST", captain(302, 403)),
        Row("teams:member_remove", ("cup", "team-a", "outsider"), "GET", captain(404, 403)),
        Row("teams:invite_replace", ("cup", "team-a"), "GET", login(405)),
        Row("teams:invite_replace", ("cup", "team-a"), "POST", captain(302, 403)),
        Row("teams:join", (w.draft_team.invite_code,), "GET", organizers(200, 404, anon=302)),
        Row("teams:join", (w.draft_team.invite_code,), "POST", organizers(302, 404, anon=302)),
        Row("teams:leave", ("draft", "draft-team"), "POST", organizers(302, 404, anon=302)),
        Row("submissions:detail", (w.draft_sub.pk,), "GET", organizers(200, 404)),
        Row("submissions:status", (w.draft_sub.pk,), "GET", organizers(200, 404)),
        Row("submissions:download", (w.draft_sub.pk, "sw"), "GET", organizers(200, 404)),
        Row("submissions:api_status", (w.draft_sub.pk,), "GET", organizers(200, 404, anon=401)),
        Row("submissions:detail", (a,), "GET", team_a(200, 403)),
        Row("submissions:detail", (base,), "GET", every(200)),
        Row("submissions:detail", (999999,), "GET", every(404)),
        Row("submissions:compare", (a,), "GET", team_a(200, 403), {"with": base}),
        Row("submissions:compare", (base,), "GET", team_a(200, 403), {"with": a}),
        Row("submissions:compare", (a,), "GET", organizers(200, 403), {"with": b}),  # team B's: organizers only
        Row("submissions:compare", (a,), "GET", team_a(404, 403), {"with": 999999}),
        Row("submissions:compare", (a,), "GET", team_a(404, 403)),
        Row("submissions:status", (a,), "GET", team_a(200, 403)),
        Row("submissions:status", (base,), "GET", every(200)),
        Row("submissions:download", (a, "sw"), "GET", team_a(200, 403)),
        Row("submissions:download", (base, "sw"), "GET", every(200)),
        # A baseline's run for the surprise language is as hidden as the language itself.
        Row("submissions:download", (base, "yo"), "GET", organizers(200, 404)),
        Row("submissions:select_final", (a_b,), "GET", login(405)),
        Row("submissions:select_final", (a_b,), "POST", team_a(302, 403, anon=302), {"selected": "1"}),
        Row("submissions:disqualify", (b,), "GET", login(405)),
        Row("submissions:disqualify", (b,), "POST", organizers(302, 403, anon=302), {"reason": "cheating"}),
        Row("submissions:grant", (b,), "GET", login(405)),
        Row("submissions:grant", (b,), "POST", organizers(302, 403, anon=302), {"extra": "1", "reason": "outage"}),
        Row("submissions:api_status", (a,), "GET", team_a(200, 404, anon=401)),
        Row("submissions:api_status", (base,), "GET", login(200, anon=401)),
        # The API takes tokens only: a logged-in session without one is refused (no CSRF hole).
        Row("submissions:api_status", (a,), "GET", every(401), {"session_only": True}),
        Row("submissions:api_upload", ("cup", "dev"), "POST", every(401), {"session_only": True}),
        Row("submissions:api_upload", ("cup", "dev"), "GET", login(405, anon=401)),
        Row("submissions:api_upload", ("cup", "dev"), "POST", login(400, anon=401), {"method_name": "x"}),
        Row("submissions:api_upload", ("draft", "dev"), "POST", organizers(400, 404, anon=401),
            {"method_name": "x"}),
        Row("submissions:upload", ("cup", "dev"), "GET", login(200)),
        Row("submissions:upload", ("cup", "dev"), "POST", login(400), {"method_name": "x"}),
        Row("submissions:upload", ("draft", "dev"), "GET", organizers(200, 404, anon=302)),
        Row("submissions:upload", ("cup", "nope"), "GET", login(404)),
        Row("submissions:rescore", ("cup", "dev"), "GET", login(405)),
        Row("submissions:rescore", ("cup", "dev"), "POST", organizers(302, 403, anon=302)),
        Row("submissions:hybrid", ("cup", "dev"), "GET", login(405)),
        Row("submissions:hybrid", ("cup", "dev"), "POST", organizers(302, 403, anon=302)),
        Row("leaderboards:competition", ("cup",), "GET", every(200)),
        Row("leaderboards:competition", ("draft",), "GET", organizers(200, 404)),
        Row("leaderboards:phase", ("cup", "dev"), "GET", every(200)),
        Row("leaderboards:phase", ("cup", "test-b"), "GET", every(200)),  # "not public until ..." for most
        Row("leaderboards:phase", ("draft", "dev"), "GET", organizers(200, 404)),
        Row("leaderboards:export_csv", ("cup", "dev"), "GET", every(200)),
        Row("leaderboards:export_csv", ("cup", "test-b"), "GET", organizers(200, 403)),
        Row("leaderboards:export_json", ("cup", "dev"), "GET", every(200)),
        Row("leaderboards:export_json", ("cup", "test-b"), "GET", organizers(200, 403)),
        Row("audit:log", ("cup",), "GET", every(200)),
        Row("audit:log", ("draft",), "GET", organizers(200, 404)),
        Row("competitions:list", (), "GET", every(200)),
        Row("competitions:detail", ("cup",), "GET", every(200)),
        Row("competitions:detail", ("draft",), "GET", organizers(200, 404)),
        Row("competitions:commitments", ("cup",), "GET", every(200)),
        Row("competitions:page", ("cup", "rules"), "GET", every(200)),
        Row("competitions:page", ("cup", "faq"), "GET", every(404)),  # a page the YAML leaves out
        Row("competitions:page", ("draft", "rules"), "GET", organizers(200, 404)),
        Row("competitions:how_to_submit", ("cup",), "GET", every(200)),
        Row("competitions:how_to_submit", ("draft",), "GET", organizers(200, 404)),
        Row("competitions:topics_archive", ("cup", "dev"), "GET", every(200)),
        Row("competitions:topics_archive", ("cup", "nope"), "GET", every(404)),
        Row("competitions:topics_archive", ("draft", "dev"), "GET", organizers(200, 404)),
        Row("competitions:sample_submission", ("cup", "dev"), "GET", every(200)),
        Row("competitions:sample_submission", ("draft", "dev"), "GET", organizers(200, 404)),
        Row("competitions:topics", ("cup", "dev", "sw"), "GET", every(200)),
        Row("competitions:topics", ("cup", "dev", "yo"), "GET", organizers(200, 404)),
        Row("competitions:topics", ("cup", "dev", "zz"), "GET", every(404)),
        Row("competitions:qrels", ("cup", "dev", 1, "sw"), "GET", every(200)),
        Row("competitions:qrels", ("cup", "dev", 1, "yo"), "GET", organizers(200, 404)),
        Row("competitions:qrels", ("cup", "test-b", 1, "sw"), "GET", organizers(200, 404)),
        Row("competitions:qrels", ("cup", "test-b", 1, "zz"), "GET", every(404)),
        # The organizer area: anyone else gets the 404 of a missing competition (anonymous: log in first).
        Row("competitions:manage", ("cup",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage", ("draft",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage", ("cup",), "POST", login(405)),
        Row("competitions:manage_teams", ("cup",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_teams", ("draft",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_teams", ("cup",), "POST", login(405)),
        Row("competitions:manage_qrels", ("cup", "test-b"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_qrels", ("cup", "test-b"), "POST", organizers(400, 404, anon=302), {"note": "x"}),
        Row("competitions:manage_qrels", ("cup", "nope"), "GET", login(404)),
        Row("competitions:manage_topics", ("cup", "dev"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_topics", ("cup", "dev"), "POST", organizers(400, 404, anon=302)),
        Row("competitions:manage_schedule", ("cup", "test-b"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_schedule", ("cup", "test-b"), "POST", organizers(302, 404, anon=302),
            {"visibility": "live", "hidden_qrels": "on"}),
        Row("competitions:manage_group", ("cup", "surprise"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_group", ("cup", "surprise"), "POST", organizers(302, 404, anon=302),
            {"reveal_at": ""}),
        Row("competitions:manage_group", ("cup", "nope"), "GET", login(404)),
    ]


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


def request(world, row: Row, persona: str):
    """One request by one persona; POSTs are rolled back so every persona sees the same world.
    API rows authenticate with the persona's token (the anonymous visitor has none)."""
    url = reverse(row.name, args=row.args)
    headers, data = {}, dict(row.data or {})
    if row.name.startswith("submissions:api_") and persona != "anonymous" and not data.pop("session_only", False):
        headers["HTTP_AUTHORIZATION"] = f"Token {_token(world, persona)}"
    with transaction.atomic():
        client = client_for(getattr(world, persona))
        response = client.post(url, data, **headers) if row.method == "POST" else client.get(url, data, **headers)
        transaction.set_rollback(True)
    return response


def _body(response) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode("utf-8", "replace")


class PermissionsMatrixTests(TestCase):
    """The world is built once for the class (setUpTestData) and rolled back after it."""

    @classmethod
    def setUpTestData(cls):
        cls.world = build_world()
        for persona in PERSONAS[1:]:
            _token(cls.world, persona)

    def test_it_has_a_row_for_every_url(self):
        covered = {row.name for row in rows(self.world)} | {row.name for row in admin_rows()}
        assert url_names() - covered == set(), "URLs without a row in the permissions matrix"

    def test_it_gives_every_persona_exactly_the_expected_status(self):
        mismatches = []
        for row in rows(self.world) + admin_rows():
            for persona, expected in zip(PERSONAS, row.statuses, strict=True):
                got = request(self.world, row, persona).status_code
                if got != expected:
                    mismatches.append(f"{row.method} {row.name}{row.args} as {persona}: {got}, expected {expected}")
        assert not mismatches, "\n".join(mismatches)

    def test_it_never_shows_hidden_data_to_a_non_organizer(self):
        """Any body a non-organizer gets: no test-B judgments or per-query values, no full-precision
        hidden scores, no surprise language; no run file of a team they are not in."""
        markers = hidden_markers(self.world)
        assert all(markers.values()), markers  # the world really holds each kind of secret
        leaks = []
        for row in rows(self.world):
            for persona in NON_ORGANIZERS:
                body = _body(request(self.world, row, persona))
                where = f"{row.method} {row.name}{row.args} as {persona}"
                leaks += [f"{where}: {kind} {marker!r}" for kind, found in markers.items() for marker in found
                          if marker in body]
                if SURPRISE_WORD.search(body):
                    leaks.append(f"{where}: the surprise code yo")
                foreign = {"participant": [TAG_B], "teammate": [TAG_B], "outsider": [TAG_A]}.get(persona, [TAG_A, TAG_B])
                foreign.append(TAG_DRAFT)
                leaks += [f"{where}: run file {tag}" for tag in foreign if tag in body]
        assert not leaks, "\n".join(leaks)

    def test_it_serves_run_files_to_their_team_and_organizers_and_baselines_to_all(self):
        w = self.world
        own = request(w, Row("submissions:download", (w.sub_a_dev.pk, "sw"), "GET", ()), "teammate")
        assert TAG_A in _body(own)
        for persona in PERSONAS:
            body = _body(request(w, Row("submissions:download", (w.baseline.pk, "te"), "GET", ()), persona))
            assert TAG_BASELINE in body, persona
        assert Submission.objects.filter(pk=w.sub_b_dev.pk, disqualified=False).exists()  # POSTs were rolled back
