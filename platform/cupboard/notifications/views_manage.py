"""The organizers' message to every team (in the organizer area, beside the teams page): an
e-mail to each member, sent as every mail is (messaging.py)."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from cupboard.competitions.access import organizer_competition

from .forms import TeamsMessageForm
from .messaging import teams_message, teams_message_preview, teams_message_to_self


@login_required
@require_http_methods(["GET", "POST"])
def message_teams(request, slug: str):
    """An e-mail to every member of every team (organizers and staff; audited), in steps: a
    preview (the default of a POST: nothing is sent by mistake), a test send to oneself, then
    the send to every team, offered on the preview. Errors keep the text."""
    competition = organizer_competition(request, slug)
    form = TeamsMessageForm(request.POST or None)
    action = request.POST.get("action", "preview")
    refusal, preview = None, None
    if request.method == "POST" and form.is_valid():
        fields = {"competition": competition, "actor": request.user, **form.cleaned_data}
        try:
            if action == "send":
                sent = teams_message(**fields)
                messages.success(request, f"Message on its way to {sent} team member(s): the worker sends it.")
                return redirect("competitions:manage_teams", slug)
            if action == "test":
                teams_message_to_self(**fields)
                messages.success(request, f"Test message on its way to you alone ({request.user.email}).")
            preview = teams_message_preview(**fields)
        except ValidationError as error:
            refusal = error.message
    failed = request.method == "POST" and (refusal is not None or not form.is_valid())
    return render(request, "notifications/message_teams.html",
                  {"competition": competition, "form": form, "refusal": refusal, "preview": preview},
                  status=400 if failed else 200)
