"""The soak's sampler: every few seconds, what the service process uses, how big its files
are, how fast it answered in the window just ended, and how far its background work got.

Process figures come from psutil: ``rss`` (everything resident, the SQLite memory map of the
file included) and ``anon`` (``rss`` minus the file-backed shared pages: the heap, where a
leak would show). Background progress is read through the API: the index backlog, summaries
and compaction of the live sessions (``GET /v1/sessions/{id}``), and whether the ``temp-``
sessions left a minute ago are gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from _load import Conn, percentile
from _soak_load import Ledger

__all__ = ["Sampler", "Window"]

TEMP_IDLE_S = 60.0
"""The service purges a ``temp-`` session after one idle minute (checked every minute)."""


@dataclass
class Window:
    """One sampling window (``t``: seconds since the load started, at the window's end)."""

    t: float
    seconds: float
    requests: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    rss_mb: float
    anon_mb: float
    fds: int
    threads: int
    cpu_pct: float
    db_mb: float
    wal_mb: float
    server_errors: int
    failures: int
    llm_calls: int
    backlog: int
    summarised: int
    compacted: int
    live_sessions: int
    live_messages: int
    removed: int
    forgotten: int
    error_records: int
    temp_expired: int
    p95_by_op: dict[str, float] = field(default_factory=dict)
    latencies: array[float] = field(default_factory=lambda: array("f"), repr=False)


def _mb(path: Path) -> float:
    try:
        return path.stat().st_size / 2**20
    except FileNotFoundError:
        return 0.0


class Sampler:
    """Takes a :class:`Window` every ``every`` seconds until stopped."""

    def __init__(self, pid: int, db: Path, url: str, keys: list[str], ledger: Ledger,
                 llm_calls: Callable[[], int], every: float) -> None:
        self.proc = psutil.Process(pid)
        self.db = db
        self.url = url
        self.keys = keys
        self.ledger = ledger
        self.llm_calls = llm_calls
        self.every = every
        self.windows: list[Window] = []
        self._start = time.monotonic()
        self._last = self._start
        self._cpu = self._cpu_seconds()
        self.on_window: Callable[[Window], None] | None = None

    def _cpu_seconds(self) -> float:
        t = self.proc.cpu_times()
        return float(t.user + t.system)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.every)
            await self.sample()

    async def sample(self) -> Window:
        now = time.monotonic()
        taken = self.ledger.take_latencies()
        merged = array("f")
        for values in taken.values():
            merged.extend(values)
        ordered = sorted(merged)
        # The process first, before this sampler's own requests open connections to it.
        mem = self.proc.memory_info()
        cpu = self._cpu_seconds()
        fds, threads = self.proc.num_fds(), self.proc.num_threads()
        backlog, summarised, compacted = await self._background()
        await self._temp_sessions()
        led = self.ledger
        w = Window(
            t=now - self._start, seconds=now - self._last, requests=len(ordered),
            p50_ms=percentile(ordered, 50), p95_ms=percentile(ordered, 95),
            p99_ms=percentile(ordered, 99), rss_mb=mem.rss / 2**20,
            anon_mb=(mem.rss - mem.shared) / 2**20, fds=fds, threads=threads,
            cpu_pct=100 * (cpu - self._cpu) / max(now - self._last, 1e-9),
            db_mb=_mb(self.db), wal_mb=_mb(Path(f"{self.db}-wal")),
            server_errors=led.server_errors, failures=led.failures,
            llm_calls=self.llm_calls(), backlog=backlog, summarised=summarised,
            compacted=compacted, live_sessions=len(led.live),
            live_messages=sum(len(b.acked) for b in led.live.values()),
            removed=len(led.removed), forgotten=len(led.forgotten),
            error_records=len(led.errors), temp_expired=led.temp_expired,
            p95_by_op={op: percentile(sorted(v), 95) for op, v in sorted(taken.items())},
            latencies=merged)
        self._last, self._cpu = now, cpu
        self.windows.append(w)
        if self.on_window is not None:
            self.on_window(w)
        return w

    async def _get(self, conn: Conn, target: str) -> tuple[int, bytes] | None:
        try:
            return await conn.request("GET", target)
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            self.ledger.fail(f"sampler GET {target}: {type(exc).__name__}: {exc}")
            return None

    def _check(self, target: str, status: int, body: bytes) -> bool:
        """A 200 is read; a 404 means the session went meanwhile (removed or expired)."""
        if status >= 500:
            self.ledger.server_errors += 1
        if status not in (200, 404):
            self.ledger.fail(f"sampler GET {target}: {status} {body[:200]!r}")
        return status == 200

    async def _background(self) -> tuple[int, int, int]:
        """Index backlog, summarised sessions and compacted sessions among the live ones."""
        backlog = summarised = compacted = 0
        conns = [Conn(self.url, key) for key in self.keys]
        try:
            for book in list(self.ledger.live.values()):
                if not book.acked:
                    continue
                target = f"/v1/sessions/{book.name}"
                got = await self._get(conns[book.tenant], target)
                if got is None or not self._check(target, *got):
                    continue
                stats = json.loads(got[1])
                backlog += int(stats["index_backlog"])
                summarised += stats["summary_kind"] == "llm"
                compacted += int(stats["cutoff"]) > 0
        finally:
            for conn in conns:
                await conn.close()
        return backlog, summarised, compacted

    async def _temp_sessions(self) -> None:
        """Count the ``temp-`` sessions the sweeper purged (looked at once they could be)."""
        due = time.monotonic() - TEMP_IDLE_S
        waiting = [t for t in self.ledger.temp_left if t[0] <= due]
        if not waiting:
            return
        conns = [Conn(self.url, key) for key in self.keys]
        try:
            for item in waiting:
                target = f"/v1/sessions/{item[2]}"
                got = await self._get(conns[item[1]], target)
                if got is not None and got[0] == 404:
                    self.ledger.temp_left.remove(item)
                    self.ledger.temp_expired += 1
                elif got is not None:
                    self._check(target, *got)
        finally:
            for conn in conns:
                await conn.close()
