"""Mail settings: the profile page's form, and the unsubscribe link of every mail.

The link works without logging in (its signed token names the person and the kind): GET
asks to confirm (a GET never writes; mail scanners open links), POST turns the kind off.
Mail clients that honour RFC 8058 POST to it directly ("List-Unsubscribe-Post"), without a
CSRF token, which the signed token replaces."""
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from .models import Kind
from .preferences import mail_preferences_set, unsubscribe_read


@login_required
@require_POST
def preferences(request):
    """Store the profile page's checkboxes: a kind left unticked is turned off."""
    mail_preferences_set(user=request.user, wanted={kind.value: kind.value in request.POST for kind in Kind})
    messages.success(request, "Mail settings saved.")
    return redirect(reverse("accounts:profile") + "#mail")


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    found = unsubscribe_read(token)
    user = found and get_user_model().objects.filter(pk=found[0], is_active=True).first()
    if not found or not user:
        raise Http404("This unsubscribe link is not valid.")
    kind = Kind(found[1])
    done = request.method == "POST"
    if done:
        mail_preferences_set(user=user, wanted={kind.value: False})
    return render(request, "notifications/unsubscribe.html", {"kind": kind, "who": user, "done": done})
