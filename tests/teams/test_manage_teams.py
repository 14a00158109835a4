"""The organizers' teams page: members, submissions per phase, team changes; 403 to others."""
from django.urls import reverse

from cupboard.submissions.models import Submission
from cupboard.teams.services import team_create, team_join, team_leave
from tests.factories import make_user
from tests.personas import PersonasTestCase


class ManageTeamsTestCase(PersonasTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        dev = cls.competition.phases.get(slug="dev")
        for number, status in enumerate([Submission.Status.SCORED, Submission.Status.SCORED,
                                         Submission.Status.REJECTED], start=1):
            Submission.objects.create(phase=dev, team=cls.team_a, submitted_by=cls.participant, number=number,
                                      method_name=f"m{number}", status=status)
        hopper = make_user("hopper")
        lantern = team_create(competition=cls.competition, user=hopper, name="Lantern")
        team_leave(team=lantern, user=hopper)
        team_join(invite_code=cls.team_b.invite_code, user=hopper)
        cls.url = reverse("competitions:manage_teams", args=["cup"])

    def test_it_lists_teams_members_counts_and_changes_for_organizers(self):
        for user in (self.organizer, self.staff):
            page = self.client_for(user).get(self.url).content.decode()
            assert "Team A" in page and "Lantern" in page
            assert "<bdi>participant</bdi> <span class=\"muted\">(captain)</span>, <bdi>teammate</bdi>" in page
            assert '<td class="num">2 / 3</td>' in page  # Team A on dev: two count, the rejected one does not
            for change in ("hopper created team Lantern", "hopper left team Lantern", "hopper joined team Team B"):
                assert change in page, change
        manage = self.client_for(self.organizer).get(reverse("competitions:manage", args=["cup"]))
        self.assertContains(manage, f'href="{self.url}"')

    def test_it_is_a_403_to_everyone_else(self):
        for user in (self.participant, self.outsider, self.other_organizer):
            self.assertEqual(self.client_for(user).get(self.url).status_code, 403)
        self.assertEqual(self.client_for(self.anonymous).get(self.url).status_code, 302)

    def test_it_reads_the_page_in_a_fixed_number_of_queries(self):
        client = self.client_for(self.organizer)
        client.get(self.url)
        for n in range(5):
            team_create(competition=self.competition, user=make_user(), name=f"Extra {n}")
        # session, user, competition, organizer check, phases, teams, memberships (+users),
        # submission counts, grants (+teams, phases, granters), team events (+actors); the entry
        # deadline is set, so no phases again
        with self.assertNumQueries(10):
            client.get(self.url)
