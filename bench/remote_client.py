"""What ``RemoteMemory`` adds to a request: ``context()`` against a raw GET of the same route,
and ``add()`` (which runs the library's input checks before sending) against a raw POST.

A real ``memstrata serve`` process on 127.0.0.1 serves a fresh file holding one session (a
window of 16 messages and a stored summary). The client process then reads that session's
context alternately through ``RemoteMemory.context()`` and through a bare ``httpx.AsyncClient``
GET of ``/v1/sessions/{id}/context`` (the JSON parsed, nothing else), one request at a time,
each on its own kept-alive connection; then it adds messages alternately through
``RemoteMemory.add()`` and a bare POST of the same body. The p50 and p95 of each and their
differences are printed. Target: the client's ``context()`` p50 within 1.5 ms of the raw
GET's.

    python bench/remote_client.py --calls 2000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from service import make_key, serving

from memstrata.client import RemoteMemory

SESSION = "bench"
TARGET_MS = 1.5


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

        text = "the 9:00 train from Taipei, platform 3, car 5, seats 12 and 13 " * 3

        async def add_through_client() -> object:
            return await mem.add("writes", "user", text, sender="Mei", meta={"n": 1})

        async def add_through_post() -> object:
            response = await raw.post("/v1/sessions/writes/messages", json={
                "role": "user", "content": text, "sender": "Mei", "meta": {"n": 1}})
            response.raise_for_status()
            return json.loads(response.content)

        samples: dict[str, list[float]] = {"client": [], "raw": [], "client add": [],
                                           "raw add": []}
        for _ in range(50):  # warm both connections up
            await through_client()
            await through_get()
        for _ in range(calls):  # alternated, so both see the same server state
            samples["client"].append(await timed(through_client))
            samples["raw"].append(await timed(through_get))
        for _ in range(calls // 4):
            samples["client add"].append(await timed(add_through_client))
            samples["raw add"].append(await timed(add_through_post))
    return {name: {"p50": statistics.median(v), "p95": quantile(v, 0.95)}
            for name, v in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        db = Path(work) / "remote.db"
        key = make_key(db)
        with serving(db, Path(work), tuned=False) as (url, _):
            figures = asyncio.run(measure(url, key, args.calls))
    client, raw = figures["client"], figures["raw"]
    gap = client["p50"] - raw["p50"]
    print(f"context() over {args.calls} calls of each kind, one at a time")
    print(f"  raw httpx GET      p50 {raw['p50']:.2f} ms   p95 {raw['p95']:.2f} ms")
    print(f"  RemoteMemory       p50 {client['p50']:.2f} ms   p95 {client['p95']:.2f} ms")
    print(f"  difference (p50)   {gap:+.2f} ms   target ≤ {TARGET_MS} ms: "
          f"{'met' if gap <= TARGET_MS else 'NOT met'}")
    client, raw = figures["client add"], figures["raw add"]
    print(f"add() over {args.calls // 4} calls of each kind, one at a time")
    print(f"  raw httpx POST     p50 {raw['p50']:.2f} ms   p95 {raw['p95']:.2f} ms")
    print(f"  RemoteMemory       p50 {client['p50']:.2f} ms   p95 {client['p95']:.2f} ms")
    print(f"  difference (p50)   {client['p50'] - raw['p50']:+.2f} ms (the checks run before "
          "sending included)")


if __name__ == "__main__":
    main()
