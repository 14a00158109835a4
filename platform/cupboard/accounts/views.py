"""Sign-up, log-in, password reset by e-mail, profile and API token; log-out is Django's own view.

Log-in failures are counted per account and client network and per account, sign-ups per
client network (an IPv4 address, an IPv6 /64), password resets per e-mail address and per
client network, wrong current passwords on the profile's
changes per account (cupboard/throttle.py): past the rate the page answers 429 and says when
to try again, whether the password is right or not."""
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST

from cupboard.links import site_url
from cupboard.refusals import throttled
from cupboard.throttle import client_network, throttle_count, throttle_take, throttle_wait

from .forms import EmailChangeForm, SignupForm
from .lookalikes import name_key
from .models import ApiToken
from .services import account_email_change, api_token_create, api_token_revoke


class LoginView(auth_views.LoginView):
    """Django's log-in, refused for a while after too many failures for the account from the
    client's network, or for the account from anywhere (a higher count). Never for a network as
    a whole: one person behind a lab's or a campus's shared address could then lock everyone
    behind it out; guessing is bounded per account instead."""

    template_name = "accounts/login.html"

    def _keys(self) -> list[tuple[str, str]]:
        account = name_key(self.request.POST.get("username", ""))
        return [("login-account", f"{account}\n{client_network(self.request)}"), ("login-account-any", account)]

    def post(self, request, *args, **kwargs):
        wait = max(throttle_wait(scope, key) for scope, key in self._keys())
        if wait:
            return throttled(request, wait, what="Too many failed log-ins for this account")
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        for scope, key in self._keys():
            throttle_count(scope, key)
        return super().form_invalid(form)


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset by e-mail, refused for a while after too many requests from the address or
    for the same e-mail address (each request counts: every one may send a mail). The answer
    is the same whether an account has the address or not."""

    template_name = "accounts/password_reset.html"
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")

    def post(self, request, *args, **kwargs):
        keys = [("reset-address", client_network(request))]
        email = request.POST.get("email", "").strip().casefold()
        if email:
            keys.append(("reset-account", email))
        wait = max([throttle_take(scope, key) for scope, key in keys])  # a list: every key counts this one
        if wait:
            return throttled(request, wait, what="Too many password resets for this address or from this address")
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        # The link goes to the site's own address, not to the Host this request named (links.py).
        self.extra_email_context = {"site_url": site_url()}
        return super().form_valid(form)


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_done.html"
    extra_context = {"timeout_days": round(settings.PASSWORD_RESET_TIMEOUT / 86400)}


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The new password ends the API token too: whoever knew the old one may have made it
    (Django's own reset already ends every session)."""

    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        api_token_revoke(user=form.user)
        return response


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_complete.html"


@require_http_methods(["GET", "POST"])
def signup(request):
    """Create an account and log straight in; `next` brings the user back where they were."""
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        wait = throttle_wait("signup-address", client_network(request))
        if wait:
            return throttled(request, wait, what="Too many accounts were created from this address")
    if request.method == "POST" and form.is_valid():
        user = form.save()
        throttle_count("signup-address", client_network(request))
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        next_url = request.POST.get("next") or request.GET.get("next")
        if next_url and url_has_allowed_host_and_scheme(next_url, {request.get_host()}):
            messages.success(request, f"Welcome, {user.username}: you are signed in.")
            return redirect(next_url)
        messages.success(request, f"Welcome, {user.username}. Open a competition below to read its rules, then "
                                  "create a team there, or join one with the invite link a teammate shares.")
        return redirect("competitions:list")
    return render(request, "accounts/signup.html", {"form": form, "next": request.GET.get("next", "")})


def _profile(request, *, new_token: str | None = None):
    token = ApiToken.objects.filter(user=request.user).first()
    memberships = request.user.memberships.select_related("team__competition").order_by("-joined_at")
    # Its mail settings are the notifications app's: {% mail_settings %} in the template.
    return render(request, "accounts/profile.html", {"token": token, "new_token": new_token,
                                                     "memberships": memberships})


@login_required
@require_http_methods(["GET"])
def profile(request):
    """The user's teams, mail settings and API token (only its prefix; the full token is shown
    once, on creation)."""
    return _profile(request)


# Wrong current passwords on the profile's changes, per account: a session left open on a shared
# machine must not become a way to guess the password it lacks (as many tries as a log-in has).
SECRET_SCOPE = "current-password-account"
SECRET_REFUSED = "Too many wrong current passwords for this account"


def _secret_wait(request) -> int:
    return throttle_wait(SECRET_SCOPE, str(request.user.pk))


def _secret_failed(request, form, field: str) -> None:
    if form.has_error(field, "password_incorrect"):
        throttle_count(SECRET_SCOPE, str(request.user.pk))


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's own (old password, new one twice; the session stays signed in), on the profile.
    The new password ends the API token, as a reset does: whoever knew the old one may have made it."""

    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:profile")

    def post(self, request, *args, **kwargs):
        wait = _secret_wait(request)
        if wait:
            return throttled(request, wait, what=SECRET_REFUSED)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        _secret_failed(self.request, form, "old_password")
        return super().form_invalid(form)

    def form_valid(self, form):
        response = super().form_valid(form)
        api_token_revoke(user=form.user)
        messages.success(self.request, "Your password was changed. Your API token, if you had one, was "
                                        "revoked: create a new one below.")
        return response


@login_required
@require_http_methods(["GET", "POST"])
def email_change(request):
    """A new e-mail address, confirmed with the current password (its wrong tries limited)."""
    if request.method == "POST" and (wait := _secret_wait(request)):
        return throttled(request, wait, what=SECRET_REFUSED)
    form = EmailChangeForm(request.user, request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            account_email_change(user=request.user, email=form.cleaned_data["email"])
            messages.success(request, f"Mails now go to {form.cleaned_data['email']}.")
            return redirect("accounts:profile")
        _secret_failed(request, form, "password")
    return render(request, "accounts/email_change.html", {"form": form})


@login_required
@require_POST
def token_create(request):
    """Generate a new API token, replacing the old one, and show it in this one answer: it is
    stored nowhere in clear (not even in the session until the next page), and not cached."""
    raw = api_token_create(user=request.user)
    messages.success(request, "New API token created. Copy it now: it will not be shown again.")
    response = _profile(request, new_token=raw)
    add_never_cache_headers(response)
    return response
