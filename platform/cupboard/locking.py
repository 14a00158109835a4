"""Row locks: the one lock order of cupboard, and the one way to take a lock.

Every row lock is taken with `locked()`, inside `transaction.atomic()`, and lasts until
that transaction ends (on SQLite it is a no-op: SQLite serialises writers anyway).

**The kind of lock.** `locked()` is SELECT ... FOR NO KEY UPDATE OF <that table>, never
plain FOR UPDATE. PostgreSQL checks a foreign key (Django defers the check to COMMIT)
with a FOR KEY SHARE lock on the row it points to. FOR UPDATE blocks that lock; FOR NO
KEY UPDATE does not. With FOR UPDATE, an upload (team row locked, inserting a submission
that points at the phase) and a leaderboard refresh (phase row locked, inserting rows
that point at the team) each waited at COMMIT for the other: a deadlock, answered as an
HTTP 500, in every deadline rush. "OF <table>" keeps a `select_related` from locking the
joined rows too. Locks still serialise what they are for: two refreshes of one phase, two
uploads of one team (so the quota count is exact).

**The order.** A transaction that locks rows of several kinds takes them top to bottom,
never going back up; rows of one kind are locked one statement at a time, by primary key.

    1. subset group   moving a group's reveal (competitions.schedule.group_reveal_change)
    2. topic set      importing a subset's topics (competitions.topic_files.topics_import_files)
    3. phase          leaderboard refresh; re-scoring; a qrels release (or its removal); a schedule change;
                      a topics version's number (after the topic sets);
                      a baseline upload (the phase is the baselines' "team"); a pool export's number;
                      a results archive's number; a judging round's reassignment (judging.reassignment)
    4. competition    loading a definition; publishing due audit events (competition_publish_due,
                      called after the phase lock by qrels releases and schedule changes);
                      granting a role: naming an assessor, creating or joining a team (then
                      the team, 5), so no one is both (competitions/roles.py)
    5. team           a team's upload (quota under the lock); final selection; a quota grant;
                      a join, leave or member removal (so an upload records exactly its members);
                      a merge locks both teams, by primary key
    6. submission     storing scores (scoring._store); claims and the sweeper are one
                      conditional UPDATE each, outside any longer transaction

What each path holds, and what it does not:

- upload: the team row (5), or the phase row (3) for a baseline. The scoring message
  is sent after COMMIT; a leaderboard refresh never runs inside an upload's transaction.
- scoring: the submission row (6) while scores are replaced; the leaderboard refresh
  then runs in a transaction of its own (3).
- leaderboard refresh: the phase row (3), then deletes and inserts that phase's rows.
- rank bands (leaderboards/bands.py): a board update marks the phase's `BandsJob` row under
  the phase row (3); the job computes holding nothing, then takes the phase row (3) to store
  the bands and end its claim on the `BandsJob` row (after the phase, as the mark).
- re-scoring (`phase_rescore`): the phase row (3), then UPDATEs of its submission rows (6).
- final selection, disqualification: the team row (5) resp. the submission (6); the
  refresh runs after COMMIT.
- quota grant: the team row (5), so a grant and an upload of that team apply in turn.
- group reveal, schedule change: 1 resp. 3, then 4 (due events), then each phase's
  refresh (3, already held or taken after 1).

`tests/project/test_locking.py` checks that no code outside this module calls
`select_for_update` itself.
"""
from django.db.models import QuerySet


def locked(queryset: QuerySet) -> QuerySet:
    """`queryset` with its rows (of its own table only) locked FOR NO KEY UPDATE until the
    transaction ends. Call inside `transaction.atomic()`, in the order above."""
    return queryset.select_for_update(no_key=True, of=("self",))
