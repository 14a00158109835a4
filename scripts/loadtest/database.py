"""What the load test reads from its stack's PostgreSQL: the truth about each upload's submission.

Uploads are found by their method name (unique per upload, `<scenario> <number>`), so a
submission is found whether or not its upload was answered. Every read opens its own
connection and returns None while the server is down (the outage scenarios stop it).
"""
from __future__ import annotations

from dataclasses import dataclass

import psycopg

PENDING = ("received", "validating", "queued", "scoring")


@dataclass(frozen=True)
class Row:
    id: int
    method: str
    status: str
    created: float  # wall clock seconds, as time.time()
    scored: float | None
    attempts: int


class Database:
    def __init__(self, url: str):
        self.url = url

    def _query(self, sql: str, params: tuple = ()) -> list[tuple] | None:
        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=3) as connection:
                return connection.execute(sql, params).fetchall()
        except psycopg.OperationalError:
            return None

    def rows(self, scenario: str) -> dict[str, Row] | None:
        """{method name: row} of the scenario's submissions."""
        found = self._query(
            "SELECT id, method_name, status, extract(epoch FROM created_at), extract(epoch FROM scored_at), attempts"
            " FROM submissions_submission WHERE method_name LIKE %s", (f"{scenario} %",))
        if found is None:
            return None
        return {r[1]: Row(r[0], r[1], r[2], float(r[3]), None if r[4] is None else float(r[4]), r[5]) for r in found}

    def pending(self, scenario: str) -> int | None:
        found = self._query("SELECT count(*) FROM submissions_submission WHERE method_name LIKE %s"
                            " AND status = ANY(%s)", (f"{scenario} %", list(PENDING)))
        return None if found is None else found[0][0]

    def scoring_now(self) -> list[tuple[int, str]]:
        """(id, claimed_by) of the submissions being scored at this moment; claimed_by is the
        claiming process as `host:pid`, or "" where the schema does not record it."""
        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=3) as connection:
                try:
                    return connection.execute("SELECT id, claimed_by FROM submissions_submission"
                                              " WHERE status = 'scoring'").fetchall()
                except psycopg.errors.UndefinedColumn:
                    found = connection.execute("SELECT id FROM submissions_submission WHERE status = 'scoring'")
                    return [(row[0], "") for row in found.fetchall()]
        except psycopg.OperationalError:
            return []

    def duplicated(self, scenario: str) -> int | None:
        """Score rows repeated for one (submission, subset, metric), plus leaderboard rows repeated for
        one submission: both must be 0, whatever raced."""
        scores = self._query(
            "SELECT count(*) FROM (SELECT 1 FROM submissions_score s JOIN submissions_submission u"
            " ON u.id = s.submission_id WHERE u.method_name LIKE %s"
            " GROUP BY s.submission_id, s.subset_id, s.metric HAVING count(*) > 1) d", (f"{scenario} %",))
        board = self._query(
            "SELECT count(*) FROM (SELECT 1 FROM leaderboards_leaderboardrow b JOIN submissions_submission u"
            " ON u.id = b.submission_id WHERE u.method_name LIKE %s"
            " GROUP BY b.phase_id, b.submission_id HAVING count(*) > 1) d", (f"{scenario} %",))
        if scores is None or board is None:
            return None
        return scores[0][0] + board[0][0]
