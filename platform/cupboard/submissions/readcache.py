"""What scoring reads again and again, kept by content: a phase's topic ids and an Evaluator
per qrels file, keyed by the file's SHA-256 and stored name (so a new version or a replaced
file is a new key, never a stale hit).

A worker scores many runs against the same few topics and qrels files; reading and indexing
them anew for each run was most of the work for small runs (the demo read each of its files
again for every submission that used it). Both are small next to a run, and each process keeps
at most SIZE of each, least recently used dropped first.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from threading import Lock
from typing import TypeVar

T = TypeVar("T")
SIZE = 64


class ContentCache:
    def __init__(self, size: int = SIZE):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = Lock()

    def get(self, key: Hashable, load: Callable[[], T]) -> T:
        """The value stored under `key`, made by `load()` the first time."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = load()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


topic_ids = ContentCache()
evaluators = ContentCache()
judged = ContentCache()  # earlier rounds' qrels of residual phases (runfiles.judged_qrels)
documents = ContentCache(size=2)  # document lists (runfiles.document_check): a collection's each, so few
