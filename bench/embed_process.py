"""Background embedding in a child process against in the process, with the default model.

    python bench/embed_process.py [--texts 512] [--rounds 2] [--queries 20] [--quick]

Both embedders are ``LocalEmbedder``: one with ``workers=0`` (the batches run in this
process, as a library ``Memory`` does by default), one with ``workers=1`` (they go to a child
process, as ``memstrata serve`` does). On the same synthetic messages (a third Chinese), in
alternating rounds so a change of machine load hits both:

* throughput: texts a second of ``--texts`` texts embedded as background work, in batches of
  64, nothing else running;
* a query beside it: the latency of one-text foreground embeddings made one after another
  while a background batch of the same size runs (p50 / p95);
* the child's resident memory after the runs (the price of a second copy of the model).

Prints one table; nothing is written to disk.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import make_message

from memstrata.providers import LocalEmbedder, background

QUERY = "who showed you how to make woollen clothes as a child"


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _throughput(embedder: LocalEmbedder, texts: list[str]) -> float:
    start = time.perf_counter()
    with background():
        await embedder.embed(texts)
    return len(texts) / (time.perf_counter() - start)


async def _beside(embedder: LocalEmbedder, texts: list[str], queries: int) -> list[float]:
    """Milliseconds of one-text query embeddings while a background batch runs."""
    async def batch() -> None:
        with background():
            await embedder.embed(texts)

    task = asyncio.ensure_future(batch())
    await asyncio.sleep(0.05)
    took: list[float] = []
    for _ in range(queries):
        if task.done():
            break
        start = time.perf_counter()
        await embedder.embed([QUERY])
        took.append((time.perf_counter() - start) * 1000)
    await task
    return took


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


async def run(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    rng = random.Random(11)
    texts = [make_message(rng, ("user", "assistant")[i % 2]) for i in range(args.texts)]
    sides = {"in process": LocalEmbedder(workers=0), "child process": LocalEmbedder(workers=1)}
    rates: dict[str, list[float]] = {name: [] for name in sides}
    lat: dict[str, list[float]] = {name: [] for name in sides}
    try:
        for embedder in sides.values():  # load the models, start the child
            await embedder.embed([QUERY])
            with background():
                await embedder.embed(texts[:8])
        for round_no in range(args.rounds):
            for name, embedder in sides.items():
                rate = await _throughput(embedder, texts)
                rates[name].append(rate)
                lat[name].extend(await _beside(embedder, texts, args.queries))
                print(f"round {round_no + 1}, {name}: {rate:.1f} texts/s", file=sys.stderr,
                      flush=True)
        child = sides["child process"].children
        rss = _rss_mb(child.pids[0]) if child is not None and child.pids else float("nan")
    finally:
        for embedder in sides.values():
            await asyncio.to_thread(embedder.close)
    base, new = statistics.median(rates["in process"]), statistics.median(rates["child process"])
    return [
        ("background throughput, texts/s (median of rounds)", f"{base:.1f}",
         f"{new:.1f} ({new / base:.2f}x)"),
        ("one-text query beside a batch, p50 ms", f"{_pct(lat['in process'], 50):.1f}",
         f"{_pct(lat['child process'], 50):.1f}"),
        ("one-text query beside a batch, p95 ms", f"{_pct(lat['in process'], 95):.1f}",
         f"{_pct(lat['child process'], 95):.1f}"),
        ("queries timed", str(len(lat["in process"])), str(len(lat["child process"]))),
        ("child process resident memory, MB", "—", f"{rss:.0f}"),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--texts", type=int, default=512, help="texts per background batch")
    p.add_argument("--rounds", type=int, default=2, help="alternating rounds per side")
    p.add_argument("--queries", type=int, default=20, help="queries timed per round at most")
    p.add_argument("--quick", action="store_true", help="a small, short run (smoke test)")
    args = p.parse_args(argv)
    if args.quick:
        args.texts, args.rounds, args.queries = 64, 1, 3
    table = asyncio.run(run(args))
    print(f"default local model, {args.texts} synthetic texts, {args.rounds} round(s), "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print("| what | in process | child process |")
    print("|---|---:|---:|")
    for what, base, new in table:
        print(f"| {what} | {base} | {new} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
