"""The facade: ``Memory`` wires validation, the store and the pure steps together.

It holds no SQL and no formatting of its own: ``_ingest`` validates, the store persists,
``search``, ``summary`` and ``_context`` compute, and this module decides the order.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from functools import partial
from types import TracebackType
from typing import Any

from ._background import Background, pause
from ._context import Context, check_new_input, pack
from ._ingest import (
    check_message_id,
    check_session,
    check_span,
    check_tenant,
    draft,
    draft_item,
    is_temp,
)
from ._opening import UNSET, Opening, Unset, choose_models
from ._transfer import Transfer
from .config import Settings
from .errormem import ErrorMemory
from .errors import Closed, InvalidInput, NotFound, StoreError
from .providers import LLM, Embedder, children_of, foreground
from .search import (
    MATCH_MODES,
    CachedIndex,
    Indexer,
    IndexTurns,
    LiveIndexes,
    Searcher,
    VectorCache,
    check_limit,
    since,
)
from .store import Store, check_target, open_store
from .summary import CronRunner, SummaryRunner
from .tools import Tools
from .types import (
    Draft,
    Hit,
    MatchMode,
    Message,
    ResetMode,
    Role,
    SessionInfo,
    SessionStats,
    Summary,
    TimeRange,
)

__all__ = ["CLOSE_TIMEOUT_S", "Clock", "Memory", "stop_children"]

Clock = Callable[[], int]
"""Returns the current UTC time in nanoseconds (injectable for tests and imports)."""

CLOSE_TIMEOUT_S = 10.0
"""How long ``close()`` waits for background work before leaving it behind."""
_SWEEP_INTERVAL_S = 60.0
# Up to this many items a batch is checked on the event loop (a thread hop costs more).
_CHECK_ON_LOOP = 256


async def stop_children(embedder: Embedder | None) -> None:
    """Stop the embedder's child processes, if it has any (each within a bound)."""
    children = children_of(embedder)
    if children is not None:
        await asyncio.to_thread(children.close)


class Memory:
    """Layered conversation memory for one tenant of one database.

    Open with ``mem = await Memory.open(path)`` or ``async with Memory.open(path) as mem``
    (without asyncio: ``SyncMemory.open(path)``). Write with ``add``/``add_many``; before each
    model call read ``context(session)``; look back with ``search``, ``recent`` and ``read``;
    ``mem.errors`` is the tenant's memory of tool errors, ``mem.tools(session)`` the tools a
    model can call; ``close()`` when done.
    """

    def __init__(self, store: Store, settings: Settings, *, tenant: str, clock: Clock,
                 embedder: Embedder | None = None, llm: LLM | None = None,
                 decision_llm: LLM | None = None, owns_store: bool = True) -> None:
        """Wires parts that are already built and opened; a memory is not made this way:
        use ``Memory.open(...)``, which builds them from the settings."""
        self._store = store
        self.settings = settings
        self.tenant = tenant
        self._clock = clock
        self._policy = settings.compaction()
        self._background = Background()
        self._closed = False
        # A Memory that shares another's store (``sibling``) must not close it.
        self._owns_store = owns_store
        self.embedder = embedder
        self._llm = llm
        self._decision_llm = decision_llm
        self._cache: VectorCache[CachedIndex] = VectorCache(settings.vector_cache_mb * 2**20)
        # A SQLite file keeps the tenants' search indexes beside it (``<file>.index/``), so a
        # process that just started need not read every hot message again.
        path = getattr(store, "path", None)
        saved_in = (f"{path}.index" if isinstance(path, str) and path != ":memory:"
                    and not path.startswith("file:") else None)
        self._live_indexes = LiveIndexes(settings.vector_cache_mb * 2**20, saved_in=saved_in)
        self._searcher = self._make_searcher()
        self._indexer = (Indexer(store.vectors, embedder, tenant=tenant, clock=clock)
                         if embedder is not None else None)
        # The loop that indexes, shared by siblings so their tenants are served in turn.
        self._turns = IndexTurns()
        self._runner = SummaryRunner(store, settings, llm=llm, decision_llm=decision_llm,
                                     clock=clock)
        self._transfer = Transfer(store, max_chars=settings.max_content_chars,
                                  policy=self._policy, clock=clock)
        self._errors = ErrorMemory(store.errors, tenant=tenant, settings=settings,
                                   embedder=embedder, clock=clock)

    @property
    def errors(self) -> ErrorMemory:
        """The tenant's cross-session memory of tool errors and how they were handled
        (``write``, ``search``, ``hint``, ``read``, ``list``, ``delete``)."""
        return self._errors

    def _make_searcher(self) -> Searcher:
        vectors = self._store.vectors if self.embedder is not None else None
        return Searcher(self._store, vectors, self.embedder, self._cache, self.settings,
                        self.tenant, self._live_indexes)

    # -- lifecycle -------------------------------------------------------------------------

    @classmethod
    def open(cls, target: str = "memory.db", *, settings: Settings | None = None,
             tenant: str = "default", background: bool = True,
             embedder: Embedder | Unset | None = UNSET,
             llm: LLM | Unset | None = UNSET, decision_llm: LLM | Unset | None = UNSET,
             clock: Clock | None = None) -> Opening[Memory]:
        """Open (creating if needed) a memory database: a path, ``sqlite:///…``, ``:memory:``
        or ``postgresql://…`` (with the ``postgres`` extra).

        ``embedder``, ``llm`` and ``decision_llm`` override ``settings.embedder``,
        ``summary_model`` and ``decision_model`` (``None``: none). The local model loads
        lazily, on the first embedding, never here. ``background=True`` starts the indexer,
        the sweepers and (with ``summary_cron``) the summary scheduler; ``close()`` stops them.
        """
        chosen = settings if settings is not None else Settings()
        if not isinstance(chosen, Settings):
            raise InvalidInput("settings", "must be a memstrata.Settings")
        target = check_target(str(target))  # refused here, before anything opens
        check_tenant(tenant)
        chosen_embedder, chosen_llm, chosen_decision = choose_models(chosen, embedder, llm,
                                                                     decision_llm)

        async def make() -> Memory:
            store = await open_store(target, durability=chosen.durability)
            mem = cls(store, chosen, tenant=tenant, clock=clock or time.time_ns,
                      embedder=chosen_embedder, llm=chosen_llm, decision_llm=chosen_decision)
            if background:
                mem._start_background()
            return mem

        return Opening(make)

    def sibling(self, tenant: str, *, background: bool = False) -> Memory:
        """A Memory for another tenant of the same database: it shares this one's store,
        settings, clock, models and search cache (so a model loads once for every tenant), and
        its indexing loop, which serves the tenants in turn.
        Its ``close()`` stops only its own background work and never closes the shared store,
        which stays open until the Memory that opened it closes. ``background=True`` starts
        its indexer, sweeper and scheduler (call it from a running event loop)."""
        self._live()
        check_tenant(tenant)
        mem = type(self)(self._store, self.settings, tenant=tenant, clock=self._clock,
                         embedder=self.embedder, llm=self._llm,
                         decision_llm=self._decision_llm, owns_store=False)
        mem._cache = self._cache  # entries are keyed by tenant, so one cache serves all
        mem._turns = self._turns  # one indexing loop serves every tenant in turn
        mem._live_indexes = self._live_indexes
        mem._searcher = mem._make_searcher()
        if background:
            mem._start_background()
        return mem

    async def close(self, *, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """Stop background work and close the database (unless this Memory is a ``sibling``
        sharing another's); safe to call twice. A summary tick in progress may finish; a task
        still running after ``timeout`` seconds is named in the log and left behind, so
        ``close()`` always returns."""
        if self._closed:
            return
        self._closed = True
        stopping = [self._background.close(timeout)]
        if self._indexer is not None:
            stopping.append(self._turns.leave(self._indexer, timeout))
        await asyncio.gather(*stopping)
        if self._owns_store:
            await stop_children(self.embedder)
            await self._store.close()

    async def __aenter__(self) -> Memory:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()

    def _live(self) -> None:
        if self._closed:
            raise Closed("this Memory is closed")

    def _session(self, session: str) -> str:
        self._live()
        return check_session(session)

    def _scope(self, session: str | None) -> None:
        """A session, or ``None`` for every session of the tenant."""
        self._live()
        if session is not None:
            check_session(session)

    def _start_background(self) -> None:
        self._background.start("memstrata-sweeper", self._sweep_loop)
        if self._indexer is not None:
            self._turns.join(self._indexer)
        if self.settings.summary_cron is not None:
            # Cron times are read off this Memory's clock (as leases and back-off are), not
            # the host's; only the sleeps between looks run on the event loop's time.
            cron = CronRunner(self.settings.summary_cron, self.summarize_due,
                              clock=lambda: self._clock() / 1e9,
                              timezone=self.settings.timezone)
            self._background.start("memstrata-scheduler", cron.run, interrupt=False)
        if self._policy.by_turns:
            # A summary run in progress may finish within close()'s bound, as a cron tick may.
            self._background.start("memstrata-turns-summary",
                                   partial(self._runner.run_flagged, self.tenant), interrupt=False)

    async def _sweep_loop(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            # A failed sweep must not kill the loop; the next tick tries again.
            with contextlib.suppress(Exception):
                await self.sweep()
            with contextlib.suppress(Exception):
                await self.errors.sweep()
            with contextlib.suppress(Exception):
                await self._store.tidy_keyword_index()
            await pause(stop, _SWEEP_INTERVAL_S)

    async def sweep(self) -> list[str]:
        """Purge ``temp-`` sessions idle for ``temp_idle_minutes`` (all strata, all tenants;
        every minute in the background); returns the ids purged in this tenant."""
        self._live()
        idle_before = self._clock() - self.settings.temp_idle_minutes * 60 * 10**9
        gone = await self._store.purge_idle("temp-", idle_before)
        for t, s in gone:
            self._searcher.uncache(t, s)
        return [s for t, s in gone if t == self.tenant]

    # -- writes ----------------------------------------------------------------------------

    async def add(self, session: str, role: Role, content: str | list[Any], *,
                  sender: str | None = None, at: int | None = None,
                  meta: Mapping[str, Any] | None = None, key: str | None = None) -> Message:
        """Store one message; when this returns, it is committed."""
        self._session(session)
        now = self._clock()
        d = draft(role, content, sender=sender, at=at, meta=meta, key=key, now=now,
                  max_chars=self.settings.max_content_chars)
        (message,) = await self._store.append(self.tenant, session, [d], now=now,
                                              policy=self._policy, index=self._indexing)
        self._wake_indexer()
        return message

    async def add_many(self, session: str, items: Iterable[Mapping[str, Any]]) -> list[Message]:
        """Store several messages atomically: all are committed, or none (on any bad item)."""
        self._session(session)
        now = self._clock()
        items = list(items)
        top = self.settings.max_content_chars

        def drafted() -> list[Draft]:
            return [draft_item(i, item, now=now, max_chars=top) for i, item in enumerate(items)]

        # A large batch is validated off the event loop, which other requests share.
        drafts = drafted() if len(items) <= _CHECK_ON_LOOP else await asyncio.to_thread(drafted)
        if not drafts:
            return []
        out = await self._store.append(self.tenant, session, drafts, now=now,
                                       policy=self._policy, index=self._indexing)
        self._wake_indexer()
        return out

    @property
    def _indexing(self) -> bool:
        return self._indexer is not None

    def _wake_indexer(self) -> None:
        if self._indexer is not None:
            self._indexer.nudge()

    async def flush(self, timeout: float | None = None) -> None:
        """Wait until every message written so far is indexed for semantic search.

        Raises ``ProviderError`` when the embedder fails, ``FlushTimeout`` (a
        ``TimeoutError``) when ``timeout`` seconds pass first, and ``Closed`` when the memory
        is closed meanwhile; never hangs on a broken embedder.
        """
        self._live()
        if self._indexer is not None:
            try:
                await self._indexer.drain(timeout)
            except StoreError:
                if self._closed:  # close() shut the database while this was waiting
                    raise Closed("this Memory was closed while flush() was waiting") from None
                raise

    async def index_backlog(self, session: str | None = None) -> int:
        """Messages of this tenant (or of one session) still waiting to be embedded (0 without
        an embedder)."""
        self._scope(session)
        return 0 if self._indexer is None else await self._indexer.backlog(session)

    async def reindex(self) -> int:
        """Drop this tenant's vectors and queue every hot message again (after changing the
        embedding model); returns how many are queued. ``flush()`` then rebuilds them."""
        self._live()
        if self._indexer is None:
            raise InvalidInput("embedder", "re-indexing needs an embedder; none is configured")
        return await self._indexer.requeue()

    async def forget(self, message_id: int) -> bool:
        """Remove one message from every stratum; ``False`` if no such message.

        A summary that already absorbed the message is not rewritten.
        """
        self._live()
        gone = await self._store.forget(self.tenant, check_message_id(message_id, "message_id"))
        self._wake_indexer()  # the next message is embedded again, after its new predecessor
        return gone

    # -- reads -----------------------------------------------------------------------------

    async def context(self, session: str, query: str | None = None) -> Context:
        """The window and summary to send before the new user input."""
        self._session(session)
        query = check_new_input(query)
        window, summary = await self._store.window_and_summary(
            self.tenant, session, self.settings.window_messages)
        behind = await self._unsummarized(session, window, summary)
        if summary is not None and query:
            summary = await self._runner.relevant(self.tenant, summary, query)
        return pack(session, window, summary, self.settings.timezone, behind)

    async def _unsummarized(self, session: str, window: list[Message],
                            summary: Summary | None) -> int:
        """How many messages older than the window no summary covers: all of them without a
        summary, those after its cursor with one (a summary without a cursor, e.g. imported,
        covers everything before the window)."""
        if len(window) < self.settings.window_messages:
            return 0  # the window holds the whole session
        first = window[0].id
        if summary is None:
            row = await self._store.session(self.tenant, session)
            return max(0, (row.messages if row is not None else 0) - len(window))
        if summary.cursor is None or summary.cursor >= first - 1:
            return 0
        return await self._store.count_between(self.tenant, session, summary.cursor, first)

    async def search(self, session: str | None, query: str, *, match: MatchMode | None = None,
                     time_range: TimeRange = "all", limit: int | None = None,
                     exclude_window: bool = True, min_score: float | None = None) -> list[Hit]:
        """Search one session (or, with ``session=None``, every session of the tenant).

        Semantic and hybrid hits need evidence: a score (``Hit.score``) of at least
        ``min_score`` (default ``settings.search_min_score``; -1 turns the floor off) or, in
        hybrid mode under the fusion, a query term in the message; when nothing qualifies the
        list is empty. Unset under the learned ranker, the floor is the best hit's (in hybrid
        mode lower the closer the best few hits come to the query in meaning) and the others
        need a share of its probability (docs/configuration.md).
        """
        self._scope(session)
        with foreground():  # background embedding holds back while a search runs
            return await self._searcher.search(session, query, match=match,
                                               time_range=time_range, limit=limit,
                                               exclude_window=exclude_window,
                                               now=self._clock(), min_score=min_score)

    def match_modes(self) -> list[str]:
        """The match modes this Memory can serve (semantic ones need an embedder)."""
        return list(MATCH_MODES) if self.embedder is not None else ["keyword"]

    async def read(self, message_id: int, *, before: int | None = None,
                   after: int | None = None) -> list[Message]:
        """A message with its neighbours in its session, oldest first (``NotFound`` if none)."""
        self._live()
        mid = check_message_id(message_id, "message_id")
        b = check_span(before, self.settings.expand_before, "before")
        a = check_span(after, self.settings.expand_after, "after")
        runs = await self._store.around(self.tenant, [mid], b, a)
        if mid not in runs:
            raise NotFound(f"no message with id {mid} in tenant {self.tenant!r}")
        return runs[mid]

    async def recent(self, session: str | None, *, time_range: TimeRange = "all",
                     limit: int | None = None, before_id: int | None = None) -> list[Message]:
        """Recent messages, newest first, paged by ``before_id`` (the ``list`` tool mode)."""
        self._scope(session)
        if before_id is not None:
            check_message_id(before_id, "before_id")
        return await self._store.page(self.tenant, session, since=since(time_range, self._clock()),
                                      before_id=before_id, limit=check_limit(limit, self.settings))

    async def message(self, message_id: int) -> Message | None:
        """One message by id, or ``None``."""
        self._live()
        return await self._store.get_message(self.tenant, check_message_id(message_id))

    # -- summary ---------------------------------------------------------------------------

    async def summarize(self, session: str) -> dict[str, Any] | None:
        """Bring the session's summary up to date; return the stored summary (or ``None``).

        With a summary model, every message after the cursor is merged in chunks (raises
        ``ProviderError`` when a chunk fails; the chunks before it stay saved). Without one,
        the summary is a digest of the messages between the cursor and the context window.
        """
        self._session(session)
        if is_temp(session):
            return None
        summary = await self._runner.summarize(self.tenant, session, include_window=False)
        return dict(summary.body) if summary is not None else None

    async def summary(self, session: str) -> Summary | None:
        """The session's stored summary with its kind, cursor, time and token totals, as it
        is now (nothing is summarised); ``None`` when it has none."""
        return await self._store.get_summary(self.tenant, self._session(session))

    async def summarize_due(self) -> int:
        """Summarise every session of the tenant that has messages after its cursor and is not
        backed off (what the scheduler does on each tick); returns how many this call
        summarised (not those another worker held, that failed, or had nothing to add)."""
        self._live()
        return await self._runner.tick(self.tenant)

    # -- sessions --------------------------------------------------------------------------

    async def sessions(self) -> list[SessionInfo]:
        """The tenant's sessions, newest activity first (``temp-`` sessions hidden)."""
        self._live()
        return await self._store.sessions(self.tenant)

    async def stats(self, session: str) -> SessionStats:
        """Counts, hot tier, cutoff, cursor and summary cost of one session, and what waits
        to be embedded in it and in the whole tenant."""
        self._session(session)
        row = await self._store.session(self.tenant, session)
        if row is None:
            raise NotFound(f"no session {session!r} in tenant {self.tenant!r}")
        summary = await self._store.get_summary(self.tenant, session)
        run = await self._store.runs.state(self.tenant, session)
        backlog = other = tenant = 0
        if self._indexer is not None:
            backlog = await self._indexer.backlog(session)
            tenant = await self._indexer.backlog()
            other = await self._indexer.other_model_vectors()
        return SessionStats.of(row, summary, run, backlog=backlog, other_model_vectors=other,
                               tenant_backlog=tenant)

    async def reset(self, session: str, mode: ResetMode = "summary") -> None:
        """``summary``: summarise everything, then delete the messages and keep the summary
        (a failed summary aborts the reset). ``all``: delete messages and summary."""
        self._session(session)
        if mode not in ("summary", "all"):
            raise InvalidInput("mode", f"must be 'summary' or 'all'; got {mode!r}")
        if mode == "summary" and not is_temp(session):
            # A failure raises here, before anything is deleted.
            await self._runner.summarize(self.tenant, session, include_window=True)
        await self._store.delete_messages(self.tenant, session,
                                          keep_summary=mode == "summary")

    async def remove(self, session: str) -> bool:
        """Delete the session from every stratum; ``False`` if it did not exist."""
        self._session(session)
        removed = await self._store.remove_session(self.tenant, session)
        self._searcher.uncache(self.tenant, session)
        return removed

    # -- import / export -------------------------------------------------------------------

    def export(self, session: str) -> AsyncIterator[dict[str, Any]]:
        """The session as records: its messages (oldest first), then its summary."""
        return self._transfer.export(self.tenant, self._session(session))

    async def import_(self, session: str, records: Iterable[Any]) -> int:
        """Import exported records (all or nothing); returns the number of messages added.
        ``records`` is read and checked in a worker thread, off the event loop.

        A bad record raises ``InvalidInput`` naming its line (1-based) and nothing is stored.
        """
        count = await self._transfer.import_records(self.tenant, self._session(session),
                                                    records, index=self._indexing)
        self._wake_indexer()
        return count

    async def import_history(self, session: str, history: Any) -> int:
        """Import a history array as the Go runtime stores it:
        ``[{"role", "content", "sendAt" (ns), "sender"}]``. All or nothing."""
        count = await self._transfer.import_history(self.tenant, self._session(session),
                                                    history, index=self._indexing)
        self._wake_indexer()
        return count

    # -- tools and checks ------------------------------------------------------------------

    def tools(self, session: str) -> Tools:
        """The model-facing tools bound to a session: ``chat_history`` (search, list and read
        this conversation's history), ``error_history`` (look up tool errors met before and
        how they were handled) and ``write_error`` (record one). ``.openai()`` and
        ``.anthropic()`` give their definitions, ``await .execute(name, arguments)`` runs a
        call and returns the text the model should see."""
        return Tools(self, self._session(session))

    async def check(self) -> list[str]:
        """Integrity problems of the database (empty when healthy)."""
        self._live()
        return await self._store.integrity_check()

