"""The Store protocol: everything memstrata asks of a database, and nothing more.

Every method takes the tenant explicitly and scopes its SQL by it. The SQLite store implements
this; other backends (PostgreSQL) must pass ``memstrata.testing`` to be correct.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..compaction import CompactionPolicy
from ..types import Draft, Message, SessionInfo, Summary

__all__ = ["KeywordRow", "SessionRow", "Store"]


@dataclass(frozen=True, kw_only=True, slots=True)
class KeywordRow:
    message: Message
    bm25: float
    """FTS5 relevance (larger is better); 0.0 when only the substring scan found it."""
    exact: bool
    """The message contains the whole query (case-insensitive)."""
    hot: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionRow:
    id: str
    messages: int
    hot_messages: int
    hot_bytes: int
    cutoff: int
    first_at: int | None
    last_at: int | None
    active_at: int
    summary_due: bool


class Store(Protocol):
    """A memstrata database. Methods are coroutine functions; SQL never leaves the store."""

    async def close(self) -> None: ...

    async def append(self, tenant: str, session: str, drafts: Sequence[Draft], *, now: int,
                     policy: CompactionPolicy, index: bool = False) -> list[Message]:
        """Commit ``drafts`` in one transaction (all or nothing), then apply ``policy``.

        A draft whose idempotency key is already stored yields the stored message instead.
        With ``index``, the new messages join the indexer's queue in the same transaction.
        """
        ...

    async def recent(self, tenant: str, session: str, n: int) -> list[Message]:
        """The newest ``n`` messages, oldest first."""
        ...

    async def window_and_summary(self, tenant: str, session: str,
                                 n: int) -> tuple[list[Message], Summary | None]:
        """``recent`` and ``get_summary`` read from one snapshot."""
        ...

    async def get_summary(self, tenant: str, session: str) -> Summary | None: ...

    async def put_summary(self, tenant: str, summary: Summary) -> None: ...

    async def get_message(self, tenant: str, message_id: int) -> Message | None: ...

    async def around(self, tenant: str, message_ids: Sequence[int], before: int,
                     after: int) -> dict[int, list[Message]]:
        """For each id, the run of its session's messages from ``before`` earlier to
        ``after`` later, oldest first (only ids that exist appear)."""
        ...

    async def keyword(self, tenant: str, session: str | None, match: str | None, raw: str, *,
                      since: int | None, limit: int) -> list[KeywordRow]:
        """FTS5 hits for ``match`` over the archive plus substring hits of ``raw`` over the
        hot tier, without duplicates."""
        ...

    async def page(self, tenant: str, session: str | None, *, since: int | None,
                   before_id: int | None, limit: int) -> list[Message]:
        """Messages newest first, older than ``before_id``, at or after ``since``."""
        ...

    async def after_cursor(self, tenant: str, session: str, cursor: int | None,
                           upto: int | None = None, limit: int | None = None) -> list[Message]:
        """Messages with ``cursor < id <= upto``, oldest first, at most ``limit``."""
        ...

    async def session(self, tenant: str, session: str) -> SessionRow | None: ...

    async def sessions(self, tenant: str, *, include_temp: bool = False) -> list[SessionInfo]:
        """Sessions, newest activity first."""
        ...

    async def delete_messages(self, tenant: str, session: str, *, keep_summary: bool) -> int:
        """Delete the session's messages (and its summary unless ``keep_summary``)."""
        ...

    async def remove_session(self, tenant: str, session: str) -> bool: ...

    async def forget(self, tenant: str, message_id: int) -> bool: ...

    async def import_session(self, tenant: str, session: str, drafts: Sequence[Draft],
                             summary_for: Callable[[list[Message]], Summary | None] | None,
                             *, now: int, policy: CompactionPolicy,
                             index: bool = False) -> list[Message]:
        """Append ``drafts`` and store ``summary_for(messages)`` in one transaction."""
        ...

    async def purge_idle(self, prefix: str, idle_before: int) -> list[tuple[str, str]]:
        """Remove every session (all tenants) whose id starts with ``prefix`` and whose last
        write is older than ``idle_before``; return the (tenant, session) pairs removed."""
        ...

    async def integrity_check(self) -> list[str]:
        """Problems found by SQLite's and FTS5's own checks (empty when healthy)."""
        ...
