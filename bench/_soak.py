"""The soak: a bounded long run of mixed load on ``memstrata serve`` with every background
part on, sampled every few seconds, then checked for lost or doubled writes.

``run_soak`` starts the scripted summary model, makes one key per tenant, starts the service
(``_soak_server.py``), drives the paced clients (``_soak_load.py``) while the sampler
(``_soak_watch.py``) records a :class:`Window` every ``sample_s`` seconds, stops the service
with SIGTERM, and then opens the file itself to check that every acknowledged message of every
session not removed is there exactly once, that removed sessions and forgotten messages are
gone, and that the error records are exactly those written and not deleted.

:func:`flatness` reduces the windows to the soak's verdict figures: the run is cut in thirds
by time; the first is warm-up, and the last third is compared with the second. Both the test
(``tests/test_reliability_soak.py``) and ``bench/soak.py`` call these.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from _soak_load import Client, Ledger
from _soak_report import window_line
from _soak_server import ScriptedLLM, Served, make_keys, server_env
from _soak_watch import Sampler, Window

from memstrata import Memory, Settings

__all__ = ["Flatness", "SoakConfig", "SoakResult", "Verdict", "flatness", "run_soak"]


@dataclass(frozen=True)
class SoakConfig:
    seconds: float = 60.0
    sample_s: float = 2.0
    clients: int = 8
    rate: float = 120.0
    """Requests per second over all clients (each client paces itself to its share)."""
    sessions_per_client: int = 1
    quota: tuple[int, int] = (60, 140)
    """A session is removed after a number of messages drawn from this range."""
    error_pool: int = 6
    """Error records a client keeps; it deletes its oldest past that."""
    tenants: tuple[str, ...] = ("soak-a", "soak-b")
    llm_delay_s: float = 0.02


@dataclass
class Verdict:
    """What the file held after the service stopped, against the ledger."""

    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    removed_present: list[str] = field(default_factory=list)
    forgotten_present: list[int] = field(default_factory=list)
    errors_wrong: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.unexpected or self.removed_present
                    or self.forgotten_present or self.errors_wrong)


@dataclass
class SoakResult:
    config: SoakConfig
    windows: list[Window]
    ledger: Ledger
    verdict: Verdict
    exit_code: int
    llm_calls: int
    log_tail: str


async def _drive(cfg: SoakConfig, served: Served, keys: list[str], ledger: Ledger,
                 sampler: Sampler) -> None:
    per_client = cfg.rate / cfg.clients
    clients = [Client(n, n % len(keys), served.url, keys[n % len(keys)], ledger,
                      rate=per_client, sessions=cfg.sessions_per_client, quota=cfg.quota,
                      error_pool=cfg.error_pool) for n in range(cfg.clients)]
    stop = asyncio.Event()
    watching = asyncio.create_task(sampler.run(stop))
    stop_at = time.monotonic() + cfg.seconds
    await asyncio.gather(*(c.run(stop_at) for c in clients))
    stop.set()
    await watching


def run_soak(cfg: SoakConfig, work: Path, log: bool = False) -> SoakResult:
    """Run the soak in ``work`` (a fresh directory) and check the file afterwards."""
    db = work / "soak.db"
    keys = make_keys(db, list(cfg.tenants))
    llm = ScriptedLLM(cfg.llm_delay_s).start()
    try:
        served = Served(db, server_env(llm.url))
        try:
            served.wait_ready()
            ledger = Ledger()
            sampler = Sampler(served.pid, db, served.url, keys, ledger, lambda: llm.calls,
                              cfg.sample_s)
            if log:
                sampler.on_window = _show
            asyncio.run(_drive(cfg, served, keys, ledger, sampler))
        finally:
            code = served.stop()
    finally:
        llm.stop()
    verdict = asyncio.run(verify(db, cfg, ledger))
    return SoakResult(cfg, sampler.windows, ledger, verdict, code, llm.calls, served.tail())


def _show(w: Window) -> None:
    print(window_line(w), flush=True)


async def verify(db: Path, cfg: SoakConfig, ledger: Ledger) -> Verdict:
    """Open the file (no background work) and compare it with the ledger; the checks the
    clients made before each removal count too."""
    v = Verdict(ledger.checked, list(ledger.lost), list(ledger.duplicated),
                list(ledger.unexpected))
    settings = Settings(embedder=None, summary_cron=None)
    for t, tenant in enumerate(cfg.tenants):
        async with Memory.open(str(db), settings=settings, tenant=tenant,
                               background=False) as mem:
            for book in [b for b in ledger.live.values() if b.tenant == t]:
                if not book.acked:
                    continue
                v.acknowledged += len(book.acked)
                stored = [r async for r in mem.export(book.name) if r["type"] == "message"]
                seen = Counter((int(r["id"]), str(r["content"])) for r in stored)
                v.duplicated += [f"{book.name}/{k[0]}" for k, n in seen.items() if n > 1]
                v.lost += [f"{book.name}/{i}" for i, c in book.acked.items()
                           if (i, c) not in seen]
                v.unexpected += [f"{book.name}/{k[0]}" for k in seen
                                 if book.acked.get(k[0]) != k[1]]
            names = {s.id for s in await mem.sessions()}
            v.removed_present += [s for tt, s in ledger.removed if tt == t and s in names]
            for tt, message_id in ledger.forgotten:
                if tt == t and await mem.message(message_id) is not None:
                    v.forgotten_present.append(message_id)
            have = {r.id for r in await mem.errors.list()}
            want = {i for i, tt in ledger.errors.items() if tt == t}
            v.errors_wrong += sorted(have ^ want)
    return v


@dataclass(frozen=True)
class Flatness:
    """The last third of the run against the second (the first is warm-up)."""

    rss_growth_pct: float
    anon_growth_pct: float
    db_growth_pct: float
    """Largest database file of the last third against the second's (the WAL apart: it
    stays at the size of its checkpoint interval and would hide the file's growth)."""
    wal_max_mb: float
    """The largest WAL seen after warm-up: it stays small only while checkpoints complete."""
    p95_ratio: float
    fd_growth: int
    thread_growth: int
    anon_slope_mb_h: float
    """Least-squares slope of ``anon`` over everything after warm-up, MB per hour."""


def thirds(windows: list[Window]) -> tuple[list[Window], list[Window], list[Window]]:
    end = windows[-1].t
    return ([w for w in windows if w.t <= end / 3],
            [w for w in windows if end / 3 < w.t <= 2 * end / 3],
            [w for w in windows if w.t > 2 * end / 3])


def _growth(before: float, after: float) -> float:
    return 100.0 * (after / before - 1.0) if before else float("nan")


def _slope(xs: list[float], ys: list[float]) -> float:
    if len(xs) < 2:
        return float("nan")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


def flatness(windows: list[Window]) -> Flatness:
    _, second, last = thirds(windows)
    med = statistics.median
    after = second + last
    return Flatness(
        rss_growth_pct=_growth(med(w.rss_mb for w in second), med(w.rss_mb for w in last)),
        anon_growth_pct=_growth(med(w.anon_mb for w in second), med(w.anon_mb for w in last)),
        db_growth_pct=_growth(max(w.db_mb for w in second), max(w.db_mb for w in last)),
        wal_max_mb=max(w.wal_mb for w in after),
        p95_ratio=med(w.p95_ms for w in last) / med(w.p95_ms for w in second),
        fd_growth=max(w.fds for w in last) - max(w.fds for w in second),
        thread_growth=max(w.threads for w in last) - max(w.threads for w in second),
        anon_slope_mb_h=3600 * _slope([w.t for w in after], [w.anon_mb for w in after]))


def figures_line(res: SoakResult) -> str:
    """The soak's one line of figures."""
    f = flatness(res.windows)
    led, v = res.ledger, res.verdict
    requests = sum(led.calls.values())
    return (f"soak: {res.config.seconds:.0f} s, {requests} requests, 5xx={led.server_errors} "
            f"failed={led.failures} acknowledged={v.acknowledged} lost={len(v.lost)} "
            f"duplicated={len(v.duplicated)} unexpected={len(v.unexpected)} "
            f"removed={len(led.removed)} "
            f"forgotten={len(led.forgotten)} temp_expired={led.temp_expired} "
            f"llm_calls={res.llm_calls}; last third vs second: rss {f.rss_growth_pct:+.1f} % "
            f"anon {f.anon_growth_pct:+.1f} % (slope {f.anon_slope_mb_h:+.1f} MB/h) "
            f"db {f.db_growth_pct:+.1f} % (WAL at most {f.wal_max_mb:.1f} MB) "
            f"p95 x{f.p95_ratio:.2f} "
            f"fds {f.fd_growth:+d} threads {f.thread_growth:+d}")
