"""Topics files held between the organizer's preview and their confirmation.

A file input comes back empty when a page is shown again, so the preview keeps the uploaded
files in private storage under a random token (`topics/staged/<phase>/<token>/`) and the
confirmation posts the token alone: what is confirmed is byte for byte what was previewed.
They are removed once stored; a preview never confirmed leaves its few files behind.
"""
from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping

from django.core.files.base import ContentFile

from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Phase, private_storage

TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,60}$")


def _folder(phase: Phase, token: str) -> str:
    if not TOKEN.match(token):
        raise CompetitionError("preview-expired", "this preview is not known; upload the files again")
    return f"topics/staged/{phase.pk}/{token}"


def topics_stage(*, phase: Phase, files: Mapping[str | tuple[str, str], bytes], names: Mapping) -> str:
    """Keep `files` ({key: bytes}, keys as `topics_import_files` takes them) for a later
    confirmation; returns the token that names them."""
    token = secrets.token_urlsafe(24)
    folder, storage, manifest = _folder(phase, token), private_storage(), []
    for number, (key, content) in enumerate(files.items()):
        storage.save(f"{folder}/{number}", ContentFile(content))
        manifest.append({"key": [key] if isinstance(key, str) else list(key), "name": names[key]})
    storage.save(f"{folder}/manifest.json", ContentFile(json.dumps(manifest).encode()))
    return token


def topics_staged(*, phase: Phase, token: str) -> tuple[dict, dict]:
    """(files, names) as `topics_stage` kept them, or CompetitionError `preview-expired`."""
    folder, storage = _folder(phase, token), private_storage()
    try:
        with storage.open(f"{folder}/manifest.json") as stored:
            manifest = json.loads(stored.read())
        files, names = {}, {}
        for number, entry in enumerate(manifest):
            key = entry["key"][0] if len(entry["key"]) == 1 else tuple(entry["key"])
            with storage.open(f"{folder}/{number}") as stored:
                files[key] = stored.read()
            names[key] = entry["name"]
    except (OSError, ValueError, KeyError):
        raise CompetitionError("preview-expired", "this preview is not known any more; upload the files again") from None
    return files, names


def topics_unstage(*, phase: Phase, token: str) -> None:
    folder, storage = _folder(phase, token), private_storage()
    _, names = storage.listdir(folder)
    for name in names:
        storage.delete(f"{folder}/{name}")
