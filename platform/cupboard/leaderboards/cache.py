"""What a class of viewers sees of a leaderboard, rendered once and served from Django's cache.

A cached entry is keyed on everything its bytes depend on (`BoardState.key`, in this order):

- the phase and its `leaderboard_version` (bumped by every refresh, update and qrels
  release, under the phase lock: leaderboards/services.py), read with the phase itself;
  `closed` instead for everyone but organizers while the board is not public (a private
  phase before its reveal), so no ETag or Last-Modified tells when a private run was scored;
  `frozen` likewise while the phase's board is frozen (`Phase.is_frozen`): it shows the rows
  of the freeze, and no header tells when a later run was scored;
- whether the competition is published;
- the next instant at which what anyone sees changes by the clock (a group's or the
  phase's reveal, the phase opening, freezing or closing), so an entry made before a reveal is
  never served after it: a reveal is never served late;
- the viewer class, from the `Viewer`: `organizer` (every organizer sees the same),
  `team-<pk>` (a team's members see their own row highlighted and linked), and
  `public` (anonymous and logged-in people without a team see the same). An entry is
  only ever shared inside one class, and nothing of a user (name, CSRF token) goes in:
  the page shell around a cached board is rendered per request (only the shell of a
  request without cookies, which carries nothing of anyone, is cached whole);
- what is rendered (page board, whole page, JSON, CSV) and the metric;
- then, appended by `BoardKey.variant`: the run-metadata filter (`?meta_<name>=value`,
  as `BoardState.filters` normalised it: only real options, in the fields' order, so entries
  stay one per real filter and made-up parameters cannot fill the cache; a filter holds
  nothing of a user; no filter, no part), then further renderings of that entry
  (`blank-page`, `gzip`).

Something new a leaderboard shows (a filter, a band, a history) either adds a part to the
key (a query parameter, like the metric) or is bumped by what changes it (call
`leaderboard_bump`). Everything a key needs comes from one plain SQL query (`board_state`),
so a cached hit costs that query and a cache read; for a visitor without cookies, and for a
signed-in participant whose session is remembered (accounts/signed_in.py, leaderboards/viewers.py),
the state this process read within the last CUPBOARD_BOARD_STATE_SECONDS serves, so theirs
costs cache reads only: none for the entry once this process holds its own copy
(cupboard/local_copies.py; a key names the version), the person token's for a signed-in one.

Entries also expire after CUPBOARD_LEADERBOARD_CACHE_SECONDS, which bounds how long an
edit that bumps no version (a phase edited in the admin) takes to show. The same key,
hashed, is the ETag; a matching If-None-Match is answered 304. Bodies are kept as bytes,
and gzip-compressed once per entry for clients that accept it: no page carries a
per-request value (cupboard/csp.py needs no nonce), so they are served byte for byte.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from datetime import timezone as dt_timezone
from typing import TypeVar

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from cupboard import local_copies
from cupboard.competitions.models import Competition, PageChange, Phase, SubsetGroup
from cupboard.competitions.run_metadata import PREFIX, filter_query, filters_from_query, metadata_fields
from cupboard.competitions.viewer import Viewer

# (status, content type, body): what a cached response is made of.
Rendered = tuple[int, str, bytes]
T = TypeVar("T")


@dataclass(frozen=True)
class BoardKey:
    """One cache entry's identity for one request (see the module docstring)."""

    key: str
    last_modified: datetime | None

    def variant(self, what: str) -> BoardKey:
        """Another rendering of the same version for the same class (e.g. the whole page)."""
        return BoardKey(key=f"{self.key}:{what}", last_modified=self.last_modified)

    def etag(self, user_pk: int | None, encoding: str = "") -> str:
        """The key's hash, and the user's for a logged-in one: the page shell around the
        shared board names its user, so one person's copy never validates another's."""
        who = "" if user_pk is None else user_pk
        return '"' + hashlib.sha256(f"{self.key}:{who}:{encoding}".encode()).hexdigest()[:32] + '"'


@dataclass(frozen=True)
class BoardState:
    """What the cache keys of one phase need at `now`, read in one query (`board_state`)."""

    phase_id: int
    version: int
    changed_at: datetime | None
    is_published: bool
    metrics: list[str]
    primary_metric: str
    instants: list[datetime]  # when what anyone sees changes by the clock (the next group reveal, the last one)
    now: datetime
    run_metadata: list[dict]  # the competition's run-metadata specs (competitions/run_metadata.py)
    topic_variants: tuple = ()  # its topic variants: with several, `topics` is a field too (topic_variants.py)
    live: bool = True  # the phase's scores are public as they come
    reveal_at: datetime | None = None  # else, public from then on (None: never)
    closes_at: datetime | None = None
    freeze_at: datetime | None = None  # the public board stands still from here until the thaw
    page_change: int = 0  # the competition's latest PageChange (competitions/page_cache.py): who is who in it

    @property
    def is_frozen(self) -> bool:
        """`Phase.is_frozen`, from the state."""
        if self.freeze_at is None or self.closes_at is None:
            return False
        return self.freeze_at <= self.now < max(self.closes_at, self.reveal_at or self.closes_at)

    @property
    def is_public(self) -> bool:
        """Whether everyone sees the board now, as `Phase.is_revealed` says, from the state."""
        return self.live or (self.reveal_at is not None and self.now >= self.reveal_at)

    def filters(self, query) -> dict[str, str]:
        """The run-metadata filter of `?meta_<name>=value`, stripped of anything not a real option
        (no `meta_` parameter, no filter: the fields are not even built, as most hits have none)."""
        if not any(name.startswith(PREFIX) for name in query):
            return {}
        return filters_from_query(metadata_fields(self), query)

    def metric(self, requested: str | None) -> str:
        """`requested` when the competition has it, else its primary metric."""
        return requested if requested in (self.metrics or [self.primary_metric]) else self.primary_metric

    def key(self, viewer_class: str, *, what: str, metric: str = "") -> BoardKey:
        """The key of what a viewer of `viewer_class` sees now, and when that last changed. A
        board not public yet is the same notice to everyone but organizers whatever its version:
        neither its key (the ETag) nor its Last-Modified tell when a private run was scored."""
        closed = viewer_class != "organizer" and not self.is_public
        frozen = viewer_class != "organizer" and not closed and self.is_frozen
        upcoming = min((t for t in self.instants if t > self.now), default=None)
        changed = [self.changed_at] if self.changed_at and not (closed or frozen) else []
        passed = [t for t in self.instants if t <= self.now] + changed
        version = "closed" if closed else "frozen" if frozen else self.version
        parts = [self.phase_id, version, int(self.is_published),
                 upcoming.timestamp() if upcoming else "-", viewer_class, what, metric]
        return BoardKey(key="leaderboard:" + ":".join(str(p) for p in parts), last_modified=max(passed, default=None))

    def filtered_key(self, viewer_class: str, *, what: str, metric: str = "", filters: dict[str, str]) -> BoardKey:
        """`key`, and for a run-metadata filter its own entry (a variant named by the filter)."""
        key = self.key(viewer_class, what=what, metric=metric)
        return key.variant("meta?" + filter_query(filters)) if filters else key


def _state_sql() -> str:
    phase, competition, group, change = (m._meta.db_table for m in (Phase, Competition, SubsetGroup, PageChange))
    reveal = "SELECT {} (g.reveal_at) FROM {} g WHERE g.competition_id = c.id AND g.reveal_at {} %s"
    return (f"SELECT p.id, p.leaderboard_version, p.leaderboard_changed_at, c.is_published, c.metrics, "
            f"c.primary_metric, c.run_metadata, c.topic_variants, "
            f"(SELECT MAX(pc.id) FROM {change} pc WHERE pc.competition_id = c.id), "
            f"p.visibility, p.opens_at, p.closes_at, p.reveal_at, c.starts_at, p.freeze_at, "
            f"({reveal.format('MIN', group, '>')}), ({reveal.format('MAX', group, '<=')}) "
            f"FROM {phase} p JOIN {competition} c ON c.id = p.competition_id WHERE c.slug = %s AND p.slug = %s")


def _datetime(value) -> datetime | None:
    """A timestamp as the driver returns it (SQLite: naive or text, in UTC), aware."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if value is not None and timezone.is_naive(value):
        value = timezone.make_aware(value, dt_timezone.utc)
    return value


def _json_list(value) -> list:
    """A JSON list column as the driver returns it (SQLite: text; PostgreSQL: decoded)."""
    return json.loads(value) if isinstance(value, str) else list(value or [])


# A board state per (slug, phase slug) as this process read it, with when: see board_state.
_recent: dict[tuple[str, str], BoardState] = {}


def _read(slug: str, phase_slug: str, now: datetime) -> BoardState | None:
    with connection.cursor() as cursor:
        cursor.execute(_state_sql(), [now, now, slug, phase_slug])
        row = cursor.fetchone()
    if row is None:
        return None
    phase_id, version, changed_at, is_published, metrics, primary_metric, run_metadata, topic_variants, page_change, \
        visibility, *instants = row
    return BoardState(phase_id=phase_id, version=version, changed_at=_datetime(changed_at), page_change=page_change or 0,
                      is_published=bool(is_published), primary_metric=primary_metric, now=now,
                      metrics=_json_list(metrics), run_metadata=_json_list(run_metadata),
                      topic_variants=tuple(_json_list(topic_variants)),
                      instants=[t for t in map(_datetime, instants) if t is not None],
                      live=visibility == Phase.Visibility.LIVE, reveal_at=_datetime(instants[2]),
                      closes_at=_datetime(instants[1]), freeze_at=_datetime(instants[4]))


def _recent_state(slug: str, phase_slug: str, now: datetime) -> BoardState | None:
    """The state read less than CUPBOARD_BOARD_STATE_SECONDS ago (either way: a test travelling
    in time drops it), at `now`; read afresh otherwise."""
    kept = _recent.get((slug, phase_slug))
    if kept is not None and abs((now - kept.now).total_seconds()) < settings.CUPBOARD_BOARD_STATE_SECONDS:
        return replace(kept, now=now)
    state = _read(slug, phase_slug, now)
    if state is not None:  # unknown slugs are not kept: made-up URLs cannot fill this process's memory
        _recent[(slug, phase_slug)] = state
    return state


def forget_recent_states(**_) -> None:
    """Drop every kept state: this process just changed a version, a phase, a competition or a
    group (leaderboard_bump, and the models' save and delete signals), so its own next
    cookie-less request must not wait out CUPBOARD_BOARD_STATE_SECONDS to see it."""
    _recent.clear()


def board_state(*, slug: str, phase_slug: str, now: datetime | None = None,
                recent: bool = False) -> BoardState | None:
    """The state of the phase `phase_slug` of competition `slug`, or None: one plain SQL
    query, the first thing (and with a cache read, the only one) a cached hit does.

    With `recent` (visitors without cookies: the crowd at a reveal; remembered participants), a state this process read
    less than CUPBOARD_BOARD_STATE_SECONDS ago serves again, so a cached hit costs no SQL at
    all (the query was a third of a hit's time; docs/benchmarks.md). Its keys are still computed at each
    request's `now` from the instants the state holds, so a clock reveal is served on time; a
    new version (a scoring, a qrels release) or an edit reaches them that much later; who a
    signed-in person is (their team, their roles) is checked at once by their stamp, not by the
    state. Organizers and requests not remembered read it fresh (leaderboards/views.py)."""
    now = now or timezone.now()
    return _recent_state(slug, phase_slug, now) if recent else _read(slug, phase_slug, now)


def viewer_class(viewer: Viewer) -> str:
    """The class whose members all see the same leaderboard (see the module docstring)."""
    if viewer.is_organizer:
        return "organizer"
    if viewer.team is not None:
        return f"team-{viewer.team.pk}"
    return "public"


def cached(key: BoardKey, build: Callable[[], T]) -> T:
    """The entry under `key`, built (and stored) on a miss."""
    return local_copies.cached(key.key, build, settings.CUPBOARD_LEADERBOARD_CACHE_SECONDS)  # type: ignore[return-value]


def cached_response(key: BoardKey, build: Callable[[], tuple[int, str, str]], *, compressed: bool) -> Rendered:
    """The response under `key` with its body as UTF-8 bytes, or gzip-compressed (once, on a
    miss, from the plain entry, and kept beside it)."""
    if compressed:
        def compress() -> Rendered:
            status, content_type, body = cached_response(key, build, compressed=False)
            return status, content_type, gzip.compress(body, compresslevel=6, mtime=0)
        return cached(key.variant("gzip"), compress)

    def encode() -> Rendered:
        status, content_type, body = build()
        return status, content_type, body.encode()
    return cached(key, encode)
