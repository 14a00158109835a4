"""Team pages: create, join by link, leave, and who sees a team's submissions."""
from django.urls import reverse

from cupboard.submissions.models import Submission
from cupboard.teams.models import Team
from tests.personas import PersonasTestCase


class TeamPagesTestCase(PersonasTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        phase = cls.competition.phases.get(slug="dev")
        Submission.objects.create(phase=phase, team=cls.team_a, submitted_by=cls.participant, number=1,
                                  method_name="SecretSauce", status=Submission.Status.SCORED)

    def test_it_lists_submissions_for_teammates_and_organizers(self):
        for user in (self.participant, self.teammate, self.organizer, self.staff):
            response = self.client_for(user).get(self.team_a.get_absolute_url())
            self.assertContains(response, "SecretSauce")

    def test_it_shows_only_the_name_to_others(self):
        for user in (self.outsider, self.anonymous, self.other_organizer):
            response = self.client_for(user).get(self.team_a.get_absolute_url())
            self.assertContains(response, "Team A")
            self.assertNotContains(response, "SecretSauce")
            self.assertNotContains(response, self.team_a.invite_code)

    def test_it_shows_the_invite_link_to_members(self):
        response = self.client_for(self.teammate).get(self.team_a.get_absolute_url())
        self.assertContains(response, reverse("teams:join", args=[self.team_a.invite_code]))

    def test_it_creates_a_team(self):
        user = self.other_organizer  # in no team of this competition
        response = self.client_for(user).post(reverse("teams:create", args=["cup"]), {"name": "Gamma"})
        team = Team.objects.get(name="Gamma")
        self.assertRedirects(response, team.get_absolute_url())
        self.assertTrue(team.memberships.filter(user=user).exists())

    def test_it_shows_why_a_team_cannot_be_created(self):
        response = self.client_for(self.participant).post(reverse("teams:create", args=["cup"]), {"name": "Gamma"})
        self.assertContains(response, "already in team Team A")
        self.assertFalse(Team.objects.filter(name="Gamma").exists())

    def test_it_joins_through_the_invite_link(self):
        url = reverse("teams:join", args=[self.team_b.invite_code])
        self.assertContains(self.client_for(self.staff).get(url), "Join <bdi>Team B</bdi>")
        self.client_for(self.staff).post(url)
        self.assertTrue(self.team_b.memberships.filter(user=self.staff).exists())

    def test_it_leaves(self):
        self.client_for(self.teammate).post(reverse("teams:leave", args=["cup", self.team_a.slug]))
        self.assertFalse(self.team_a.memberships.filter(user=self.teammate).exists())

    def test_it_asks_anonymous_users_to_log_in(self):
        response = self.client_for(self.anonymous).get(reverse("teams:create", args=["cup"]))
        self.assertEqual(response.status_code, 302)
        self.assertIn(reverse("accounts:login"), response.url)

    def test_it_reads_the_team_page_in_a_fixed_number_of_queries(self):
        client = self.client_for(self.participant)
        # session, user, team (+competition), membership, members, phases (upload links for
        # members), submissions (+phase)
        with self.assertNumQueries(7):
            client.get(self.team_a.get_absolute_url())
