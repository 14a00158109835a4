"""Who a session cookie signs in, told from the cache on a repeat request: no database read.

Django tells who a request is by reading its session row and its user's row. The pages kept
for signed-in people (a board's viewer class, leaderboards/viewers.py; a team's own pages,
submissions/kept_pages.py) need that on every hit, so it is remembered here instead, per
session cookie (hashed), as a `Stamp`: the user's id and their *person token*, a random value
kept in the cache under the user's id. Whatever is remembered or kept for a signed-in person
is keyed on their token, and every change of who they are deletes it, so the next request
reads the database again and nothing made before the change is reached:

- their session deleted (logging out flushes it, a new password cycles it, an admin deletes it):
  the session's post_delete (so a bulk delete of sessions, `clearsessions` too, reads and
  signals each row);
- the user saved (deactivated, renamed, staff or not, a new password) or deleted;
- a team membership saved or deleted (teams/apps.py) or written in bulk (a team merge:
  flows/rows_written.py), an organizer or assessor named or removed (any many-to-many with
  users, from either side, a clear included).

A token is deleted twice: at once, and again when the transaction commits. A request that
read the old rows before the commit may have read the new token (deleted at once, made anew
by that request) and kept something under it: the second deletion leaves that unreachable.
A request reads the token *before* the rows it checks against it (`signed_in` reads it
first), so whatever it keeps under a token was read while that token was current.

The same tokens (`token`, `forget`) key what else a kept page shows of one person's own
(submissions/kept_pages.py: a team's runs).

Tokens are kept only in a cache every process shares (`CUPBOARD_CACHE_SHARED`: Redis): a
deletion in one process's own memory would not reach the others. Only sessions stored in the
database are remembered (their deletion is a signal); a session's stamp holds its expiry and is
not used past it. A session's user id is noted when they log in
(`logged_in`), so that its first request reads their token before the rows; a session not
noted (made before this process ran, or noted too long ago) is remembered from its second
request on.

Each process also keeps its own copy of a session's lookup (`_copies`), so that a repeat
request reads one thing from the shared cache: the user's token. A copy is used only while the
token it names is that user's current one, as the shared lookup is: a change of who they are
deletes the token, and with it every copy's use, in every process at once. A lookup is never
changed under a session's key while its token stands (a session changes user only by being
deleted: Django's log-in cycles the key), so the copy answers as the shared lookup would. A copy
lasts no longer than CUPBOARD_VIEWER_SECONDS, nor past the session's expiry.
"""
from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import transaction

from cupboard.local_copies import Copies

DATABASE_SESSIONS = {"django.contrib.sessions.backends.db", "django.contrib.sessions.backends.cached_db"}


@dataclass(frozen=True)
class Stamp:
    """A session's user (None: a session of nobody signed in) and their person token."""

    user_pk: int | None
    token: str


@dataclass(frozen=True)
class _Told:
    user_pk: int | None
    token: str | None  # None: the user's id is known, not yet checked against a token (the first request)
    expires: float  # the session's expiry (epoch seconds)


def session_hash(request) -> str | None:
    """The hash of the request's session cookie when that is all it carries of its own (no
    message cookie, no Authorization header) and sessions are in the database; else None."""
    cookies = request.COOKIES
    session = cookies.get(settings.SESSION_COOKIE_NAME)
    if (not session or "messages" in cookies or "HTTP_AUTHORIZATION" in request.META
            or settings.SESSION_ENGINE not in DATABASE_SESSIONS):
        return None
    return _hash(session)


def _hash(session_key: str) -> str:
    return hashlib.sha256(session_key.encode()).hexdigest()[:32]


def _session_key(session: str) -> str:
    return f"signed-in:{session}"


def _token_key(user_pk: int) -> str:
    return f"person:{user_pk}"


def token(key: str) -> str | None:
    """The random value kept under `key` (made when there is none), which `forget` deletes; None
    when the cache keeps nothing (a dummy cache) or is not shared by every process
    (`CUPBOARD_CACHE_SHARED`: another process's deletion would not reach it): then nothing is to
    be kept under it."""
    if not settings.CUPBOARD_CACHE_SHARED:
        return None
    value = cache.get(key)
    if value is None:
        cache.add(key, secrets.token_hex(16), None)
        value = cache.get(key)
    return value


@dataclass(frozen=True)
class Forget:
    """The deletion of a token when the transaction commits (`forget`), told apart from a
    transaction's other on-commit work by its type (a test counting the messages it sends)."""

    key: str

    def __call__(self) -> None:
        cache.delete(self.key)


def forget(key: str) -> None:
    """Delete the token under `key` at once and again when the transaction commits (see the
    module docstring): what was kept under it is reached no more."""
    cache.delete(key)
    transaction.on_commit(Forget(key))


def _token(user_pk: int | None) -> str | None:
    """The person token of `user_pk`; "" for nobody."""
    return "" if user_pk is None else token(_token_key(user_pk))


# This process's copies of sessions' lookups (see the module docstring), as plain tuples.
_copies = Copies(lambda: settings.CUPBOARD_LOCAL_COPY_BYTES // 8)


def _current(told: _Told | None, now: float) -> Stamp | None:
    """The stamp `told` gives while its session lasts and its token is its user's current one."""
    if told is None or told.token is None or now >= told.expires or told.token != _token(told.user_pk):
        return None
    return Stamp(user_pk=told.user_pk, token=told.token)


def _copy(session: str, told: _Told, now: float) -> None:
    _copies.put(session, (told.user_pk, told.token, told.expires),
                min(told.expires, now + settings.CUPBOARD_VIEWER_SECONDS))


def signed_in(request) -> Stamp | None:
    """The request's stamp: from this process's copy or the cache when its session is remembered
    and its user's token unchanged (no database read), else told from the session and user rows
    (request.user) and remembered. None when it cannot be remembered (see `session_hash`, and a
    session's first request): the caller keeps nothing for this request."""
    session = session_hash(request)
    if session is None:
        return None
    now = time.time()
    copied = _copies.get(session, now)
    if copied is not None and (stamp := _current(_Told(*copied), now)) is not None:
        return stamp
    told = cache.get(_session_key(session))
    if (stamp := _current(told, now)) is not None:
        _copy(session, told, now)
        return stamp
    token = _token(told.user_pk) if told is not None else None  # read before the rows it vouches for
    user = request.user
    user_pk = user.pk if user.is_authenticated else None
    expires = Session.objects.filter(session_key=request.COOKIES[settings.SESSION_COOKIE_NAME]).values_list(
        "expire_date", flat=True).first()
    if expires is None and user_pk is not None:  # a signed-in user whose session row is gone: do not remember
        return None
    until = expires.timestamp() if expires is not None else time.time() + settings.CUPBOARD_VIEWER_SECONDS
    if told is None or told.user_pk != user_pk or token is None:
        cache.set(_session_key(session), _Told(user_pk, None, until), settings.CUPBOARD_VIEWER_SECONDS)
        return None
    told = _Told(user_pk, token, until)
    cache.set(_session_key(session), told, settings.CUPBOARD_VIEWER_SECONDS)
    _copy(session, told, now)
    return Stamp(user_pk=user_pk, token=token)


def logged_in(sender, request, user, **_) -> None:
    """user_logged_in: the new session's user is known, so its first request reads their token
    before the rows (see the module docstring) and is remembered at once."""
    key = getattr(request, "session", None) and request.session.session_key
    if key and settings.SESSION_ENGINE in DATABASE_SESSIONS:
        cache.set(_session_key(_hash(key)), _Told(user.pk, None, time.time() + settings.CUPBOARD_VIEWER_SECONDS),
                  settings.CUPBOARD_VIEWER_SECONDS)


def forget_person(user_pk: int | None) -> None:
    """Whatever is remembered or kept for `user_pk` is reached no more (see the module docstring)."""
    if user_pk is not None:
        forget(_token_key(user_pk))


def person_saved(sender, instance, raw: bool = False, update_fields=None, **_) -> None:
    """post_save and post_delete of a user: who they are changed (a log-in alone is no change)."""
    if not raw and not (update_fields is not None and set(update_fields) <= {"last_login"}):
        forget_person(instance.pk)


def session_deleted(sender, instance, **_) -> None:
    """post_delete of a session: its user is signed out of it."""
    forget_person(_user_of(instance))


def _user_of(session: Session) -> int | None:
    from django.contrib.auth import SESSION_KEY

    value = session.get_decoded().get(SESSION_KEY)
    try:
        return get_user_model()._meta.pk.to_python(value) if value is not None else None
    except Exception:  # noqa: BLE001 - a session holding no readable id: nothing of anyone to forget
        return None


def membership_changed(sender, instance, raw: bool = False, **_) -> None:
    """post_save and post_delete of a row naming a user (a team membership): their team changed."""
    if not raw:
        forget_person(getattr(instance, "user_id", None))


def roles_changed(sender, instance, action: str, reverse: bool, model, pk_set, **_) -> None:
    """m2m_changed: users added to or removed from a many-to-many (a competition's organizers or
    assessors), from either side; a clear forgets everyone it is about to remove."""
    user_model = get_user_model()
    if action not in ("post_add", "post_remove", "pre_clear", "post_clear"):
        return
    if isinstance(instance, user_model):
        forget_person(instance.pk)
    elif model is user_model and action == "pre_clear":
        own, user = (next(f for f in sender._meta.fields if f.related_model is related)
                     for related in (type(instance), user_model))
        for pk in sender.objects.filter(**{own.attname: instance.pk}).values_list(user.attname, flat=True):
            forget_person(pk)
    elif model is user_model:
        for pk in pk_set or ():
            forget_person(pk)
