"""Error-memory keyword search time as other tenants' records grow.

Tenant ``a`` holds ``--own`` error records; two SQLite files hold the same records of ``a``,
and one of them also ``--foreign`` records of tenant ``b`` written with the same vocabulary (so
every word ``a`` searches for is common in ``b``). The same keyword queries (no embedder: the
keyword pass is the whole search) are asked of both files, the files and shapes interleaved
query by query so that both meet the same machine load:

- ``old``: the statement used before, FTS5's ``bm25()`` over the whole index, filtered to the
  tenant afterwards (its work grows with every tenant's records holding the words);
- ``new``: ``_error_keyword.keyword_hits``, the tenant's own matches ranked by its own figures;
- ``search``: ``ErrorMemory.search`` end to end (keyword pass, substring scan, counting hits).

The figure is the p50 with the foreign records over the p50 without them, the index merged as
every sweep leaves it (target: at most 1.2x for the new shape; the search must not tell a
tenant how much others wrote); the same before any merge is shown beside it.

    python bench/_scale_errors.py --own 500 --foreign 20000 --samples 300
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from memstrata.config import Settings
from memstrata.errormem import ErrorMemory
from memstrata.store.sqlite import SQLiteStore
from memstrata.store.sqlite._error_keyword import keyword_hits
from memstrata.text import fts_match_expression, query_terms

__all__ = ["main", "measure"]

WORDS = ("timeout connection refused permission denied file missing rate limit exceeded "
         "http gateway dns resolve certificate expired memory disk full json parse invalid "
         "token schema column index query lock deadlock retry backoff proxy socket reset "
         "upload download encoding unicode header cookie session redirect quota").split()
TOOLS = ("web_fetch", "shell", "sql", "python", "browser")
LIMIT = 5
# The searching tenant alone; with the other tenant's records, the index merged as every sweep
# leaves it; and the same before any merge.
FILES = ("alone", "shared", "unmerged")

# The statement before: FTS5's bm25() ranks every tenant's matching records, then the join
# keeps the tenant's. Kept here to compare with.
_OLD = """
SELECT e.seq, -bm25(error_records_fts, 1.0, 0.0) AS score
FROM error_records_fts JOIN error_records e ON e.seq = error_records_fts.rowid
WHERE error_records_fts MATCH :match AND e.tenant = :tenant AND e.expires_at > :now
ORDER BY score DESC LIMIT :limit"""


def _log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def _clock() -> int:
    return time.time_ns()


def _memory(store: SQLiteStore, tenant: str) -> ErrorMemory:
    return ErrorMemory(store.errors, tenant=tenant, settings=Settings(embedder=None),
                       embedder=None, clock=_clock)


async def _fill(errors: ErrorMemory, count: int, rng: random.Random) -> None:
    for i in range(count):
        await errors.write(tool_name=rng.choice(TOOLS), keywords=rng.sample(WORDS, 3),
                           symptom=" ".join(rng.choices(WORDS, k=12)) + f" case {i}",
                           action="retry with " + " ".join(rng.choices(WORDS, k=4)))


async def _build(path: Path, own: int, foreign: int, tidy: bool) -> None:
    store = await SQLiteStore.open(str(path))
    try:
        await _fill(_memory(store, "a"), own, random.Random(1))
        if foreign:
            await _fill(_memory(store, "b"), foreign, random.Random(2))
        if tidy:  # what every sweep does: merge the index's segments
            while await store.errors.tidy_index(10.0):
                pass
    finally:
        await store.close()


async def measure(own: int, foreign: int, samples: int) -> dict[tuple[str, str], float]:
    """p50 (ms) per (file, shape): files ``alone`` and ``shared``."""
    work = Path(tempfile.mkdtemp(prefix="memstrata-scale-errors-"))
    paths = {f: work / f"{f}.db" for f in FILES}
    _log(f"writing {own:,} records of a (and {foreign:,} of b in the shared files)")
    await _build(paths["alone"], own, 0, tidy=True)
    await _build(paths["unmerged"], own, foreign, tidy=False)
    shutil.copyfile(paths["unmerged"], paths["shared"])
    await _build(paths["shared"], 0, 0, tidy=True)
    conns = {k: sqlite3.connect(p) for k, p in paths.items()}
    stores = {k: await SQLiteStore.open(str(p)) for k, p in paths.items()}
    rng = random.Random(3)
    ms: dict[tuple[str, str], list[float]] = {
        (f, s): [] for f in paths for s in ("old", "new", "search")}
    jobs = list(ms)
    token = "e" + b"a".hex().upper()
    try:
        for k in range(samples):
            query = " ".join(rng.sample(WORDS, rng.choice((1, 2))))
            match = fts_match_expression(query_terms(query))
            assert match is not None
            params = {"tenant": "a", "now": _clock(), "tool": None, "model": None, "dim": None}
            shift = k % len(jobs)
            for f, shape in jobs[shift:] + jobs[:shift]:
                start = time.perf_counter()
                if shape == "old":
                    conns[f].execute(_OLD, {**params, "limit": 256,
                                            "match": f'scope : "{token}" AND body : ({match})'}
                                     ).fetchall()
                elif shape == "new":
                    keyword_hits(conns[f], params, match, 256)
                else:
                    await _memory(stores[f], "a").search(query, limit=LIMIT)
                ms[(f, shape)].append((time.perf_counter() - start) * 1000)
    finally:
        for c in conns.values():
            c.close()
        for store in stores.values():
            await store.close()
        shutil.rmtree(work, ignore_errors=True)
    skip = samples // 10  # the first tenth warms the caches
    return {key: statistics.median(v[skip:]) for key, v in ms.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--own", type=int, default=500, help="records of the searching tenant")
    parser.add_argument("--foreign", type=int, default=20_000,
                        help="records of another tenant using the same words")
    parser.add_argument("--samples", type=int, default=300, help="queries per file and shape")
    args = parser.parse_args(argv)
    p50 = asyncio.run(measure(args.own, args.foreign, args.samples))
    print(f"error keyword search p50, {args.own:,} own records, alone / with {args.foreign:,} "
          "foreign records (index merged) / the same unmerged (SQLite)")
    for shape in ("old", "new", "search"):
        alone, shared, raw = (p50[(f, shape)] for f in FILES)
        ratio = shared / alone
        verdict = "" if shape == "old" else (
            f"  {'met' if ratio <= 1.2 else 'missed'} (target <= 1.2x)")
        print(f"  {shape:<7} {alone:8.3f} ms  {shared:8.3f} ms {ratio:5.2f}x  "
              f"{raw:8.3f} ms {raw / alone:5.2f}x{verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
