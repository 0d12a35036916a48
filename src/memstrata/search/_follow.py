"""Keeping a tenant's in-process index (:class:`TenantIndex`) in step with the store.

Before a search, the vector versions of the sessions it covers are read (as before); a
session whose version moved is brought up to date by a delta, never by a rebuild: its new cutoff
(compaction), its hot messages above the newest id the index holds, and the vectors stored
since for its messages that had none, all read in one snapshot with the session's counts of
hot messages and vectors. When the counts still disagree (a message forgotten, a session
reset, a re-index, a message committed out of id order by another process), the session's hot
ids and vector flags are read to find what left or lost its vector; only a message the index
never saw below its newest id makes it reload that one session. Another process's writes are
seen the same way: they change the versions in the database.

With a directory for saved indexes (beside a SQLite database), a tenant's index is saved
once it holds :data:`SAVE_FROM` messages and again each time it has grown by a quarter, and a
process that does not hold a tenant's index yet starts from the saved one
(:mod:`memstrata.search._snapshot`), dropping the sessions whose version moved since.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..store import VectorStore
from ..types import HotChanges
from . import _snapshot
from ._heap import release_freed_memory
from ._tenant import TenantIndex

__all__ = ["SAVE_FROM", "LiveIndexes"]

log = logging.getLogger("memstrata")

# A delta with more new messages than this is applied in a worker thread (the event loop
# stays free while a cold tenant loads).
_INLINE_ROWS = 2_000
# An index is read afresh when more rows than this (and than the living) have left it.
_DEAD_ROWS = 10_000
# A sync that read this many messages from the store hands the heap it freed back to the
# system (``_heap``): a cold read of a large tenant, not a delta.
_RELEASE_FROM = 50_000
# Messages appended to the index at a time from one read.
_APPEND_PART = 20_000
# Sessions read from the store at a time when many are new to the index.
_READ_SESSIONS = 500
# A tenant's index is saved from this many hot messages, and again after each growth by
# ``_SAVE_GROWTH``: below it, reading the tenant from the store takes well under a second.
SAVE_FROM = 20_000
_SAVE_GROWTH = 1.25


class LiveIndexes:
    """The tenants' indexes of one process, least recently used dropped past
    ``max_bytes``."""

    def __init__(self, max_bytes: int, *, saved_in: str | Path | None = None) -> None:
        self.max_bytes = max_bytes
        self.saved_in = saved_in  # where indexes are saved (None: never)
        self._saved: dict[tuple[str, str], int] = {}  # messages at the last save or load
        self._saving: set[asyncio.Task[None]] = set()
        self.loads = 0  # indexes started from a saved one
        self.saves = 0
        self._indexes: OrderedDict[tuple[str, str], TenantIndex] = OrderedDict()
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        self.reloads = 0  # sessions reloaded whole (a delta could not tell what changed)
        self.repairs = 0  # sessions whose counts disagreed after a delta
        self.rebuilds = 0  # indexes read afresh to shed the rows that left

    def discard(self, tenant: str, model: str, session: str) -> None:
        index = self._indexes.get((tenant, model))
        if index is not None:
            index.drop_session(session)

    def peek(self, tenant: str, model: str) -> TenantIndex | None:
        return self._indexes.get((tenant, model))

    @property
    def nbytes(self) -> int:
        return sum(i.nbytes for i in self._indexes.values())

    async def current(self, vectors: VectorStore, tenant: str, model: str, dim: int,
                      versions: dict[str, int], *, whole: bool = False) -> TenantIndex:
        """The tenant's index with every session of ``versions`` at that version or later;
        ``whole``: ``versions`` are every session of the tenant with vectors, so a session
        held with messages but absent from them is checked too (reset, removed, re-indexed)."""
        key = (tenant, model)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            index = self._indexes.get(key)
            if index is None:
                index = self._indexes[key] = (await self._load(vectors, tenant, model, dim)
                                              or TenantIndex(dim))
            self._indexes.move_to_end(key)
            read = await _Sync(vectors, index, tenant, model, self).run(versions, whole)
            dead = index.size - index.alive_count
            if dead > max(index.alive_count, _DEAD_ROWS):
                # Rows that left (compaction, forget, reset) and superseded postings are
                # never reused: once they outnumber the living, read the tenant afresh.
                self.rebuilds += 1
                index = self._indexes[key] = TenantIndex(dim)
                read += await _Sync(vectors, index, tenant, model, self).run(versions, whole)
            if read >= _RELEASE_FROM:
                await asyncio.to_thread(release_freed_memory)
            self._evict(key)
            await self._save(vectors, tenant, model, index)
            return index

    async def _load(self, vectors: VectorStore, tenant: str, model: str,
                    dim: int) -> TenantIndex | None:
        """The saved index, its sessions whose version moved since dropped (the sync reads
        them afresh); ``None`` when none can be used."""
        if self.saved_in is None:
            return None
        lineage = await vectors.lineage()
        index = await asyncio.to_thread(_snapshot.load, self.saved_in, tenant, model, dim,
                                        lineage)
        if index is None:
            return None
        stored = await vectors.versions(tenant, None)
        for name, st in list(index.sessions.items()):
            if st.version is None or stored.get(name) != st.version:
                index.drop_session(name)
        self.loads += 1
        self._saved[tenant, model] = index.alive_count
        return index

    async def _save(self, vectors: VectorStore, tenant: str, model: str,
                    index: TenantIndex) -> None:
        """Save the index in the background when it has grown enough since the last save
        (what is saved is copied first, so later writes do not reach it)."""
        alive = index.alive_count
        key = (tenant, model)
        if self.saved_in is None or alive < SAVE_FROM \
                or alive < _SAVE_GROWTH * self._saved.get(key, 0):
            return
        self._saved[key] = alive
        arrays, facts = index.state()
        lineage = await vectors.lineage()
        task = asyncio.create_task(asyncio.to_thread(
            self._write, self.saved_in, tenant, model, lineage, arrays, facts))
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    def _write(self, saved_in: str | Path, tenant: str, model: str, lineage: str,
               arrays: dict[str, np.ndarray], facts: dict[str, object]) -> None:
        try:
            _snapshot.save(saved_in, tenant, model, lineage, arrays, facts)
            self.saves += 1
        except OSError as exc:  # a full disk: the index is read from the store next time
            log.warning("could not save the search index of tenant %r: %s", tenant, exc)

    async def saved(self) -> None:
        """Wait for the saves under way."""
        while self._saving:
            await asyncio.gather(*list(self._saving))

    def _evict(self, keep: tuple[str, str]) -> None:
        total = self.nbytes
        for key in list(self._indexes):
            if total <= self.max_bytes:
                break
            if key != keep:
                total -= self._indexes.pop(key).nbytes


class _Sync:
    def __init__(self, vectors: VectorStore, index: TenantIndex, tenant: str, model: str,
                 owner: LiveIndexes) -> None:
        self.vectors = vectors
        self.index = index
        self.tenant = tenant
        self.model = model
        self.owner = owner
        self.width = 2 * index.dim  # a stored vector: the own-text one, then the keyed one

    async def run(self, versions: dict[str, int], whole: bool) -> int:
        """Bring the index up to ``versions``; the number of messages read from the store."""
        index = self.index
        read = 0
        fresh = [s for s in versions if s not in index.sessions
                 or index.sessions[s].version is None]
        moved = [s for s in versions if s not in fresh
                 and index.sessions[s].version != versions[s]]
        if whole:
            moved += [name for name, st in index.sessions.items()
                      if name not in versions and st.alive]
        for lo in range(0, len(fresh), _READ_SESSIONS):
            # A few hundred sessions at a time: each session's rows and counts come from
            # one snapshot, and only one part's rows are alive while their terms are made.
            part = fresh[lo:lo + _READ_SESSIONS]
            changes = await self.vectors.hot_changes(self.tenant, part, self.model,
                                                     self.width, after=0, pending=[])
            read += len(changes.ids)
            await self._apply(changes, part, {})
            del changes
        if moved:
            pending: dict[int, int] = {}
            for name in moved:
                rows = index.session_rows(name)
                waiting = rows[~index.present[rows]]
                pending.update(zip(index.ids[waiting].tolist(), waiting.tolist(),
                                   strict=True))
            # Above the oldest of their newest ids: what a session already holds is skipped.
            after = min(index.sessions[s].last_id for s in moved)
            changes = await self.vectors.hot_changes(self.tenant, moved, self.model,
                                                     self.width, after=after,
                                                     pending=list(pending))
            read += len(changes.ids)
            await self._apply(changes, moved, pending)
        return read

    async def _apply(self, changes: HotChanges, asked: Sequence[str],
                     pending: dict[int, int]) -> None:
        index = self.index
        reload: list[str] = []
        for name in asked:
            mark = changes.marks.get(name)
            if mark is None:
                index.drop_session(name)
                continue
            st = index.session(name)
            if mark.cutoff > st.cutoff:
                rows = index.session_rows(name)
                index.remove(rows[index.ids[rows] <= mark.cutoff])
                st.cutoff = mark.cutoff
        if len(changes.ids) > _INLINE_ROWS:
            await asyncio.to_thread(self._append, changes)
        else:
            self._append(changes)
        found = [i for i in changes.vectors if i in pending]
        if found:
            stack = np.stack([changes.vectors[i] for i in found])
            index.set_vectors([pending[i] for i in found], stack[:, :index.dim],
                              stack[:, index.dim:])
        for name, mark in changes.marks.items():
            held = index.sessions.get(name)
            if held is None:
                continue
            if ((held.alive != mark.hot or held.embedded != mark.embedded)
                    and not await self._repair(name)):
                reload.append(name)
                continue
            held.version = mark.version
        for name in dict.fromkeys(reload):
            await self._reload(name)

    def _append(self, changes: HotChanges) -> None:
        """Append the delta's new messages (those a session already holds are skipped; one
        missing below them shows in the counts)."""
        index, dim = self.index, self.index.dim
        keep = [i for i, (name, mid) in enumerate(zip(changes.sessions, changes.ids,
                                                      strict=True))
                if name not in index.sessions or mid > index.sessions[name].last_id]
        if not keep:
            return
        if len(keep) < len(changes.ids):
            pick = np.asarray(keep, dtype=np.int64)
            matrix, embedded = changes.matrix[pick], changes.embedded[pick]
        else:
            matrix, embedded = changes.matrix, changes.embedded
        index.reserve(len(keep))
        # In parts: the words of a part are tokenised, counted and freed before the next
        # part's, so a large read never holds every message's tokens at once (the freed
        # small objects would leave the allocator's pools pinned by the few terms kept).
        for lo in range(0, len(keep), _APPEND_PART):
            part = keep[lo:lo + _APPEND_PART]
            hi = lo + len(part)
            index.append([changes.sessions[i] for i in part], [changes.ids[i] for i in part],
                         [changes.contents[i] for i in part],
                         [changes.senders[i] for i in part], [changes.ats[i] for i in part],
                         matrix[lo:hi, :dim], matrix[lo:hi, dim:], embedded[lo:hi])

    async def _repair(self, name: str) -> bool:
        """Bring a session whose counts disagree in line from its hot ids and vector flags:
        remove what left (the message after a forgotten one also loses its vector: it was
        embedded after the forgotten text), clear vectors that went, fetch those that came.
        False when the store holds a message the index never saw (reload the session)."""
        self.owner.repairs += 1
        index = self.index
        ids, flags = await self.vectors.hot_ids(self.tenant, name, self.model, self.width)
        rows = index.session_rows(name)
        have = index.ids[rows]
        stored = np.asarray(ids, dtype=np.int64)
        if not np.isin(stored, have).all():
            return False
        left = ~np.isin(have, stored)
        if left.any():
            after = [int(index.next[r]) for r in rows[left]]
            index.remove(rows[left])
            index.clear_vectors([r for r in after if r >= 0 and index.alive[r]])
        rows = index.session_rows(name)
        embedded = np.asarray(flags, dtype=np.bool_)
        index.clear_vectors(rows[index.present[rows] & ~embedded].tolist())
        wanted = rows[~index.present[rows] & embedded]
        if wanted.shape[0]:
            pending = dict(zip(index.ids[wanted].tolist(), wanted.tolist(), strict=True))
            changes = await self.vectors.hot_changes(
                self.tenant, [name], self.model, self.width,
                after=index.sessions[name].last_id, pending=list(pending))
            found = [i for i in changes.vectors if i in pending]
            if found:
                stack = np.stack([changes.vectors[i] for i in found])
                index.set_vectors([pending[i] for i in found], stack[:, :index.dim],
                                  stack[:, index.dim:])
        return True

    async def _reload(self, name: str) -> None:
        self.owner.reloads += 1
        index = self.index
        index.drop_session(name)
        index.sessions[name].last_id = 0
        index.sessions[name].cutoff = 0
        changes = await self.vectors.hot_changes(self.tenant, [name], self.model, self.width,
                                                 after=0, pending=[])
        mark = changes.marks.get(name)
        self._append(changes)
        if mark is not None:
            index.sessions[name].cutoff = mark.cutoff
            index.sessions[name].version = mark.version
