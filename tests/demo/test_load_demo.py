"""`load_demo` on what a fresh clone has (shipped samples + synthetic data), loaded once per run
as `make demo` loads it (tests/demo/loaded.py): every competition exists with full leaderboards,
surprise languages behave, and a second run changes nothing; and on the same loaded demo, the
crawls of test_no_hidden_judgments_leak (no hidden judgment published)."""
from io import StringIO

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser, User
from django.core import mail
from django.core.management import call_command
from django.test import TestCase
from django.utils import timezone

from cupboard.competitions.models import Competition, TopicSet
from cupboard.demo.plan import COMPETITIONS, PASSWORD, TEAMS
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.selectors import leaderboard_for
from cupboard.notifications.models import Notification
from cupboard.notifications.services import notifications_send
from cupboard.submissions.models import Submission
from cupboard.teams.models import Team
from tests.demo.loaded import empty_database, loaded_demo
from tests.demo.test_no_hidden_judgments_leak import HiddenJudgmentsChecks, hidden_relevant_pairs


def _counts() -> dict:
    return {model.__name__: model.objects.count()
            for model in (User, Competition, Team, TopicSet, Submission, LeaderboardRow)}


@pytest.mark.slow  # the whole demo, loaded once per run (tests/demo/loaded.py); each test is rolled back to it
class LoadDemoTests(HiddenJudgmentsChecks, TestCase):
    @classmethod
    def setUpClass(cls):
        """The loaded demo copied in before the class's transaction opens, the database emptied
        after it is rolled back."""
        demo = loaded_demo()
        cls.addClassCleanup(empty_database)
        cls.loaded, cls.lines, cls.loaded_at = demo.slugs, demo.lines, demo.at
        super().setUpClass()

    @classmethod
    def setUpTestData(cls):
        cls.phase = Competition.objects.get(slug="miracl-wsdm-cup").phases.get(slug="dev")
        with time_machine.travel(cls.loaded_at):
            cls.hidden = hidden_relevant_pairs()

    def setUp(self):
        """Each test starts at the instant the demo was loaded, its clock running from there: the
        dry run reveals its surprise languages ten minutes after the load, and on a loaded machine
        the tests before one (the crawls) take longer than that."""
        traveller = time_machine.travel(self.loaded_at, tick=True)
        traveller.start()
        self.addCleanup(traveller.stop)

    def test_it_creates_every_competition_from_its_definition(self):
        self.assertEqual(sorted(self.loaded), sorted(plan.slug for plan in COMPETITIONS))
        self.assertEqual(Competition.objects.count(), len(COMPETITIONS))
        self.assertIn("data: no shared data; shipped samples and synthetic data", self.lines)

    def test_it_fills_every_open_phase_leaderboard_with_teams_and_baselines(self):
        from cupboard.demo.plan import BASELINES
        from cupboard.systems.sandbox import sandbox_problem

        for competition in Competition.objects.all():
            for phase in competition.phases.all():
                rows = LeaderboardRow.objects.filter(phase=phase)
                if phase.opens_at > timezone.now():  # not open yet (a finished phase keeps its rows)
                    self.assertFalse(rows.exists(), phase)
                    continue
                # A systems phase holds the example system, run where the sandbox works, beside the
                # baselines without their hybrid (demo/systems.py, demo/services.py).
                teams = (0 if sandbox_problem() else 1) if phase.is_systems else len(TEAMS)
                self.assertEqual(rows.filter(is_baseline=False).count(), teams, phase)
                self.assertEqual(rows.filter(is_baseline=True).count(), len(BASELINES) + (not phase.is_systems), phase)
                self.assertFalse(Submission.objects.filter(phase=phase).exclude(status="scored").exists(), phase)

    def test_dureader_s_final_phase_is_finished_with_its_tables_and_archive(self):
        import io
        import zipfile

        from cupboard.demo.plan import RELEASING
        from cupboard.leaderboards.models import FrozenSnapshot, ResultsArchive
        from cupboard.leaderboards.paper_tables import paper_table

        phase = Competition.objects.get(slug="dureader-retrieval").phases.get(is_final=True)
        self.assertTrue(phase.is_revealed() and not phase.is_open())
        snapshot = FrozenSnapshot.objects.get(phase=phase)
        self.assertIn("†", paper_table(snapshot, table="averages", fmt="md", metadata=[]))
        archive = ResultsArchive.objects.get(phase=phase, status="done")
        with archive.file.open("rb") as stored:
            names = zipfile.ZipFile(io.BytesIO(stored.read())).namelist()
        teams = {name.split("/")[1] for name in names if name.startswith("runs/") and name.count("/") > 2}
        self.assertEqual(teams, {*RELEASING, "baselines"})
        self.assertEqual(archive.runs, len(RELEASING) + 3)
        page = self.client.get(f"/c/dureader-retrieval/{phase.slug}/results/").content.decode()
        self.assertIn(archive.sha256, page)

    def test_it_gives_teams_different_scores(self):
        phase = Competition.objects.get(slug="miracl-wsdm-cup").phases.get(slug="dev")
        board = leaderboard_for(phase=phase, user=AnonymousUser())
        averages = {entry.team: entry.averages["all"]["nDCG@10"] for entry in board.entries}
        self.assertEqual(len(set(averages.values())), len(averages))
        self.assertTrue(all(0 < value < 1 for value in averages.values()), averages)

    def test_it_shows_the_cup_surprise_languages_and_hides_the_dry_runs(self):
        anonymous = AnonymousUser()
        cup = Competition.objects.get(slug="miracl-wsdm-cup").phases.get(slug="dev")
        labels = [c.label for c in leaderboard_for(phase=cup, user=anonymous).columns]
        self.assertIn("yo", labels)
        self.assertEqual(labels[:3], ["K.Avg", "S.Avg", "Avg"])
        dry = Competition.objects.get(slug="miracl-dry-run").phases.get(slug="dev")
        labels = [c.label for c in leaderboard_for(phase=dry, user=anonymous).columns]
        self.assertNotIn("yo", labels)
        organizer = User.objects.get(username="organizer")
        self.assertIn("yo", [c.label for c in leaderboard_for(phase=dry, user=organizer).columns])

    def test_it_lets_hana_form_a_team_in_the_dry_run_but_not_in_the_cup(self):
        from django.core.exceptions import ValidationError

        from cupboard.teams.services import team_create

        hana = User.objects.get(username="hana")
        team_create(competition=Competition.objects.get(slug="miracl-dry-run"), user=hana, name="Hana's team")
        with self.assertRaises(ValidationError) as caught:  # Test B, the final phase, is open
            team_create(competition=Competition.objects.get(slug="miracl-wsdm-cup"), user=hana, name="Hana's team")
        self.assertEqual(caught.exception.code, "entry_closed")

    def test_it_owes_each_member_a_mail_per_scored_run_saying_what_they_may_see(self):
        """What the worker writes to var/mail/ once the demo runs: a "scored" mail per member
        and scored team submission; on the Cup's Test B (scores hidden until its reveal) "valid
        and scored" and no score; on the dry run no surprise language."""
        runs = Submission.objects.filter(team__isnull=False, status="scored").select_related("team")
        rows = Notification.objects.filter(kind="submission", event="scored", sent_at__isnull=True)
        # (A run scored again on a new judgments release, as the Cup's dev phase does, is mailed again.)
        self.assertEqual(len(set(rows.values_list("submission_id", "user_id"))),
                         sum(run.team.memberships.count() for run in runs))
        shown = rows.filter(competition__slug__in=["miracl-wsdm-cup", "miracl-dry-run"], phase__slug__in=["dev", "test-b"])
        self.assertEqual(notifications_send(notification_ids=list(shown.values_list("pk", flat=True)))["failed"], 0)
        test_b = [m for m in mail.outbox if "] Test B (final):" in m.subject and "WSDM Cup" in m.subject]
        self.assertTrue(test_b and all("valid and scored" in m.body and "nDCG@10" not in m.body for m in test_b))
        dry = [m for m in mail.outbox if m.subject.startswith("[MIRACL dry run")]
        self.assertTrue(dry and all("nDCG@10" in m.body and "\nyo " not in m.body and "S.Avg" not in m.body
                                    for m in dry))

    def test_its_teams_formed_before_the_entry_deadline(self):
        from cupboard.audit.models import AuditEvent

        for competition in Competition.objects.all():
            deadline = competition.entry_closes_at()
            if deadline is None:  # teams may form until the end
                continue
            for team in competition.teams.all():
                self.assertLessEqual(team.created_at, deadline, team)
                self.assertFalse(team.memberships.filter(joined_at__gt=deadline).exists(), team)
            late = AuditEvent.objects.filter(competition=competition, action__in=AuditEvent.TEAM_ACTIONS,
                                             created_at__gt=deadline)
            self.assertFalse(late.exists(), competition)

    def test_a_phase_judgments_are_committed_before_its_first_run(self):
        from cupboard.audit.models import AuditEvent

        for competition in Competition.objects.all():
            for phase in competition.phases.filter(submissions__isnull=False).distinct():
                first_run = phase.submissions.order_by("created_at").first().created_at
                commitments = AuditEvent.objects.filter(competition=competition, details__phase=phase.slug,
                                                        action=AuditEvent.Action.QRELS_COMMITTED)
                if phase.hidden_qrels:
                    self.assertTrue(commitments.exists(), phase)
                for event in commitments.filter(details__release=1):
                    self.assertLess(event.created_at, first_run, phase)
                self.assertLess(phase.qrels_releases.get(number=1).created_at, first_run, phase)
                self.assertFalse(phase.topic_sets.filter(created_at__gte=first_run).exists(), phase)

    def test_it_lets_the_demo_accounts_log_in(self):
        self.assertTrue(self.client.login(username="alice", password=PASSWORD))
        self.assertTrue(User.objects.get(username="admin").is_superuser)
        organizer = User.objects.get(username="organizer")
        self.assertFalse(organizer.is_superuser)
        self.assertEqual(organizer.organized_competitions.count(), len(COMPETITIONS))

    def test_it_changes_nothing_when_run_again(self):
        before = _counts()
        out = StringIO()
        call_command("load_demo", "--data", "/nonexistent", stdout=out)
        self.assertEqual(_counts(), before)
        self.assertIn("nothing new", out.getvalue())

    def test_the_cup_runs_carry_metadata_and_its_leaderboard_filters_on_it(self):
        phase = Competition.objects.get(slug="miracl-wsdm-cup").phases.get(slug="dev")
        everyone = leaderboard_for(phase=phase, user=AnonymousUser())
        self.assertEqual([f.name for f in everyone.filter_fields], ["run_type", "training", "external_resources"])
        self.assertTrue(all(entry.metadata.get("run_type") for entry in everyone.entries if not entry.is_baseline))
        zero_shot = leaderboard_for(phase=phase, user=AnonymousUser(), filters={"training": "zero-shot"})
        self.assertEqual(sorted(e.team for e in zero_shot.entries if not e.is_baseline), ["Lighthouse", "Tidepool"])
        page = self.client.get("/c/miracl-wsdm-cup/dev/leaderboard/?meta_training=zero-shot").content.decode()
        self.assertIn('<form method="get" class="metadata-filter"', page)
        self.assertIn("those whose run says Training data: Zero-shot", page)
        self.assertNotIn("Okapi", page)

    # The Cup's development phase (self.phase) after the demo's judging cycle (demo/judging.py).

    def test_every_scored_run_has_judged_at_10_in_every_language(self):
        from cupboard.judging.models import JudgedShare

        scored = Submission.objects.filter(phase=self.phase, status="scored")
        languages = self.phase.competition.subsets.count()
        self.assertEqual(JudgedShare.objects.filter(submission__in=scored).count(), scored.count() * languages)
        values = set(JudgedShare.objects.filter(submission__in=scored).values_list("value", flat=True))
        self.assertTrue(len(values) > 3 and all(0 <= v <= 1 for v in values), values)
        # the two teams left out of the judged pool keep runs less judged than the pooled ones
        rows = {r.rank: r.submission for r in self.phase.leaderboard_rows.filter(is_baseline=False)}
        mean = {rank: sum(s.judged_shares.values_list("value", flat=True)) for rank, s in rows.items()}
        self.assertLess(max(mean[3], mean[4]), min(mean[1], mean[2]), mean)

    def test_it_shows_two_pools_with_data_and_what_the_judged_one_changed(self):
        from django.urls import reverse

        from cupboard.judging.standings import release_changes
        from tests.personas import client_for

        first, second = self.phase.pool_exports.order_by("pk")
        self.assertEqual((first.status, second.status), ("done", "done"))
        self.assertEqual((first.qrels_release.number, second.qrels_release.number), (1, 2))
        documents = [sum(c["documents"] for c in e.counts) for e in (first, second)]
        self.assertTrue(documents[0] > 0 and documents[1] < documents[0], documents)
        self.assertTrue(any(c["unique"] for c in first.contributions))
        found = release_changes(self.phase.qrels_releases.get(number=2))
        self.assertTrue(found.waiting == 0 and sum(found.new_judgments.values()) == documents[0])
        # v3 came from judging in the browser (demo/assessment.py); every run is scored with it
        self.assertEqual(self.phase.qrels_releases.order_by("-number").first().number, 3)
        self.assertFalse(Submission.objects.filter(phase=self.phase).exclude(qrels_release__number=3).exists())
        organizer = client_for(User.objects.get(username="organizer"))
        page = organizer.get(reverse("judging:pool", args=[self.phase.competition.slug, "dev"]))
        self.assertContains(page, "Documents to judge")
        self.assertContains(organizer.get(reverse("judging:qrels_changes", args=[self.phase.competition.slug, "dev", 2])),
                            "Judgments: new, flipped and dropped")

    def test_alice_reads_her_teams_per_topic_report_on_development_and_none_on_test_b(self):
        from django.urls import reverse

        from tests.personas import client_for

        alice = client_for(User.objects.get(username="alice"))
        runs = Submission.objects.filter(team__memberships__user__username="alice",
                                         phase__competition=self.phase.competition, status="scored")
        dev, test_b = runs.filter(phase=self.phase).first(), runs.filter(phase__slug="test-b").first()
        mine = alice.get(reverse("submissions:mine", args=[self.phase.competition.slug])).content.decode()
        self.assertIn(reverse("submissions:per_topic", args=[dev.pk]), mine)
        self.assertNotIn(reverse("submissions:per_topic", args=[test_b.pk]), mine)
        report = alice.get(reverse("submissions:per_topic", args=[dev.pk])).context["report"]
        counted = Submission.objects.filter(phase=self.phase, status="scored", disqualified=False,
                                            run_files__subset=report.subset).count()
        self.assertTrue(report.runs == counted > 4 and report.rows, (report.runs, report.rows))
        self.assertEqual(alice.get(reverse("submissions:per_topic", args=[test_b.pk])).status_code, 404)

    def test_an_assessor_has_a_task_to_resume_and_a_round_became_qrels_v3(self):
        from django.urls import reverse

        from tests.personas import client_for

        slug = self.phase.competition.slug
        tasks = client_for(User.objects.get(username="assessor")).get(reverse("judging:tasks", args=[slug]))
        self.assertContains(tasks, "Resume")
        organizer = client_for(User.objects.get(username="organizer"))
        page = organizer.get(reverse("judging:assessment", args=[slug, "dev"]))
        self.assertContains(page, "Made qrels v3 from this round")
        self.assertContains(page, "Cohen")
