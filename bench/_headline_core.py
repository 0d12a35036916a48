"""One round of the headline benchmark's engine part: memstrata beside the limit and the seed.

    python bench/_headline_core.py --messages 100000 --sessions 1000 --out round.json

On one corpus (``_corpus.py``) loaded into three databases, the same calls go to

* memstrata (``Memory``, ``embedder=None``, a 20-message window, ``background=False``);
* the limit (``_limit.RawLimit``: plain ``sqlite3``, one persistent connection, the same
  indexes);
* the limit again, each call handed to one worker thread and awaited (as an async library
  must do with a blocking driver): what the hop between threads costs on this machine;
* seed 003 as written (``_baselines.SeedStore``: a new aiosqlite connection per call), for
  information.

The systems take turns in small blocks (or call by call), so they meet the same machine load.
Measured: ``add_many`` (paired with the limit's loads of the same slices), ``add`` (one
message per commit), ``context()`` three ways (back to back; each call after other work of
the same system, a write and a search of other sessions, as an agent's turns come; and cold,
the first read of each session after the operating system's page cache was dropped and the
store reopened), and keyword search in a session. Writes one JSON object of figures.

The corpus is dropped once loaded, and nothing is frozen out of the garbage collector: the
calls run in an ordinary heap.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import gc
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

from _baselines import SeedStore
from _corpus import ABSENT_WORDS, build, chinese_queries, english_queries, make_message
from _limit import RawLimit

from memstrata import Memory, Settings
from memstrata.types import Role

WINDOW = 20
BLOCK = 50
WRITE_SESSIONS = 100


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def drop_page_cache(really: bool = True) -> bool:
    """Write dirty pages out and drop the kernel's page cache (needs root); False when the
    kernel refused or ``really`` is false."""
    if not really:
        return False
    subprocess.run(["sync"], check=False)
    try:
        with open("/proc/sys/vm/drop_caches", "w", encoding="ascii") as f:
            f.write("3\n")
    except OSError:
        return False
    return True


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(q / 100 * len(s) + 0.5) - 1))
    return s[k]


Sync = Callable[[Any], Any]
Async = Callable[[Any], Awaitable[Any]]


async def timed(call: Async | Sync, arg: Any, is_async: bool) -> float:
    t = time.perf_counter_ns()
    if is_async:
        await cast("Async", call)(arg)
    else:
        call(arg)
    return (time.perf_counter_ns() - t) / 1e6


async def turns(systems: dict[str, tuple[Async | Sync, bool]], args: list[Any],
                warmup: int) -> dict[str, list[float]]:
    """Each system calls on every argument; they take turns in blocks of ``BLOCK`` calls,
    the order rotating, after ``warmup`` untimed calls each."""
    for call, is_async in systems.values():
        for a in args[:warmup]:
            await timed(call, a, is_async)
    out: dict[str, list[float]] = {name: [] for name in systems}
    names = list(systems)
    for b, lo in enumerate(range(0, len(args), BLOCK)):
        for name in names[b % len(names):] + names[:b % len(names)]:
            call, is_async = systems[name]
            for a in args[lo:lo + BLOCK]:
                out[name].append(await timed(call, a, is_async))
    return out


class Round:
    def __init__(self, work: Path, args: argparse.Namespace) -> None:
        self.work, self.args = work, args
        self.rng = random.Random(args.seed * 101 + args.round)
        self.fig: dict[str, Any] = {}
        self.ids: list[str] = []
        self.raw = RawLimit(str(work / "raw.db"))
        self.seed = SeedStore(str(work / "seed.db"))
        self.hop = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="limit")

    async def raw_context_hop(self, session: str) -> Any:
        """The limit's read on its worker thread, awaited."""
        return await asyncio.get_running_loop().run_in_executor(self.hop, self.raw.context,
                                                                session)

    def settings(self) -> Settings:
        return Settings(embedder=None, summary_cron=None, window_messages=WINDOW)

    async def open(self) -> Memory:
        return await Memory.open(str(self.work / "memstrata.db"), settings=self.settings(),
                                 background=False)

    # -- writes ------------------------------------------------------------------------

    async def load(self, mem: Memory) -> None:
        a = self.args
        corpus = build(a.messages, a.sessions, batch=500, seed=a.seed)
        self.ids = list(corpus.session_ids)
        log(f"add_many of {len(corpus.rows):,} messages, in turns with the limit's loads")
        took = raw_took = 0.0
        for n, (s, lo, hi) in enumerate(corpus.batches):
            rows = corpus.rows[lo:hi]
            items = [{"role": r.role, "content": r.content, "sender": r.sender, "at": r.at}
                     for r in rows]
            raw_rows = [(self.ids[s], r.role, r.content, r.sender, r.at) for r in rows]
            if n % 2:
                raw_took += self.raw.load(raw_rows)
            start = time.perf_counter()
            await mem.add_many(self.ids[s], items)
            took += time.perf_counter() - start
            if not n % 2:
                raw_took += self.raw.load(raw_rows)
        self.fig["add_many_rate"] = len(corpus.rows) / took
        self.fig["add_many_rate_raw"] = len(corpus.rows) / raw_took
        log("seed 003: bulk load (not timed)")
        self.seed.bulk_load(corpus.rows, self.ids)
        del corpus, rows, items, raw_rows
        gc.collect()

    async def adds(self, mem: Memory) -> None:
        n = self.args.writes
        fresh = [(f"w-{self.rng.randrange(WRITE_SESSIONS)}", "user" if i % 2 else "assistant",
                  make_message(self.rng, "user")) for i in range(n)]
        at = [time.time_ns()]

        def raw_add(x: tuple[str, str, str]) -> None:
            at[0] += 1
            self.raw.add(x[0], x[1], x[2], None, at[0])

        async def ms_add(x: tuple[str, str, str]) -> None:
            await mem.add(x[0], cast("Role", x[1]), x[2])

        log(f"add x {n:,} (seed save_turn x {n // 4:,})")
        got = await turns({"ms": (ms_add, True), "raw": (raw_add, False)}, fresh, 0)
        seed = await turns({"seed": (lambda x: self.seed.save_turn(*x), True)},
                           fresh[:n // 4], 0)
        for name, ms in (got | seed).items():
            self.fig["add_rate" + ("" if name == "ms" else f"_{name}")] = len(ms) / (
                sum(ms) / 1000)

    # -- reads -------------------------------------------------------------------------

    def picks(self, n: int) -> list[str]:
        return [self.ids[self.rng.randrange(len(self.ids))] for _ in range(n)]

    def record(self, key: str, got: dict[str, list[float]], qs: tuple[int, ...]) -> None:
        for name, ms in got.items():
            suffix = "" if name == "ms" else f"_{name}"
            for q in qs:
                self.fig[f"{key}_p{q}{suffix}"] = pct(ms, q)

    async def context_loop(self, mem: Memory) -> None:
        n = self.args.samples
        log(f"context() back to back x {n:,} (seed x {n // 4:,})")
        got = await turns({"ms": (mem.context, True), "raw": (self.raw.context, False),
                           "thread": (self.raw_context_hop, True)}, self.picks(n), 200)
        got |= await turns({"seed": (self.seed.load_context, True)}, self.picks(n // 4), 20)
        self.record("context_loop", got, (50, 99))

    async def context_mixed(self, mem: Memory) -> None:
        """Each timed read follows a write and a keyword search of other sessions, made by
        the same system; the systems take turns call by call."""
        n = self.args.mixed
        log(f"context() after other work x {n:,}")
        words = english_queries()
        names = ("ms", "raw", "thread", "seed")
        got: dict[str, list[float]] = {name: [] for name in names}
        at = time.time_ns()
        for i in range(n):
            session, other = self.picks(2)
            writer = f"w-{self.rng.randrange(WRITE_SESSIONS)}"
            text, word = make_message(self.rng, "user"), self.rng.choice(words)
            order = names[i % 4:] + names[:i % 4]
            for name in order:
                if name == "seed" and i % 4:
                    continue  # the seed's reads are four times fewer (each opens a file)
                if name == "ms":
                    await mem.add(writer, "user", text)
                    await mem.search(other, word, match="keyword")
                    got[name].append(await timed(mem.context, session, True))
                elif name in ("raw", "thread"):
                    at += 1
                    self.raw.add(writer, "user", text, None, at)
                    self.raw.search(other, word)
                    got[name].append(await timed(self.raw.context, session, False)
                                     if name == "raw" else
                                     await timed(self.raw_context_hop, session, True))
                else:
                    await self.seed.save_turn(writer, "user", text)
                    got[name].append(await timed(self.seed.load_context, session, True))
        self.record("context_mixed", got, (50, 99))

    async def search(self, mem: Memory) -> None:
        n = self.args.searches
        words, zh = english_queries(), chinese_queries(self.rng, n)
        queries = []
        for i in range(n):
            roll = self.rng.random()
            q = (self.rng.choice(words) if roll < 0.4 else zh[i] if roll < 0.8
                 else self.rng.choice(ABSENT_WORDS))
            queries.append((self.picks(1)[0], q))
        log(f"keyword search in a session x {n:,}")

        async def ms_search(x: tuple[str, str]) -> None:
            await mem.search(x[0], x[1], match="keyword", limit=10)

        got = await turns({"ms": (ms_search, True),
                           "raw": (lambda x: self.raw.search(x[0], x[1], 10), False)},
                          queries, 50)
        self.record("search", got, (50, 95))

    async def cold(self) -> None:
        """The first read of sessions no call touched yet, each system on its own after the
        page cache was dropped and its store opened anew."""
        n = self.args.cold
        sessions = self.ids[:]
        self.rng.shuffle(sessions)
        sample, spare = sessions[:n], sessions[n]
        got: dict[str, list[float]] = {}
        dropped = True
        for name in ("ms", "raw", "seed"):
            if name == "ms":
                mem = await self.open()
                try:
                    await mem.context(spare)
                    dropped &= drop_page_cache(not self.args.no_drop)
                    got[name] = [await timed(mem.context, s, True) for s in sample]
                finally:
                    await mem.close()
            elif name == "raw":
                self.raw.reopen()
                self.raw.context(spare)
                dropped &= drop_page_cache(not self.args.no_drop)
                got[name] = [await timed(self.raw.context, s, False) for s in sample]
            else:
                await self.seed.load_context(spare)
                dropped &= drop_page_cache(not self.args.no_drop)
                got[name] = [await timed(self.seed.load_context, s, True) for s in sample]
        self.fig["cold_cache_dropped"] = dropped
        self.record("context_cold", got, (50, 99))

    async def run(self) -> dict[str, Any]:
        start = time.perf_counter()
        mem = await self.open()
        try:
            await self.load(mem)
            await self.context_loop(mem)
            await self.context_mixed(mem)
            await self.search(mem)
            await self.adds(mem)
        finally:
            await mem.close()
        if self.args.cold:
            await self.cold()
        self.raw.close()
        self.hop.shutdown()
        self.fig["seconds"] = time.perf_counter() - start
        self.fig["load_average"] = os.getloadavg()[0]
        return self.fig


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--messages", type=int, default=100_000)
    p.add_argument("--sessions", type=int, default=1_000)
    p.add_argument("--samples", type=int, default=4_000, help="back-to-back reads per system")
    p.add_argument("--mixed", type=int, default=1_500, help="reads after other work")
    p.add_argument("--searches", type=int, default=1_500)
    p.add_argument("--writes", type=int, default=1_000, help="adds, one message per commit")
    p.add_argument("--cold", type=int, default=200, help="cold reads per system (0: none)")
    p.add_argument("--no-drop", action="store_true",
                   help="cold reads without dropping the page cache (the store reopened only)")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--round", type=int, default=0, help="varies the random choices")
    p.add_argument("--work-dir", default=None)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="memstrata-headline-", dir=args.work_dir))
    try:
        fig = asyncio.run(Round(work, args).run())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.out.write_text(json.dumps(fig, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
