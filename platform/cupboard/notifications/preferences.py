"""Who wants which mails, and the signed one-click unsubscribe links that turn one kind off.

The link carries the user and the kind, signed with SECRET_KEY (django.core.signing), so
it works without logging in and cannot be forged for someone else; it never expires (an
old mail's link still stops the mails)."""
from django.contrib.auth.models import AbstractBaseUser
from django.core import signing

from .models import Kind, MailPreference

_SALT = "cupboard.notifications.unsubscribe"


def mail_wanted(*, user: AbstractBaseUser, kind: str) -> bool:
    preference = MailPreference.objects.filter(user=user).first()
    return preference is None or preference.wants(kind)


def users_not_wanting(*, kind: str) -> set[int]:
    """Ids of the users who turned `kind` off (one query)."""
    return set(MailPreference.objects.filter(**{Kind(kind).value: False}).values_list("user_id", flat=True))


def mail_preferences(*, user: AbstractBaseUser) -> dict[str, bool]:
    """{kind: wanted} for every kind, in Kind order."""
    preference = MailPreference.objects.filter(user=user).first()
    return {kind.value: preference is None or preference.wants(kind) for kind in Kind}


def mail_preferences_set(*, user: AbstractBaseUser, wanted: dict[str, bool]) -> MailPreference:
    """Store `wanted` ({kind: bool}, kinds left out keep their value)."""
    preference, _ = MailPreference.objects.get_or_create(user=user)
    for kind, value in wanted.items():
        setattr(preference, Kind(kind).value, bool(value))
    preference.save()
    return preference


def unsubscribe_token(*, user: AbstractBaseUser, kind: str) -> str:
    return signing.Signer(salt=_SALT).sign_object({"u": user.pk, "k": Kind(kind).value})


def unsubscribe_read(token: str) -> tuple[int, str] | None:
    """(user id, kind) of a genuine token; None for anything else."""
    try:
        data = signing.Signer(salt=_SALT).unsign_object(token)
        return int(data["u"]), Kind(data["k"]).value
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
