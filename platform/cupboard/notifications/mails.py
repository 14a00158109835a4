"""What one notification says, rendered for its reader at the moment it is sent.

Everything shown goes through the reader's `Viewer` at that instant (competitions/viewer.py),
as a page would: a "scored" mail on a phase whose scores the reader may not see yet says only
that the run is valid and scored; a surprise language is named only once its group is
revealed to them; a competition they may no longer see sends nothing.
"""
from __future__ import annotations

from datetime import datetime

from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.urls import reverse

from cupboard.competitions.viewer import Viewer
from cupboard.links import absolute

from .models import Kind, Notification
from .preferences import mail_wanted, unsubscribe_token


def _submission_context(viewer: Viewer, notification: Notification) -> dict | str:
    from cupboard.submissions.models import Submission
    from cupboard.submissions.selectors import score_tables

    submission = notification.submission
    if submission is None or not viewer.sees_submission(submission):
        return "not their submission"
    rows: list[dict] = []
    averages: list[dict] = []
    if notification.event == Submission.Status.SCORED and submission.status == Submission.Status.SCORED:
        rows, averages = score_tables(viewer, submission)
    lines = [(a["label"], a["values"]) for a in averages] + [(r["code"], r["values"]) for r in rows]
    return {"submission": submission, "phase": submission.phase, "scores": _score_lines(viewer, lines),
            "scores_hidden": notification.event == "scored" and not viewer.sees_scores(submission),
            "ladder": viewer.ladder_note(submission),
            "url": absolute(submission.get_absolute_url())}


def _score_lines(viewer: Viewer, lines: list[tuple[str, dict]]) -> list[str]:
    """"K.Avg  nDCG@10 0.512  R@100 0.803", at the competition's decimals."""
    width = max((len(label) for label, _ in lines), default=0)

    def shown(value):
        return "-" if value is None else f"{value:.{viewer.decimals}f}"

    return [f"{label:<{width}}  " + "  ".join(f"{metric} {shown(values.get(metric))}" for metric in
                                              viewer.competition.metrics) for label, values in lines]


def _deadline_context(viewer: Viewer, notification: Notification, now: datetime) -> dict | str:
    phase = notification.phase
    if phase is None or not phase.is_open(now):
        return "the phase is closed"
    if not viewer.is_member(notification.team):
        return "no longer in the team"
    from cupboard.submissions.quota import quota_status

    return {"phase": phase, "team": notification.team, "quota": quota_status(team=notification.team, phase=phase, now=now),
            "url": absolute(reverse("submissions:upload", args=[phase.competition.slug, phase.slug]))}


def _reveal_context(viewer: Viewer, notification: Notification) -> dict | str:
    group = notification.group
    subsets = [s for s in viewer.subsets if group is not None and s.group_id == group.pk]
    if not subsets:
        return "not revealed"
    return {"group": group, "subsets": subsets, "url": absolute(viewer.competition.get_absolute_url())}


def _message_context(viewer: Viewer, notification: Notification) -> dict:
    return {"text": notification.text, "subject": notification.subject,
            "url": absolute(viewer.competition.get_absolute_url())}


def _change_context(viewer: Viewer, notification: Notification) -> dict:
    phases = [p for p in viewer.competition.phases.order_by("position") if p.closes_at > viewer.now]
    return {"lines": notification.text.splitlines(), "phases": phases, "phase": notification.phase,
            "rescored": notification.key.endswith(":rescored"),  # a topics change (services.notify_topics_changed)
            "url": absolute(viewer.competition.get_absolute_url())}


def notification_message(notification: Notification, *, now: datetime) -> EmailMessage | str:
    """The mail, or why none goes out (a short reason, stored on the row)."""
    user = notification.user
    if not user.email:
        return "no address"
    if not mail_wanted(user=user, kind=notification.kind):
        return "turned off"
    return notification_render(notification, now=now)


def notification_render(notification: Notification, *, now: datetime) -> EmailMessage | str:
    """The mail as its reader would get it now, whatever their address and mail settings (the
    organizers' message page previews it with this), or why there is none."""
    user = notification.user
    viewer = Viewer(user, notification.competition, now)
    if not viewer.sees_competition:
        return "competition not visible"
    context = {Kind.SUBMISSION: lambda: _submission_context(viewer, notification),
               Kind.DEADLINE: lambda: _deadline_context(viewer, notification, now),
               Kind.REVEAL: lambda: _reveal_context(viewer, notification),
               Kind.MESSAGE: lambda: _message_context(viewer, notification),
               Kind.CHANGE: lambda: _change_context(viewer, notification)}[notification.kind]()
    if isinstance(context, str):
        return context
    unsubscribe = absolute(reverse("notifications:unsubscribe",
                                   args=[unsubscribe_token(user=user, kind=notification.kind)]))
    context |= {"user": user, "competition": viewer.competition, "event": notification.event,
                "unsubscribe": unsubscribe, "kind_label": Kind(notification.kind).label,
                "preferences": absolute(reverse("accounts:profile") + "#mail")}
    template = f"notifications/{notification.kind}"
    subject = " ".join(render_to_string(f"{template}_subject.txt", context).split())
    body = render_to_string(f"{template}.txt", context)
    # RFC 8058: mail clients offer "unsubscribe", which POSTs to the link without opening it.
    headers = {"List-Unsubscribe": f"<{unsubscribe}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
    return EmailMessage(f"[{viewer.competition.title}] {subject}", body, None, [user.email] if user.email else [],
                        headers=headers)
