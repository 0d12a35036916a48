"""What ``RemoteMemory`` adds to a request: ``context()`` against a raw GET of the same route.

A real ``memstrata serve`` process on 127.0.0.1 serves a fresh file holding one session (a
window of 16 messages and a stored summary). The client process then reads that session's
context alternately through ``RemoteMemory.context()`` and through a bare ``httpx.AsyncClient``
GET of ``/v1/sessions/{id}/context`` (the JSON parsed, nothing else), one request at a time,
each on its own kept-alive connection; the p50 and p95 of both and their difference are
printed. Target: the client's p50 within 1.5 ms of the raw GET's.

    python bench/remote_client.py --calls 2000
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import httpx

from memstrata.client import RemoteMemory

SESSION = "bench"
SERVER_ENV = {"MEMSTRATA_EMBEDDER": "none", "MEMSTRATA_SUMMARY_CRON": "none"}
TARGET_MS = 1.5


def make_key(db: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "memstrata", "--db", str(db), "keys",
                           "create", "--tenant", "bench"], capture_output=True, text=True,
                          check=True)
    found = re.search(r"\bms_[A-Za-z0-9]+_[A-Za-z0-9_-]+", done.stdout)
    if found is None:
        raise RuntimeError(f"no key in the output of keys create: {done.stdout!r}")
    return found.group(0)


@contextlib.contextmanager
def serving(db: Path) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = subprocess.Popen([sys.executable, "-m", "memstrata", "--db", str(db), "serve",
                             "--port", str(port)], env={**os.environ, **SERVER_ENV},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def timed(call: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await call()
    return (time.perf_counter() - start) * 1000


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1]


async def measure(url: str, key: str, calls: int) -> dict[str, dict[str, float]]:
    async with RemoteMemory.open(url, key) as mem, httpx.AsyncClient(
            base_url=url, headers={"Authorization": f"Bearer {key}"}) as raw:
        await mem.add_many(SESSION, [
            {"role": "user" if i % 2 == 0 else "assistant",
             "content": f"message {i}: the train to Hualien leaves at nine, platform 3"}
            for i in range(40)])
        await mem.summarize(SESSION)  # a digest: the context carries a summary too

        async def through_client() -> object:
            return await mem.context(SESSION)

        async def through_get() -> object:
            response = await raw.get(f"/v1/sessions/{SESSION}/context",
                                     params={"format": "plain"})
            response.raise_for_status()
            return json.loads(response.content)

        samples: dict[str, list[float]] = {"client": [], "raw": []}
        for _ in range(50):  # warm both connections up
            await through_client()
            await through_get()
        for _ in range(calls):  # alternated, so both see the same server state
            samples["client"].append(await timed(through_client))
            samples["raw"].append(await timed(through_get))
    return {name: {"p50": statistics.median(v), "p95": quantile(v, 0.95)}
            for name, v in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        db = Path(work) / "remote.db"
        key = make_key(db)
        with serving(db) as url:
            figures = asyncio.run(measure(url, key, args.calls))
    client, raw = figures["client"], figures["raw"]
    gap = client["p50"] - raw["p50"]
    print(f"context() over {args.calls} calls of each kind, one at a time")
    print(f"  raw httpx GET      p50 {raw['p50']:.2f} ms   p95 {raw['p95']:.2f} ms")
    print(f"  RemoteMemory       p50 {client['p50']:.2f} ms   p95 {client['p95']:.2f} ms")
    print(f"  difference (p50)   {gap:+.2f} ms   target ≤ {TARGET_MS} ms: "
          f"{'met' if gap <= TARGET_MS else 'NOT met'}")


if __name__ == "__main__":
    main()
