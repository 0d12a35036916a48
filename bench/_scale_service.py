"""Searches beside another tenant's indexing, over ``memstrata serve`` with the default model.

    python bench/_scale_service.py [--batch 8000] [--seconds 10] [--clients 2]
                                   [--baseline-src DIR] [--quick]

Two tenants share one service. Tenant B has one LoCoMo conversation, indexed; tenant A then
sends a batch of ``--batch`` messages in one request, which the indexer embeds with the
default local model. Measured, for the code under test and (with ``--baseline-src``, a
``src`` directory of an earlier checkout) the earlier code, each in a server of its own on a
database of its own, one after the other in the same run:

* B's hybrid search in its session, p95 of a closed loop of ``--clients`` clients: while
  nothing is being indexed (quiet), and while A's batch is being embedded (busy);
* how long after B adds a message a search by meaning (no word in common) finds it, while A's
  batch is being embedded;
* indexing throughput: messages/s from the moment a batch of ``--throughput`` messages is
  accepted until it is all embedded, with nothing else running (measured first, after B's
  conversation has loaded the model).

``run(args)`` returns rows of (what, measured, baseline, verdict) for a report; run alone it
prints them. Targets: busy p95 at most 3x quiet, B's message found within 5 s, throughput no
lower than the baseline's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import make_message
from _load import Conn, closed_loop, percentile
from _sets import load_locomo
from service import make_key, serving

SRC = Path(__file__).resolve().parents[1] / "src"
SERVER_ENV = {"MEMSTRATA_SUMMARY_CRON": "none", "MEMSTRATA_EMBEDDER": "local"}
MAX_P95_RATIO = 3.0
MAX_FOUND_S = 5.0
# B's new message and a question that shares no word with it.
PROBE = ("My grandmother taught me to knit scarves when I was nine years old.")
PROBE_QUERY = "who showed you how to make woollen clothes as a child"
QUERIES = ("What did they talk about at the beach?", "Which books were recommended?",
           "How does she feel about her job?", "plans for the summer holiday",
           "painting and art classes", "Where did he travel last year?",
           "favourite food and cooking", "support group meeting")
Row = tuple[str, str, str, str]
_PER_REQUEST = 1_000


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass
class Side:
    """The figures of one server (the code under test, or the baseline)."""

    name: str
    quiet_p95: float = float("nan")
    quiet_p50: float = float("nan")
    busy_p95: float = float("nan")
    busy_p50: float = float("nan")
    busy_calls: int = 0
    backlog_at_end: int = 0
    found_s: float | None = None
    throughput: float = float("nan")
    notes: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.busy_p95 / self.quiet_p95 if self.quiet_p95 else float("nan")


async def _json(conn: httpx.AsyncClient, method: str, target: str, body: Any = None,
                expected: int = 200) -> Any:
    answer = await conn.request(method, target, json=body)
    if answer.status_code != expected:
        raise RuntimeError(f"{method} {target}: {answer.status_code} {answer.text[:300]!r}")
    return answer.json() if answer.content else None


def _client(url: str, key: str) -> httpx.AsyncClient:
    """For the calls around the measured ones (the measured ones use ``Conn``)."""
    return httpx.AsyncClient(base_url=url, timeout=600,
                             headers={"Authorization": f"Bearer {key}"})


async def _backlog(conn: httpx.AsyncClient, session: str) -> int:
    stats = await _json(conn, "GET", f"/v1/sessions/{session}")
    return int(stats["index_backlog"])


async def _settle(conn: httpx.AsyncClient, session: str, timeout: float = 900.0) -> float:
    """Wait until the session has nothing left to embed; returns the seconds it took."""
    start = time.monotonic()
    while await _backlog(conn, session) > 0:
        if time.monotonic() - start > timeout:
            raise RuntimeError(f"{session} was not indexed within {timeout:g} s")
        await asyncio.sleep(0.25)
    return time.monotonic() - start


def _items(rng: random.Random, n: int) -> list[dict[str, str]]:
    roles = ("user", "assistant")
    return [{"role": roles[i % 2], "content": make_message(rng, roles[i % 2])}
            for i in range(n)]


async def _send(conn: httpx.AsyncClient, session: str, items: Sequence[dict[str, Any]]) -> None:
    """Write ``items`` as batches of at most ``_PER_REQUEST`` (a request body is at most
    1 MiB), back to back."""
    for at in range(0, len(items), _PER_REQUEST):
        await _json(conn, "POST", f"/v1/sessions/{session}/messages/batch",
                    {"items": items[at:at + _PER_REQUEST]}, expected=201)


async def _found(conn: httpx.AsyncClient, session: str, timeout: float = 60.0) -> float | None:
    """Add the probe to B's session; seconds until a semantic search finds it."""
    await _json(conn, "POST", f"/v1/sessions/{session}/messages",
                {"role": "user", "content": PROBE}, expected=201)
    start = time.monotonic()
    target = (f"/v1/sessions/{session}/search?q={quote(PROBE_QUERY)}&match=semantic"
              "&exclude_window=false")
    while time.monotonic() - start < timeout:
        hits = (await _json(conn, "GET", target))["hits"]
        if any(h["matched"] and h["message"]["content"] == PROBE for h in hits):
            return time.monotonic() - start
        await asyncio.sleep(0.1)
    return None


async def _measure(url: str, keys: dict[str, str], args: argparse.Namespace,
                   side: Side) -> None:
    a, b = _client(url, keys["a"]), _client(url, keys["b"])
    conv = load_locomo(limit=1)[0][0]
    await _send(b, "b-chat", [{"role": m.role, "content": m.text, "sender": m.sender,
                               "at": m.at} for m in conv.messages])
    log(f"{side.name}: B's {len(conv.messages)} messages indexed in "
        f"{await _settle(b, 'b-chat'):.1f} s (the model loads first)")
    rng = random.Random(7)
    # Throughput first, while nothing else is queued: the time from the batch's
    # acknowledgement until its last message is embedded.
    await _send(a, "a-more", _items(rng, args.throughput))
    took = await _settle(a, "a-more")
    side.throughput = args.throughput / took
    log(f"{side.name}: {args.throughput} messages indexed in {took:.1f} s "
        f"({side.throughput:.1f}/s)")
    conns = [Conn(url, keys["b"]) for _ in range(args.clients)]

    async def search(n: int, rng: random.Random) -> str | None:
        target = f"/v1/sessions/b-chat/search?q={quote(rng.choice(QUERIES))}&match=hybrid"
        try:
            status, body = await conns[n].request("GET", target)
        except (asyncio.IncompleteReadError, ConnectionError):
            # The server closed a connection left idle between phases: open a new one.
            await conns[n].close()
            conns[n] = Conn(url, keys["b"])
            status, body = await conns[n].request("GET", target)
        return None if status == 200 else f"{status}: {body[:200]!r}"

    quiet = await closed_loop("quiet", args.clients, args.seconds, search,
                              warmup_s=args.warmup)
    lat = sorted(quiet.latencies_ms)
    side.quiet_p50, side.quiet_p95 = percentile(lat, 50), percentile(lat, 95)
    log(f"{side.name}: quiet p50 {side.quiet_p50:.1f} p95 {side.quiet_p95:.1f} ms "
        f"({quiet.calls} calls)")

    await _send(a, "a-import", _items(rng, args.batch))
    await asyncio.sleep(0.5)  # the indexer has claimed its first batches
    probe = asyncio.ensure_future(_found(b, "b-chat"))
    busy = await closed_loop("busy", args.clients, args.seconds, search, warmup_s=0.0)
    side.backlog_at_end = await _backlog(a, "a-import")
    side.found_s = await probe
    lat = sorted(busy.latencies_ms)
    side.busy_p50, side.busy_p95, side.busy_calls = (percentile(lat, 50), percentile(lat, 95),
                                                     busy.calls)
    errors = len(quiet.errors) + len(busy.errors)
    if errors:
        side.notes.append(f"{errors} search(es) failed")
    if side.backlog_at_end == 0:
        side.notes.append("A's batch was indexed before the busy phase ended; raise --batch")
    log(f"{side.name}: busy p50 {side.busy_p50:.1f} p95 {side.busy_p95:.1f} ms "
        f"({busy.calls} calls, A's backlog {side.backlog_at_end} at the end); "
        f"B's message found after {side.found_s} s")
    for c in conns:
        await c.close()
    await a.aclose()
    await b.aclose()


async def _side(name: str, src: Path, args: argparse.Namespace) -> Side:
    side = Side(name)
    work = Path(tempfile.mkdtemp(prefix=f"memstrata-scale-{name}-", dir=args.work_dir))
    env = {**SERVER_ENV, "PYTHONPATH": str(src)}
    try:
        path = work / "scale.db"
        keys = {t: make_key(path, t, env) for t in ("a", "b")}
        try:
            with serving(path, work, False, env) as (url, _pid):
                await _measure(url, keys, args, side)
        except Exception:
            log((work / "server.log").read_text(errors="replace")[-3000:])
            raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return side


def _ms(x: float) -> str:
    return f"{x:,.0f} ms"


def rows(new: Side, old: Side | None) -> list[Row]:
    """(what, measured, baseline, verdict) for the figures of both sides."""
    def p95s(s: Side | None) -> str:
        if s is None:
            return "not run"
        return f"{_ms(s.busy_p95)} busy vs {_ms(s.quiet_p95)} quiet ({s.ratio:.1f}x)"

    def found(s: Side | None) -> str:
        if s is None:
            return "not run"
        return "not found" if s.found_s is None else f"{s.found_s:.1f} s"

    ok_ratio = new.ratio <= MAX_P95_RATIO
    ok_found = new.found_s is not None and new.found_s <= MAX_FOUND_S
    out: list[Row] = [
        ("B's hybrid search p95, A's batch embedding vs quiet (≤3x)", p95s(new), p95s(old),
         "PASS" if ok_ratio else "MISS"),
        ("B's new message found by meaning while A's batch embeds (≤5 s)", found(new),
         found(old), "PASS" if ok_found else "MISS")]
    if old is None:
        out.append(("indexing throughput, default model (no lower)",
                    f"{new.throughput:,.1f} msg/s", "not run", "—"))
    else:
        ratio = new.throughput / old.throughput
        # Two runs on a shared machine differ by a few per cent with no change at all.
        out.append(("indexing throughput, default model (no lower)",
                    f"{new.throughput:,.1f} msg/s ({ratio:.2f}x)",
                    f"{old.throughput:,.1f} msg/s", "PASS" if ratio >= 0.95 else "MISS"))
    return out


async def _both(args: argparse.Namespace) -> tuple[Side, Side | None]:
    old = None
    if args.baseline_src is not None:
        old = await _side("baseline", Path(args.baseline_src), args)
    new = await _side("new", SRC, args)
    return new, old


def run(args: argparse.Namespace) -> list[Row]:
    """Measure (see the module's docstring); ``args`` as :func:`parser` makes them."""
    new, old = asyncio.run(_both(args))
    log(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end")
    for s in (old, new):
        if s is not None:
            for note in s.notes:
                log(f"note ({s.name}): {note}")
    return rows(new, old)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--batch", type=int, default=8_000, help="messages in A's batch")
    p.add_argument("--throughput", type=int, default=2_000,
                   help="messages of the batch whose indexing is timed alone")
    p.add_argument("--seconds", type=float, default=10.0, help="timed seconds per phase")
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--clients", type=int, default=2, help="B's concurrent searches")
    p.add_argument("--baseline-src", default=None,
                   help="the src directory of the code to compare with (e.g. a checkout of "
                        "an earlier commit)")
    p.add_argument("--work-dir", default=None)
    p.add_argument("--quick", action="store_true", help="a small, short run (smoke test)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.quick:
        args.batch, args.throughput, args.seconds, args.warmup = 1_500, 256, 2.0, 0.5
    table = run(args)
    width = max(len(r[0]) for r in table)
    print(f"{'what':<{width}}  measured | baseline | verdict")
    for what, measured, base, verdict in table:
        print(f"{what:<{width}}  {measured} | {base} | {verdict}")
    return 0 if all(r[3] != "MISS" for r in table) else 1


if __name__ == "__main__":
    raise SystemExit(main())
