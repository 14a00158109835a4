"""Account reads: who a request's API token belongs to."""
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from .models import ApiToken, token_digest


def user_from_authorization(header: str) -> AbstractBaseUser | None:
    """The active user whose token is in an `Authorization: Token <token>` header, or None."""
    scheme, _, raw = header.partition(" ")
    if scheme.lower() not in {"token", "bearer"} or not raw.strip():
        return None
    token = ApiToken.objects.select_related("user").filter(digest=token_digest(raw.strip())).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user
