"""Blocking access to a Memory: ``SyncMemory``, one generic wrapper around the async API
(of a local ``Memory`` or of a ``RemoteMemory`` on a server).

This module owns the private event loop (one daemon thread per ``SyncMemory.open``) on which
the wrapped ``Memory`` lives, and the proxy that turns every public call into a coroutine run
on that loop while the calling thread waits. No method of ``Memory`` is repeated here: the
proxy looks each one up by name, so a new ``Memory`` method is blocking as soon as it exists.
The signatures under ``TYPE_CHECKING`` are for the type checker only (they never run), and a
test compares them with ``Memory``'s so they cannot drift.

Calls may come from any number of threads at once, including a thread that is running an
event loop of its own: the work runs on the helper thread's loop, never on the caller's, so
the caller's loop is blocked for the call's duration but cannot deadlock it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import inspect
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from ._opening import UNSET, Unset
from .client import RemoteErrors, RemoteMemory
from .errormem import ErrorMemory
from .errors import Closed
from .memory import CLOSE_TIMEOUT_S, Clock, Memory
from .tools import Tools

if TYPE_CHECKING:
    import builtins

    from ._context import Context
    from .config import Settings
    from .providers import LLM, Embedder
    from .types import (
        AnthropicTool,
        ErrorRecord,
        Hit,
        MatchMode,
        Message,
        OpenAITool,
        ResetMode,
        Role,
        SessionInfo,
        SessionStats,
        Summary,
        TimeRange,
    )

__all__ = ["SyncErrors", "SyncMemory", "SyncTools", "call_async", "settle"]

T = TypeVar("T")

# After close() has had its own bound, how long the loop's last tasks get to wind down.
_STOP_GRACE_S = 5.0


class _LoopThread:
    """An event loop running forever on a daemon thread, until ``stop``."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._lock = threading.Lock()
        self._stopped = False
        self._thread = threading.Thread(target=self._serve, name="memstrata-sync",
                                        daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
            # A call submitted while the loop was stopping still has a waiting caller:
            # cancelling its task resolves the caller's future instead of leaving it blocked.
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            if pending:
                self._loop.run_until_complete(asyncio.wait(pending, timeout=_STOP_GRACE_S))
        finally:
            self._loop.close()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and wait for its result (or exception, re-raised as is)."""
        if threading.current_thread() is self._thread:
            coro.close()
            # Waiting here would wait on ourselves: the loop that must run coro is this thread.
            raise RuntimeError("a SyncMemory cannot be called from its own event loop "
                               "(inside a coroutine or callback that memstrata runs); "
                               "use the async Memory there")
        with self._lock:  # no submission can slip in after stop() has begun
            if self._stopped:
                coro.close()
                raise Closed("this SyncMemory is closed")
            future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise Closed("this SyncMemory was closed while the call was running") from None
        except BaseException:
            future.cancel()  # e.g. KeyboardInterrupt while waiting: stop the work too
            raise

    async def arun(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and await it from another event loop without blocking
        that loop (on the loop itself, simply await it)."""
        if threading.current_thread() is self._thread:
            return await coro
        with self._lock:
            if self._stopped:
                coro.close()
                raise Closed("this SyncMemory is closed")
            future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return await asyncio.wrap_future(future)
        except concurrent.futures.CancelledError:
            if future.cancelled():
                raise Closed("this SyncMemory was closed while the call was running") from None
            raise  # our own caller was cancelled; wrap_future has cancelled the work too

    def stop(self, timeout: float) -> None:
        """Stop the loop (cancelling what still runs on it) and wait at most ``timeout``."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            self._loop.call_soon_threadsafe(self._loop.stop)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)


class _Blocking:
    """The generic proxy: public attributes of the wrapped object, with every method call
    run on the loop thread and waited for.

    A call's awaitable result is awaited and an async iterator is read into a list, both on
    the loop; a result (or attribute) that is itself one of memstrata's async objects comes
    back wrapped the same way. Plain attributes (``settings``, ``tenant``) pass through.
    """

    __slots__ = ("_origin", "_portal", "_target")

    def __init__(self, target: object, portal: _LoopThread,
                 origin: _Blocking | None = None) -> None:
        self._target = target
        self._portal = portal
        # The proxy this one came from (``mem.errors`` from ``mem``): holding it keeps the
        # SyncMemory that owns the loop thread from being collected, and closed, under us.
        self._origin = origin

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self._target, name)
        if inspect.ismethod(value):
            return self._blocking(value)
        return _wrap(value, self)

    def _blocking(self, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            return _wrap(self._portal.run(settle(method, args, kwargs)), self)

        return call

    def __repr__(self) -> str:
        return f"<blocking {self._target!r}>"


async def settle(method: Callable[..., Any], args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> Any:
    """Call ``method`` on the loop (even a plain one: it may start tasks) and finish its
    result there: await an awaitable, read an async iterator to the end."""
    result = method(*args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    if isinstance(result, AsyncIterator):
        result = [item async for item in result]
    return result


def _wrap(value: Any, origin: _Blocking) -> Any:
    for async_type, sync_type in _WRAPPERS:
        if isinstance(value, async_type):
            return sync_type(value, origin._portal, origin)
    return value


async def call_async(proxy: SyncMemory | SyncErrors | SyncTools, method: str, /,
                     *args: Any, **kwargs: Any) -> Any:
    """Await one of the wrapped object's methods from any event loop: it runs on the proxy's
    own loop, and the caller's loop keeps running meanwhile. For code that holds a
    ``SyncMemory`` but is itself async (the framework adapters' async methods)."""
    if method.startswith("_"):
        raise AttributeError(method)
    bound = getattr(proxy._target, method)
    return _wrap(await proxy._portal.arun(settle(bound, args, kwargs)), proxy)


def _shutdown(memory: Memory | RemoteMemory, portal: _LoopThread, timeout: float) -> None:
    """Close ``memory`` on its loop, then stop the loop: ``close()``, or the collection of a
    SyncMemory nobody closed (possibly on the loop's own thread, where waiting is impossible
    and stopping the loop, which cancels what runs on it, is all that can be done)."""
    try:
        portal.run(memory.close(timeout=timeout))
    except (Closed, RuntimeError):
        pass
    finally:
        portal.stop(_STOP_GRACE_S)


class SyncErrors(_Blocking):
    """``SyncMemory.errors``: the tenant's error memory, blocking."""

    if TYPE_CHECKING:
        tenant: str
        settings: Settings

        def write(self, *, tool_name: str, keywords: Sequence[str], symptom: str,
                  action: str, cause: str | None = None,
                  outcome: str = "resolved") -> ErrorRecord: ...
        def delete(self, id_or_prefix: str) -> bool: ...
        def sweep(self) -> int: ...
        def search(self, keyword: str, *, tool: str | None = None,
                   limit: int | None = None) -> list[ErrorRecord]: ...
        def read(self, id_or_prefix: str) -> ErrorRecord | None: ...
        def hint(self, tool_name: str, error_text: str) -> str: ...
        def list(self, *, tool: str | None = None) -> builtins.list[ErrorRecord]: ...


class SyncTools(_Blocking):
    """``SyncMemory.tools(session)``: the model-facing tools, with a blocking ``execute``."""

    if TYPE_CHECKING:
        session: str

        def definitions(self) -> list[dict[str, Any]]: ...
        def openai(self) -> list[OpenAITool]: ...
        def anthropic(self) -> list[AnthropicTool]: ...
        def execute(self, name: str, arguments: dict[str, Any] | str) -> str: ...


class SyncMemory(_Blocking):
    """``Memory`` with blocking methods, for code that is not async.

    ``SyncMemory.open(...)`` takes ``Memory.open``'s arguments and returns an open memory
    (also a context manager); ``SyncMemory.remote(url, key)`` does the same for a server.
    Every method of ``Memory`` is here with the same arguments and results, and raises the
    same exceptions; ``export`` returns a list. Safe to share between threads. From async
    code, prefer ``Memory``: a blocking call holds up the caller's loop.
    """

    __slots__ = ("__weakref__", "_finalizer")

    def __init__(self, memory: Memory | RemoteMemory, portal: _LoopThread,
                 origin: _Blocking | None = None) -> None:
        super().__init__(memory, portal, origin)
        # Set by open() only: a sibling shares its parent's loop thread and never stops it.
        self._finalizer: weakref.finalize[Any, Any] | None = None

    @classmethod
    def open(cls, target: str = "memory.db", *, settings: Settings | None = None,
             tenant: str = "default", background: bool = True,
             embedder: Embedder | Unset | None = UNSET,
             llm: LLM | Unset | None = UNSET, decision_llm: LLM | Unset | None = UNSET,
             clock: Clock | None = None) -> SyncMemory:
        """Open a memory database as ``Memory.open`` does, on a private loop thread."""
        async def opened() -> Memory:
            # Built on the loop: the connection and background tasks belong to it.
            return await Memory.open(target, settings=settings, tenant=tenant,
                                     background=background, embedder=embedder, llm=llm,
                                     decision_llm=decision_llm, clock=clock)

        return cls._owning(opened)

    @classmethod
    def remote(cls, url: str, key: str, *, settings: Settings | None = None,
               timeout: float = 60.0, tenant: str | None = None) -> SyncMemory:
        """Connect to a memstrata server as ``RemoteMemory.open`` does, with blocking calls:
        the same methods as over a local file, less those only an operator of the database
        has (``sibling``, ``sweep``, ``reindex``, ``summary``, ``summarize_due``, ``tools``,
        ``check``). The API key decides the tenant (``tenant``: the one to act for under a
        key's tenant prefix)."""
        async def opened() -> RemoteMemory:
            return await RemoteMemory.open(url, key, settings=settings, timeout=timeout,
                                           tenant=tenant)

        return cls._owning(opened)

    @classmethod
    def _owning(cls, opened: Callable[[], Coroutine[Any, Any, Memory | RemoteMemory]]
                ) -> SyncMemory:
        """The memory ``opened`` makes on a new private loop thread, which it owns (the
        thread is stopped again when opening fails)."""
        portal = _LoopThread()
        try:
            memory = portal.run(opened())
        except BaseException:
            portal.stop(_STOP_GRACE_S)
            raise
        sync = cls(memory, portal)
        # One left open is closed when collected (or at exit), so its threads do not pile up.
        sync._finalizer = weakref.finalize(sync, _shutdown, memory, portal, CLOSE_TIMEOUT_S)
        return sync

    def close(self, *, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """Close the memory (as ``Memory.close``, within ``timeout`` seconds) and stop the
        loop thread; safe to call twice. Calls made afterwards raise ``Closed``."""
        memory: Memory | RemoteMemory = self._target  # type: ignore[assignment]
        if self._finalizer is None:  # a sibling: its own background work only
            with contextlib.suppress(Closed):
                self._portal.run(memory.close(timeout=timeout))
        elif self._finalizer.detach() is not None:  # None: closed already
            _shutdown(memory, self._portal, timeout)

    def __enter__(self) -> SyncMemory:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    if TYPE_CHECKING:
        settings: Settings
        tenant: str
        embedder: Embedder | None
        errors: SyncErrors

        def sibling(self, tenant: str, *, background: bool = False) -> SyncMemory: ...
        def sweep(self) -> list[str]: ...
        def add(self, session: str, role: Role, content: str | list[Any], *,
                sender: str | None = None, at: int | None = None,
                meta: Mapping[str, Any] | None = None, key: str | None = None) -> Message: ...
        def add_many(self, session: str,
                     items: Iterable[Mapping[str, Any]]) -> list[Message]: ...
        def flush(self, timeout: float | None = None) -> None: ...
        def index_backlog(self, session: str | None = None) -> int: ...
        def reindex(self) -> int: ...
        def forget(self, message_id: int) -> bool: ...
        def context(self, session: str, query: str | None = None) -> Context: ...
        def search(self, session: str | None, query: str, *, match: MatchMode | None = None,
                   time_range: TimeRange = "all", limit: int | None = None,
                   exclude_window: bool = True, min_score: float | None = None) -> list[Hit]: ...
        def match_modes(self) -> list[str]: ...
        def read(self, message_id: int, *, before: int | None = None,
                 after: int | None = None) -> list[Message]: ...
        def recent(self, session: str | None, *, time_range: TimeRange = "all",
                   limit: int | None = None, before_id: int | None = None) -> list[Message]: ...
        def message(self, message_id: int) -> Message | None: ...
        def summarize(self, session: str) -> dict[str, Any] | None: ...
        def summary(self, session: str) -> Summary | None: ...
        def summarize_due(self) -> int: ...
        def sessions(self) -> list[SessionInfo]: ...
        def stats(self, session: str) -> SessionStats: ...
        def reset(self, session: str, mode: ResetMode = "summary") -> None: ...
        def remove(self, session: str) -> bool: ...
        def export(self, session: str) -> list[dict[str, Any]]: ...
        def import_(self, session: str, records: Iterable[Any]) -> int: ...
        def import_history(self, session: str, history: Any) -> int: ...
        def tools(self, session: str) -> SyncTools: ...
        def check(self) -> list[str]: ...


# Which async objects come back wrapped, and as what (Memory: from ``sibling``).
_WRAPPERS: tuple[tuple[type, Callable[[Any, _LoopThread, _Blocking], _Blocking]], ...] = (
    (Memory, SyncMemory),
    (ErrorMemory, SyncErrors),
    (RemoteErrors, SyncErrors),
    (Tools, SyncTools),
)
