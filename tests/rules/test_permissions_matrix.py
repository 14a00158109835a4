"""Who may see and do what: every URL of the project x every persona x competition state,
with exact statuses.

The URL resolver is walked, so a new URL without a row here fails
`test_it_has_a_row_for_every_url`. Each row names a URL with arguments pointing at real
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
    anon  participant  teammate  outsider  organizer  other_organizer  staff
(outsider = the member of another team; staff is_staff but holds no model permissions.)
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import time_machine
from django.db import transaction
from django.test import TestCase
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from cupboard.competitions.models import Competition, Phase
from cupboard.competitions.viewer import Viewer
from cupboard.notifications.preferences import unsubscribe_token
from cupboard.submissions.comparison import can_compare
from cupboard.submissions.models import Submission
from cupboard.teams.models import Team
from tests.personas import client_for
from tests.rules.world import (SURPRISE_WORD, TAG_A, TAG_B, TAG_BASELINE, TAG_DRAFT, TAG_TEST_B_BASELINE, build_world,
                               hidden_markers)

PERSONAS = ("anonymous", "participant", "teammate", "outsider", "organizer", "other_organizer", "staff")
NON_ORGANIZERS = ("anonymous", "participant", "teammate", "outsider", "other_organizer")


@dataclass(frozen=True)
class Row:
    name: str
    args: tuple
    method: str
    statuses: tuple | Callable  # one per persona, in PERSONAS order; or viewer -> status
    data: dict | None = None


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
    a, a_b, b, base, base_b = w.sub_a_dev.pk, w.sub_a_test_b.pk, w.sub_b_dev.pk, w.baseline.pk, w.baseline_test_b.pk
    invite = w.team_a.invite_code
    w.__dict__.setdefault("unsubscribe", unsubscribe_token(user=w.participant, kind="submission"))
    subset = {s.code: s for s in w.competition.subsets.all()}

    def compare(one, other):
        """The comparison page: 403 for a submission the viewer may not open or pair, 404 for none."""
        def rule(v: Viewer) -> int:
            if not v.sees_submission(one):
                return 403
            if other is None:
                return 404
            return 200 if can_compare(v, one, other) else 403
        return rule

    def run_file(submission, code):
        return lambda v: (403 if not v.sees_submission(submission) else
                          200 if v.sees_runs(submission) and v.sees_subset(subset[code]) else 404)

    def topics(phase, code):
        return lambda v: 200 if code in subset and v.sees_subset(subset[code]) and v.sees_topics(phase) else 404

    def qrels(phase, code):
        return lambda v: 200 if code in subset and v.sees_subset(subset[code]) and v.sees_qrels(phase) else 404

    def export(phase):
        return lambda v: 200 if v.sees_leaderboard(phase) else 403

    def official(phase):
        """The frozen results: once frozen (at the reveal), to whoever sees the leaderboard."""
        from cupboard.leaderboards.models import FrozenSnapshot

        return lambda v: 200 if v.sees_leaderboard(phase) and FrozenSnapshot.objects.filter(phase=phase).exists() \
            else 404

    return [
        Row("accounts:signup", (), "GET", every(200)),
        Row("accounts:signup", (), "POST", every(200), {"username": ""}),  # the form again, with errors
        Row("accounts:login", (), "GET", every(200)),
        Row("accounts:login", (), "POST", every(200), {"username": "participant", "password": "wrong"}),
        Row("accounts:profile", (), "GET", login(200)),
        Row("accounts:token_create", (), "GET", login(405)),
        Row("accounts:token_create", (), "POST", login(200)),  # the new token, shown in this answer only
        Row("accounts:password_reset", (), "GET", every(200)),
        # The form again, with errors (an address would count 7 requests for one e-mail: throttled;
        # tests/accounts/test_password_reset.py walks through a reset).
        Row("accounts:password_reset", (), "POST", every(200), {"email": ""}),
        Row("accounts:password_reset_done", (), "GET", every(200)),
        Row("accounts:password_reset_confirm", ("MQ", "not-a-token"), "GET", every(200)),  # "this link does not work"
        Row("accounts:password_reset_complete", (), "GET", every(200)),
        Row("notifications:preferences", (), "GET", login(405)),
        Row("notifications:preferences", (), "POST", login(302), {"submission": "on"}),
        # The link in every mail: its signed token is the authority (no log-in, no CSRF token).
        Row("notifications:unsubscribe", (w.unsubscribe,), "GET", every(200)),
        Row("notifications:unsubscribe", (w.unsubscribe,), "POST", every(200)),
        Row("notifications:unsubscribe", (w.unsubscribe[:-3] + "xyz",), "POST", every(404)),
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
        Row("submissions:compare", (a,), "GET", compare(w.sub_a_dev, w.baseline), {"with": base}),
        Row("submissions:compare", (base,), "GET", compare(w.baseline, w.sub_a_dev), {"with": a}),
        Row("submissions:compare", (a,), "GET", compare(w.sub_a_dev, w.sub_b_dev), {"with": b}),  # team B's
        Row("submissions:compare", (a_b,), "GET", compare(w.sub_a_test_b, w.baseline_test_b), {"with": base_b}),
        Row("submissions:compare", (a,), "GET", compare(w.sub_a_dev, None), {"with": 999999}),
        Row("submissions:compare", (a,), "GET", compare(w.sub_a_dev, None)),
        Row("submissions:status", (a,), "GET", team_a(200, 403)),
        Row("submissions:status", (base,), "GET", every(200)),
        Row("submissions:download", (a, "sw"), "GET", run_file(w.sub_a_dev, "sw")),
        Row("submissions:download", (base, "sw"), "GET", run_file(w.baseline, "sw")),
        # A baseline's run for the surprise language is as hidden as the language itself, and
        # one on test B as hidden as its judgments.
        Row("submissions:download", (base, "yo"), "GET", run_file(w.baseline, "yo")),
        Row("submissions:download", (base_b, "sw"), "GET", run_file(w.baseline_test_b, "sw")),
        Row("submissions:detail", (base_b,), "GET", every(200)),
        Row("submissions:status", (base_b,), "GET", every(200)),
        Row("submissions:status", (a_b,), "GET", team_a(200, 403)),
        Row("submissions:api_status", (base_b,), "GET", login(200, anon=401)),
        Row("submissions:api_status", (a_b,), "GET", team_a(200, 404, anon=401)),
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
        Row("submissions:mine", ("cup",), "GET", login(200)),  # one's own team's (none: says so)
        Row("submissions:mine", ("draft",), "GET", organizers(200, 404, anon=302)),
        Row("submissions:mine", ("nope",), "GET", login(404)),
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
        Row("leaderboards:export_csv", ("cup", "test-b"), "GET", export(w.test_b)),
        Row("leaderboards:export_json", ("cup", "dev"), "GET", every(200)),
        Row("leaderboards:export_json", ("cup", "test-b"), "GET", export(w.test_b)),
        # The leaderboard as of an instant (one in the future is now: it opens nothing early) and its history.
        Row("leaderboards:phase", ("cup", "dev"), "GET", every(200), {"as_of": "2020-01-01"}),
        Row("leaderboards:phase", ("cup", "test-b"), "GET", every(200), {"as_of": "2100-01-01T00:00Z"}),
        Row("leaderboards:phase", ("cup", "dev"), "GET", every(400), {"as_of": "soon"}),
        Row("leaderboards:export_json", ("cup", "test-b"), "GET", export(w.test_b), {"as_of": "2100-01-01"}),
        Row("leaderboards:export_csv", ("cup", "dev"), "GET", every(200), {"as_of": "2100-01-01"}),
        Row("leaderboards:history", ("cup", "dev"), "GET", every(200)),
        Row("leaderboards:history", ("cup", "test-b"), "GET", every(200)),  # "not public until ..." for most
        Row("leaderboards:history", ("draft", "dev"), "GET", organizers(200, 404)),
        Row("leaderboards:official_csv", ("cup", "test-b"), "GET", official(w.test_b)),
        Row("leaderboards:official_json", ("cup", "test-b"), "GET", official(w.test_b)),
        Row("leaderboards:official_csv", ("cup", "dev"), "GET", every(404)),  # not a final phase
        # A run-metadata filter (?meta_<name>=) changes which rows, never who sees the board.
        Row("leaderboards:phase", ("cup", "dev"), "GET", every(200), {"meta_zero_shot": "yes"}),
        Row("leaderboards:phase", ("cup", "test-b"), "GET", every(200), {"meta_zero_shot": "yes"}),
        Row("leaderboards:phase", ("draft", "dev"), "GET", organizers(200, 404), {"meta_zero_shot": "no"}),
        Row("leaderboards:export_csv", ("cup", "test-b"), "GET", export(w.test_b), {"meta_zero_shot": "yes"}),
        Row("leaderboards:export_json", ("cup", "dev"), "GET", every(200), {"meta_zero_shot": "no"}),
        Row("leaderboards:export_json", ("cup", "test-b"), "GET", export(w.test_b), {"meta_zero_shot": "yes"}),
        Row("audit:log", ("cup",), "GET", every(200)),
        Row("audit:log", ("draft",), "GET", organizers(200, 404)),
        Row("competitions:list", (), "GET", every(200)),
        Row("competitions:detail", ("cup",), "GET", every(200)),
        Row("competitions:detail", ("draft",), "GET", organizers(200, 404)),
        Row("competitions:commitments", ("cup",), "GET", every(200)),
        Row("competitions:feed", ("cup",), "GET", every(200)),
        Row("competitions:feed", ("draft",), "GET", organizers(200, 404)),
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
        Row("competitions:topics", ("cup", "dev", "sw"), "GET", topics(w.dev, "sw")),
        Row("competitions:topics", ("cup", "dev", "yo"), "GET", topics(w.dev, "yo")),
        Row("competitions:topics", ("cup", "dev", "zz"), "GET", topics(w.dev, "zz")),
        Row("competitions:topics", ("cup", "test-b", "yo"), "GET", topics(w.test_b, "yo")),
        Row("competitions:qrels", ("cup", "dev", 1, "sw"), "GET", qrels(w.dev, "sw")),
        Row("competitions:qrels", ("cup", "dev", 1, "yo"), "GET", qrels(w.dev, "yo")),
        Row("competitions:qrels", ("cup", "test-b", 1, "sw"), "GET", qrels(w.test_b, "sw")),
        Row("competitions:qrels", ("cup", "test-b", 1, "zz"), "GET", qrels(w.test_b, "zz")),
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
        # The organizer's desk: export, scoring progress, grants for any team, a message to every team.
        Row("competitions:manage_export", ("cup", "dev"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_export", ("draft", "dev"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_export", ("cup", "dev"), "POST", login(405)),
        Row("competitions:manage_export", ("cup", "nope"), "GET", login(404)),
        Row("competitions:manage_scoring", ("cup", "test-b"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_scoring", ("cup", "dev"), "POST", login(405)),
        Row("competitions:manage_verify", ("cup", "dev"), "GET", login(405)),
        Row("competitions:manage_verify", ("cup", "test-b"), "POST", organizers(302, 404, anon=302)),
        Row("competitions:manage_verify", ("draft", "dev"), "POST", organizers(302, 404, anon=302)),
        Row("competitions:manage_grant", ("cup", "team-b"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_grant", ("cup", "team-b"), "POST", organizers(302, 404, anon=302),
            {"phase": w.sub_a_dev.phase_id, "extra": "1", "reason": "outage"}),
        Row("competitions:manage_grant", ("cup", "team-b"), "POST", organizers(400, 404, anon=302),
            {"phase": w.sub_a_dev.phase_id, "extra": "1", "day": "31/01/2026", "reason": "outage"}),
        Row("competitions:manage_grant", ("cup", "nobody"), "GET", login(404)),
        Row("competitions:manage_grant", ("draft", "draft-team"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_message", ("cup",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_message", ("cup",), "POST", organizers(302, 404, anon=302),
            {"subject": "Deadline", "body": "Two days left."}),
        Row("competitions:manage_message", ("cup",), "POST", organizers(400, 404, anon=302), {"subject": "x"}),
        # The judging cycle (organizer area): Judged@10 of every run, pools for the assessors, what a
        # qrels version changed. Test B's hide nothing from its organizers and everything from the rest.
        # Judged@10 of a phase's runs: a page for everyone, with the table once judgments and board are public.
        Row("judging:phase_judged", ("cup", "dev"), "GET", every(200)),
        Row("judging:phase_judged", ("cup", "test-b"), "GET", every(200)),  # "shown from ..." for most
        Row("judging:phase_judged", ("draft", "dev"), "GET", organizers(200, 404)),
        Row("judging:phase_judged", ("cup", "nope"), "GET", every(404)),
        Row("judging:phase_judged", ("cup", "dev"), "POST", every(405)),
        Row("judging:pool", ("cup", "dev"), "GET", organizers(200, 404, anon=302)),
        Row("judging:pool", ("cup", "test-b"), "GET", organizers(200, 404, anon=302)),
        Row("judging:pool", ("draft", "dev"), "GET", organizers(200, 404, anon=302)),
        Row("judging:pool", ("cup", "nope"), "GET", login(404)),
        Row("judging:pool", ("cup", "dev"), "POST", login(405)),
        Row("judging:pool_create", ("cup", "test-b"), "GET", login(405)),
        Row("judging:pool_create", ("cup", "test-b"), "POST", organizers(302, 404, anon=302),
            {"depth": "10", "selection": "selected", "with_baselines": "on"}),
        Row("judging:pool_create", ("cup", "test-b"), "POST", organizers(400, 404, anon=302), {"depth": "0"}),
        Row("judging:pool_zip", ("cup", "test-b", w.pool_test_b.pk), "GET", organizers(200, 404, anon=302)),
        Row("judging:pool_zip", ("cup", "dev", w.pool_test_b.pk), "GET", login(404)),  # another phase's
        Row("judging:pool_zip", ("cup", "test-b", 999999), "GET", login(404)),
        Row("judging:pool_tsv", ("cup", "test-b", w.pool_test_b.pk, "sw"), "GET", organizers(200, 404, anon=302)),
        Row("judging:pool_tsv", ("cup", "test-b", w.pool_test_b.pk, "yo"), "GET", login(404)),  # no run for yo
        Row("judging:pool_tsv", ("cup", "test-b", w.pool_test_b.pk, "sw"), "POST", login(405)),
        Row("judging:qrels_changes", ("cup", "dev", 1), "GET", login(404)),  # a first version changed nothing
        Row("judging:qrels_changes", ("draft", "dev", 1), "GET", organizers(404, 404, anon=302)),
        Row("judging:qrels_changes", ("cup", "dev", 1), "POST", login(405)),
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


def _competition_of(row: Row) -> Competition | None:
    """The competition a row's URL belongs to, from its arguments: a slug, a submission's pk or
    a team's invite code (None: accounts, the admin, a missing submission)."""
    if not row.args or row.name.startswith(("admin:", "accounts:", "notifications:")):
        return None
    first = row.args[0]
    if isinstance(first, int):
        submission = Submission.objects.select_related("phase__competition").filter(pk=first).first()
        return submission.phase.competition if submission else None
    competition = Competition.objects.filter(slug=first).first()
    if competition is None and row.name in ("teams:join", "teams:merge"):
        team = Team.objects.select_related("competition").filter(invite_code=first).first()
        competition = team.competition if team else None
    return competition


def expected(world, row: Row, persona: str, now=None) -> int:
    """The status the Viewer's rules give `persona` for `row` at `now`, in the current state."""
    competition = _competition_of(row)
    viewer = Viewer(getattr(world, persona), competition, now) if competition is not None else None
    if callable(row.statuses):
        answer = row.statuses(viewer)
    else:
        answer = row.statuses[PERSONAS.index(persona)]
    if viewer is None or viewer.sees_competition:
        return answer
    # Everything of a competition the viewer may not see is missing, once the method, the API
    # token and (for anonymous visitors) the log-in are checked.
    if answer in (405, 401) or (persona == "anonymous" and answer == 302):
        return answer
    return 404


def mismatches_in(world, state: State, rows_: list[Row]) -> list[str]:
    """Every (row, persona) whose status differs from `expected`, in `state`."""
    found = []
    with transaction.atomic():
        state.change(world)
        now = state.at(world)
        with time_machine.travel(now or timezone.now(), tick=False):
            for row in rows_:
                for persona in PERSONAS:
                    want = expected(world, row, persona, now)
                    got = request(world, row, persona).status_code
                    if got != want:
                        found.append(f"[{state.name}] {row.method} {row.name}{row.args} as {persona}: {got}, "
                                     f"expected {want}")
        transaction.set_rollback(True)
    return found


def leaks_in(world, state: State, rows_: list[Row]) -> list[str]:
    """What a non-organizer's answers show that they may not see (in a state before any reveal):
    test-B judgments or per-query values, full-precision hidden scores, the surprise language,
    run files of other teams, of a draft, or of a baseline on test B."""
    markers = hidden_markers(world)
    assert all(markers.values()), markers  # the world really holds each kind of secret
    leaks = []
    with transaction.atomic():
        state.change(world)
        for row in rows_:
            for persona in NON_ORGANIZERS:
                body = _body(request(world, row, persona))
                where = f"[{state.name}] {row.method} {row.name}{row.args} as {persona}"
                leaks += [f"{where}: {kind} {marker!r}" for kind, found in markers.items() for marker in found
                          if marker in body]
                if SURPRISE_WORD.search(body):
                    leaks.append(f"{where}: the surprise code yo")
                foreign = {"participant": [TAG_B], "teammate": [TAG_B], "outsider": [TAG_A]}.get(persona, [TAG_A, TAG_B])
                foreign += [TAG_DRAFT, TAG_TEST_B_BASELINE]
                leaks += [f"{where}: run file {tag}" for tag in foreign if tag in body]
        transaction.set_rollback(True)
    return leaks


class WorldTestCase(TestCase):
    """The world and the personas' API tokens, built once per class and rolled back after it."""

    @classmethod
    def setUpTestData(cls):
        cls.world = build_world()
        for persona in PERSONAS[1:]:
            _token(cls.world, persona)


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
