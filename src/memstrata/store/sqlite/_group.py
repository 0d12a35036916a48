"""Group commit: the writes that arrive while the writer is busy share one transaction.

Each commit of a WAL database writes the transaction's pages and a commit frame to the log,
and that costs far more than inserting one message. When many callers add at once (a service
with many clients), the adds that queued behind the transaction in progress are run together
in the next one: each in a savepoint of its own, so one that fails (a conflicting idempotency
key, a message the store refuses) is undone alone and its caller gets its error, while the
others commit. Every caller is answered only after the commit that holds its write, so an
acknowledged write is as durable as before. A write that fails with a database error (a full
disk, a damaged file) may have ended the whole transaction, so the group is rolled back and
each of its writes runs again alone, in a transaction of its own, as it would have without
grouping: its caller gets exactly the outcome it would have had.

The first write of a quiet moment runs alone at once; nothing waits for company.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["GROUP_MAX", "WriteGroups"]

T = TypeVar("T")

GROUP_MAX = 64
"""The most writes one transaction takes (a bound on what one failure makes run again)."""

Runner = Callable[[Callable[[sqlite3.Connection], Any]], Awaitable[Any]]


@dataclass(slots=True)
class _Member:
    fn: Callable[[sqlite3.Connection], Any]
    answer: asyncio.Future[Any]


Outcomes = list[tuple[bool, Any]]
"""What ran in one transaction: for each write, ``(True, its value)`` or ``(False, the error
it raised)`` (a caller's mistake, undone alone through its savepoint)."""


class _DatabaseFailed(Exception):
    """A write of the group failed in the database: the group is undone, and run again one
    write at a time."""


class _Group:
    """The group's writes on the connection's thread, each in a savepoint, inside the
    transaction the caller (``Connection``) begins and commits."""

    def __init__(self, fns: list[Callable[[sqlite3.Connection], Any]]) -> None:
        self._fns = fns

    def __call__(self, c: sqlite3.Connection) -> Outcomes:
        done: Outcomes = []
        for fn in self._fns:
            c.execute("SAVEPOINT grouped_write")
            try:
                value = fn(c)
            except sqlite3.Error as exc:
                raise _DatabaseFailed from exc
            except Exception as exc:  # the caller's error: undo this write only
                c.execute("ROLLBACK TO grouped_write")
                c.execute("RELEASE grouped_write")
                done.append((False, exc))
                continue
            c.execute("RELEASE grouped_write")
            done.append((True, value))
        return done


class WriteGroups:
    """Queues the writes of one connection and runs them in groups (see the module).

    ``together(group)`` runs a group in one write transaction and returns its outcomes (it
    raises when the transaction itself failed); ``alone(fn)`` runs one write in its own
    transaction, as a write without grouping does."""

    def __init__(self, together: Runner, alone: Runner) -> None:
        self._together = together
        self._alone = alone
        self._waiting: list[_Member] = []
        self._flusher: asyncio.Task[None] | None = None

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn``'s value once the transaction holding it has committed."""
        answer: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Member(fn, answer))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="memstrata-write-groups")
        # A caller that stops waiting does not take its write back: it runs (as a write
        # already handed to the connection's thread would).
        return await answer

    async def drain(self) -> None:
        """Wait until every queued write has run (before the connection closes)."""
        while self._flusher is not None and not self._flusher.done():
            await asyncio.wait([self._flusher])  # its outcome is its callers' to see

    async def _flush(self) -> None:
        try:
            while self._waiting:
                group, self._waiting = self._waiting[:GROUP_MAX], self._waiting[GROUP_MAX:]
                if len(group) == 1:
                    await self._one(group[0])
                else:
                    await self._many(group)
        finally:
            # Only when the flush itself is cancelled (the loop is ending) is anyone left.
            for member in self._waiting:
                member.answer.cancel()
            self._waiting = []

    async def _many(self, group: list[_Member]) -> None:
        try:
            ran: Outcomes = await self._together(_Group([m.fn for m in group]))
        except _DatabaseFailed:
            for member in group:
                await self._one(member)
            return
        except BaseException as exc:  # BEGIN, the file check or COMMIT failed (nothing of
            # the group was written), or the flush itself was cancelled
            for member in group:
                _settle(member.answer, False, exc)
            if not isinstance(exc, Exception):
                raise
            return
        for member, (ok, value) in zip(group, ran, strict=True):
            _settle(member.answer, ok, value)

    async def _one(self, member: _Member) -> None:
        try:
            value = await self._alone(member.fn)
        except BaseException as exc:
            _settle(member.answer, False, exc)
            if not isinstance(exc, Exception):
                raise
        else:
            _settle(member.answer, True, value)


def _settle(answer: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if answer.done():  # its caller stopped waiting
        return
    if ok:
        answer.set_result(value)
    elif isinstance(value, asyncio.CancelledError):
        answer.cancel()
    else:
        answer.set_exception(value)
