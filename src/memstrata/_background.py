"""Background loops that stop on an explicit signal, and a shutdown that has a bound.

Every long-running loop (indexer, sweeper, scheduler, worker) takes a stop ``asyncio.Event``,
checks it on every turn and idles only through :func:`pause`, which returns as soon as the
event is set. Cancellation is then only a way to cut a wait short, never the thing a loop
relies on to end: on Python 3.11, ``asyncio.wait_for`` drops a cancellation that arrives in
the same loop iteration as the awaited result, and a loop parked in it never stops.
:class:`Background` sets the signal, waits for the loops within a bound, and names in the log
any task that overstays instead of waiting for it forever.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from ._liveness import owner_name

__all__ = ["Background", "Loop", "pause", "until_stopped", "worker_id"]

log = logging.getLogger("memstrata")

Loop = Callable[[asyncio.Event], Coroutine[Any, Any, None]]
"""A background loop: runs until the stop event it is given is set."""


def worker_id() -> str:
    """A name for this worker that no other process or object shares (claims and leases).

    ``host:pid:random``, followed on Linux by what proves the process's death to another
    process of the same machine (see :mod:`memstrata._liveness`)."""
    return owner_name(uuid.uuid4().hex[:8])


async def until_stopped(stop: asyncio.Event, *waits: Awaitable[object]) -> None:
    """Wait until ``stop`` is set or any of ``waits`` finishes; the others are cancelled.

    Built on ``asyncio.wait``, which never swallows a cancellation of the caller.
    """
    futures = [asyncio.ensure_future(w) for w in waits]
    if stop.is_set():
        for f in futures:
            f.cancel()
        return
    stopper = asyncio.ensure_future(stop.wait())
    futures.append(stopper)
    try:
        await asyncio.wait(futures, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for f in futures:
            f.cancel()
        # Collect what the waits raised (a failed sleep is not the caller's business).
        for f in futures:
            if f.done() and not f.cancelled():
                f.exception()


async def pause(stop: asyncio.Event, seconds: float, wake: asyncio.Event | None = None) -> None:
    """Idle for up to ``seconds``; return early when ``stop`` (or ``wake``) is set."""
    if wake is None:
        await until_stopped(stop, asyncio.sleep(seconds))
    else:
        await until_stopped(stop, asyncio.sleep(seconds), wake.wait())


class Background:
    """Named background tasks that share one stop signal, and their bounded shutdown."""

    def __init__(self) -> None:
        self.stop = asyncio.Event()
        self._tasks: list[tuple[asyncio.Task[None], bool]] = []
        # Tasks left behind by close(): held so they are not garbage-collected mid-run.
        self._abandoned: set[asyncio.Task[None]] = set()

    def start(self, name: str, loop: Loop, *, interrupt: bool = True) -> asyncio.Task[None]:
        """Run ``loop(self.stop)`` as a task called ``name`` (call from a running loop).

        ``interrupt=True``: on close the task is also cancelled at once, cutting short the
        work it is doing (safe for the indexer and sweeper, whose work resumes later).
        ``False``: the current unit of work (a summary tick) may finish within the bound.
        """
        task = asyncio.get_running_loop().create_task(loop(self.stop), name=name)
        self._tasks.append((task, interrupt))
        return task

    @property
    def running(self) -> list[str]:
        """The names of the tasks still running."""
        return [t.get_name() for t, _ in self._tasks if not t.done()]

    async def close(self, timeout: float) -> list[str]:
        """Signal stop, wait up to ``timeout`` seconds, and return the names of the tasks that
        did not stop in time (they are cancelled, logged and left behind, never awaited)."""
        self.stop.set()
        entries, self._tasks = self._tasks, []
        for task, interrupt in entries:
            if interrupt:
                task.cancel()
        tasks = [t for t, _ in entries]
        pending = {t for t in tasks if not t.done()}
        if pending:
            _, pending = await asyncio.wait(pending, timeout=max(timeout, 0.0))
        for task in pending:
            task.cancel()
            self._abandoned.add(task)
            task.add_done_callback(self._abandoned.discard)
        overstayed = sorted(t.get_name() for t in pending)
        if overstayed:
            log.warning("background task(s) %s did not stop within %.1f s of close(); "
                        "left behind", ", ".join(overstayed), timeout)
        for task in tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                exc = task.exception()
                log.error("background task %s ended with %s: %s", task.get_name(),
                          type(exc).__name__, exc)
        return overstayed
