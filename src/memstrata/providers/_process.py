"""Background embedding in child processes: the parent's side.

Within one process a search's one-text embedding and the indexer's batches share the
interpreter lock and the cores; ordering the calls (:mod:`._lane`) keeps a query from waiting
*behind* a batch, but not from running slowly *beside* one. :class:`EmbedChildren` moves the
batches out: each of up to ``workers`` child processes (:mod:`._child`, started with the
parent's own Python) holds its own copy of the model and runs at a lower priority, so the
operating system gives a search in the parent the cores first, and the parent's interpreter
is free for the search's Python work. Queries are still embedded in the parent.

A child that dies (killed, out of memory) is started again and given the batch it was
working on, so nothing is lost. After :data:`MAX_DEATHS` deaths the children are given up for
good and :meth:`EmbedChildren.embed` answers ``None``: the caller embeds in process, as
without children. A child exits on its own when its stdin ends, so one outlives a parent that
died by no more than the batch in progress. ``close()`` stops the children within a bound
(a batch in flight fails and is handed back by the indexer); a later batch starts them again.

Calls block (pipes and process waits): run them in a worker thread.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..errors import ProviderError
from ._base import Vectors
from ._frames import read_frame, write_frame

__all__ = ["CLOSE_WAIT_S", "MAX_DEATHS", "MAX_WORKERS", "EmbedChildren"]

log = logging.getLogger("memstrata")

MAX_WORKERS = 8
"""The most child processes one embedder may run."""
MAX_DEATHS = 3
"""Deaths of children after which background embedding goes back into the process."""
CLOSE_WAIT_S = 1.0
"""How long ``close()`` lets a child finish on its own before killing it."""

# Where ``memstrata`` is imported from: the child must import the same copy.
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


class _Died(Exception):
    """The child's pipes broke: it is gone."""


@dataclass(eq=False)
class _Slot:
    """One child: its process (``None`` until started, and after it died or was closed)."""

    proc: subprocess.Popen[bytes] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class EmbedChildren:
    """Up to ``workers`` child processes embedding with the local model ``model``."""

    def __init__(self, model: str, workers: int, *, python: str | None = None,
                 max_deaths: int = MAX_DEATHS) -> None:
        if not 1 <= workers <= MAX_WORKERS:
            raise ValueError(f"workers must be from 1 to {MAX_WORKERS}, got {workers}")
        self.model = model
        self.workers = workers
        self.max_deaths = max_deaths
        self._python = python or sys.executable
        self._slots = [_Slot() for _ in range(workers)]
        self._idle: queue.Queue[_Slot] = queue.Queue()
        for slot in self._slots:
            self._idle.put(slot)
        self._lock = threading.Lock()
        self._epoch = 0  # bumped by close(): a pipe broken by it is no death
        self.deaths = 0
        """How many children died while in use."""
        self.started = 0
        """How many children were started (restarts included)."""
        self.sent = 0
        """How many batches were handed to a child (a batch given again after a death counts
        again)."""

    @property
    def given_up(self) -> bool:
        """Whether the children died too often and batches are embedded in process."""
        return self.deaths >= self.max_deaths

    @property
    def pids(self) -> list[int]:
        """The process ids of the children running now."""
        return [s.proc.pid for s in self._slots if s.proc is not None and s.proc.poll() is None]

    def embed(self, texts: list[str]) -> Vectors | None:
        """The model's vectors for ``texts`` (one row each, not normalised), or ``None`` when
        the children were given up (embed in process instead). A child that dies is replaced
        and given the batch again. Raises ``ProviderError`` when the model failed on the batch
        (the child stays up), could not load, or ``close()`` stopped the child meanwhile."""
        if self.given_up:
            return None
        slot = self._idle.get()
        try:
            while not self.given_up:
                with self._lock:
                    epoch = self._epoch
                try:
                    with slot.lock:
                        return self._ask(slot, texts)
                except _Died as exc:
                    with self._lock:
                        if epoch != self._epoch:
                            # Stopped by close(): hand the batch back (the indexer keeps it
                            # queued) rather than load the model here while closing.
                            raise ProviderError(f"local:{self.model}: the embedding "
                                                "processes were stopped") from exc
                        self.deaths += 1
                        deaths = self.deaths
                    self._stop(slot, wait=0.0)
                    log.warning("embedding: the child process died (%s); %s", exc,
                                "embedding in process from now on" if self.given_up
                                else f"starting another ({deaths} of {self.max_deaths})")
            return None
        finally:
            self._idle.put(slot)

    def _ask(self, slot: _Slot, texts: list[str]) -> Vectors:
        # A child that died while idle shows as a broken pipe below, and is replaced.
        proc = slot.proc
        if proc is None:
            # In the slot before it is ready: close() stops a child still loading the model.
            proc = slot.proc = self._spawn()
            self._wait_ready(slot, proc)
        stdin, stdout = _pipes(proc)
        try:
            write_frame(stdin, json.dumps({"texts": texts}).encode())
            stdin.flush()
            with self._lock:
                self.sent += 1
        except OSError as exc:  # BrokenPipeError, or a pipe closed by close()
            raise _Died(f"cannot write to it: {exc}") from exc
        except ValueError as exc:  # the pipe object was closed by close()
            raise _Died("its pipe was closed") from exc
        header = _header(stdout)
        if not header.get("ok"):
            raise ProviderError(f"local:{self.model}: the model failed on a batch of "
                                f"{len(texts)} texts: {header.get('error')}")
        data = _frame(stdout)
        rows, dim = int(header["rows"]), int(header["dim"])
        if len(data) != rows * dim * 4:
            raise _Died(f"it sent {len(data)} bytes for {rows}x{dim} values")
        return np.frombuffer(data, dtype=np.float32).reshape(rows, dim).copy()

    def _spawn(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT,
                                                        env.get("PYTHONPATH")) if p)
        try:
            proc = subprocess.Popen([self._python, "-m", "memstrata.providers._child",
                                     self.model], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, env=env)
        except OSError as exc:
            raise _Died(f"cannot start it: {exc}") from exc
        self.started += 1
        return proc

    def _wait_ready(self, slot: _Slot, proc: subprocess.Popen[bytes]) -> None:
        ready = _header(_pipes(proc)[1])  # a child that died loading raises _Died
        if not ready.get("ready"):
            self._stop(slot, wait=CLOSE_WAIT_S)  # it exits after saying why
            raise ProviderError(f"local:{self.model}: the embedding process could not "
                                f"start: {ready.get('error')}")

    def close(self, timeout: float = CLOSE_WAIT_S) -> None:
        """Stop the children, one still loading the model too: each gets ``timeout`` seconds
        to exit once its stdin closes, then is killed. A batch in flight fails with
        ``ProviderError`` (the indexer hands it back); a later ``embed`` starts children
        again."""
        with self._lock:
            self._epoch += 1
        for slot in self._slots:
            self._stop(slot, wait=timeout)

    def _stop(self, slot: _Slot, *, wait: float) -> None:
        proc, slot.proc = slot.proc, None
        if proc is not None:
            _end(proc, wait)


def _pipes(proc: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes]]:
    assert proc.stdin is not None and proc.stdout is not None
    return proc.stdin, proc.stdout


def _frame(stream: IO[bytes]) -> bytes:
    try:
        frame = read_frame(stream)
    except (OSError, ValueError) as exc:
        raise _Died(f"cannot read from it: {exc}") from exc
    if frame is None:
        raise _Died("its output ended")
    return frame


def _header(stream: IO[bytes]) -> dict[str, Any]:
    frame = _frame(stream)
    try:
        header = json.loads(frame)
    except ValueError as exc:
        raise _Died(f"it sent something else than an answer: {frame[:80]!r}") from exc
    if not isinstance(header, dict):
        raise _Died(f"it sent something else than an answer: {frame[:80]!r}")
    return header


def _end(proc: subprocess.Popen[bytes], wait: float) -> None:
    """Close the child's stdin (it exits when it sees the end), wait up to ``wait`` seconds,
    then kill it; reaps it either way. Its stdout is closed last: a thread still reading it
    sees the end once the child is gone."""
    try:
        if proc.stdin is not None:
            proc.stdin.close()
    except (OSError, ValueError):
        pass  # the child is gone, or a writer holds the pipe: the kill below ends it
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    try:
        if proc.stdout is not None:
            proc.stdout.close()
    except (OSError, ValueError):
        pass
