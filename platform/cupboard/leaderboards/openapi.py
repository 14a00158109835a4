"""This app's part of the OpenAPI document: a phase's leaderboards as JSON (leaderboard.json,
official.json, leaderboard/history.json), described from the code that builds them.

The routes are the contract's (evaluator/client/api.py), as leaderboards/urls.py mounts them;
the answers' fields are the contract's tuples, each typed once below, and the objects are
closed (`additionalProperties: false`) where exports.py writes every key itself: a key added
to or dropped from an export without this table fails the tests that check every answer
against the document (tests/api). The values of the run-metadata filter and the significance
settings come from the code that reads and writes them (competitions/run_metadata.py, `Bands`).
"""
from __future__ import annotations

from cupboard.competitions.run_metadata import PREFIX, TYPES
from cupboard.competitions.selectors import AVG_LABEL
from cupboard.leaderboards.selectors import Bands
from cupboard.submissions.openapi import TOKEN, answers, api_path, object_schema, parameters
from cupboard.submissions.openapi import TRY_LATER as OUTAGE
from evaluator.client import api as contract

NUMBER = {"type": ["number", "null"]}
INSTANT = {"type": "string", "format": "date-time"}
ROUNDED = ("Rounded to `rounded_to` decimals as the site shows them, or full precision for the "
           "competition's organizers (`rounded_to` null).")
SCORES = {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": NUMBER}}
TRY_LATER = {429: "Too many requests: with this token, or past boards (?as_of=) from this address",
             503: OUTAGE[503]}
NOT_PUBLIC = "The caller may not see this leaderboard now (a private phase before its reveal): code leaderboard-not-public"
NOT_FOUND = "No such phase, or one the caller may not see (a draft's), in the error shape"
BAD_TOKEN = "A token was sent but is not valid"


def _significance() -> dict:
    """How the rank bands were tested, its properties read off `Bands.as_dict()` itself."""
    sample = Bands(test="t-test", correction="holm", alpha=0.05, trials=1, samples=1, seed=0).as_dict()
    kinds = {bool: "boolean", int: "integer", float: "number", str: "string"}
    properties = {name: {"type": kinds[type(value)]} for name, value in sample.items()}
    properties["metric"] = {"type": "string", "description": "The metric the bands are computed on (the primary one)."}
    return {"type": ["object", "null"], "required": list(properties), "additionalProperties": False,
            "properties": properties,
            "description": "How the rank bands were tested; null where the caller sees none (before the judgments "
                           "are public, on a past or frozen board)."}


STANDING = {
    "type": "object", "required": ["ci"], "additionalProperties": False,
    "properties": {
        "band": {"type": "string", "description": "The rank band, e.g. \"1-3\"."},
        "rank_low": {"type": "integer"}, "rank_high": {"type": "integer"},
        "tier": {"type": "integer", "description": "1: tied with the leader."},
        "tied_with_leader": {"type": "boolean"},
        "ci": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2,
               "description": "The confidence interval of the column's value."}},
    "description": "Rank band and interval on one column (primary metric); only the interval when unranked."}
ROW_TYPES: dict[str, dict] = {
    "rank": {"type": ["integer", "null"], "description": "By the Avg column shown; null for a baseline, and for a "
                                                         "team's other runs in the official results (unranked)."},
    "board_row": {"type": "boolean", "description": "Official results only (they list every counted run): whether "
                                                    "this is the run the board shows for its team."},
    "team": {"type": "string", "description": "The team's name; \"Baseline\" for a baseline."},
    "method": {"type": "string"}, "baseline": {"type": "boolean"},
    "qrels_version": {"type": ["integer", "null"], "description": "The judgments the row was scored with."},
    "metadata": {"type": "object", "description": "The counted run's metadata shown as columns, as stored."},
    "values": {**SCORES, "description": "{subset code: {metric: value}}, the subsets the caller sees. " + ROUNDED},
    "averages": {**SCORES, "description": f"{{average label (K.Avg, ..., {AVG_LABEL}): {{metric: value}}}}. "
                                          + ROUNDED},
    "standings": {"type": "object", "additionalProperties": STANDING,
                  "description": "By column (subset code or average label), where the caller sees rank bands."},
}
BOARD_TYPES: dict[str, dict] = {
    "competition": {"type": "string"}, "phase": {"type": "string"},
    "qrels_version": {"type": ["integer", "null"], "description": "The current judgments' version."},
    "as_of": {**INSTANT, "description": "With ?as_of=: the instant the rows stood so (never later than now)."},
    "frozen_since": {**INSTANT, "description": "The board stands still at this instant (a freeze before the close)."},
    "rescoring": {"type": "object", "required": ["step", "done", "total"],
                  "properties": {"step": {"type": "integer"}, "done": {"type": "integer"}, "total": {"type": "integer"}},
                  "additionalProperties": False,
                  "description": "Only while the phase is being re-scored: the rows keep the scores from before "
                                 "until all `total` runs are scored again (`done` so far), then switch at once."},
    "scoring_version": {"type": "integer", "description": "The phase's published re-scoring step the results were "
                                                          "frozen from (0: its runs' first scoring)."},
    "every_run": {"type": "boolean", "description": "Official results only: the rows are every counted run "
                                                    "(each team's every scored, not disqualified run), not one per "
                                                    "team."},
    "frozen_at": {**INSTANT, "description": "When these official results were frozen (their SHA-256 is in the "
                                            "public audit log)."},
    "metrics": {"type": "array", "items": {"type": "string"}}, "primary_metric": {"type": "string"},
    "rounded_to": {"type": ["integer", "null"], "description": "Decimals of every value; null: full precision."},
    "subsets": {"type": "array", "items": {
        "type": "object", "required": ["code", "name", "kind"], "additionalProperties": False,
        "properties": {"code": {"type": "string"}, "name": {"type": "string"}, "kind": {"type": "string"}}},
        "description": "The subset columns the caller sees (never a hidden one), in order."},
    "metadata_fields": {"type": "array", "items": {
        "type": "object", "required": ["name", "label", "type", "choices"], "additionalProperties": False,
        "properties": {"name": {"type": "string"}, "label": {"type": "string"},
                       "type": {"type": "string", "enum": list(TYPES)},
                       "choices": {"type": "array", "items": {"type": "string"}}}},
        "description": "The run metadata shown as columns."},
    "filter": {"type": "object", "additionalProperties": {"type": "string"},
               "description": f"The ?{PREFIX}<name>= filter applied: {{name: value}}."},
    "unfiltered_rows": {"type": "integer", "description": "Rows before the filter."},
    "averages": {"type": "array", "items": {"type": "string"}, "description": "The average columns' labels."},
    "significance": _significance(),
    "rows": {"type": "array", "items": {"$ref": "#/components/schemas/LeaderboardRow"},
             "description": "Ranked rows then, in order, baselines among them; only those the filter keeps."},
}
POINT_TYPES: dict[str, dict] = {
    "at": INSTANT, "team": {"type": "string"}, "rank": {"type": "integer"},
    "value": {**NUMBER, "description": "The team's primary metric on the Avg column then. " + ROUNDED},
}
HISTORY_TYPES: dict[str, dict] = {
    "competition": {"type": "string"}, "phase": {"type": "string"},
    "metric": {"type": "string", "description": "The primary metric."},
    "rounded_to": BOARD_TYPES["rounded_to"],
    "decimals": {"type": "integer", "description": "The digits the page shows."},
    "frozen_since": {"type": ["string", "null"], "format": "date-time",
                     "description": "The caller's board stands still at this instant (null: live)."},
    "instants": {"type": "array", "items": INSTANT, "description": "Every change the caller may see, oldest first."},
    "points": {"type": "array", "items": {"$ref": "#/components/schemas/HistoryPoint"},
               "description": "Instant by instant in rank order, a point where a team's rank or value as seen "
                              "changed, and each team's last again at the latest instant (at the one before "
                              "it left the board); the rules of that instant apply: nothing from before a "
                              "private board's reveal, no column hidden then."},
}
AS_OF = {"name": "as_of", "in": "query", "required": False,
         "schema": {"type": "string", "anyOf": [{"format": "date"}, {"format": "date-time"}]},
         "description": "The board as it stood at this ISO 8601 date or instant (UTC without an offset). "
                        "Limited per client network, an IPv4 address or an IPv6 /64, with a token or without "
                        "(`as-of-address` in CUPBOARD_RATES, 60 a minute by default; 429 with Retry-After past it)."}
META = {"name": "filter", "in": "query", "required": False, "style": "form", "explode": True,
        "schema": {"type": "object", "additionalProperties": False,
                   "patternProperties": {f"^{PREFIX}[-a-zA-Z0-9_]+$": {"type": "string"}}},
        "description": f"{PREFIX}<name>=<value>: keep the rows whose run says so (a choice or yes/no field of the "
                       "competition's run metadata), with the ranks of the whole board."}


def _closed(types: dict[str, dict], fields: tuple[str, ...], *optional: str) -> dict:
    """An object with exactly the contract's `fields` (always there) and the `optional` ones."""
    schema = object_schema(types, fields)
    schema["properties"].update({name: types[name] for name in optional})
    return {**schema, "additionalProperties": False}


def _operation(route: str, operation_id: str, summary: str, *, query: tuple[dict, ...] = (),
               ok: tuple[str, str], errors: dict[int, str]) -> dict:
    return {"operationId": operation_id, "summary": summary, "security": [TOKEN, {}],
            "description": "Reads the session as the site's pages do, or the token when one is sent.",
            "parameters": [*parameters(route), *query],
            "responses": answers({200: ok}, errors={401: BAD_TOKEN, **errors})}


def openapi_part() -> dict:
    """{"paths", "schemas"} of the leaderboards' JSON (cupboard/operations/openapi.py joins it)."""
    return {
        "paths": {
            api_path(contract.LEADERBOARD_ROUTE, mount=""): {"get": _operation(
                contract.LEADERBOARD_ROUTE, "leaderboard", "A phase's leaderboard as the caller may see it",
                query=(AS_OF, META), ok=("The leaderboard: every metric, the columns the caller sees", "Leaderboard"),
                errors={400: "?as_of= is not an instant (code bad-as-of)", 403: NOT_PUBLIC, 404: NOT_FOUND,
                        **TRY_LATER})},
            api_path(contract.OFFICIAL_ROUTE, mount=""): {"get": _operation(
                contract.OFFICIAL_ROUTE, "official", "A final phase's frozen official results",
                ok=("The public's leaderboard as frozen at the reveal, byte for byte", "OfficialResults"),
                errors={404: "No official results the caller may see (not a final phase, not revealed or not "
                             "frozen yet), or no such phase", **TRY_LATER})},
            api_path(contract.HISTORY_ROUTE, mount=""): {"get": _operation(
                contract.HISTORY_ROUTE, "history", "A phase's leaderboard over time: each team's primary value and "
                                                   "rank after each change", ok=("The history", "History"),
                errors={403: NOT_PUBLIC, 404: NOT_FOUND, **TRY_LATER})},
        },
        "schemas": {
            "Leaderboard": _closed(BOARD_TYPES, contract.LEADERBOARD_FIELDS, "as_of", "frozen_since", "rescoring"),
            # Open: the file is served byte for byte as frozen, with the keys of the code that froze it.
            "OfficialResults": {**_closed(BOARD_TYPES, ("frozen_at", *contract.LEADERBOARD_FIELDS), "frozen_since",
                                                  "scoring_version", "every_run"),
                                "additionalProperties": True,
                                "description": "leaderboard.json as the public saw it at the freeze, with frozen_at; "
                                               "a key added to the leaderboard since is not in older results."},
            "LeaderboardRow": _closed(ROW_TYPES, contract.LEADERBOARD_ROW_FIELDS, "standings", "board_row"),
            "History": _closed(HISTORY_TYPES, contract.HISTORY_FIELDS),
            "HistoryPoint": _closed(POINT_TYPES, contract.HISTORY_POINT_FIELDS),
        },
    }
