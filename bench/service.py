"""Service benchmark: the HTTP API beside the same calls in-process, on the same data, in one run.

    python bench/service.py [--messages 100000] [--sessions 1000] [--seconds 10] [--clients 32]
    python bench/service.py --quick          # small and short (tests)
    python bench/service.py --overhead 4 --messages 20000 --sessions 200 --seconds 5

One database is loaded with the core benchmark's corpus (``_corpus.py``), then each operation
runs as a closed loop of ``--clients`` concurrent clients for ``--seconds``:

* in-process, with the same concurrency the server gets: ``--clients`` asyncio tasks calling
  one ``Memory`` (``embedder=None``), and ``--clients`` threads calling one ``SyncMemory``
  (the way a threaded application or a worker pool calls the library); ``--local`` picks;
* over HTTP: a real ``memstrata serve`` subprocess on 127.0.0.1 serving the same file, and
  ``--clients`` keep-alive connections (``_load.py``) from this process.

Operations: ``add`` (one message, acknowledged once committed), ``context`` (the window of a
random session) and keyword ``search`` in a random session. Writes go to their own sessions,
so both sides read the same data. Prints requests/s and p50/p95 of each side, their ratio, and
the service targets with PASS/MISS; writes the figures as JSON under ``--out``. The targets are
the service's own rates (add ≥ 1,000/s and context ≥ 1,500/s under 32 clients) and the
context tail; the ratio to the stronger in-process figure is printed beside them, since an
absolute rate also measures what else the machine runs.

``--overhead N`` measures instead what rate limiting and metrics cost: the same app served by
uvicorn with both off (no metrics middleware, no limits) and with both on (every key's rate
and both tenant quotas set, far above what the run reaches, so every request is checked and
none refused), ``add`` and ``context`` over HTTP, in N rounds alternating the two servers;
it prints the median rate of each and their ratio (target: the cost at most 10 %).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx
from _corpus import build, english_queries, make_message
from _load import Conn, Phase, closed_loop, percentile, process_cpu, threaded_loop

from memstrata import Memory, Settings, SyncMemory
from memstrata.types import Role

TENANT = "bench"
WRITE_SESSIONS = 200
# HTTP requests/s the service must reach under 32 clients, and the context tail under load as
# a multiple of its median.
TARGET_RATE = {"add": 1_000.0, "context": 1_500.0}
TARGET_CONTEXT_TAIL = 1.5
SERVER_ENV = {"MEMSTRATA_EMBEDDER": "none", "MEMSTRATA_SUMMARY_CRON": "none"}
OPS = ("add", "context", "search")


@dataclass
class Results:
    config: dict[str, Any]
    machine: dict[str, Any]
    phases: dict[str, dict[str, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def figures(phase: Phase) -> dict[str, float]:
    s = sorted(phase.latencies_ms)
    out = {"calls": phase.calls, "seconds": round(phase.seconds, 3), "rate": phase.rate,
           "p50_ms": percentile(s, 50), "p95_ms": percentile(s, 95),
           "p99_ms": percentile(s, 99), "errors": len(phase.errors)}
    if phase.cpu_seconds is not None and phase.calls:
        out["cpu_ms"] = phase.cpu_seconds * 1000 / phase.calls
    return out


# -- the data ------------------------------------------------------------------------------


async def load(path: Path, messages: int, sessions: int) -> list[str]:
    corpus = build(messages, sessions, batch=500, seed=3)
    async with Memory.open(str(path), settings=Settings(embedder=None, summary_cron=None),
                           tenant=TENANT, background=False) as mem:
        for s, lo, hi in corpus.batches:
            await mem.add_many(corpus.session_ids[s], [
                {"role": r.role, "content": r.content, "sender": r.sender, "at": r.at}
                for r in corpus.rows[lo:hi]])
    return list(corpus.session_ids)


# -- in-process ------------------------------------------------------------------------------


async def in_process(path: Path, ids: Sequence[str], args: argparse.Namespace,
                     res: Results) -> None:
    words = english_queries()
    settings = Settings(embedder=None, summary_cron=None)
    async with Memory.open(str(path), settings=settings, tenant=TENANT,
                           background=False) as mem:
        async def add(n: int, rng: random.Random) -> str | None:
            role = rng.choice(("user", "assistant"))
            await mem.add(f"w-{rng.randrange(WRITE_SESSIONS)}", cast("Role", role),
                          make_message(rng, role))
            return None

        async def context(n: int, rng: random.Random) -> str | None:
            await mem.context(rng.choice(ids))
            return None

        async def search(n: int, rng: random.Random) -> str | None:
            await mem.search(rng.choice(ids), rng.choice(words), match="keyword")
            return None

        for name, call in (("context", context), ("search", search), ("add", add)):
            log(f"in-process: {name}, {args.clients} tasks, {args.seconds:g} s")
            phase = await closed_loop(name, args.clients, args.seconds, call,
                                      warmup_s=args.warmup)
            res.phases[f"local_{name}"] = figures(phase)


def in_threads(path: Path, ids: Sequence[str], args: argparse.Namespace,
               res: Results) -> None:
    """The same operations from ``--clients`` threads sharing one ``SyncMemory``."""
    words = english_queries()
    settings = Settings(embedder=None, summary_cron=None)
    with SyncMemory.open(str(path), settings=settings, tenant=TENANT,
                         background=False) as mem:
        def add(n: int, rng: random.Random) -> str | None:
            role = rng.choice(("user", "assistant"))
            mem.add(f"w-{rng.randrange(WRITE_SESSIONS)}", cast("Role", role),
                    make_message(rng, role))
            return None

        def context(n: int, rng: random.Random) -> str | None:
            mem.context(rng.choice(ids))
            return None

        def search(n: int, rng: random.Random) -> str | None:
            mem.search(rng.choice(ids), rng.choice(words), match="keyword")
            return None

        for name, call in (("context", context), ("search", search), ("add", add)):
            log(f"in-process: {name}, {args.clients} threads, {args.seconds:g} s")
            phase = threaded_loop(name, args.clients, args.seconds, call,
                                  warmup_s=args.warmup)
            res.phases[f"threads_{name}"] = figures(phase)


# -- over HTTP -------------------------------------------------------------------------------


def make_key(path: Path | str, tenant: str = TENANT, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "memstrata", "--db", str(path), "keys",
                           "create", "--tenant", tenant, "--name", "bench"],
                          capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})})
    found = re.search(r"\bms_[A-Za-z0-9]+_[A-Za-z0-9_-]+", done.stdout)
    if found is None:
        raise RuntimeError(f"no key in the output of keys create: {done.stdout!r}")
    return found.group(0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ``--tuned``: the same app under uvicorn without the access log, and with uvloop and httptools
# when they are installed (uvicorn's "auto" picks them), to show what the server's set-up costs.
TUNED = """
import sys, uvicorn
from memstrata import Settings
from memstrata.server import create_app
uvicorn.run(create_app(sys.argv[1], settings=Settings.from_env()), host="127.0.0.1",
            port=int(sys.argv[2]), log_level="warning", access_log=False)
"""


# The app with its metrics middleware and limits removed (the "off" side of --overhead).
BARE = """
import sys, uvicorn
from memstrata import Settings
from memstrata.server import create_app
from memstrata.server._metrics import RequestMetrics
app = create_app(sys.argv[1], settings=Settings.from_env())
app.user_middleware = [m for m in app.user_middleware if m.cls is not RequestMetrics]
app.state.limits = None
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning",
            access_log=False)
"""
# Limits far above what a run reaches: every request is checked, none refused.
LIMITED_ENV = {"MEMSTRATA_KEY_RATE_PER_SECOND": "1000000",
               "MEMSTRATA_TENANT_MESSAGES_PER_DAY": "1000000000",
               "MEMSTRATA_TENANT_STORED_BYTES": "1000000000000"}


def server_command(path: Path | str, port: int, tuned: bool, bare: bool = False) -> list[str]:
    if bare:
        return [sys.executable, "-c", BARE, str(path), str(port)]
    if tuned:
        return [sys.executable, "-c", TUNED, str(path), str(port)]
    return [sys.executable, "-m", "memstrata", "--db", str(path), "serve", "--host",
            "127.0.0.1", "--port", str(port)]


@contextlib.contextmanager
def serving(path: Path | str, work: Path, tuned: bool, env: dict[str, str] | None = None,
            bare: bool = False) -> Iterator[tuple[str, int]]:
    """The server on the file; yields its URL and process id. Its log goes to a file (a pipe
    nobody reads would fill and stall it). ``env`` replaces the benchmark's server settings
    (``SERVER_ENV``)."""
    port = free_port()
    log_path = work / "server.log"
    with log_path.open("wb") as sink:
        proc = subprocess.Popen(server_command(path, port, tuned, bare),
                                env={**os.environ, **(SERVER_ENV if env is None else env)},
                                stdout=sink, stderr=sink)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start: "
                                   + log_path.read_text(errors="replace")[-2000:])
            time.sleep(0.1)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def over_http(url: str, pid: int, key: str, ids: Sequence[str],
                    args: argparse.Namespace, res: Results,
                    ops: Sequence[str] = ("context", "search", "add")) -> None:
    words = english_queries()
    conns = [Conn(url, key) for _ in range(args.clients)]

    def checked(status: int, body: bytes, expected: int) -> str | None:
        return None if status == expected else f"{status}: {body[:200]!r}"

    async def add(n: int, rng: random.Random) -> str | None:
        role = rng.choice(("user", "assistant"))
        status, body = await conns[n].request(
            "POST", f"/v1/sessions/w-{rng.randrange(WRITE_SESSIONS)}/messages",
            {"role": role, "content": make_message(rng, role)})
        return checked(status, body, 201)

    async def context(n: int, rng: random.Random) -> str | None:
        status, body = await conns[n].request("GET", f"/v1/sessions/{rng.choice(ids)}/context")
        return checked(status, body, 200)

    async def search(n: int, rng: random.Random) -> str | None:
        q = rng.choice(words).replace(" ", "%20")
        status, body = await conns[n].request(
            "GET", f"/v1/sessions/{rng.choice(ids)}/search?q={q}&match=keyword")
        return checked(status, body, 200)

    try:
        calls = {"context": context, "search": search, "add": add}
        for name, call in ((op, calls[op]) for op in ops):
            log(f"HTTP: {name}, {args.clients} connections, {args.seconds:g} s")
            phase = await closed_loop(name, args.clients, args.seconds, call,
                                      warmup_s=args.warmup, cpu=process_cpu(pid))
            res.phases[f"http_{name}"] = figures(phase)
            if phase.errors:
                res.notes.append(f"HTTP {name}: {len(phase.errors)} failed calls, e.g. "
                                 f"{phase.errors[0]}")
    finally:
        for conn in conns:
            await conn.close()


# -- report ----------------------------------------------------------------------------------


def _rate(x: float | None) -> str:
    return "—" if x is None else f"{x:,.0f}/s"


def _ms(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f} ms"


def _verdict(met: bool | None) -> str:
    return "" if met is None else ("PASS" if met else "MISS")


def best_local(res: Results, op: str) -> dict[str, float] | None:
    """The stronger in-process phase of ``op`` (the higher rate of tasks and threads)."""
    found = [f for f in (res.phases.get(f"local_{op}"), res.phases.get(f"threads_{op}")) if f]
    return max(found, key=lambda f: f["rate"]) if found else None


def table_rows(res: Results) -> list[list[str]]:
    """[metric, HTTP, in-process tasks, in-process threads, HTTP/best in-process, target,
    met?] rows."""
    rows: list[list[str]] = []
    for op in OPS:
        http = res.phases.get(f"http_{op}")
        tasks, threads = res.phases.get(f"local_{op}"), res.phases.get(f"threads_{op}")
        best = best_local(res, op)
        label = "add (durable)" if op == "add" else op
        for key, name, fmt in (("rate", "requests/s", _rate), ("p50_ms", "p50", _ms),
                               ("p95_ms", "p95", _ms), ("cpu_ms", "CPU per call", _ms)):
            h = http.get(key) if http else None
            b = best.get(key) if best else None
            ratio = "—" if h is None or not b else f"{h / b:.2f}x"
            target, met = "", None
            if key == "rate" and op in TARGET_RATE and h is not None:
                target, met = f"≥ {TARGET_RATE[op]:,.0f}/s", h >= TARGET_RATE[op]
            if op == "context" and key == "p95_ms" and http:
                tail = http["p95_ms"] / http["p50_ms"]
                target = f"≤ {TARGET_CONTEXT_TAIL:g}x HTTP p50 ({tail:.2f}x)"
                met = tail <= TARGET_CONTEXT_TAIL
            rows.append([f"{label} {name}", fmt(h),
                         fmt(tasks.get(key) if tasks else None),
                         fmt(threads.get(key) if threads else None), ratio, target,
                         _verdict(met)])
    return rows


def render_table(rows: list[list[str]], clients: int) -> str:
    head = ["metric", f"HTTP ({clients} clients)", f"in-process ({clients} tasks)",
            f"in-process ({clients} threads)", "HTTP/best in-process", "target", "met?"]
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=False)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
              for row in rows]
    return "\n".join(lines)


# -- main ------------------------------------------------------------------------------------


@contextlib.contextmanager
def profiling(pid: int, out: Path | None) -> Iterator[None]:
    """``py-spy record`` of the server while the HTTP phases run (``--profile``)."""
    if out is None:
        yield
        return
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    proc = subprocess.Popen([spy, "record", "--pid", str(pid), "--rate", "200", "--format",
                             "raw", "--output", str(out), "--idle"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        proc.send_signal(2)  # SIGINT: py-spy writes its output and exits
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(30)


async def overhead(path: Path, work: Path, ids: Sequence[str], args: argparse.Namespace
                   ) -> dict[tuple[str, str, str], list[float]]:
    """Requests/s (``rate``) and server CPU per call (``cpu_ms``) of ``add`` and ``context``
    per side (``off``, ``on``), one of each per round."""
    rates: dict[tuple[str, str, str], list[float]] = {}
    key = make_key(path)
    for r in range(args.overhead):
        sides = (("off", True), ("on", False)) if r % 2 == 0 else (("on", False), ("off", True))
        for side, bare in sides:
            env = SERVER_ENV if bare else {**SERVER_ENV, **LIMITED_ENV}
            # Both sides are the app under plain uvicorn; "on" keeps metrics and limits.
            profile = (None if args.profile is None else
                       args.profile.with_name(f"{args.profile.name}-{side}-{r + 1}"))
            with serving(path, work, True, env, bare=bare) as (url, pid), \
                    profiling(pid, profile):
                res = Results(config={}, machine={})
                await over_http(url, pid, key, ids, args, res, ops=("context", "add"))
            for op in ("context", "add"):
                for what in ("rate", "cpu_ms"):
                    rates.setdefault((side, op, what), []).append(
                        res.phases[f"http_{op}"][what])
                log(f"round {r + 1} {side:>3} {op:<8} {rates[(side, op, 'rate')][-1]:,.0f}/s, "
                    f"{rates[(side, op, 'cpu_ms')][-1]:.3f} ms of CPU per call")
    return rates


async def run(args: argparse.Namespace, work: Path) -> Results:
    res = Results(
        config={"messages": args.messages, "sessions": args.sessions, "clients": args.clients,
                "seconds": args.seconds, "warmup": args.warmup, "tuned": args.tuned,
                "local": args.local},
        machine={"cpus": os.cpu_count(), "python": platform.python_version(),
                 "sqlite": sqlite3.sqlite_version, "platform": platform.platform(),
                 "load": os.getloadavg()[0]})
    path = work / "service.db"
    log(f"loading {args.messages:,} messages over {args.sessions:,} sessions")
    ids = await load(path, args.messages, args.sessions)
    if args.local in ("tasks", "both"):
        await in_process(path, ids, args, res)
    if args.local in ("threads", "both"):
        await asyncio.to_thread(in_threads, path, ids, args, res)
    key = make_key(path)
    with serving(path, work, args.tuned) as (url, pid), profiling(pid, args.profile):
        await over_http(url, pid, key, ids, args, res)
    return res


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--messages", type=int, default=100_000)
    p.add_argument("--sessions", type=int, default=1_000)
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--seconds", type=float, default=10.0, help="timed seconds per phase")
    p.add_argument("--warmup", type=float, default=2.0, help="untimed seconds per phase")
    p.add_argument("--local", choices=("tasks", "threads", "both"), default="both",
                   help="the in-process side: asyncio tasks, threads over SyncMemory, or both")
    p.add_argument("--quick", action="store_true",
                   help="2,000 messages, 1 s per phase (a smoke run)")
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    p.add_argument("--work-dir", default=None, help="where the database is built")
    p.add_argument("--tuned", action="store_true",
                   help="serve the app with uvicorn directly: no access log, uvloop and "
                        "httptools if installed (instead of memstrata serve)")
    p.add_argument("--overhead", type=int, default=0, metavar="ROUNDS",
                   help="measure the cost of rate limiting and metrics instead, in ROUNDS "
                        "alternating rounds")
    p.add_argument("--profile", type=Path, default=None, metavar="FILE",
                   help="record the server with py-spy during the HTTP phases (raw format)")
    args = p.parse_args(argv)
    if args.quick:
        args.messages, args.sessions, args.seconds, args.warmup = 2_000, 20, 1.0, 0.3

    if args.overhead:
        return main_overhead(args)
    work = Path(tempfile.mkdtemp(prefix="memstrata-service-", dir=args.work_dir))
    try:
        res = asyncio.run(run(args, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = table_rows(res)
    print(f"memstrata service benchmark: {args.messages:,} messages, {args.sessions:,} "
          f"sessions, {args.clients} clients, {args.seconds:g} s per phase, "
          f"{res.machine['cpus']} CPUs (load {res.machine['load']:.1f}), "
          f"Python {res.machine['python']}"
          + (", tuned server (no access log, uvloop/httptools if installed)"
             if args.tuned else ", memstrata serve"))
    print(render_table(rows, args.clients))
    for name, f in res.phases.items():
        cpu = f"{f['cpu_ms']:.3f}" if "cpu_ms" in f else "—"
        print(f"  {name:<16} n={int(f['calls']):>7,}  {f['rate']:>9,.0f}/s  p50 "
              f"{f['p50_ms']:7.2f}  p95 {f['p95_ms']:7.2f}  p99 {f['p99_ms']:7.2f} ms  "
              f"CPU/call {cpu} ms  errors {int(f['errors'])}")
    for note in res.notes:
        print(f"note: {note}")
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"service-{args.messages}{'-tuned' if args.tuned else ''}.json"
    out.write_text(json.dumps(asdict(res) | {"table": rows}, indent=2, ensure_ascii=False)
                   + "\n", encoding="utf-8")
    print(f"results: {out}")
    failed = sum(int(f["errors"]) for f in res.phases.values())
    return 1 if failed else 0


# Where a sample of the "on" server counts as the limits' and the metrics' own work: its
# innermost frame of the service (or of the packages it calls) is in one of these.
_OVERHEAD_CODE = ("prometheus_client", "server/_metrics.py", "server/_quotas.py")
_SERVICE_CODE = ("memstrata/", "prometheus_client", "starlette", "fastapi", "uvicorn",
                 "asyncio", "anyio", "sqlite3")


def overhead_share(raw: Path) -> float:
    """The share of a ``py-spy record --format raw`` profile's samples spent in the limits'
    and the metrics' own code (see :data:`_OVERHEAD_CODE`)."""
    total = spent = 0
    for line in raw.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        inner = [f for f in stack.split(";") if any(c in f for c in _SERVICE_CODE)]
        total += int(count)
        if inner and any(c in inner[-1] for c in _OVERHEAD_CODE):
            spent += int(count)
    return spent / total if total else float("nan")


def main_overhead(args: argparse.Namespace) -> int:
    async def measure(work: Path) -> dict[tuple[str, str, str], list[float]]:
        log(f"loading {args.messages:,} messages over {args.sessions:,} sessions")
        ids = await load(work / "service.db", args.messages, args.sessions)
        return await overhead(work / "service.db", work, ids, args)

    work = Path(tempfile.mkdtemp(prefix="memstrata-service-", dir=args.work_dir))
    try:
        rates = asyncio.run(measure(work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"rate limiting and metrics: {args.messages:,} messages, {args.clients} clients, "
          f"{args.seconds:g} s per phase, {args.overhead} rounds, {os.cpu_count()} CPUs "
          f"(load {os.getloadavg()[0]:.1f}); medians of the rounds")
    print(f"  {'':<8} {'off /s':>9} {'on /s':>9}  cost   {'off CPU':>9} {'on CPU':>9}  cost")
    for op in ("add", "context"):
        off, on = (statistics.median(rates[(side, op, "rate")]) for side in ("off", "on"))
        cpu_off, cpu_on = (statistics.median(rates[(side, op, "cpu_ms")])
                           for side in ("off", "on"))
        cost, cpu_cost = 1 - on / off, cpu_on / cpu_off - 1
        print(f"  {op:<8} {off:>9,.0f} {on:>9,.0f}  {cost:6.1%} {cpu_off:>6.3f} ms "
              f"{cpu_on:>6.3f} ms  {cpu_cost:6.1%}  "
              f"{'met' if cost <= 0.10 else 'missed'} (target <= 10 % slower)")
    if args.profile is not None:
        # The rates swing with the machine's load more than the effect; the profile says what
        # share of the server's time the limits and the metrics themselves take.
        for side in ("on", "off"):
            shares = [overhead_share(args.profile.with_name(f"{args.profile.name}-{side}-{r}"))
                      for r in range(1, args.overhead + 1)]
            print(f"  {side:<3} server samples in the limits' and metrics' own code: "
                  + ", ".join(f"{x:.2%}" for x in shares))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
