"""Keyword search in one session as the database grows: 100k, 300k, 1M and 3M messages.

One tenant holds every session (the worst case for a term list that spans the tenant), each
session about 100 messages. Sessions are written in rounds of 20 messages, a thousand sessions
open at a time, so a session's messages are spread over about 100,000 ids of the file as they
would be after weeks of use. The databases are built once with the store's own append path
(no embedder) and kept under ``$TMPDIR/memstrata-scale-keyword``: a rerun reuses them, and each
size is the previous one grown further, then copied.

Each file is then brought up to date by the store's index upkeep (``tidy_keyword_index``, what
the sweeper runs a second a minute), once, and marked as done.

Each file is read once before the timing (so that every size starts from the operating
system's cache, whatever ran before). English and Chinese queries (words, and 2-4 character
pieces of the corpus's phrase banks), 1,000 of each, are asked of a random session of every
size, as the store runs them on its connection: the old query
shape (FTS5's ``bm25()``, whose document frequencies are counted over the whole table), the
current one (also with the whole file memory-mapped), and the public ``store.keyword`` call end
to end. Every query goes to every size and shape in turn, the order rotating, so all of them meet
the same machine load. The target: p95 at the largest size is at most 1.5 times the p95 at
100,000 messages. ``--postgres-max-messages`` adds PostgreSQL (``store.keyword``; databases
built afresh on a server of the run).

    python bench/_scale_keyword.py --max-messages 3000000

``run(args)`` returns ``(what, measured, baseline, verdict)`` rows for a combined report.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

from _corpus import STEP_NS, T0_NS, chinese_queries, english_queries, make_message  # noqa: E402

from memstrata._compaction import CompactionPolicy  # noqa: E402
from memstrata.search._modes import keyword_match  # noqa: E402
from memstrata.store.sqlite import SQLiteStore  # noqa: E402
from memstrata.store.sqlite._functions import register, scope_token  # noqa: E402
from memstrata.store.sqlite._keyword_sql import ranked as session_hits  # noqa: E402
from memstrata.text import fts_match_expression, query_phrase  # noqa: E402
from memstrata.types import Draft, Role  # noqa: E402

__all__ = ["SIZES", "build", "main", "run"]

SIZES = (100_000, 300_000, 1_000_000, 3_000_000)
TENANT = "bench"
SESSION_SIZE = 100
ROUND = 20
OPEN_SESSIONS = 1_000
LIMIT = 8
# Queries per language: the p95 of 1,000 is the 50th slowest, not the 20th of 400, so a few
# stalls of a shared machine move it less.
SAMPLES = 1_000
# The layout of the cached files; a change here makes a rerun build them anew.
_LAYOUT = "v1"


def cache_dir() -> Path:
    return Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "memstrata-scale-keyword"


def db_path(size: int) -> Path:
    return cache_dir() / f"{_LAYOUT}-{size}.db"


def session_name(index: int) -> str:
    return f"s{index:06d}"


def _log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


async def _grow(store: SQLiteStore, start: int, stop: int, rng: random.Random) -> None:
    """Append messages ``start`` .. ``stop`` (a multiple of a pool of sessions each)."""
    policy = CompactionPolicy()
    pool = OPEN_SESSIONS * SESSION_SIZE
    for base in range(start, stop, pool):
        first = base // SESSION_SIZE
        for r in range(SESSION_SIZE // ROUND):
            for s in range(first, first + OPEN_SESSIONS):
                n = base + (s - first) * SESSION_SIZE + r * ROUND
                drafts = []
                for k in range(ROUND):
                    role: Role = "user" if k % 2 == 0 else "assistant"
                    text = make_message(rng, role)
                    drafts.append(Draft(role=role, content=text, at=T0_NS + (n + k) * STEP_NS,
                                        size=len(text.encode())))
                await store.append(TENANT, session_name(s), drafts, now=time.time_ns(),
                                   policy=policy)
        _log(f"built {base + pool:,} messages")


async def build(sizes: Sequence[int]) -> dict[int, Path]:
    """The cached database of each size, building the missing ones (grown in one file,
    copied at each size)."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    out = {n: db_path(n) for n in sizes}
    missing = [n for n in sorted(sizes) if not out[n].exists()]
    if not missing:
        return out
    have = [n for n in SIZES if db_path(n).exists() and n < missing[0]]
    work = cache_dir() / f"{_LAYOUT}-building.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{work}{suffix}").unlink(missing_ok=True)
    start = 0
    if have:
        start = have[-1]
        shutil.copyfile(db_path(start), work)
    rng = random.Random(start + 7)
    store = await SQLiteStore.open(str(work))
    try:
        for n in missing:
            _log(f"building {n:,} messages")
            await _grow(store, start, n, rng)
            start = n
            await store.close()
            shutil.copyfile(work, out[n])
            store = await SQLiteStore.open(str(work))
    finally:
        await store.close()
    work.unlink(missing_ok=True)
    return out



# The query shape before: FTS5's bm25() over the whole table (its document frequencies count
# every row holding a term, in every tenant), kept here to compare with.
_OLD_SESSION_FTS = """
SELECT m.id, m.session, m.role, m.content, m.sender, m.at, m.meta,
       -bm25(messages_fts, 1.0, 0.0) AS score
FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
WHERE messages_fts MATCH ? AND messages_fts.rowid > ? AND messages_fts.rowid <= ?
  AND m.tenant = ? AND m.at >= ?
ORDER BY bm25(messages_fts, 1.0, 0.0), messages_fts.rowid DESC LIMIT ?"""
_LOW = -(2**63)


def _old(c: sqlite3.Connection, session: str, match: str | None, phrase: str | None) -> int:
    top = int(c.execute("SELECT max(id) FROM messages").fetchone()[0] or 0)
    found = 0
    for expr in (match, phrase):
        if expr is not None:
            full = f'scope : "{scope_token(TENANT, session)}" AND body : ({expr})'
            found += len(c.execute(_OLD_SESSION_FTS, (full, 0, top, TENANT, _LOW, LIMIT))
                         .fetchall())
    return found


def _new(c: sqlite3.Connection, session: str, match: str | None, phrase: str | None) -> int:
    return sum(len(session_hits(c, TENANT, session, expr, _LOW, LIMIT))
               for expr in (match, phrase) if expr is not None)


def _queries(lang: str, count: int, rng: random.Random) -> list[str]:
    if lang == "English":
        words = list(english_queries())
        return [rng.choice(words) for _ in range(count)]
    return chinese_queries(rng, count)


def _p95(ms: list[float]) -> float:
    ordered = sorted(ms)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


Shape = Callable[[sqlite3.Connection, str, "str | None", "str | None"], int]
_SHAPES: dict[str, Shape] = {"old": _old, "new": _new, "new_mapped": _new}
# SQLite's largest memory map by default (2 GiB less 64 KiB): the whole file at every size.
_WHOLE_FILE_MMAP = 0x7FFF0000


def _connect(path: Path, mmap: int = 268_435_456) -> sqlite3.Connection:
    """A reader set up as the store sets up its readers (or with a larger memory map)."""
    c = sqlite3.connect(path)
    register(c)
    c.execute("PRAGMA query_only=1")
    c.execute("PRAGMA cache_size=-32768")
    c.execute(f"PRAGMA mmap_size={int(mmap)}")
    return c


async def _time_all(paths: dict[int, Path], lang: str, samples: int,
                    seed: int) -> dict[tuple[int, str], float]:
    """p95 (ms) per size of the old shape, the new one, and the public ``store.keyword``.

    Every query is asked of every size, shape and the store in turn (the order rotating), so
    that all of them meet the same machine load: on a shared machine a p95 measured for one
    size after another mostly measures what else ran at the time."""
    rng = random.Random(seed)
    for p in paths.values():
        _warm(p)
    conns = {n: _connect(p) for n, p in paths.items()}
    mapped = {n: _connect(p, _WHOLE_FILE_MMAP) for n, p in paths.items()}
    stores = {n: await SQLiteStore.open(str(p)) for n, p in paths.items()}
    ms: dict[tuple[int, str], list[float]] = {
        (n, k): [] for n in paths for k in (*_SHAPES, "store")}
    jobs = list(ms)
    try:
        for k, q in enumerate(_queries(lang, samples, rng)):
            match, words = keyword_match(q), query_phrase(q)
            phrase = None if words is None else fts_match_expression([words])
            sessions = {n: session_name(rng.randrange(n // SESSION_SIZE)) for n in paths}
            shift = k % len(jobs)
            for n, name in jobs[shift:] + jobs[:shift]:
                start = time.perf_counter()
                if name == "store":
                    await stores[n].keyword(TENANT, sessions[n], match, q, since=None,
                                            limit=LIMIT)
                else:
                    conn = mapped[n] if name == "new_mapped" else conns[n]
                    _SHAPES[name](conn, sessions[n], match, phrase)
                ms[(n, name)].append((time.perf_counter() - start) * 1000)
    finally:
        for c in (*conns.values(), *mapped.values()):
            c.close()
        for store in stores.values():
            await store.close()
    # The first tenth warms the caches and is left out.
    out = {key: _p95(v[samples // 10:]) for key, v in ms.items()}
    out |= {(n, name + "_p50"): sorted(v[samples // 10:])[len(v[samples // 10:]) // 2]
            for (n, name), v in ms.items()}
    return out


def _warm(path: Path) -> None:
    """Read the file once, so that every size starts from the operating system's cache: an
    earlier phase of a combined run (the 4.9 GB tenant) otherwise leaves the large files cold
    on disk (the page cache here kept 3-7 GB) while the small one is read again within
    the warm-up queries, and the ratio then measures what ran before rather than the query."""
    with open(path, "rb") as f:
        while f.read(8 << 20):
            pass


def _verdict(ratio: float) -> str:
    return f"{'met' if ratio <= 1.5 else 'missed'} ({ratio:.2f}x of 100k; target <= 1.5x)"


async def tidy(paths: dict[int, Path]) -> dict[int, float]:
    """Run the store's index upkeep on each database until nothing is left to merge (what the
    sweeper does a second a minute); seconds it took per size (0 when done before)."""
    spent: dict[int, float] = {}
    for n, path in sorted(paths.items()):
        mark = path.with_suffix(".tidy")
        if mark.exists():
            spent[n] = float(mark.read_text())
            continue
        store = await SQLiteStore.open(str(path))
        start = time.perf_counter()
        try:
            while await store.tidy_keyword_index(seconds=10.0):
                pass
        finally:
            await store.close()
        spent[n] = time.perf_counter() - start
        mark.write_text(f"{spent[n]:.1f}")
        _log(f"index upkeep at {n:,} messages: {spent[n]:.1f} s")
    return spent


async def measure(sizes: Sequence[int], samples: int) -> dict[tuple[str, int], dict[str, float]]:
    paths = await build(sizes)
    await tidy(paths)
    out: dict[tuple[str, int], dict[str, float]] = {}
    for lang in ("English", "Chinese"):
        _log(f"timing {lang} queries at {', '.join(f'{n:,}' for n in sorted(sizes))}")
        figures = await _time_all(paths, lang, samples, seed=len(lang))
        for n in sorted(sizes):
            out[(lang, n)] = {k: v for (m, k), v in figures.items() if m == n}
            f = out[(lang, n)]
            _log(f"  {n:>9,}: p95 (p50) old {f['old']:.2f} ({f['old_p50']:.2f}) ms, "
                 f"new {f['new']:.2f} ({f['new_p50']:.2f}) ms, "
                 f"new with the file mapped {f['new_mapped']:.2f} ({f['new_mapped_p50']:.2f}) ms, "
                 f"store.keyword {f['store']:.2f} ({f['store_p50']:.2f}) ms")
    return out


async def _grow_store(store: Any, start: int, stop: int, rng: random.Random) -> None:
    await _grow(store, start, stop, rng)


async def measure_postgres(sizes: Sequence[int], samples: int) -> dict[tuple[str, int], float]:
    """p95 (ms) of ``store.keyword`` in a session on PostgreSQL, one database per size (built
    afresh on a server of the run: PostgreSQL's files are not kept between runs), the sizes
    interleaved query by query as on SQLite."""
    from core import start_postgres  # the benchmark suite's server, only when asked for

    from memstrata.store import open_store

    work = Path(tempfile.mkdtemp(prefix="memstrata-kw-pg-"))
    server = start_postgres(work)
    stores: dict[int, Any] = {}
    out: dict[tuple[str, int], float] = {}
    try:
        for n in sorted(sizes):
            stores[n] = await open_store(server.create_database(f"kw{n}"))
            _log(f"PostgreSQL: building {n:,} messages")
            await _grow_store(stores[n], 0, n, random.Random(7))
        for lang in ("English", "Chinese"):
            rng = random.Random(len(lang))
            ms: dict[int, list[float]] = {n: [] for n in stores}
            for k, q in enumerate(_queries(lang, samples, rng)):
                match = keyword_match(q)
                order = sorted(stores) if k % 2 == 0 else sorted(stores, reverse=True)
                for n in order:
                    session = session_name(rng.randrange(n // SESSION_SIZE))
                    start = time.perf_counter()
                    await stores[n].keyword(TENANT, session, match, q, since=None,
                                            limit=LIMIT)
                    ms[n].append((time.perf_counter() - start) * 1000)
            for n, v in ms.items():
                out[(lang, n)] = _p95(v[samples // 10:])
                _log(f"  PostgreSQL {lang} {n:>9,}: p95 {out[(lang, n)]:.2f} ms")
    finally:
        for store in stores.values():
            await store.close()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    return out


def postgres_rows(figures: dict[tuple[str, int], float]) -> list[tuple[str, str, str, str]]:
    rows: list[tuple[str, str, str, str]] = []
    sizes = sorted({n for _, n in figures})
    for lang in ("English", "Chinese"):
        base = figures[(lang, sizes[0])]
        for n in sizes:
            f = figures[(lang, n)]
            rows.append((f"session keyword p95, {lang}, {n:,} messages (PostgreSQL), "
                         "store.keyword", f"{f:.2f} ms", f"at {sizes[0]:,}: {base:.2f} ms",
                         _verdict(f / base) if n != sizes[0] else "reference"))
    return rows


def rows_of(figures: dict[tuple[str, int], dict[str, float]]) -> list[tuple[str, str, str, str]]:
    rows: list[tuple[str, str, str, str]] = []
    sizes = sorted({n for _, n in figures})
    first = sizes[0]
    for lang in ("English", "Chinese"):
        for n in sizes:
            f, base = figures[(lang, n)], figures[(lang, first)]
            what = f"session keyword p95, {lang}, {n:,} messages (SQLite)"
            rows.append((what + ", new shape", f"{f['new']:.2f} ms",
                         f"old shape {f['old']:.2f} ms",
                         _verdict(f["new"] / base["new"]) if n != first else "reference"))
            rows.append((what + ", new shape, file mapped", f"{f['new_mapped']:.2f} ms",
                         f"at {first:,}: {base['new_mapped']:.2f} ms",
                         _verdict(f["new_mapped"] / base["new_mapped"])
                         if n != first else "reference"))
            rows.append((what + ", store.keyword", f"{f['store']:.2f} ms",
                         f"at {first:,}: {base['store']:.2f} ms",
                         _verdict(f["store"] / base["store"]) if n != first else "reference"))
            rows.append((what + ", old shape", f"{f['old']:.2f} ms",
                         f"at {first:,}: {base['old']:.2f} ms",
                         f"{f['old'] / base['old']:.2f}x of {first:,}"))
    return rows


def run(args: argparse.Namespace) -> list[tuple[str, str, str, str]]:
    """Build (or reuse) the databases up to ``args.max_messages`` and time them."""
    top = int(getattr(args, "max_messages", SIZES[-1]))
    sizes = [n for n in SIZES if n <= top] or [top]
    samples = int(getattr(args, "keyword_samples", SAMPLES))
    rows = rows_of(asyncio.run(measure(sizes, samples)))
    pg_top = int(getattr(args, "postgres_max_messages", 0))
    if pg_top:
        pg_sizes = [n for n in SIZES if n <= pg_top] or [pg_top]
        rows += postgres_rows(asyncio.run(measure_postgres(pg_sizes, samples)))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-messages", type=int, default=SIZES[-1],
                        help="the largest database (sizes: 100k, 300k, 1M, 3M)")
    parser.add_argument("--keyword-samples", type=int, default=SAMPLES,
                        help="queries per size and language")
    parser.add_argument("--postgres-max-messages", type=int, default=0,
                        help="also PostgreSQL, sizes up to this (0: SQLite only)")
    rows = run(parser.parse_args(argv))
    width = max(len(r[0]) for r in rows)
    for what, measured, baseline, verdict in rows:
        print(f"{what:<{width}}  {measured:>10}  {baseline:<26}  {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
