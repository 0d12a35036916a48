"""What per-tenant message numbers cost and save: an append, and a tenant-wide page, beside
another tenant that writes far more.

A temporary SQLite file holds a busy tenant (``--busy`` messages, written last, so they are the
newest rows of the file) and a quiet one (``--quiet`` messages in 20 sessions, written first).
The script times, store-level and in one process per source tree:

- ``append``: one message added to a quiet session (``Store.append``, compaction off),
  ``--appends`` times, alternating between the tenants; microseconds per append;
- ``page``: the quiet tenant's newest 20 messages across all its sessions (``Store.page`` with
  no session: what ``recent(None)`` and the HTTP tenant-wide listing read), ``--pages`` times.

``--baseline-src DIR`` (an earlier ``src``: ``git archive main src | tar -x -C /tmp/base``)
runs the same in a second process on that code first, and prints both side by side. The figures
are medians (and p95) on whatever machine runs it; nothing here reads benchmark data.

    python bench/tenant_numbers.py --baseline-src /tmp/base/src
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_T0 = 1_700_000_000 * 10**9


async def _measure(args: argparse.Namespace) -> dict[str, Any]:
    from memstrata._compaction import CompactionPolicy
    from memstrata._ingest import draft
    from memstrata.store import open_store

    off = CompactionPolicy(by_bytes=False, by_turns=False)

    def drafts(tenant: str, n: int, start: int) -> list[Any]:
        return [draft("user" if i % 2 == 0 else "assistant",
                      f"{tenant} message {i}: the train to Hualien leaves at {i % 24}:00",
                      at=_T0 + i, now=_T0 + i, max_chars=10_000)
                for i in range(start, start + n)]

    with tempfile.TemporaryDirectory() as tmp:
        store = await open_store(str(Path(tmp) / "n.db"))
        try:
            for s in range(20):
                per = args.quiet // 20
                await store.append("quiet", f"s{s}", drafts("quiet", per, s * per), now=_T0,
                                   policy=off)
            for start in range(0, args.busy, 5_000):
                await store.append("busy", f"b{start // 50_000}",
                                   drafts("busy", min(5_000, args.busy - start), start),
                                   now=_T0, policy=off)
            appends: list[float] = []
            for i in range(args.appends):
                tenant = "quiet" if i % 2 == 0 else "busy"
                one = drafts(tenant, 1, 10**6 + i)
                started = time.perf_counter()
                await store.append(tenant, "s0" if tenant == "quiet" else "b0", one, now=_T0,
                                   policy=off)
                appends.append((time.perf_counter() - started) * 1e6)
            pages: list[float] = []
            for _ in range(args.pages):
                started = time.perf_counter()
                got = await store.page("quiet", None, since=None, before_id=None, limit=20)
                pages.append((time.perf_counter() - started) * 1e6)
                assert len(got) == 20
            newest = [m.id for m in got[:3]]
        finally:
            await store.close()
    return {"append": _stats(appends), "page": _stats(pages), "newest_ids": newest}


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": statistics.median(ordered), "p95": ordered[int(len(ordered) * 0.95) - 1]}


def _run(src: str, args: argparse.Namespace) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, __file__, "--worker", "--busy", str(args.busy),
                          "--quiet", str(args.quiet), "--appends", str(args.appends),
                          "--pages", str(args.pages)],
                         env=env, check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, default=100_000,
                        help="messages of the busy tenant (the newest rows of the file)")
    parser.add_argument("--quiet", type=int, default=2_000,
                        help="messages of the quiet tenant, in 20 sessions")
    parser.add_argument("--appends", type=int, default=2_000)
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--baseline-src", help="an earlier src directory to compare with")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(asyncio.run(_measure(args))))
        return
    here = str(Path(__file__).resolve().parent.parent / "src")
    runs = [("baseline", args.baseline_src)] if args.baseline_src else []
    runs.append(("this tree", here))
    results = {name: _run(src, args) for name, src in runs}
    print(f"SQLite, busy tenant {args.busy:,} messages (newest), quiet tenant {args.quiet:,} "
          f"in 20 sessions; {args.appends:,} appends, {args.pages:,} pages")
    print(f"{'':28}" + "".join(f"{name:>22}" for name in results))
    for what, label in (("append", "append, µs (p50 / p95)"),
                        ("page", "tenant page of 20, µs")):
        print(f"{label:28}" + "".join(
            f"{r[what]['p50']:>12,.0f} / {r[what]['p95']:>7,.0f}" for r in results.values()))
    print(f"{'quiet tenant newest ids':28}" + "".join(
        f"{r['newest_ids']!s:>22}" for r in results.values()))


if __name__ == "__main__":
    main()
