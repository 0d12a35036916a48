"""An in-process LRU cache of per-session search indexes (vectors included), bounded in bytes.

An entry is used only while its version equals the session's ``vector_version`` in the
database, which every vector change (in any process) replaces in the same transaction.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, Protocol, TypeVar

__all__ = ["VectorCache", "Versioned"]


class Versioned(Protocol):
    @property
    def version(self) -> int: ...

    @property
    def nbytes(self) -> int: ...


E = TypeVar("E", bound=Versioned)


class VectorCache(Generic[E]):
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, str, str], E] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[str, str, str], version: int) -> E | None:
        entry = self._entries.get(key)
        if entry is None or entry.version != version:
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return entry

    def put(self, key: tuple[str, str, str], entry: E) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= old.nbytes
        if entry.nbytes > self.max_bytes:
            return  # larger than the whole cache: serve it once, keep nothing
        self._entries[key] = entry
        self._bytes += entry.nbytes
        while self._bytes > self.max_bytes:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= evicted.nbytes

    def discard(self, key: tuple[str, str, str]) -> None:
        """Drop an entry whose session is gone: it can never be used again, and left in place
        it would hold its memory until the byte bound pushed it out."""
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= old.nbytes

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)
