"""The indexers of one process's tenants, served in turn by one background loop.

Each tenant has its own :class:`~memstrata.search.Indexer` (its own queue in the store). When
every tenant ran its own loop, they raced for the one model: a tenant with 8,000 messages to
embed kept two batches in flight at all times and another tenant's single new message waited
behind whichever batches won. Here one loop gives the tenants with work a turn each, round
robin: a turn is at most two batches of one tenant, so a tenant's new message waits for at most
one turn of each other tenant with a backlog, however large that backlog is.

A tenant has work when it was woken (a write, a re-index: :meth:`Indexer.nudge`) or its last
turn stored something. When none has, the loop sleeps until a wake-up, or for the poll
interval, after which every tenant is looked at again (another process may have written). A
tenant whose embedder failed waits out its back-off (``Indexer.retry_at``) while the others go
on.
"""

from __future__ import annotations

import asyncio
import time

from .._background import Background, until_stopped
from ._indexer import Indexer

__all__ = ["IndexTurns"]

_IDLE_POLL_S = 1.0


class IndexTurns:
    """One background loop that serves every joined indexer in turn."""

    def __init__(self, *, poll_s: float = _IDLE_POLL_S) -> None:
        self._ring: list[Indexer] = []
        self._next = 0
        self._due: set[Indexer] = set()
        self._poll_s = poll_s
        self.bell = asyncio.Event()
        self._background: Background | None = None
        self._current: tuple[Indexer, asyncio.Future[int]] | None = None
        self.served: list[str | None] = []
        """The tenants given a turn that did work, oldest first (the last 256)."""

    @property
    def indexers(self) -> list[Indexer]:
        """The joined indexers, in the order of their turns."""
        return list(self._ring)

    def add(self, indexer: Indexer) -> None:
        """Serve ``indexer`` from its next turn on (without starting the loop)."""
        if indexer not in self._ring:
            self._ring.append(indexer)
            indexer.bell = self.bell
            self._due.add(indexer)  # a backlog left from an earlier run is looked at
            self.bell.set()

    def join(self, indexer: Indexer) -> None:
        """Serve ``indexer``, starting the background loop if it is not running (call from a
        running event loop)."""
        self.add(indexer)
        if self._background is None:
            self._background = Background()
            self._background.start("memstrata-indexer", self.run)

    async def leave(self, indexer: Indexer, timeout: float) -> list[str]:
        """Stop serving ``indexer`` (its turn in progress, if any, is cut short and its batch
        handed back); the loop stops, within ``timeout`` seconds, when none is left. Returns
        the names of tasks that overstayed."""
        if indexer in self._ring:
            at = self._ring.index(indexer)
            self._ring.remove(indexer)
            if at < self._next:
                self._next -= 1
            self._due.discard(indexer)
            indexer.bell = None
        if self._current is not None and self._current[0] is indexer:
            self._current[1].cancel()
        if self._ring or self._background is None:
            return []
        background, self._background = self._background, None
        return await background.close(timeout)

    def _pick(self) -> Indexer | None:
        """The next indexer in the ring with work and no back-off pending."""
        now = time.monotonic()
        for ix in self._ring:
            if ix.wake.is_set():
                self._due.add(ix)
        n = len(self._ring)
        for k in range(n):
            ix = self._ring[(self._next + k) % n]
            if ix in self._due and ix.retry_at <= now:
                self._next = (self._next + k + 1) % n
                return ix
        return None

    async def turn(self) -> int:
        """Give the next tenant with work one turn; returns how many messages it stored (0
        when no tenant had work, or the one served had none left)."""
        ix = self._pick()
        if ix is None:
            return 0
        work = asyncio.ensure_future(ix.turn())
        self._current = (ix, work)
        try:
            await asyncio.wait({work})
        except asyncio.CancelledError:
            work.cancel()
            raise
        finally:
            self._current = None
        done = 0 if work.cancelled() else work.result()
        if done == 0 and ix.retry_at <= time.monotonic():
            self._due.discard(ix)  # nothing left (a failing one stays, to retry)
        else:
            self.served = [*self.served[-255:], ix.tenant]
        return done

    def _has_work(self) -> bool:
        now = time.monotonic()
        return any((ix in self._due or ix.wake.is_set()) and ix.retry_at <= now
                   for ix in self._ring)

    def _next_retry(self) -> float | None:
        now = time.monotonic()
        waits = [ix.retry_at - now for ix in self._ring
                 if ix in self._due and ix.retry_at > now]
        return min(waits) if waits else None

    async def run(self, stop: asyncio.Event) -> None:
        """Serve turns while any tenant has work; otherwise sleep until woken or polled.
        Returns once ``stop`` is set."""
        polled = time.monotonic()
        while not stop.is_set():
            self.bell.clear()
            await self.turn()
            if time.monotonic() - polled >= self._poll_s:
                # Another process may have queued work for any tenant: look at each again.
                self._due.update(self._ring)
                polled = time.monotonic()
            if self._has_work():
                continue
            retry = self._next_retry()
            left = max(self._poll_s - (time.monotonic() - polled), 0.0)
            wait = left if retry is None else min(retry, left)
            await until_stopped(stop, asyncio.sleep(wait), self.bell.wait())
