"""`python -m scripts.loadtest.competition PHASE_FOLDER`: the load test's competition, in its database.

Run by the load test in a subprocess with the stack's environment. The WSDM Cup's definition
(18 MIRACL languages, de and yo revealed already) with one phase, `dev`, open for a day
with no submission limits, its topics and judgments from PHASE_FOLDER; four teams of one
member each, and an API token per member. Everything goes through the services organizers
and teams use. Prints one line of JSON: the slugs and each team's token.
"""
from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path

import django

SLUG = "loadtest"
TEAMS = ("Anchor", "Beacon", "Compass", "Drift")


def _cup() -> dict:
    """The WSDM Cup's definition file, found without importing the project: the load test's
    driver, which reads it too (run_metadata), runs without Django's settings."""
    from importlib.util import find_spec

    import yaml

    definitions = Path(find_spec("cupboard").origin).parent / "competitions" / "definitions"
    return yaml.safe_load((definitions / "miracl-wsdm-cup.yaml").read_text(encoding="utf-8"))


def run_metadata() -> dict[str, str]:
    """The API fields (`meta_<name>`) an upload to the Cup must carry: each required field's
    first choice, as a team that answers the form would."""
    return {f"meta_{field['name']}": field["choices"][0]["value"]
            for field in _cup().get("run_metadata", []) if field.get("required")}


def definition(now) -> dict:
    data = _cup()
    dev = next(phase for phase in data["phases"] if phase["slug"] == "dev")
    for key in ("daily_limit", "total_limit"):
        dev.pop(key, None)  # the rush must not be refused by a quota
    dev.update(opens_at=now - timedelta(days=1), closes_at=now + timedelta(days=1))
    for group in data["groups"]:
        if group.get("reveal_at"):
            group["reveal_at"] = now - timedelta(hours=1)
    return {**data, "slug": SLUG, "title": "Load test (MIRACL-shaped)", "starts_at": now - timedelta(days=1),
            "organizers": ["loadtest-organizer"], "phases": [dev]}


def main(argv: list[str]) -> None:
    django.setup()
    from django.contrib.auth.models import User
    from django.utils import timezone

    from cupboard.accounts.services import api_token_create
    from cupboard.competitions.services import competition_load, qrels_release_create
    from cupboard.competitions.topic_files import topics_import
    from cupboard.teams.services import team_create

    folder = Path(argv[0])
    organizer = User.objects.create_user("loadtest-organizer", "organizer@example.org")
    competition = competition_load(data=definition(timezone.now()), actor=organizer)
    phase = competition.phases.get(slug="dev")
    codes = list(competition.subsets.values_list("code", flat=True))
    for code in codes:
        name = f"topics.miracl-v1.0-{code}-dev.tsv"
        topics_import(phase=phase, subset=code, file=folder / name, name=name, actor=organizer)
    qrels_release_create(phase=phase, files={c: folder / f"qrels.miracl-v1.0-{c}-dev.tsv" for c in codes},
                         names={c: f"qrels.miracl-v1.0-{c}-dev.tsv" for c in codes}, actor=organizer,
                         note="load test")
    teams = []
    for name in TEAMS:
        user = User.objects.create_user(name.lower(), f"{name.lower()}@example.org")
        team = team_create(competition=competition, user=user, name=name)
        teams.append({"name": name, "id": team.pk, "token": api_token_create(user=user)})
    print(json.dumps({"competition": SLUG, "phase": "dev", "subsets": len(codes), "teams": teams}))


if __name__ == "__main__":
    main(sys.argv[1:])
