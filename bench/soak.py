"""Soak: a long run of steady mixed load on ``memstrata serve`` with the indexer and the
summary schedule on, sampled every few seconds; prints a table with one row per minute.

    python bench/soak.py --seconds 1800            # the published run (30 minutes)
    python bench/soak.py --seconds 90 --every 10   # a short look

Clients add messages to rolling sessions (each removed once it reaches its quota, and
replaced), read context in every format, search in every mode, forget messages, write, read
and delete error records, and leave ``temp-`` sessions for the sweeper, so the live data stays
bounded and the files and the process can stay flat. Afterwards the service is stopped with
SIGTERM and the file is checked: every acknowledged message of the sessions not removed is
there exactly once. Exits 1 on a 5xx, a failed request, a lost or doubled write, or an unclean
stop. The same driver (``_soak.py``) runs in ``tests/test_reliability_soak.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from _soak import SoakConfig, figures_line, flatness, run_soak, thirds
from _soak_report import period_rows, render_table


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=1800.0, help="Load duration.")
    p.add_argument("--sample", type=float, default=5.0, help="Seconds between samples.")
    p.add_argument("--every", type=float, default=60.0, help="Seconds per table row.")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--rate", type=float, default=120.0, help="Requests/s over all clients.")
    p.add_argument("--work-dir", type=Path, default=None,
                   help="Where the database goes (default: a temporary directory).")
    p.add_argument("--keep", action="store_true", help="Keep the database afterwards.")
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    cfg = SoakConfig(seconds=args.seconds, sample_s=args.sample, clients=args.clients,
                     rate=args.rate)
    work = Path(tempfile.mkdtemp(prefix="memstrata-soak-", dir=args.work_dir))
    print(f"memstrata soak: {cfg.seconds:g} s, {cfg.clients} clients at {cfg.rate:g} req/s, "
          f"{len(cfg.tenants)} tenants, samples every {cfg.sample_s:g} s, "
          f"{os.cpu_count()} CPUs (load {os.getloadavg()[0]:.1f}), Python "
          f"{platform.python_version()}; database {work / 'soak.db'}", flush=True)
    try:
        res = run_soak(cfg, work, log=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    rows = period_rows(res.windows, args.every)
    print()
    print(render_table(rows))
    warm, second, last = thirds(res.windows)
    print(f"\nwarm-up: first {warm[-1].t:.0f} s; compared: {second[0].t:.0f}-{second[-1].t:.0f} s "
          f"against {last[0].t:.0f}-{last[-1].t:.0f} s")
    print(figures_line(res))
    print(f"service exit code {res.exit_code}; calls: {dict(sorted(res.ledger.calls.items()))}")
    for text in res.ledger.failure_samples[:10]:
        print(f"failure: {text}")
    if not res.verdict.ok:
        print(f"verdict: {res.verdict}")
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"soak-{cfg.seconds:.0f}.json"
    out.write_text(json.dumps({
        "config": asdict(cfg), "flatness": asdict(flatness(res.windows)),
        "table": rows, "calls": dict(res.ledger.calls), "exit_code": res.exit_code,
        "windows": [{k: v for k, v in asdict(w).items() if k != "latencies"}
                    for w in res.windows]}, indent=1) + "\n", encoding="utf-8")
    print(f"results: {out}")
    bad = (res.ledger.server_errors or res.ledger.failures or not res.verdict.ok
           or res.exit_code != 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
