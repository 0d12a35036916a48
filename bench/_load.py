"""Closed-loop load for the service benchmark: N concurrent clients, each sending its next
call as soon as the previous one answered, for a fixed time.

The same loop drives in-process calls (``Memory`` methods) and HTTP requests. Over HTTP each
client holds one keep-alive connection and speaks plain HTTP/1.1 on asyncio streams: a request
costs the load generator a few tens of microseconds, against several hundred for a
full-featured client, so on a machine whose cores the server shares the figures are the
server's, not the generator's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Conn", "Phase", "closed_loop", "own_cpu", "percentile", "process_cpu",
           "threaded_loop"]


class Conn:
    """One keep-alive HTTP/1.1 connection with the API key on every request."""

    def __init__(self, base_url: str, key: str) -> None:
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self._auth = f"Authorization: Bearer {key}\r\n"
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(OSError):  # the server closed first
                await self._writer.wait_closed()

    async def request(self, method: str, target: str, body: Any = None) -> tuple[int, bytes]:
        """Send one request; returns the status and the whole body."""
        if self._writer is None or self._reader is None:
            await self.open()
        assert self._writer is not None and self._reader is not None
        payload = b"" if body is None else json.dumps(body).encode("utf-8")
        head = (f"{method} {target} HTTP/1.1\r\nHost: {self.host}\r\n{self._auth}"
                f"Content-Length: {len(payload)}\r\n")
        if body is not None:
            head += "Content-Type: application/json\r\n"
        self._writer.write(head.encode("ascii") + b"\r\n" + payload)
        header = await self._reader.readuntil(b"\r\n\r\n")
        lines = header.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        fields = {k.strip().lower(): v.strip()
                  for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        if fields.get("transfer-encoding", "").lower() == "chunked":
            data = await self._chunked()
        else:
            data = await self._reader.readexactly(int(fields.get("content-length", "0")))
        if fields.get("connection", "").lower() == "close":
            await self.close()
            self._writer = self._reader = None
        return status, data

    async def _chunked(self) -> bytes:
        assert self._reader is not None
        out = bytearray()
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self._reader.readuntil(b"\r\n")
                return bytes(out)
            out += await self._reader.readexactly(size)
            await self._reader.readexactly(2)


@dataclass
class Phase:
    """What one timed phase measured."""

    name: str
    calls: int = 0
    seconds: float = 0.0
    cpu_seconds: float | None = None
    """CPU time (user + system, every thread) the measured process spent in the phase."""
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0


def percentile(sorted_ms: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list (as the core benchmark computes it)."""
    if not sorted_ms:
        return float("nan")
    k = max(0, min(len(sorted_ms) - 1, round(q / 100 * len(sorted_ms) + 0.5) - 1))
    return sorted_ms[k]


# A call: given the client's number and its random source, do one operation; returns an error
# text, or None when it succeeded.
Call = Callable[[int, random.Random], Awaitable[str | None]]


def process_cpu(pid: int) -> Callable[[], float | None]:
    """CPU seconds used so far by process ``pid`` (all its threads; Linux only, else None)."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def read() -> float | None:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
    return read


def own_cpu() -> float | None:
    return time.process_time()


async def _drive(clients: int, seconds: float, call: Call, phase: Phase | None,
                 seed: int) -> None:
    stop_at = time.perf_counter() + seconds

    async def client(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        while time.perf_counter() < stop_at:
            t = time.perf_counter_ns()
            error = await call(n, rng)
            if phase is not None:
                phase.calls += 1
                phase.latencies_ms.append((time.perf_counter_ns() - t) / 1e6)
                if error is not None:
                    phase.errors.append(error)

    await asyncio.gather(*(client(n) for n in range(clients)))


async def closed_loop(name: str, clients: int, seconds: float, call: Call, *,
                      warmup_s: float, cpu: Callable[[], float | None] = own_cpu,
                      seed: int = 7) -> Phase:
    """Run ``call`` from ``clients`` concurrent loops: ``warmup_s`` seconds untimed
    (connections open, caches fill), then ``seconds`` timed, with the CPU time ``cpu`` reads
    (the server's, or this process's) over the timed part."""
    phase = Phase(name)
    if warmup_s > 0:
        await _drive(clients, warmup_s, call, None, seed + 1)
    cpu_start = cpu()
    start = time.perf_counter()
    await _drive(clients, seconds, call, phase, seed)
    phase.seconds = time.perf_counter() - start
    cpu_end = cpu()
    if cpu_start is not None and cpu_end is not None:
        phase.cpu_seconds = cpu_end - cpu_start
    return phase


# A blocking call, for the threaded loop: given the client's number and its random source, do
# one operation; returns an error text, or None.
BlockingCall = Callable[[int, random.Random], str | None]


def _drive_threads(clients: int, seconds: float, call: BlockingCall, phase: Phase | None,
                   seed: int) -> None:
    stop_at = time.perf_counter() + seconds
    lock = threading.Lock()

    def client(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        mine: list[float] = []
        errors: list[str] = []
        while time.perf_counter() < stop_at:
            t = time.perf_counter_ns()
            error = call(n, rng)
            mine.append((time.perf_counter_ns() - t) / 1e6)
            if error is not None:
                errors.append(error)
        if phase is not None:
            with lock:
                phase.calls += len(mine)
                phase.latencies_ms.extend(mine)
                phase.errors.extend(errors)

    threads = [threading.Thread(target=client, args=(n,), daemon=True)
               for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def threaded_loop(name: str, clients: int, seconds: float, call: BlockingCall, *,
                  warmup_s: float, seed: int = 7) -> Phase:
    """``closed_loop`` with ``clients`` threads making blocking calls (the way a threaded
    application or a worker pool calls a library), with this process's CPU time."""
    phase = Phase(name)
    if warmup_s > 0:
        _drive_threads(clients, warmup_s, call, None, seed + 1)
    cpu_start = time.process_time()
    start = time.perf_counter()
    _drive_threads(clients, seconds, call, phase, seed)
    phase.seconds = time.perf_counter() - start
    phase.cpu_seconds = time.process_time() - cpu_start
    return phase
