"""The rows of the permissions matrix (tests/rules/test_permissions_matrix.py): every URL of
the project with its arguments in the rules world and the status each persona must get,
in `PERSONAS` order (anon, participant, teammate, outsider, organizer, other_organizer, staff,
and assessor where a row names eight; with seven the assessor gets the other organizer's)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cupboard.competitions.viewer import Viewer
from cupboard.notifications.preferences import unsubscribe_token
from cupboard.submissions.comparison import can_compare
from cupboard.submissions.topic_reports import has_report


@dataclass(frozen=True)
class Row:
    name: str
    args: tuple
    method: str
    statuses: tuple | Callable  # one per persona, in PERSONAS order; or viewer -> status
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


def assessor(ok: int, other: int, *, anon: int = 302) -> tuple:
    """The assessor's pages: the cup's assessor gets `ok`, everyone else `other` (organizers too)."""
    return (anon,) + (other,) * 6 + (ok,)


def organizers_not_assessor(ok: int, other: int, *, anon: int = 302) -> tuple:
    """An organizer page, with the assessor refused like any non-organizer."""
    return organizers(ok, other, anon=anon) + (other,)


def rows(w) -> list[Row]:
    """The matrix. Arguments are resolved from the world `w` (pks are only known at run time)."""
    a, a_b, b, base, base_b = w.sub_a_dev.pk, w.sub_a_test_b.pk, w.sub_b_dev.pk, w.baseline.pk, w.baseline_test_b.pk
    invite = w.team_a.invite_code
    w.__dict__.setdefault("unsubscribe", unsubscribe_token(user=w.participant, kind="submission"))
    subset = {s.code: s for s in w.competition.subsets.all()}

    def compare(one, other):
        """The comparison page: 404 for none and for a submission the viewer may not open (ids
        are site-wide: a 403 said one exists), 403 for two the viewer may open but not pair."""
        def rule(v: Viewer) -> int:
            if not v.sees_submission(one):
                return 404
            if other is None or not v.sees_submission(other):
                return 404
            return 200 if can_compare(v, one, other) else 403
        return rule

    def per_topic(submission):
        """A run's per-topic report: log in first; 404 for a run the viewer may not open, and
        until its report is open to them (its team once the judgments are public)."""
        def rule(v: Viewer) -> int:
            if not v.user.is_authenticated:
                return 302
            if not v.sees_submission(submission):
                return 404
            return 200 if has_report(v, submission) else 404
        return rule

    def run_file(submission, code):
        return lambda v: (404 if not v.sees_submission(submission) else
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

    return systems_rows(w) + [
        # Prometheus' scrape: a bearer token only, never a session (none configured here: it does not exist).
        Row("operations:metrics", (), "GET", every(404)),
        Row("accounts:signup", (), "GET", every(200)),
        Row("accounts:signup", (), "POST", every(200), {"username": ""}),  # the form again, with errors
        Row("accounts:login", (), "GET", every(200)),
        Row("accounts:login", (), "POST", every(200), {"username": "participant", "password": "wrong"}),
        Row("accounts:profile", (), "GET", login(200)),
        Row("accounts:token_create", (), "GET", login(405)),
        Row("accounts:token_create", (), "POST", login(200)),  # the new token, shown in this answer only
        Row("accounts:password_change", (), "GET", login(200)),
        Row("accounts:password_change", (), "POST", login(200), {"old_password": "wrong"}),  # the form, with errors
        Row("accounts:email_change", (), "GET", login(200)),
        Row("accounts:email_change", (), "POST", login(200), {"email": "x@example.org", "password": "wrong"}),
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
        # The cup's organizer and assessor are refused too: neither plays in it (competitions/roles.py).
        Row("teams:join", (invite,), "POST", (302, 302, 302, 200, 200, 302, 302, 200)),
        # Merging: every logged-in POST ends on a redirect (merged, or back to the invite with the reason).
        Row("teams:merge", (invite,), "GET", login(405)),
        Row("teams:merge", (invite,), "POST", login(302)),
        Row("teams:merge", (w.draft_team.invite_code,), "POST", organizers(302, 404, anon=302)),
        Row("teams:create", ("cup",), "GET", login(200)),
        Row("teams:create", ("cup",), "POST", (302, 200, 200, 200, 200, 302, 302, 200), {"name": "Fresh team"}),
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
        # The draft's organizer sees its invite but, as its organizer, cannot join (the page again).
        Row("teams:join", (w.draft_team.invite_code,), "POST", (302, 404, 404, 404, 200, 404, 302)),
        Row("teams:leave", ("draft", "draft-team"), "POST", organizers(302, 404, anon=302)),
        Row("submissions:detail", (w.draft_sub.pk,), "GET", organizers(200, 404)),
        Row("submissions:status", (w.draft_sub.pk,), "GET", organizers(200, 404)),
        Row("submissions:download", (w.draft_sub.pk, "sw"), "GET", organizers(200, 404)),
        Row("submissions:api_status", (w.draft_sub.pk,), "GET", organizers(200, 404, anon=401)),
        Row("submissions:detail", (a,), "GET", team_a(200, 404)),
        Row("submissions:detail", (base,), "GET", every(200)),
        Row("submissions:detail", (999999,), "GET", every(404)),
        Row("submissions:compare", (a,), "GET", compare(w.sub_a_dev, w.baseline), {"with": base}),
        Row("submissions:compare", (base,), "GET", compare(w.baseline, w.sub_a_dev), {"with": a}),
        Row("submissions:compare", (a,), "GET", compare(w.sub_a_dev, w.sub_b_dev), {"with": b}),  # team B's
        Row("submissions:compare", (a_b,), "GET", compare(w.sub_a_test_b, w.baseline_test_b), {"with": base_b}),
        Row("submissions:compare", (a,), "GET", compare(w.sub_a_dev, None), {"with": 999999}),
        Row("submissions:compare", (a,), "GET", compare(w.sub_a_dev, None)),
        Row("submissions:status", (a,), "GET", team_a(200, 404)),
        *(Row(name, (pk,), "GET", per_topic(sub)) for name in ("submissions:per_topic", "submissions:per_topic_csv")
          for pk, sub in ((a, w.sub_a_dev), (a_b, w.sub_a_test_b), (b, w.sub_b_dev), (base, w.baseline),
                          (base_b, w.baseline_test_b))),
        Row("submissions:per_topic", (a,), "GET", per_topic(w.sub_a_dev), {"subset": "te", "measure": "R@100"}),
        Row("submissions:per_topic", (a,), "GET", team_a(404, 404, anon=302), {"subset": "yo"}),  # team A ran no yo
        Row("submissions:per_topic", (a,), "GET", team_a(404, 404, anon=302), {"measure": "nope"}),
        Row("submissions:per_topic", (base,), "GET", organizers(200, 404, anon=302), {"subset": "yo"}),
        Row("submissions:per_topic", (a,), "POST", login(405)),
        Row("submissions:per_topic_csv", (a,), "POST", login(405)),
        Row("submissions:per_topic", (w.draft_sub.pk,), "GET", login(404)),  # not scored
        Row("submissions:per_topic", (999999,), "GET", login(404)),
        Row("submissions:status", (base,), "GET", every(200)),
        Row("submissions:download", (a, "sw"), "GET", run_file(w.sub_a_dev, "sw")),
        Row("submissions:download", (base, "sw"), "GET", run_file(w.baseline, "sw")),
        # A baseline's run for the surprise language is as hidden as the language itself, and
        # one on test B as hidden as its judgments.
        Row("submissions:download", (base, "yo"), "GET", run_file(w.baseline, "yo")),
        Row("submissions:download", (base_b, "sw"), "GET", run_file(w.baseline_test_b, "sw")),
        Row("submissions:detail", (base_b,), "GET", every(200)),
        Row("submissions:status", (base_b,), "GET", every(200)),
        Row("submissions:status", (a_b,), "GET", team_a(200, 404)),
        Row("submissions:api_status", (base_b,), "GET", login(200, anon=401)),
        Row("submissions:api_status", (a_b,), "GET", team_a(200, 404, anon=401)),
        Row("submissions:select_final", (a_b,), "GET", login(405)),
        Row("submissions:select_final", (a_b,), "POST", team_a(302, 404, anon=302), {"selected": "1"}),
        Row("submissions:release_consent", (a_b,), "GET", login(405)),
        Row("submissions:release_consent", (a_b,), "POST", team_a(302, 404, anon=302), {"consent": "1"}),
        Row("submissions:disqualify", (b,), "GET", login(405)),
        # Team B's run: 403 to its member (the outsider), 404 to whoever may not open it.
        Row("submissions:disqualify", (b,), "POST", (302, 404, 404, 403, 302, 404, 302), {"reason": "cheating"}),
        Row("submissions:grant", (b,), "GET", login(405)),
        Row("submissions:grant", (b,), "POST", (302, 404, 404, 403, 302, 404, 302), {"extra": "1", "reason": "outage"}),
        Row("submissions:api_status", (a,), "GET", team_a(200, 404, anon=401)),
        Row("submissions:api_status", (base,), "GET", login(200, anon=401)),
        # The API takes tokens only: a logged-in session without one is refused (no CSRF hole).
        Row("submissions:api_status", (a,), "GET", every(401), {"session_only": True}),
        Row("submissions:api_upload", ("cup", "dev"), "POST", every(401), {"session_only": True}),
        Row("submissions:api_upload", ("cup", "dev"), "GET", login(405, anon=401)),
        # A phase's definition is public (token optional), a draft's its organizers' only.
        Row("submissions:api_definition", ("cup", "dev"), "GET", every(200)),
        Row("submissions:api_definition", ("cup", "test-b"), "GET", every(200)),
        Row("submissions:api_definition", ("cup", "nope"), "GET", every(404)),
        Row("submissions:api_definition", ("draft", "dev"), "GET", organizers(200, 404)),
        Row("submissions:api_definition", ("cup", "dev"), "POST", every(405)),
        # The competitions the caller may see (token optional); a team's own submissions (token
        # required): 403 to whoever has no team in the competition, 404 to whoever may not see it.
        Row("submissions:api_competitions", (), "GET", every(200)),
        Row("submissions:api_competitions", (), "POST", every(405)),
        Row("submissions:api_submissions", ("cup", "dev"), "GET", (401, 200, 200, 200, 403, 403, 403)),
        Row("submissions:api_submissions", ("cup", "test-b"), "GET", (401, 200, 200, 200, 403, 403, 403)),
        Row("submissions:api_submissions", ("cup", "nope"), "GET", login(404, anon=401)),
        Row("submissions:api_submissions", ("draft", "dev"), "GET", organizers(403, 404, anon=401)),
        Row("submissions:api_submissions", ("cup", "dev"), "GET", every(401), {"session_only": True}),
        Row("submissions:api_submissions", ("cup", "dev"), "POST", login(405, anon=401)),
        # The API's description is public: the OpenAPI document and its page.
        Row("operations:api_openapi", (), "GET", every(200)),
        Row("operations:api_openapi", (), "POST", every(405)),
        Row("operations:api_docs", (), "GET", every(200)),
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
        Row("leaderboards:history_json", ("cup", "dev"), "GET", every(200)),
        Row("leaderboards:history_json", ("cup", "test-b"), "GET", export(w.test_b)),
        Row("leaderboards:history_json", ("draft", "dev"), "GET", organizers(200, 404)),
        # A script reads a leaderboard's JSON with its token as the page with the session.
        Row("leaderboards:export_json", ("cup", "test-b"), "GET", export(w.test_b), {"token": True}),
        Row("leaderboards:history_json", ("cup", "test-b"), "GET", export(w.test_b), {"token": True}),
        Row("leaderboards:export_json", ("draft", "dev"), "GET", organizers(200, 404), {"token": True}),
        Row("leaderboards:official_csv", ("cup", "test-b"), "GET", official(w.test_b)),
        Row("leaderboards:official_json", ("cup", "test-b"), "GET", official(w.test_b)),
        Row("leaderboards:official_csv", ("cup", "dev"), "GET", every(404)),  # not a final phase
        # The results page and the paper's tables: from the frozen results, so as they are.
        Row("leaderboards:results", ("cup", "test-b"), "GET", official(w.test_b)),
        Row("leaderboards:results", ("cup", "dev"), "GET", every(404)),  # not a final phase
        Row("leaderboards:paper_table", ("cup", "test-b", "averages", "tex"), "GET", official(w.test_b)),
        Row("leaderboards:paper_table", ("cup", "test-b", "languages", "md"), "GET", official(w.test_b)),
        Row("leaderboards:archive_build", ("cup", "test-b"), "GET", login(405)),
        Row("leaderboards:archive_build", ("cup", "test-b"), "POST", organizers(302, 403, anon=302)),
        # No archive is built in the rules world: tests/leaderboards/test_results_archive.py serves one.
        Row("leaderboards:archive_download", ("cup", "test-b", 1), "GET", every(404)),
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
        # A systems phase's topics: its organizers' alone, however open the phase (cupboard/systems/).
        Row("competitions:topics", ("cup", "blind", "sw"), "GET", topics(w.blind, "sw")),
        Row("competitions:topics_variant", ("cup", "blind", "sw", "default"), "GET", topics(w.blind, "sw")),
        Row("competitions:topics_archive", ("cup", "blind"), "GET", organizers(200, 404)),
        Row("competitions:sample_submission", ("cup", "blind"), "GET", organizers(200, 404)),
        Row("competitions:topics", ("cup", "dev", "yo"), "GET", topics(w.dev, "yo")),
        Row("competitions:topics", ("cup", "dev", "zz"), "GET", topics(w.dev, "zz")),
        Row("competitions:topics", ("cup", "test-b", "yo"), "GET", topics(w.test_b, "yo")),
        # One topic variant's file; the world's competition declares none: its one is `default`.
        Row("competitions:topics_variant", ("cup", "dev", "sw", "default"), "GET", topics(w.dev, "sw")),
        Row("competitions:topics_variant", ("cup", "test-b", "yo", "default"), "GET", topics(w.test_b, "yo")),
        Row("competitions:topics_variant", ("cup", "dev", "sw", "native"), "GET", every(404)),
        Row("competitions:qrels", ("cup", "dev", 1, "sw"), "GET", qrels(w.dev, "sw")),
        Row("competitions:qrels", ("cup", "dev", 1, "yo"), "GET", qrels(w.dev, "yo")),
        Row("competitions:qrels", ("cup", "test-b", 1, "sw"), "GET", qrels(w.test_b, "sw")),
        Row("competitions:qrels", ("cup", "test-b", 1, "zz"), "GET", qrels(w.test_b, "zz")),
        # Creating a competition: staff (and accounts with the add permission); the Markdown preview: organizers.
        Row("competitions:create", (), "GET", (302, 403, 403, 403, 403, 403, 200)),
        Row("competitions:create", (), "POST", (302, 403, 403, 403, 403, 403, 400)),  # no rows posted
        Row("competitions:create_yaml", (), "GET", (302, 403, 403, 403, 403, 403, 200)),
        Row("competitions:create_yaml", (), "POST", (302, 403, 403, 403, 403, 403, 400), {"definition": "x: ["}),
        Row("competitions:markdown_preview", (), "POST", (302, 403, 403, 403, 200, 200, 200, 403), {"text": "*a*"}),  # the assessor organizes nothing
        Row("competitions:markdown_preview", (), "GET", login(405)),
        # The organizer area: anyone else gets a 403 (a draft: the 404 of a missing competition; anonymous: log in).
        Row("competitions:manage", ("cup",), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage", ("draft",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage", ("cup",), "POST", login(405)),
        Row("operations:desk", ("cup",), "GET", organizers(200, 403, anon=302)),
        Row("operations:desk", ("draft",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:definition", ("cup",), "GET", organizers(200, 403, anon=302)),
        Row("competitions:definition", ("draft",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:definition", ("cup",), "POST", organizers(400, 403, anon=302)),  # no rows posted
        Row("competitions:definition_yaml", ("cup",), "GET", organizers(200, 403, anon=302)),
        Row("competitions:definition_yaml", ("draft",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:definition_yaml", ("cup",), "POST", organizers(400, 403, anon=302), {"definition": "x: ["}),
        Row("competitions:definition_download", ("cup",), "GET", organizers(200, 403, anon=302)),
        Row("competitions:definition_download", ("draft",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:definition_download", ("cup",), "POST", login(405)),
        Row("competitions:manage_teams", ("cup",), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_teams", ("draft",), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_teams", ("cup",), "POST", login(405)),
        Row("competitions:manage_qrels", ("cup", "test-b"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_qrels", ("cup", "test-b"), "POST", organizers(400, 403, anon=302), {"note": "x"}),
        Row("competitions:manage_qrels", ("cup", "nope"), "GET", organizers(404, 403, anon=302)),
        Row("competitions:manage_topics", ("cup", "dev"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_topics", ("cup", "dev"), "POST", organizers(400, 403, anon=302)),
        Row("competitions:manage_topics_file", ("cup", "test-b", 1, "sw", "default"), "GET",
            organizers(200, 403, anon=302)),
        Row("competitions:manage_topics_file", ("cup", "test-b", 2, "sw", "default"), "GET",
            organizers(404, 403, anon=302)),
        Row("competitions:manage_topics_file", ("draft", "dev", 1, "sw", "default"), "GET",
            organizers(404, 404, anon=302)),
        Row("competitions:manage_schedule", ("cup", "test-b"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_schedule", ("cup", "test-b"), "POST", organizers(302, 403, anon=302),
            {"visibility": "live", "hidden_qrels": "on", "confirm": "1"}),
        Row("competitions:manage_board_rules", ("cup", "dev"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_board_rules", ("cup", "dev"), "POST", organizers(302, 403, anon=302),
            {"freeze_at": "", "confirm": "1"}),
        Row("competitions:manage_board_rules", ("cup", "nope"), "GET", organizers(404, 403, anon=302)),
        Row("competitions:manage_group", ("cup", "surprise"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_group", ("cup", "surprise"), "POST", organizers(302, 403, anon=302),
            {"reveal_at": "", "confirm": "1"}),
        Row("competitions:manage_group", ("cup", "nope"), "GET", organizers(404, 403, anon=302)),
        # The organizer's desk: export, scoring progress, grants for any team, a message to every team.
        Row("competitions:manage_export", ("cup", "dev"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_export", ("draft", "dev"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_export", ("cup", "dev"), "POST", login(405)),
        Row("competitions:manage_per_topic", ("cup", "dev"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_per_topic", ("cup", "test-b"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_per_topic", ("draft", "dev"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_per_topic", ("cup", "dev"), "POST", login(405)),
        Row("competitions:manage_per_topic", ("cup", "nope"), "GET", organizers(404, 403, anon=302)),
        Row("competitions:manage_export", ("cup", "nope"), "GET", organizers(404, 403, anon=302)),
        Row("competitions:manage_runs", ("cup", "dev"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_runs", ("draft", "dev"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_runs", ("cup", "dev"), "POST", login(405)),
        Row("competitions:manage_runs", ("cup", "nope"), "GET", organizers(404, 403, anon=302)),
        Row("competitions:manage_scoring", ("cup", "test-b"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_scoring", ("cup", "dev"), "POST", login(405)),
        Row("competitions:manage_verify", ("cup", "dev"), "GET", login(405)),
        Row("competitions:manage_verify", ("cup", "test-b"), "POST", organizers(302, 403, anon=302)),
        Row("competitions:manage_verify", ("draft", "dev"), "POST", organizers(302, 404, anon=302)),
        Row("competitions:manage_grant", ("cup", "team-b"), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_grant", ("cup", "team-b"), "POST", organizers(302, 403, anon=302),
            {"phase": w.sub_a_dev.phase_id, "extra": "1", "reason": "outage"}),
        Row("competitions:manage_grant", ("cup", "team-b"), "POST", organizers(400, 403, anon=302),
            {"phase": w.sub_a_dev.phase_id, "extra": "1", "day": "31/01/2026", "reason": "outage"}),
        Row("competitions:manage_grant", ("cup", "nobody"), "GET", organizers(404, 403, anon=302)),
        Row("competitions:manage_grant", ("draft", "draft-team"), "GET", organizers(200, 404, anon=302)),
        Row("competitions:manage_message", ("cup",), "GET", organizers(200, 403, anon=302)),
        Row("competitions:manage_message", ("cup",), "POST", organizers(302, 403, anon=302),
            {"subject": "Deadline", "body": "Two days left.", "action": "send"}),
        Row("competitions:manage_message", ("cup",), "POST", organizers(400, 403, anon=302), {"subject": "x"}),
        # The judging cycle (organizer area): Judged@10 of every run, pools for the assessors, what a
        # qrels version changed. Test B's hide nothing from its organizers and everything from the rest.
        # Judged@10 of a phase's runs: a page for everyone, with the table once judgments and board are public.
        Row("judging:phase_judged", ("cup", "dev"), "GET", every(200)),
        Row("judging:phase_judged", ("cup", "test-b"), "GET", every(200)),  # "shown from ..." for most
        Row("judging:phase_judged", ("draft", "dev"), "GET", organizers(200, 404)),
        Row("judging:phase_judged", ("cup", "nope"), "GET", every(404)),
        Row("judging:phase_judged", ("cup", "dev"), "POST", every(405)),
        Row("judging:pool", ("cup", "dev"), "GET", organizers(200, 403, anon=302)),
        Row("judging:pool", ("cup", "test-b"), "GET", organizers(200, 403, anon=302)),
        Row("judging:pool", ("draft", "dev"), "GET", organizers(200, 404, anon=302)),
        Row("judging:pool", ("cup", "nope"), "GET", organizers(404, 403, anon=302)),
        Row("judging:pool", ("cup", "dev"), "POST", login(405)),
        Row("judging:pool_create", ("cup", "test-b"), "GET", login(405)),
        Row("judging:pool_create", ("cup", "test-b"), "POST", organizers(302, 403, anon=302),
            {"depth": "10", "selection": "selected", "with_baselines": "on"}),
        Row("judging:pool_create", ("cup", "test-b"), "POST", organizers(400, 403, anon=302), {"depth": "0"}),
        Row("judging:pool_zip", ("cup", "test-b", w.pool_test_b.number), "GET", organizers(200, 403, anon=302)),
        Row("judging:pool_zip", ("cup", "dev", w.pool_test_b.number), "GET", organizers(404, 403, anon=302)),  # another phase's
        Row("judging:pool_zip", ("cup", "test-b", 999999), "GET", organizers(404, 403, anon=302)),
        Row("judging:pool_tsv", ("cup", "test-b", w.pool_test_b.number, "sw"), "GET", organizers(200, 403, anon=302)),
        Row("judging:pool_tsv", ("cup", "test-b", w.pool_test_b.number, "yo"), "GET", organizers(404, 403, anon=302)),  # no run for yo
        Row("judging:pool_tsv", ("cup", "test-b", w.pool_test_b.number, "sw"), "POST", login(405)),
        Row("judging:qrels_changes", ("cup", "dev", 1), "GET", organizers(404, 403, anon=302)),  # a first version changed nothing
        Row("judging:qrels_changes", ("draft", "dev", 1), "GET", organizers(404, 404, anon=302)),
        Row("judging:qrels_changes", ("cup", "dev", 1), "POST", login(405)),
        # Judging in the browser: the organizers' pages, then the assessor's tasks (test B is the
        # final phase, its judgments hidden: the assessor reaches their own task and nothing else).
        Row("judging:assessors", ("cup",), "GET", organizers_not_assessor(200, 403)),
        Row("judging:assessors", ("draft",), "GET", organizers_not_assessor(200, 404)),
        Row("judging:assessors", ("cup",), "POST", organizers_not_assessor(400, 403), {"username": "nobody"}),
        Row("judging:assessment", ("cup", "test-b"), "GET", organizers_not_assessor(200, 403)),
        Row("judging:assessment", ("cup", "nope"), "GET", organizers_not_assessor(404, 403)),
        Row("judging:assessment", ("cup", "test-b"), "POST", login(405)),
        Row("judging:corpus_create", ("cup", "test-b"), "POST", organizers_not_assessor(400, 403)),
        Row("judging:corpus_create", ("cup", "test-b"), "GET", login(405)),
        Row("judging:round_create", ("cup", "test-b"), "POST", organizers_not_assessor(400, 403)),
        Row("judging:round_create", ("cup", "test-b"), "GET", login(405)),
        Row("judging:resolve", ("cup", "test-b", w.task_test_b.round_id), "POST", organizers_not_assessor(302, 403)),
        Row("judging:resolve", ("cup", "dev", w.task_test_b.round_id), "POST", organizers_not_assessor(404, 403)),
        Row("judging:resolve", ("cup", "test-b", w.task_test_b.round_id), "GET", login(405)),
        Row("judging:round_qrels", ("cup", "test-b", w.task_test_b.round_id), "POST",
            organizers_not_assessor(302, 403)),  # refused: nothing judged yet (a message)
        Row("judging:round_qrels", ("cup", "test-b", 999999), "POST", organizers_not_assessor(404, 403)),
        Row("judging:round_qrels", ("cup", "test-b", w.task_test_b.round_id), "GET", login(405)),
        Row("judging:round_reassign", ("cup", "test-b", w.task_test_b.round_id), "POST",
            organizers_not_assessor(302, 403)),  # refused: no assessor named (a message)
        Row("judging:round_reassign", ("cup", "test-b", 999999), "POST", organizers_not_assessor(404, 403)),
        Row("judging:round_reassign", ("cup", "dev", w.task_test_b.round_id), "POST", organizers_not_assessor(404, 403)),
        Row("judging:round_reassign", ("cup", "test-b", w.task_test_b.round_id), "GET", login(405)),
        Row("judging:tasks", ("cup",), "GET", assessor(200, 403)),
        Row("judging:tasks", ("draft",), "GET", assessor(404, 403)),  # the draft's organizers are no assessors
        Row("judging:tasks", ("cup",), "POST", login(405)),
        Row("judging:judge", ("cup", w.task_test_b.pk), "GET", assessor(200, 403)),
        Row("judging:judge", ("cup", w.task_test_b.pk), "POST", assessor(302, 403), {"position": "1", "label": "1"}),
        Row("judging:judge", ("cup", 999999), "GET", assessor(404, 403)),
        Row("judging:judge", ("draft", w.task_test_b.pk), "GET", assessor(404, 403)),
    ]


def systems_rows(w) -> list[Row]:
    """A systems phase's pages (cupboard/systems/): a system is its team's and the organizers'
    (404 alike to others and for none); re-running one and its image are the organizers'."""
    system = w.blind_system.pk
    return [
        Row("systems:upload", ("cup", "blind"), "GET", login(200)),
        Row("systems:upload", ("cup", "blind"), "POST", login(400), {"method_name": "x"}),  # no image
        Row("systems:upload", ("cup", "dev"), "GET", login(302)),  # a runs phase: its run upload
        Row("systems:upload", ("draft", "dev"), "GET", organizers(302, 404, anon=302)),
        Row("systems:upload", ("cup", "nope"), "GET", login(404)),
        Row("systems:detail", (system,), "GET", team_a(200, 404)),
        Row("systems:detail", (999999,), "GET", every(404)),
        Row("systems:status", (system,), "GET", team_a(200, 404)),
        Row("systems:rerun", (system,), "GET", login(405)),
        Row("systems:rerun", (system,), "POST", (302, 403, 403, 404, 302, 404, 302)),
        Row("systems:determinism", (system,), "POST", (302, 403, 403, 404, 302, 404, 302)),
        Row("systems:image", (system,), "GET", (302, 403, 403, 404, 200, 404, 200)),
        Row("systems:api_upload", ("cup", "blind"), "POST", every(401), {"session_only": True}),
        Row("systems:api_upload", ("cup", "blind"), "GET", login(405, anon=401)),
        Row("systems:api_upload", ("cup", "blind"), "POST", login(400, anon=401), {"method_name": "x"}),
    ]
