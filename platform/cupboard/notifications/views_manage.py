"""The organizers' message to every team (in the organizer area, beside the teams page): an
e-mail to each member, sent as every mail is (messaging.py)."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from cupboard.competitions.access import organizer_competition

from .forms import TeamsMessageForm
from .messaging import teams_message


@login_required
@require_http_methods(["GET", "POST"])
def message_teams(request, slug: str):
    """An e-mail to every member of every team (organizers and staff; audited). Errors keep the text."""
    competition = organizer_competition(request, slug)
    form = TeamsMessageForm(request.POST or None)
    refusal = None
    if request.method == "POST" and form.is_valid():
        try:
            sent = teams_message(competition=competition, actor=request.user, **form.cleaned_data)
        except ValidationError as error:
            refusal = error.message
        else:
            messages.success(request, f"Message on its way to {sent} team member(s): the worker sends it.")
            return redirect("competitions:manage_teams", slug)
    return render(request, "notifications/message_teams.html", {"competition": competition, "form": form, "refusal": refusal},
                  status=400 if request.method == "POST" else 200)
