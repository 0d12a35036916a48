"""Who goes first on a model and on the cores: a search before background indexing.

A process holds one copy of the local model and shares a few cores between every tenant's
searches and the indexer. Left in arrival order, a search's one-text embedding waits behind
whole indexing batches (measured over the service: a search's p95 went from 56 ms to 1.7 s
while another tenant's 8,000 messages were embedded). Three rules fix the order:

* Embedding done inside :func:`background` (the indexer) is background work; anything else (a
  search's query, an error-memory lookup) is in the foreground. The mark is a context variable,
  so it follows the call into the worker thread that runs the model.
* :class:`ModelGate` orders the calls into one model: a background call starts only when no
  foreground call runs or waits. A model that may be called from two threads at once (the
  default one) runs a query at once, beside a background chunk in progress; one that may not
  gives a waiting query the model before any waiting background call, and gets its background
  work in small chunks (``BACKGROUND_CHUNK`` texts), so a query waits for one chunk at most.
* While a search is in progress anywhere in the process (:func:`foreground`, around ranking
  as well as embedding), a background chunk waits before it starts, for at most
  ``YIELD_MAX_S``, leaving the cores to the search; the bound keeps indexing moving under a
  steady stream of searches.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar

__all__ = ["BACKGROUND_CHUNK", "YIELD_MAX_S", "ModelGate", "background", "foreground",
           "in_background", "searches_in_progress", "wait_for_searches"]

BACKGROUND_CHUNK = 16
"""Texts a background embedding gives a model that runs one call at a time, at a time: the
longest a query waits for it."""
YIELD_MAX_S = 0.05
"""How long a background chunk waits at most for the searches in progress to end."""

_BACKGROUND: ContextVar[bool] = ContextVar("memstrata_background", default=False)


@contextlib.contextmanager
def background() -> Iterator[None]:
    """Mark the embedding calls made inside the block as background work (indexing)."""
    token = _BACKGROUND.set(True)
    try:
        yield
    finally:
        _BACKGROUND.reset(token)


def in_background() -> bool:
    """Whether the caller runs inside :func:`background` (also in a worker thread it
    started with ``asyncio.to_thread``, which copies the context)."""
    return _BACKGROUND.get()


class _Searches:
    """How many searches are in progress in this process, and a way to wait for none."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.count = 0

    def enter(self) -> None:
        with self._cond:
            self.count += 1

    def leave(self) -> None:
        with self._cond:
            self.count -= 1
            if self.count == 0:
                self._cond.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.count > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True


_searches = _Searches()


@contextlib.contextmanager
def foreground() -> Iterator[None]:
    """Mark a search in progress: background chunks hold back until it ends (bounded)."""
    _searches.enter()
    try:
        yield
    finally:
        _searches.leave()


def searches_in_progress() -> int:
    """The searches of this process in progress now."""
    return _searches.count


def wait_for_searches(timeout: float = YIELD_MAX_S) -> bool:
    """Block (a worker thread) until no search is in progress or ``timeout`` passes; returns
    whether none is."""
    return _searches.wait_idle(timeout)


class ModelGate:
    """Who may call one model, and in what order: foreground calls first.

    ``hold(urgent)`` is a context manager for worker threads. A background call runs alone,
    and only when no foreground call runs or waits. With ``concurrent=False`` (a model that
    must not be called from two threads at once) a foreground call waits for the call holding
    the model, then goes before every waiting background call. With ``concurrent=True`` (a
    model whose calls share nothing but read-only weights) a foreground call never waits: it
    runs beside a background chunk in progress, and beside other foreground calls.
    """

    def __init__(self, *, concurrent: bool = False) -> None:
        self.concurrent = concurrent
        self._cond = threading.Condition()
        self._background = False
        self._running = 0  # foreground calls in the model
        self._urgent = 0  # foreground calls waiting for it
        self.granted: list[bool] = []
        """The kinds of the calls let in, oldest first (``True``: urgent); the last 64."""

    def _free_for(self, urgent: bool) -> bool:
        if urgent:
            return self.concurrent or not (self._background or self._running)
        return not (self._background or self._running or self._urgent)

    @contextlib.contextmanager
    def hold(self, urgent: bool) -> Iterator[None]:
        with self._cond:
            if urgent:
                self._urgent += 1
            try:
                while not self._free_for(urgent):
                    self._cond.wait()
            finally:
                if urgent:
                    self._urgent -= 1
            if urgent:
                self._running += 1
            else:
                self._background = True
            self.granted = [*self.granted[-63:], urgent]
        try:
            yield
        finally:
            with self._cond:
                if urgent:
                    self._running -= 1
                else:
                    self._background = False
                self._cond.notify_all()

    @property
    def waiting_urgent(self) -> int:
        """Foreground calls waiting for the model now."""
        return self._urgent

    @property
    def running_urgent(self) -> int:
        """Foreground calls in the model now."""
        return self._running
