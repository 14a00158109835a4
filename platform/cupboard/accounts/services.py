"""Account writes: API tokens, the e-mail address."""
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from .models import ApiToken, new_raw_token, token_digest


@transaction.atomic
def api_token_create(*, user: AbstractBaseUser) -> str:
    """Make (or replace) the user's token and return it in clear: the only time it is seen."""
    raw = new_raw_token()
    ApiToken.objects.update_or_create(user=user, defaults={"digest": token_digest(raw), "prefix": raw[:10]})
    return raw


def api_token_revoke(*, user: AbstractBaseUser) -> None:
    ApiToken.objects.filter(user=user).delete()


def account_email_change(*, user: AbstractBaseUser, email: str) -> None:
    """Mails and password resets go to `email` from now on."""
    user.email = email
    user.save(update_fields=["email"])
