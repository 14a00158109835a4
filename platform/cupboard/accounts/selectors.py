"""Account reads: who a request's API token belongs to."""
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from .models import ApiToken, token_digest


def token_in(header: str, *, schemes: tuple[str, ...] = ("token", "bearer")) -> str | None:
    """The token of an `Authorization: Token <token>` header (`Bearer` too, any case, any
    spacing), or None; `schemes` narrows which (the metrics scrape takes `Bearer` alone). The one
    parser of the header: what authenticates and what is rate-limited read the same token."""
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() not in schemes:
        return None
    return parts[1]


def user_from_token(raw: str) -> AbstractBaseUser | None:
    """The active user whose API token is `raw`, or None."""
    token = ApiToken.objects.select_related("user").filter(digest=token_digest(raw)).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user
