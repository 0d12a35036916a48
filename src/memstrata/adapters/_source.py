"""Where a framework adapter's memory comes from, and how its sync and async methods reach it.

An adapter is given an open memory to share (any of the ``MemoryAPI`` protocol: a local
``Memory``, a ``RemoteMemory`` on a server, or either wrapped in a ``SyncMemory``), or a
database path that it opens, on first use, as a ``SyncMemory`` of its own. Either way it gets
one blocking and one awaitable way to call a method of that memory:

- a shared async memory (``Memory``, ``RemoteMemory``) lives on the event loop that opened
  it, so the async path awaits it directly, and the blocking path hands the coroutine to that
  loop (from another thread) and waits, refusing (instead of deadlocking) when called on that
  loop's own thread;
- a ``SyncMemory`` (shared or opened here) is blocking already, and the async path awaits its
  helper loop through ``call_async``, so neither path holds up the caller's loop.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any, TypeGuard

from .._sync import SyncMemory, call_async, settle
from ..client import MemoryAPI
from ..config import Settings
from ..errors import InvalidInput

__all__ = ["MemorySource", "SharedMemory"]

SharedMemory = MemoryAPI | SyncMemory
"""What ``memory=`` of an adapter takes: an open memory, async or blocking, local or remote."""

# The calls the adapters make; an object whose type has them as coroutine functions is an
# async memory (checked on the type, so nothing of a remote memory is fetched to decide).
_ASYNC_CALLS = ("add_many", "recent", "search", "forget", "remove", "sessions")


class MemorySource:
    """The memory of one adapter object: shared, or opened lazily from ``db`` (and then owned
    and closed by ``close()``)."""

    def __init__(self, db: str, memory: SharedMemory | None = None, *,
                 settings: Settings | None = None, tenant: str | None = None) -> None:
        if memory is not None and not isinstance(memory, SyncMemory) \
                and not is_async_memory(memory):
            raise TypeError("memory= takes an open memstrata memory (Memory, RemoteMemory, "
                            f"SyncMemory: any MemoryAPI), got {type(memory).__name__}")
        if memory is not None and tenant is not None and tenant != memory.tenant:
            raise InvalidInput("tenant", f"is {tenant!r} but the memory passed as memory= "
                               f"belongs to tenant {memory.tenant!r} (a RemoteMemory's API "
                               "key decides its tenant); leave tenant= out, or pass a memory "
                               "of that tenant")
        self.db = str(db)
        self._shared = memory
        self._settings = settings
        self._tenant = tenant if tenant is not None else "default"
        self._opened: SyncMemory | None = None
        self._lock = threading.Lock()
        # The loop a shared async memory belongs to, once seen: where blocking calls go.
        self._loop: asyncio.AbstractEventLoop | None = None
        if is_async_memory(memory):
            self._loop = _running_loop()

    def sync(self) -> SyncMemory:
        """The ``SyncMemory`` to call: the shared one, else the one opened on first use."""
        if isinstance(self._shared, SyncMemory):
            return self._shared
        if self._shared is not None:
            raise TypeError("this adapter shares an async memory; it has no SyncMemory")
        with self._lock:  # two threads using the adapter first must open one memory, not two
            if self._opened is None:
                self._opened = SyncMemory.open(self.db, settings=self._settings,
                                               tenant=self._tenant)
            return self._opened

    def call(self, method: str, /, *args: Any, **kwargs: Any) -> Any:
        """Call ``method`` of the memory and wait for its result."""
        shared = self._shared
        if not is_async_memory(shared):
            return getattr(self.sync(), method)(*args, **kwargs)
        loop = self._loop
        if loop is None or loop.is_closed():
            raise RuntimeError("this adapter shares an async memory and no running event loop "
                               "of it is known; use the adapter's async methods on that loop, "
                               "or pass a SyncMemory (or a db path) for blocking use")
        if _running_loop() is loop:
            raise RuntimeError("blocking call on the event loop that owns the shared memory: "
                               "it would wait on itself; use the async methods (ainvoke, "
                               "aget_messages, …) or pass a SyncMemory")
        future = asyncio.run_coroutine_threadsafe(
            settle(getattr(shared, method), args, kwargs), loop)
        return future.result()

    async def acall(self, method: str, /, *args: Any, **kwargs: Any) -> Any:
        """Await ``method`` of the memory without blocking the running loop."""
        shared = self._shared
        if is_async_memory(shared):
            self._loop = asyncio.get_running_loop()
            return await settle(getattr(shared, method), args, kwargs)
        memory = shared if isinstance(shared, SyncMemory) else self._opened
        if memory is None:  # opening migrates the file: not on the caller's loop
            memory = await asyncio.to_thread(self.sync)
        return await call_async(memory, method, *args, **kwargs)

    def close(self) -> None:
        """Close the memory this object opened (a shared one stays open: its owner closes it)."""
        with self._lock:
            opened, self._opened = self._opened, None
        if opened is not None:
            opened.close()


def is_async_memory(memory: object) -> TypeGuard[MemoryAPI]:
    """Whether ``memory`` is an async memory (``Memory``, ``RemoteMemory`` or another of the
    ``MemoryAPI`` protocol) rather than a ``SyncMemory`` or anything else."""
    if memory is None or isinstance(memory, SyncMemory):
        return False
    kind = type(memory)
    return all(inspect.iscoroutinefunction(getattr(kind, name, None)) for name in _ASYNC_CALLS)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
