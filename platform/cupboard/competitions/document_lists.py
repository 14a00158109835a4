"""A subset's document list: the docids its collection holds, so that an upload, the API, the
command line's `submit` (through the server) and the scoring worker refuse a run naming any
other at its line, or warn, as the phase says (`Phase.unknown_documents`).

The list is given as an id file (one docid per line) or as a corpus (TSV or JSON lines, the
shapes judging reads); it is stored as the sorted 64-bit hashes of its docids
(`evaluator.io.documents`), 70 MB for MS MARCO's 8.8 M passages, which every check maps
instead of reading the docids again. The newest list of a subset is the one in force.
"""
from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from django.core.files import File
from django.db import transaction

from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from evaluator.io.documents import read_documents
from evaluator.records import InputError

from .errors import CompetitionError
from .models import Competition, DocumentList, Subset
from .private_files import removed_on_error


def document_list_create(*, competition: Competition, subset: Subset, path: str | Path, name: str | None = None,
                         actor=None) -> DocumentList:
    """Read the id file or corpus at `path` and store it as `subset`'s document list.
    CompetitionError naming the file (and line) when it cannot be read; nothing is stored then."""
    path = Path(path)
    name = name or path.name
    try:
        documents = read_documents(path, name=name)
    except InputError as error:
        raise CompetitionError("bad-documents", "; ".join(p.for_people for p in error.problems[:5])) from error
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    with tempfile.TemporaryFile() as saved, removed_on_error() as stored, transaction.atomic():
        documents.save(saved)
        saved.seek(0)
        row = DocumentList(competition=competition, subset=subset, original_name=name, sha256=digest.hexdigest(),
                           documents=len(documents), created_by=actor)
        row.file.save(f"documents.{competition.slug}-{subset.code}.npy", File(saved), save=False)
        stored.append(row.file.name)
        row.save()
        audit_record(competition=competition, actor=actor, action=AuditEvent.Action.DOCUMENTS_UPLOADED,
                     summary=f"Document list of {subset.code}: {len(documents):,} documents from {name}",
                     details={**named("subset", subset.pk, subset.code), "file": name, "sha256": row.sha256,
                              "documents": len(documents)})
    return row


def current_document_lists(competition: Competition) -> dict[int, DocumentList]:
    """{subset id: the list its runs are checked against, its newest}, for every subset that has
    one, in one query: an upload and a scoring check each of their languages' runs."""
    current: dict[int, DocumentList] = {}
    for row in competition.document_lists.order_by("-created_at", "-pk"):
        current.setdefault(row.subset_id, row)
    return current
