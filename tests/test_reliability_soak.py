"""The soak: ``memstrata serve`` under a steady mixed load, with the indexer, the summary
schedule (against a scripted model over HTTP), compaction and the sweeper all running.

The driver is ``bench/_soak.py`` (``bench/soak.py`` runs the same soak standalone and prints
a table per minute). The QUICK run (default) loads the service for 60 seconds; with
``MEMSTRATA_LONG=1`` it runs ``MEMSTRATA_SOAK_SECONDS`` seconds (1800 by default).

Asserted: no request answered 5xx or failed, the service stopped cleanly on SIGTERM, every
acknowledged message is stored exactly once (each session's export is checked just before
the session is removed, the sessions still alive in the file after the stop; removed
sessions, forgotten messages and deleted error records are gone), the background work kept
up, and after warm-up (the first third) neither open file descriptors nor threads grow.
Memory, file size and latency drift (last third against the second) are printed, and held
to loose bounds that only a leak or an unbounded file would break (see ``test_soak``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from helpers import ManualClock

from memstrata import Memory, Settings
from memstrata.providers import HashEmbedder

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
try:
    from _soak import SoakConfig, figures_line, flatness, run_soak, thirds
finally:
    sys.path.remove(str(ROOT / "bench"))

LONG = os.environ.get("MEMSTRATA_LONG") == "1"
SECONDS = float(os.environ.get("MEMSTRATA_SOAK_SECONDS", "1800")) if LONG else 60.0
SAMPLE_S = 5.0 if LONG else 2.0
# The quick run's sessions are shorter, so they turn over several times within the warm-up
# third and the file reaches its steady size before the thirds are compared.
QUOTA = (60, 140) if LONG else (30, 70)


def test_soak(tmp_path: Path) -> None:
    cfg = SoakConfig(seconds=SECONDS, sample_s=SAMPLE_S, quota=QUOTA)
    res = run_soak(cfg, tmp_path)
    print("\n" + figures_line(res))
    led, v = res.ledger, res.verdict

    assert res.exit_code == 0, res.log_tail
    assert led.server_errors == 0 and led.failures == 0, (
        led.server_errors, led.failures, led.failure_samples[:5])
    assert v.ok, v
    assert v.acknowledged >= 5 * SECONDS, v.acknowledged

    # The load was the intended one: sessions turned over, every kind of call ran.
    assert len(led.removed) >= cfg.clients, len(led.removed)
    kinds = {call.split()[0] for call in led.calls}
    assert kinds >= {"add", "batch", "context", "search", "read", "forget", "errors", "temp",
                     "export", "remove"}, kinds

    # The background work kept going to the end: summaries over HTTP, compaction, indexing.
    _, second, last = thirds(res.windows)
    assert last[-1].llm_calls > second[-1].llm_calls > 0
    assert max(w.summarised for w in last) > 0 and max(w.compacted for w in last) > 0
    assert min(w.backlog for w in last) <= 10, [w.backlog for w in last]
    if LONG:
        assert led.temp_expired > 0

    # Flat after warm-up.
    f = flatness(res.windows)
    assert f.fd_growth <= 4, [w.fds for w in res.windows]
    assert f.thread_growth <= 2, [w.threads for w in res.windows]
    # Loose on purpose, since a shared 2-core machine moves these by a few per cent from run
    # to run and the quick run is short. A file that kept what is removed grows in
    # proportion to the writes, +50 % from the second third to the last; a WAL whose
    # checkpoints never complete grows without bound; the leak the soak found (a search
    # index kept per removed session) added about 2 MB a minute. Latency is printed only:
    # a neighbour's load moves p95 by 2-3x between windows, which says nothing about the
    # service.
    assert f.anon_growth_pct < (10 if LONG else 25), [round(w.anon_mb, 1) for w in res.windows]
    assert f.db_growth_pct < (10 if LONG else 35), [round(w.db_mb, 2) for w in res.windows]
    assert f.wal_max_mb < 32, [round(w.wal_mb, 2) for w in res.windows]


async def test_removed_and_purged_sessions_leave_no_search_index_behind(
        tmp_path: Path, clock: ManualClock) -> None:
    """What the soak found: the search cache kept the index of every removed session (about
    47 KB each here) until its byte bound pushed it out, so a service whose sessions come and
    go grew until the cache was full of sessions that no longer exist."""
    settings = Settings(summary_cron=None, temp_idle_minutes=1)
    async with Memory.open(str(tmp_path / "m.db"), settings=settings, background=False,
                           embedder=HashEmbedder(64), clock=clock) as mem:
        for name in ("kept", "gone", "temp-scratch"):
            await mem.add_many(name, [{"role": "user", "content": f"{name} train {i}"}
                                      for i in range(20)])
            await mem.flush()
            assert await mem.search(name, "train", match="hybrid", exclude_window=False)
        cache = mem._cache
        assert len(cache) == 3
        assert await mem.remove("gone")
        clock.advance(120)
        await mem.add("kept", "user", "still here")  # kept is not idle, and not temp anyway
        assert await mem.sweep() == ["temp-scratch"]
        assert len(cache) == 1
        assert await mem.search("kept", "train", match="hybrid", exclude_window=False)
