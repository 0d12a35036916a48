"""The storage seam: every protocol a backend implements, and nothing more.

A backend is one :class:`Store`: messages, sessions and summaries on the object itself, and
four parts beside them: ``vectors`` (the indexer's queue and the hot tier's embeddings),
``runs`` (summary progress, leases between workers and failure back-off), ``errors`` (the
error memory's records) and ``api_keys`` (the HTTP service's API keys, stored hashed). Every
method of the first four takes the tenant explicitly and scopes its SQL by it (a key is what
names a tenant, so key lookups go by key id); the values that cross the seam live in
:mod:`memstrata.types`. The SQLite backend implements all of it; any other backend is correct
when it passes ``memstrata.testing``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from .._compaction import CompactionPolicy
from ..types import (
    ApiKey,
    Claimed,
    Draft,
    ErrorQuery,
    ErrorRecord,
    HotChanges,
    HotSession,
    KeywordRow,
    Message,
    RunState,
    SessionInfo,
    SessionRow,
    Summary,
    Vectors,
)

__all__ = ["ErrorStore", "KeyStore", "MessageStore", "RunStore", "Store", "VectorStore"]


class MessageStore(Protocol):
    """Messages, sessions and summaries: the archive, the window and the hot tier."""

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

    async def keys(self, tenant: str, message_ids: Sequence[int]) -> dict[int, str]:
        """The idempotency keys of those of ``message_ids`` that were stored with one (what an
        export writes, so importing it twice stores each message once)."""
        ...

    async def count_between(self, tenant: str, session: str, after: int, before: int) -> int:
        """How many of the session's messages have ``after < id < before``."""
        ...

    async def around(self, tenant: str, message_ids: Sequence[int], before: int,
                     after: int) -> dict[int, list[Message]]:
        """For each id, the run of its session's messages from ``before`` earlier to
        ``after`` later, oldest first (only ids that exist appear)."""
        ...

    async def keyword(self, tenant: str, session: str | None, match: str | None, raw: str, *,
                      since: int | None, limit: int) -> list[KeywordRow]:
        """Full-text hits for ``match`` (``text.fts_match_expression``: whole words, stemmed)
        over the whole archive, hot tier included, plus the hot messages holding one of the
        literals of the query ``raw`` (``text.query_literals``: its identifiers, lone CJK
        characters, or a query of symbols only) as a case-insensitive substring, without
        duplicates. A query of plain words scans nothing: a word never matches inside
        another word, in any tier."""
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
        """Delete the session's messages (and its summary unless ``keep_summary``) and end
        any summary lease on the session, so a run in flight cannot save over the delete."""
        ...

    async def remove_session(self, tenant: str, session: str) -> bool: ...

    async def forget(self, tenant: str, message_id: int) -> bool: ...

    async def import_session(self, tenant: str, session: str, drafts: Sequence[Draft],
                             summary_for: Callable[[list[int]], Summary | None] | None,
                             *, now: int, policy: CompactionPolicy,
                             index: bool = False) -> list[int]:
        """Append ``drafts`` and store ``summary_for(ids)`` in one transaction; the id of
        each draft's message (a stored one for a key the session holds), in draft order.

        An import may be large: ``drafts`` may make each draft when it is read, and a store
        should read and write them a part at a time rather than hold them all as objects."""
        ...

    async def purge_idle(self, prefix: str, idle_before: int) -> list[tuple[str, str]]:
        """Remove every session (all tenants) whose id starts with ``prefix`` and whose last
        write is older than ``idle_before``; return the (tenant, session) pairs removed."""
        ...

    async def integrity_check(self) -> list[str]:
        """Problems found by SQLite's and FTS5's own checks (empty when healthy)."""
        ...

    async def tidy_keyword_index(self, seconds: float = 1.0) -> bool:
        """Upkeep of the full-text index for about ``seconds`` (the sweeper runs it): what
        keeps keyword search in a session as fast in a large database as in a small one.
        ``True`` when work remains."""
        ...


class VectorStore(Protocol):
    """The indexer's queue and the vectors of hot messages.

    Every vector change (stored, dropped by compaction, forget, reset or re-index) replaces the
    session's vector version in the same transaction, so search caches can tell they are stale.
    """

    async def claim(self, worker: str, *, tenant: str | None, limit: int, now: int,
                    stale_before: int) -> list[Claimed]:
        """Claim up to ``limit`` queued messages, oldest first, for ``worker`` (a token that
        names one batch); a claim made before ``stale_before`` may be taken over (its indexer
        is presumed dead)."""
        ...

    async def put(self, worker: str, model: str, dim: int,
                  items: Sequence[tuple[int, bytes]], *, tried: bool = True) -> int:
        """Store vectors only for messages still claimed by ``worker`` (and so still present
        and hot), release its other claims, and return how many were stored. The released
        claims count an attempt unless ``tried`` is false (a batch cut short)."""
        ...

    async def release(self, worker: str) -> None:
        """Give ``worker``'s claimed batch back to the queue."""
        ...

    async def claimants(self, tenant: str | None) -> list[str]:
        """The claim tokens holding queued messages of the tenant (every tenant for
        ``None``), each once, sorted: where the indexer looks for a dead worker's batches."""
        ...

    async def unclaim(self, tenant: str | None, worker: str, *, below_attempts: int) -> int:
        """Give back every queued message of the tenant (every tenant for ``None``) claimed
        by ``worker`` that has had fewer than ``below_attempts`` attempts, however recent the
        claim (its indexer is known to be dead), counting an attempt; other claims, and
        messages tried that often, are left alone (their claim goes stale with time). Returns
        how many were given back."""
        ...

    async def queue_unindexed(self, tenant: str | None, *, span: int) -> tuple[int, bool]:
        """Queue the hot messages of the tenant (every tenant for ``None``) that have neither a
        vector nor a place in the queue (written while no embedder was indexing), looking only
        above the tenant's mark and at no more than ``span`` ids per call; move the mark past
        what was looked at. Returns how many were queued and whether the mark reached the
        newest message. Appending never has to do this work."""
        ...

    async def backlog(self, tenant: str, session: str | None = None) -> int:
        """Queued messages of the tenant (or of one session)."""
        ...

    async def backlog_all(self) -> int:
        """Queued messages of every tenant."""
        ...

    async def lineage(self) -> str:
        """What names this database among all others, for as long as it lives: files of
        the search index saved beside it are used only while their lineage equals this
        (a copy of the file shares it, since it holds the same history up to the copy)."""
        ...

    async def versions(self, tenant: str, session: str | None) -> dict[str, int]:
        """Vector versions of one session, or of every session of the tenant with vectors."""
        ...

    async def load_hot(self, tenant: str, session: str, model: str, dim: int) -> HotSession:
        """The session's hot messages with their vectors of ``model``, read in one snapshot
        together with the version they belong to."""
        ...

    async def hot_changes(self, tenant: str, sessions: Sequence[str] | None, model: str,
                          dim: int, *, after: int, pending: Sequence[int]) -> HotChanges:
        """In one snapshot: the marks of ``sessions`` (every session of the tenant for
        ``None``), their hot messages with ids above ``after`` (with their vectors of
        ``model``), and the vectors of ``model`` now stored for the ``pending`` ids."""
        ...

    async def hot_ids(self, tenant: str, session: str, model: str,
                      dim: int) -> tuple[list[int], list[bool]]:
        """The session's hot message ids in order, and whether each has a vector of
        ``model`` (what a delta cannot tell: which messages left or lost their vector)."""
        ...

    async def other_model_count(self, tenant: str, model: str) -> int:
        """Vectors of the tenant made by a model other than ``model``."""
        ...

    async def requeue(self, tenant: str) -> int:
        """Drop the tenant's vectors and queue every hot message again; return the backlog.
        Batches claimed before it lapse: storing them afterwards stores nothing."""
        ...


class RunStore(Protocol):
    """Summary progress, leases between workers, and back-off after failures."""

    async def save(self, tenant: str, session: str, *, kind: str, body: dict[str, object],
                   cursor: int, now: int, tokens_in: int, tokens_out: int,
                   owner: str | None, lease_until: int | None = None) -> bool:
        """Store the summary and its cursor in one transaction, adding to the token totals,
        but only when the fence holds in that same transaction: ``owner`` still holds the
        session's lease (the lease row names it, whether or not its time has passed: nobody
        took it over) and the stored cursor is not ahead of ``cursor`` (a cursor never
        moves back). ``owner=None`` says no lease is involved (an import, a tool writing a
        summary directly): only the cursor rule applies. With an ``owner``, ``lease_until``
        renews its lease in the same transaction, so a long run keeps it.

        Returns ``True`` when saved, ``False`` when the fence refused the save and nothing at
        all was written (no summary, no tokens, no renewal). A cursor that reaches the point
        at which the turns policy flagged the session (see ``flagged``) clears the flag in
        the same transaction."""
        ...

    async def add_tokens(self, tenant: str, session: str, tokens_in: int,
                         tokens_out: int) -> None:
        """Count tokens spent outside a save; only a session with a summary keeps a tally."""
        ...

    async def lease(self, tenant: str, session: str, owner: str, *, now: int,
                    until: int) -> bool:
        """Take or renew the session's lease until ``until``; ``False`` while another owner
        holds a lease that has not expired."""
        ...

    async def release(self, tenant: str, session: str, owner: str) -> None:
        """Drop ``owner``'s lease (a lease held by someone else is left alone)."""
        ...

    async def lease_holder(self, tenant: str, session: str) -> str | None:
        """The owner named on the session's lease, expired or not; ``None`` when nobody holds
        it. A worker that finds the holder dead drops its lease with ``release(tenant,
        session, holder)``, which leaves a lease taken by anyone else since alone."""
        ...

    async def failed(self, tenant: str, session: str, error: str, *, now: int,
                     retry_at_for: Callable[[int, int], int]) -> int:
        """Count a failed run and return the failures in a row; ``retry_at_for(failures,
        now)`` says when the session may be tried again."""
        ...

    async def succeeded(self, tenant: str, session: str) -> None:
        """Clear the session's failures and back-off."""
        ...

    async def state(self, tenant: str, session: str) -> RunState: ...

    async def due(self, tenant: str | None, *, now: int,
                  limit: int = 1000) -> list[tuple[str, str]]:
        """(tenant, session) pairs with messages after their cursor that are not backed off
        (every tenant when ``tenant`` is ``None``)."""
        ...

    async def flagged(self, tenant: str | None, *, now: int,
                      limit: int = 1000) -> list[tuple[str, str]]:
        """(tenant, session) pairs whose cutoff the turns policy moved (which asks for a
        summary run) and whose summary has not yet reached that cutoff; not backed off, not
        ``temp-`` sessions (every tenant when ``tenant`` is ``None``)."""
        ...


class ErrorStore(Protocol):
    """What error memory asks of a database. Every method is scoped to ``tenant`` and treats
    records with ``expires_at <= now`` as absent."""

    async def insert(self, tenant: str, record: ErrorRecord, *, search_text: str,
                     vector: Vectors | None, model_id: str | None) -> None: ...

    async def search(self, query: ErrorQuery) -> list[ErrorRecord]:
        """Semantic hits (or, when none, keyword hits), best first; returned records are
        renewed (``hits + 1``, ``expires_at = renew_until``) in the same transaction."""
        ...

    async def by_prefix(self, tenant: str, prefix: str, *, now: int,
                        limit: int) -> list[ErrorRecord]: ...

    async def all(self, tenant: str, *, tool: str | None, now: int) -> list[ErrorRecord]: ...

    async def delete(self, tenant: str, prefix: str, *, now: int, limit: int) -> list[str]:
        """The ids matching ``prefix``; the record is deleted only when there is exactly one."""
        ...

    async def sweep(self, tenant: str, *, now: int) -> int: ...


class KeyStore(Protocol):
    """The API keys of the HTTP service. A key is stored as its id and the SHA-256 of its
    secret, never in the clear; comparing a presented secret is the caller's job."""

    async def insert(self, key: ApiKey, *, secret_hash: bytes) -> None:
        """Store a new key; ``InvalidInput`` (field ``id``) when its id is already taken."""
        ...

    async def get(self, key_id: str) -> tuple[ApiKey, bytes] | None:
        """The key with this id and its stored secret hash (revoked keys too), or ``None``."""
        ...

    async def all(self, tenant: str | None = None) -> list[ApiKey]:
        """Every key (of one tenant, or of all for ``None``), oldest first, revoked included."""
        ...

    async def revoke(self, key_id: str, *, now: int) -> ApiKey | None:
        """Mark the key revoked at ``now`` (a key revoked before keeps its first time);
        ``None`` when there is no such key."""
        ...

    async def count_active(self) -> int:
        """How many keys, of every tenant, are not revoked."""
        ...

    async def usage(self, tenant: str) -> tuple[int, int]:
        """How many messages ``tenant`` holds and their stored size in bytes (for quotas)."""
        ...

    async def ping(self) -> None:
        """Read the database once, as cheaply as it can be read (a readiness check); raises
        ``StoreError`` when it cannot."""
        ...


class Store(MessageStore, Protocol):
    """A memstrata database: messages and sessions, plus its vector, run, error and key parts.
    Methods are coroutine functions; SQL never leaves the backend."""

    @property
    def vectors(self) -> VectorStore: ...

    @property
    def runs(self) -> RunStore: ...

    @property
    def errors(self) -> ErrorStore: ...

    @property
    def api_keys(self) -> KeyStore: ...

    async def close(self) -> None: ...
