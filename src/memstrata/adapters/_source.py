"""Where a framework adapter's memory comes from, and how its sync and async methods reach it.

An adapter is given an open ``Memory`` or ``SyncMemory`` to share, or a database path that it
opens, on first use, as a ``SyncMemory`` of its own. Either way it gets one blocking and one
awaitable way to call a method of that memory:

- a shared ``Memory`` lives on the event loop that opened it, so the async path awaits it
  directly, and the blocking path hands the coroutine to that loop (from another thread) and
  waits, refusing (instead of deadlocking) when called on that loop's own thread;
- a ``SyncMemory`` (shared or opened here) is blocking already, and the async path awaits its
  helper loop through ``call_async``, so neither path holds up the caller's loop.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from .._sync import SyncMemory, call_async, settle
from ..config import Settings
from ..memory import Memory

__all__ = ["MemorySource"]


class MemorySource:
    """The memory of one adapter object: shared, or opened lazily from ``db`` (and then owned
    and closed by ``close()``)."""

    def __init__(self, db: str, memory: Memory | SyncMemory | None = None, *,
                 settings: Settings | None = None, tenant: str = "default") -> None:
        if memory is not None and not isinstance(memory, Memory | SyncMemory):
            raise TypeError("memory= takes an open memstrata.Memory or SyncMemory, got "
                            f"{type(memory).__name__}")
        self.db = str(db)
        self._shared = memory
        self._settings = settings
        self._tenant = tenant
        self._opened: SyncMemory | None = None
        self._lock = threading.Lock()
        # The loop a shared Memory belongs to, once seen: where blocking calls must go.
        self._loop: asyncio.AbstractEventLoop | None = None
        if isinstance(memory, Memory):
            self._loop = _running_loop()

    def sync(self) -> SyncMemory:
        """The ``SyncMemory`` to call: the shared one, else the one opened on first use."""
        if isinstance(self._shared, SyncMemory):
            return self._shared
        if isinstance(self._shared, Memory):
            raise TypeError("this adapter shares an async Memory; it has no SyncMemory")
        with self._lock:  # two threads using the adapter first must open one memory, not two
            if self._opened is None:
                self._opened = SyncMemory.open(self.db, settings=self._settings,
                                               tenant=self._tenant)
            return self._opened

    def call(self, method: str, /, *args: Any, **kwargs: Any) -> Any:
        """Call ``method`` of the memory and wait for its result."""
        shared = self._shared
        if not isinstance(shared, Memory):
            return getattr(self.sync(), method)(*args, **kwargs)
        loop = self._loop
        if loop is None or loop.is_closed():
            raise RuntimeError("this adapter shares an async Memory and no running event loop "
                               "of it is known; use the adapter's async methods on that loop, "
                               "or pass a SyncMemory (or a db path) for blocking use")
        if _running_loop() is loop:
            raise RuntimeError("blocking call on the event loop that owns the shared Memory: "
                               "it would wait on itself; use the async methods (ainvoke, "
                               "aget_messages, …) or pass a SyncMemory")
        future = asyncio.run_coroutine_threadsafe(
            settle(getattr(shared, method), args, kwargs), loop)
        return future.result()

    async def acall(self, method: str, /, *args: Any, **kwargs: Any) -> Any:
        """Await ``method`` of the memory without blocking the running loop."""
        shared = self._shared
        if isinstance(shared, Memory):
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


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
