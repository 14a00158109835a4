"""Sign-up, profile and API token; log in and out are Django's own views."""
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST

from .forms import SignupForm
from .models import ApiToken
from .services import api_token_create


@require_http_methods(["GET", "POST"])
def signup(request):
    """Create an account and log straight in; `next` brings the user back where they were."""
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        next_url = request.POST.get("next") or request.GET.get("next")
        if next_url and url_has_allowed_host_and_scheme(next_url, {request.get_host()}):
            return redirect(next_url)
        return redirect("competitions:list")
    return render(request, "accounts/signup.html", {"form": form, "next": request.GET.get("next", "")})


@login_required
@require_http_methods(["GET"])
def profile(request):
    """The user's teams and API token (only its prefix; the full token is shown once, on creation)."""
    token = ApiToken.objects.filter(user=request.user).first()
    memberships = request.user.memberships.select_related("team__competition").order_by("-joined_at")
    return render(request, "accounts/profile.html", {
        "token": token, "new_token": request.session.pop("new_api_token", None), "memberships": memberships,
    })


@login_required
@require_POST
def token_create(request):
    """Generate a new API token, replacing the old one; shown once on the next profile page."""
    request.session["new_api_token"] = api_token_create(user=request.user)
    messages.success(request, "New API token created. Copy it now: it will not be shown again.")
    return redirect("accounts:profile")
