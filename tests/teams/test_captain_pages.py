"""Leaving asks first; the captain (earliest member) removes members and replaces the invite
link; an invite opened while logged out survives signing up."""
from django.contrib.auth.models import User
from django.urls import reverse

from cupboard.audit.models import AuditEvent
from cupboard.teams.models import Team
from tests.personas import PersonasTestCase


class CaptainPagesTestCase(PersonasTestCase):
    def leave_url(self):
        return reverse("teams:leave", args=["cup", "team-a"])

    def remove_url(self, username: str):
        return reverse("teams:member_remove", args=["cup", "team-a", username])

    def test_it_asks_before_leaving(self):
        client = self.client_for(self.teammate)
        page = client.get(self.team_a.get_absolute_url())
        self.assertContains(page, f'href="{self.leave_url()}"')
        confirm = client.get(self.leave_url())
        self.assertContains(confirm, "Leave <bdi>Team A</bdi>?")
        self.assertContains(confirm, "count against the")
        self.assertTrue(self.team_a.memberships.filter(user=self.teammate).exists())
        self.assertRedirects(client.post(self.leave_url()), reverse("accounts:profile"))
        self.assertFalse(self.team_a.memberships.filter(user=self.teammate).exists())

    def test_it_lets_the_captain_remove_a_member_after_confirming(self):
        client = self.client_for(self.participant)  # first member of Team A: its captain
        self.assertContains(client.get(self.team_a.get_absolute_url()), self.remove_url("teammate"))
        self.assertContains(client.get(self.remove_url("teammate")), "Remove <bdi>teammate</bdi> from <bdi>Team A</bdi>?")
        self.assertTrue(self.team_a.memberships.filter(user=self.teammate).exists())
        self.assertRedirects(client.post(self.remove_url("teammate")), self.team_a.get_absolute_url())
        self.assertFalse(self.team_a.memberships.filter(user=self.teammate).exists())
        event = AuditEvent.objects.get(action=AuditEvent.Action.TEAM_MEMBER_REMOVED)
        self.assertEqual((event.actor, event.summary), (self.participant, "participant removed teammate from team Team A"))

    def test_it_refuses_removal_by_anyone_but_the_captain(self):
        for user in (self.teammate, self.outsider, self.organizer):
            self.assertEqual(self.client_for(user).post(self.remove_url("participant")).status_code, 403)
        self.assertNotContains(self.client_for(self.teammate).get(self.team_a.get_absolute_url()), "/remove/")
        self.assertEqual(self.client_for(self.participant).get(self.remove_url("outsider")).status_code, 404)
        self.assertEqual(self.team_a.memberships.count(), 2)

    def test_it_lets_the_captain_replace_the_invite_link(self):
        old = self.team_a.invite_code
        url = reverse("teams:invite_replace", args=["cup", "team-a"])
        self.assertEqual(self.client_for(self.teammate).post(url).status_code, 403)
        self.client_for(self.participant).post(url)
        new = Team.objects.get(pk=self.team_a.pk).invite_code
        self.assertNotEqual(new, old)
        self.assertEqual(self.client_for(self.staff).get(reverse("teams:join", args=[old])).status_code, 404)
        self.assertTrue(AuditEvent.objects.filter(action=AuditEvent.Action.TEAM_INVITE_REPLACED).exists())


class InviteThroughSignupTestCase(PersonasTestCase):
    def test_it_keeps_the_invite_through_sign_up(self):
        invite = reverse("teams:join", args=[self.team_b.invite_code])
        client = self.client_for(self.anonymous)
        login_page = client.get(invite, follow=True)
        signup_link = reverse("accounts:signup") + "?next=" + invite
        self.assertContains(login_page, f'href="{signup_link}"')
        signup_page = client.get(signup_link)
        self.assertContains(signup_page, f'name="next" value="{invite}"')
        response = client.post(signup_link, {"username": "newcomer", "email": "n@example.org", "next": invite,
                                              "password1": "a-Long-passw0rd", "password2": "a-Long-passw0rd"})
        self.assertRedirects(response, invite)
        self.assertContains(client.get(invite), "Join <bdi>Team B</bdi>")
        client.post(invite)
        self.assertTrue(self.team_b.memberships.filter(user=User.objects.get(username="newcomer")).exists())


class EntryClosedPagesTestCase(PersonasTestCase):
    def test_it_says_entry_is_closed_before_anyone_posts(self):
        from datetime import timedelta

        from django.utils import timezone

        self.competition.entry_deadline = timezone.now() - timedelta(minutes=1)
        self.competition.save()
        for url in (reverse("teams:create", args=["cup"]), reverse("teams:join", args=[self.team_b.invite_code])):
            page = self.client_for(self.staff).get(url)
            self.assertContains(page, "(the entry deadline)")
            self.assertNotContains(page, 'type="submit">Create team')
            self.assertNotContains(page, "Join <bdi>Team B</bdi></button>")
        refused = self.client_for(self.staff).post(reverse("teams:create", args=["cup"]), {"name": "Late"})
        self.assertContains(refused, "(the entry deadline)")
        self.assertFalse(Team.objects.filter(name="Late").exists())
