"""A competition's pages as an anonymous visitor sees them, rendered once per change and
served from Django's cache (the treatment leaderboards/cache.py gives the boards).

Only a request that carries nothing of anyone is answered from here: a GET or HEAD with no
session cookie, no message cookie and no Authorization header (`is_blank`). Everyone else's
request goes to the view as before, so nothing an organizer, an assessor or a team may see
(a draft, a private phase, a hidden language before its reveal, a team's own runs) is ever
rendered into an entry. An entry is keyed on (`PageState.key`):

- the scope's fingerprint: for a competition's pages, its row (published or not, start,
  entry deadline), every phase's (visibility, window, reveal, freeze, hidden judgments,
  leaderboard version), every group's reveal, and the newest `PageChange` of the competition;
  for the site's pages (home, the competitions API), the same over every competition.
  `PageChange` rows are appended, in the transaction that changes them, by every write of a
  row a page shows: a save or delete (post_save, post_delete, m2m_changed: `page_changed`,
  `people_changed`) and a bulk write (`update()`, `bulk_update()`, `bulk_create()`), which sends
  no signal but the typed event `RowsWritten` (cupboard/bulk_writes.py: `rows_written`). So an
  edit is seen as soon as it is committed (all but each competition's newest are pruned hourly:
  `page_changes_prune`). Rows written with a version a key reads (a scoring's scores and board
  rows: `VERSIONED`) and the columns a key reads (`QUIET_FIELDS`) append nothing;
- the next instant at which what anyone sees changes by the clock (a phase opening, closing,
  freezing or revealing, a group's reveal, the start, the entry deadline), so a page made
  before a reveal is never served after it;
- the host, the scheme, the path and the query string (only parameters a view names: others
  are rendered per request, so made-up URLs cannot fill the cache).

A view's answer is kept only when it is a complete 200 that touched nothing of the request's
own (no cookie set, no CSRF token used). Bodies are bytes, gzip-compressed once per entry
for clients that accept it (text only: a zip is sent as it is); the key's hash is the ETag.
For a blank visitor the state this process read within CUPBOARD_BOARD_STATE_SECONDS serves
again (this process forgets it as soon as it changes something itself), so a hit costs a
cache read, and none once this process holds its own copy (cupboard/local_copies.py: a key
names the state it was made in); entries expire after CUPBOARD_PAGE_CACHE_SECONDS, which bounds how long a change
nothing reports (raw SQL) takes to show. A user's own save (renamed, deactivated, staff no more, a new
password) is a change of the pages of the competitions they take part in, of every one for
staff (`person_changed`); a login is none.
"""
from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from functools import wraps

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection
from django.db.models import Max, Model, Q
from django.http import FileResponse, HttpResponse
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_vary_headers

from cupboard import local_copies
from cupboard.bulk_writes import RowsWritten
from cupboard.competitions.models import (
    COMPETITION_KEYED,
    PHASE_KEYED,
    Competition,
    PageChange,
    Phase,
    SubsetGroup,
)

# (status, headers, body): what a kept answer is made of (tuples, which cupboard/local_copies.py copies).
Entry = tuple[int, tuple[tuple[str, str], ...], bytes]
_GZIP = re.compile(r"\bgzip\b")
_COMPRESSIBLE = re.compile(r"^(text/|application/(json|xml|atom\+xml|javascript))")
_LARGEST = 16 * 1024 * 1024  # a stored file larger than this is streamed, never kept
_UNKEPT_HEADERS = {"content-length", "vary", "etag"}  # answered afresh each time; cookies are never kept


@dataclass(frozen=True)
class PageState:
    """What the keys of one scope's pages need at `now` (see the module docstring)."""

    fingerprint: str
    published: bool
    instants: tuple[datetime, ...]
    now: datetime

    def key(self, request, query: str) -> str:
        upcoming = min((t for t in self.instants if t > self.now), default=None)
        parts = [self.fingerprint, upcoming.timestamp() if upcoming else "-", request.get_host(),
                 int(request.is_secure()), request.path, query]
        return "page:" + hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:40]


def _read(slug: str | None, now: datetime) -> PageState | None:
    """The state of competition `slug` (None: of every competition), or None for an unknown slug."""
    competitions = Competition.objects.order_by("pk")
    if slug is not None:
        competitions = competitions.filter(slug=slug)
    rows = list(competitions.values_list("pk", *COMPETITION_KEYED))
    if slug is not None and not rows:
        return None
    within = {} if slug is None else {"competition_id__in": [row[0] for row in rows]}
    phases = list(Phase.objects.filter(**within).order_by("pk").values_list("pk", "slug", *PHASE_KEYED))
    groups = list(SubsetGroup.objects.filter(**within).order_by("pk").values_list("pk", "reveal_at"))
    latest = PageChange.objects.filter(**within).aggregate(latest=Max("id"))["latest"]
    instants = [*(t for row in rows for t in row[2:]), *(t for row in phases for t in row[5:]),
                *(t for _, t in groups)]
    fingerprint = hashlib.sha256(repr((rows, phases, groups, latest)).encode()).hexdigest()[:32]
    return PageState(fingerprint=fingerprint, published=all(row[1] for row in rows) if slug else True,
                     instants=tuple(t for t in instants if t is not None), now=now)


# A blank visitor's page state per scope (a competition's slug, None for the site): see page_state.
_recent: dict[str | None, PageState] = {}


def page_state(slug: str | None, *, now: datetime | None = None, recent: bool = False) -> PageState | None:
    """The state of a scope at `now`; with `recent`, as this process read it less than
    CUPBOARD_BOARD_STATE_SECONDS ago (either way: a test travelling in time drops it). Its key
    is still computed at `now` from the instants it holds, so a clock reveal is on time."""
    now = now or timezone.now()
    kept = _recent.get(slug) if recent else None
    if kept is not None and abs((now - kept.now).total_seconds()) < settings.CUPBOARD_BOARD_STATE_SECONDS:
        return replace(kept, now=now)
    state = _read(slug, now)
    if state is not None:  # unknown slugs are not kept: made-up URLs cannot fill this process's memory
        _recent[slug] = state
    return state


def forget_recent_pages(**_) -> None:
    """Drop every kept state: this process just changed something a page shows."""
    _recent.clear()


# Rows no kept page or file shows (the jobs' rows, claimed, beaten and ended by workers, shown
# on organizers' pages that are never kept; mail; follow-ups), or shows only under a version a
# key reads and every write of them moves (VERSIONED): their writes append nothing.
# tests/competitions/test_page_cache_writes.py renders every kept page and fails on a read of the first.
_UNSHOWN = {"accounts.apitoken", "judging.assignment", "judging.judgingitem", "judging.resolution",
            "judging.poolexport", "leaderboards.resultsarchive", "leaderboards.bandsjob", "submissions.verification",
            "systems.execution", "notifications.notification", "notifications.mailpreference", "followups.followup",
            "competitions.pagechange"}
# Written with the scoring or a board's update: under the phase's leaderboard version and the
# submission's version, which they are written with.
VERSIONED = {"submissions.score", "submissions.queryscores", "leaderboards.leaderboardrow"}
_paths: dict[type[Model], tuple[str, ...] | None] = {}


def _path_to_competition(model: type[Model]) -> tuple[str, ...] | None:
    """The fields leading from a row of `model` to its competition's id (the shortest way
    through foreign keys), or None for a model no competition's page shows."""
    if model not in _paths:
        _paths[model] = _find_path(model)
    return _paths[model]


def _find_path(model: type[Model]) -> tuple[str, ...] | None:
    if model is Competition:
        return ("pk",)
    meta = model._meta
    if not meta.app_label or model.__module__.split(".")[0] != "cupboard" or meta.label_lower in _UNSHOWN | VERSIONED:
        return None
    queue: list[tuple[type[Model], tuple[str, ...]]] = [(model, ())]
    while queue:
        current, path = queue.pop(0)
        for field in current._meta.concrete_fields:
            if not (field.many_to_one or field.one_to_one) or field.related_model is None:
                continue
            if field.related_model is Competition:
                return (*path, field.attname)
            if len(path) < 3 and field.related_model.__module__.split(".")[0] == "cupboard":
                queue.append((field.related_model, (*path, field.name)))
    return None


def _competition_ids(instance, path: tuple[str, ...]) -> list[int]:
    """The competition a row belongs to, [] when it cannot be told (a row whose parent a
    cascade already deleted: the parent's own signal tells)."""
    value = instance
    try:
        for name in path:
            value = getattr(value, name)
            if value is None:
                return []
    except ObjectDoesNotExist:
        return []
    return [value]


def pages_changed(ids: Iterable[int]) -> None:
    """The pages of competitions `ids` changed."""
    if ids := list(ids):
        _append(ids)


def rows_written(event: RowsWritten) -> None:
    """A bulk write (cupboard/bulk_writes.py), in its transaction: the competitions of the rows
    it wrote, as they are now (a row moved to another competition would leave its old one
    unsaid: no write moves one), changed, as a save of each would say (`page_changed`); none
    for a quiet update (its model's QUIET_FIELDS alone)."""
    path = _path_to_competition(event.model)
    if path is None or event.quiet:
        return
    if isinstance(event.rows[0], Model):  # a bulk_create's rows, ids or not: through their first key
        first = event.model._meta.get_field(path[0]) if path != ("pk",) else event.model._meta.pk
        ids = {getattr(row, first.attname) for row in event.rows} - {None}
        if len(path) > 1:
            ids = set(first.related_model._base_manager.filter(pk__in=ids).values_list("__".join(path[1:]), flat=True))
        pages_changed(ids)
    else:  # a few hundred ids a query: an update of every row of a big table stays under SQLite's limit
        rows = event.model._base_manager.order_by().values_list("__".join(path), flat=True).distinct()
        pages_changed({pk for start in range(0, len(event.rows), 500)
                       for pk in rows.filter(pk__in=event.rows[start:start + 500])})


def _append(ids: Iterable[int]) -> None:
    # Forgotten at once: this process serves one request at a time, so what it reads next
    # sees this change (committed by then, or rolled back and never shown to anyone).
    PageChange.objects.bulk_create(PageChange(competition_id=pk) for pk in ids)
    forget_recent_pages()


def page_changes_prune() -> int:
    """Delete every page change but each competition's newest, the only one a key reads: they
    were appended for every edit and never read again. Keys stay as they were (no page is
    rendered again for it), and the rows it deletes are ones no appending transaction locks."""
    table = PageChange._meta.db_table  # one statement: the ORM's delete would read every row first (signals)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE id < (SELECT MAX(newer.id) FROM {table} newer "
                       f"WHERE newer.competition_id = {table}.competition_id)")
        return cursor.rowcount


def page_changed(sender, instance, raw: bool = False, **_) -> None:
    """post_save and post_delete of any model: a row some competition's page shows changed.
    Not for a raw save (a restore loading rows as they were: the page changes come with them)."""
    if raw:
        return
    path = _path_to_competition(sender)
    if path is not None and (ids := _competition_ids(instance, path)):
        _append(ids)


def _a_login(update_fields) -> bool:
    return update_fields is not None and set(update_fields) <= {"last_login"}


def person_saving(sender, instance, raw: bool = False, update_fields=None, **_) -> None:
    """pre_save of a user: whether they organized every competition before this save (staff or
    superuser, read from their row), which a save that ends it changes everywhere (`person_changed`)."""
    if raw or instance._state.adding or _a_login(update_fields):
        return
    instance._organized_every_competition = sender.objects.filter(
        Q(is_staff=True) | Q(is_superuser=True), pk=instance.pk).exists()


def person_changed(sender, instance, raw: bool = False, created: bool = False, update_fields=None, **_) -> None:
    """post_save and post_delete of a user: their name, whether they may sign in, their staff
    flag and their password (a new one ends their other sessions) are part of the pages kept
    for their browser (submissions/kept_pages.py) and of the viewer class remembered for their
    session (leaderboards/viewers.py), in the competitions where they are more than a visitor:
    those whose team they are in, that they organize or judge, and every one while they are
    staff or a superuser or were before this save. Not for a new account (nothing is kept for
    it yet), a login (`last_login` alone) or a raw save. A deleted person's rows went first,
    each with its own signal."""
    if raw or created or _a_login(update_fields):
        return
    competitions = Competition.objects.values_list("pk", flat=True)
    if not (instance.is_staff or instance.is_superuser or getattr(instance, "_organized_every_competition", False)):
        competitions = competitions.filter(
            Q(organizers=instance) | Q(assessors=instance) | Q(teams__memberships__user=instance)).distinct()
    pages_changed(competitions)


def people_changed(sender, instance, action: str, pk_set, **_) -> None:
    """m2m_changed: a competition's organizers or assessors changed (the pages they see differ),
    from either side, or another many-to-many of a row a page shows."""
    if not action.startswith("post_"):
        return
    path = _path_to_competition(type(instance))
    if path is not None:
        ids = _competition_ids(instance, path)
    elif any(field.related_model is Competition for field in sender._meta.fields):  # from the person's side
        ids = sorted(pk_set or ())
    else:
        return
    if ids:
        _append(ids)


def is_blank(request) -> bool:
    """A request carrying nothing of anyone (see the module docstring)."""
    cookies = request.COOKIES
    return (request.method in ("GET", "HEAD") and settings.SESSION_COOKIE_NAME not in cookies
            and "messages" not in cookies and "HTTP_AUTHORIZATION" not in request.META)


def _query(request, params: tuple[str, ...]) -> str | None:
    """The query string as keyed (its named parameters, sorted), None when it has another."""
    if not request.GET:
        return ""
    if any(name not in params for name in request.GET):
        return None
    return "&".join(f"{name}={value}" for name, value in sorted(request.GET.items()))


def _entry(request, response) -> Entry | None:
    """What of the view's answer is kept, or None when it is not everyone's to keep."""
    if (response.status_code != 200 or response.cookies or request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
            or response.has_header("Content-Encoding")):
        return None
    headers = tuple((name, value) for name, value in response.items() if name.lower() not in _UNKEPT_HEADERS)
    if not response.streaming:
        return 200, headers, response.content
    # A stored file (a topics file) of a known, modest size is read once into the entry.
    if not isinstance(response, FileResponse) or int(response.get("Content-Length", _LARGEST + 1)) > _LARGEST:
        return None
    try:
        return 200, headers, b"".join(response.streaming_content)
    finally:
        # The file only: response.close() sends request_finished, which closes the request's
        # database connection in the middle of the request.
        response.file_to_stream.close()


def _compressible(entry: Entry) -> bool:
    return any(name.lower() == "content-type" and _COMPRESSIBLE.match(value) for name, value in entry[1])


def _compressed(entry: Entry) -> Entry:
    status, headers, body = entry
    return status, (*headers, ("Content-Encoding", "gzip")), gzip.compress(body, compresslevel=6, mtime=0)


def _cached(key: str, build: Callable[[], Entry | None]) -> Entry | None:
    return local_copies.cached(key, build, settings.CUPBOARD_PAGE_CACHE_SECONDS)


def _served(request, entry: Entry, etag: str) -> HttpResponse:
    response = get_conditional_response(request, etag=etag)
    if response is None:
        status, headers, body = entry
        response = HttpResponse(body, status=status)
        for name, value in headers:
            response[name] = value
    response["ETag"] = etag
    return response


def anonymous_cached(scope: str = "competition", params: tuple[str, ...] = ()):
    """Serve a view's answer to blank visitors from the cache (see the module docstring).
    `scope`: "competition" (the view's `slug` or `competition_slug`), or "site"; `params`:
    the query parameters the view reads."""
    def decorate(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            response = _answer(request, view, args, kwargs, scope, params)
            patch_vary_headers(response, ["Cookie", "Authorization", "Accept-Encoding"])
            return response
        wrapper.page_cache_scope = scope  # type: ignore[attr-defined]  # tests walk the URLs for the kept pages
        return wrapper
    return decorate


def _answer(request, view, args, kwargs, scope: str, params: tuple[str, ...]) -> HttpResponse:
    query = _query(request, params) if is_blank(request) else None
    if query is None:
        return view(request, *args, **kwargs)
    slug = kwargs.get("slug") or kwargs.get("competition_slug") if scope == "competition" else None
    state = page_state(slug, recent=True)
    if state is None or not state.published:
        return view(request, *args, **kwargs)
    return kept(request, state.key(request, query), lambda: view(request, *args, **kwargs))


def kept(request, key: str, render: Callable[[], HttpResponse], *, own_csrf: bool = False) -> HttpResponse:
    """The answer kept under `key`, or `render()`'s, kept when it may be (`_entry`). With
    `own_csrf` (a page kept for one browser), a CSRF token made from the cookie the request
    carries may be in it: the browser holding that cookie is the only one that gets it."""
    rendered: list[HttpResponse] = []

    def build() -> Entry | None:
        rendered.append(render())
        if own_csrf and request.META.get("CSRF_COOKIE") == request.COOKIES.get(settings.CSRF_COOKIE_NAME):
            request.META.pop("CSRF_COOKIE_NEEDS_UPDATE", None)  # the token is the cookie's: nothing to renew
        return _entry(request, rendered[0])
    plain = _cached(key, build)
    if plain is None:  # not to be kept: the view's own answer, as rendered for this request
        return rendered[0]
    gzipped = bool(_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", ""))) and _compressible(plain)
    entry = (_cached(key + ":gzip", lambda: _compressed(plain)) or plain) if gzipped else plain
    etag = '"' + hashlib.sha256(f"{key}:{gzipped}".encode()).hexdigest()[:32] + '"'
    return _served(request, entry, etag)
