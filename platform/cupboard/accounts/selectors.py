"""Account reads: who a request's API token belongs to."""
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from .models import ApiToken, token_digest


def token_in(header: str) -> str | None:
    """The token of an `Authorization: Token <token>` header (`Bearer` too, any case, any
    spacing), or None. One token, one spelling: what authenticates and what is rate-limited."""
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() not in {"token", "bearer"}:
        return None
    return parts[1]


def user_from_token(raw: str) -> AbstractBaseUser | None:
    """The active user whose API token is `raw`, or None."""
    token = ApiToken.objects.select_related("user").filter(digest=token_digest(raw)).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user


def user_from_authorization(header: str) -> AbstractBaseUser | None:
    """The active user whose token is in an `Authorization: Token <token>` header, or None."""
    raw = token_in(header)
    return None if raw is None else user_from_token(raw)
