"""The headline benchmark: every headline figure of docs/benchmarks.md from one command.

    python bench/headline.py                  # 3 rounds of every part (about 25 minutes)
    python bench/headline.py --quick          # tiny data, short phases (seconds; the smoke test)
    python bench/headline.py --parts core     # only some parts: core, service, peers
    python bench/headline.py --rounds 5 --chrt 10

Each part runs ``--rounds`` times (at least 3), each round in a fresh process:

* ``core`` (``_headline_core.py``): memstrata beside the limit (plain ``sqlite3``, one
  persistent connection, the same indexes) and seed 003 as written: ``add_many``, ``add``,
  ``context()`` back to back, after other work and cold, keyword search;
* ``service`` (``service.py``): the HTTP API beside the same calls in-process with the same
  concurrency (asyncio tasks and a thread pool), requests/s and CPU per call;
* ``peers`` (``peers.py``): writes, context reads and searches of memstrata and its peers,
  and recall on a conversation set written for this benchmark (``data/recall_set.json``).

Every figure is shown as the median of the rounds with their minimum and maximum; ratios are
taken within a round (both sides met the same machine) and a target counts as met only when
its worst round meets it. The table is printed as Markdown and written with every round's
figures as JSON under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service import TARGET_CONTEXT_TAIL, TARGET_RATE

HERE = Path(__file__).resolve().parent
PARTS = ("core", "service", "peers")
MIN_ROUNDS = 3
DASH = "\u2013"  # between a minimum and a maximum

CORE_FULL = ["--messages", "100000", "--sessions", "1000", "--samples", "4000",
             "--mixed", "1500", "--searches", "1500", "--writes", "1000", "--cold", "200"]
CORE_QUICK = ["--messages", "3000", "--sessions", "30", "--samples", "200", "--mixed", "60",
              "--searches", "100", "--writes", "100", "--cold", "10"]
SERVICE_FULL = ["--messages", "20000", "--sessions", "200", "--seconds", "4",
                "--warmup", "1"]
SERVICE_QUICK = ["--messages", "1000", "--sessions", "10", "--seconds", "0.5", "--warmup",
                 "0.2", "--clients", "8"]


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# -- what the table shows ----------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One headline row: memstrata's figure, its baseline's, and the target on their ratio
    (memstrata / baseline): ``at_most`` for times, ``at_least`` for rates."""

    part: str
    label: str
    ours: str
    base: str | None
    base_label: str
    unit: str  # "ms" or "/s" or "%" or "x"
    at_most: float | None = None
    at_least: float | None = None
    absolute: bool = False
    """The target is on memstrata's figure itself, not on the ratio."""


def _core_rows() -> list[Row]:
    rows = [
        Row("core", "context() p50, after other work", "context_mixed_p50",
            "context_mixed_p50_raw", "limit", "ms", at_most=1.5),
        Row("core", "context() p99, after other work", "context_mixed_p99",
            "context_mixed_p99_raw", "limit", "ms", at_most=1.5),
        Row("core", "context() p50, back to back", "context_loop_p50", "context_loop_p50_raw",
            "limit", "ms"),
        Row("core", "context() p99, back to back", "context_loop_p99", "context_loop_p99_raw",
            "limit", "ms"),
        Row("core", "context() p50, cold page cache", "context_cold_p50",
            "context_cold_p50_raw", "limit", "ms"),
        Row("core", "context() p99, cold page cache", "context_cold_p99",
            "context_cold_p99_raw", "limit", "ms"),
        Row("core", "context() p50, after other work", "context_mixed_p50",
            "context_mixed_p50_thread", "limit via a thread", "ms"),
        Row("core", "context() p99, after other work", "context_mixed_p99",
            "context_mixed_p99_thread", "limit via a thread", "ms"),
        Row("core", "context() p99, after other work", "context_mixed_p99", None, "", "ms",
            at_most=2.0, absolute=True),
        Row("core", "context() p50, after other work", "context_mixed_p50",
            "context_mixed_p50_seed", "seed 003", "ms"),
        Row("core", "context() p99, after other work", "context_mixed_p99",
            "context_mixed_p99_seed", "seed 003", "ms"),
        Row("core", "add_many throughput", "add_many_rate", "add_many_rate_raw", "limit", "/s",
            at_least=0.8),
        Row("core", "add, 1 message per commit", "add_rate", "add_rate_raw", "limit", "/s"),
        Row("core", "add, 1 message per commit", "add_rate", "add_rate_seed", "seed 003",
            "/s"),
        Row("core", "keyword search in a session p50", "search_p50", "search_p50_raw",
            "limit", "ms"),
        Row("core", "keyword search in a session p95", "search_p95", "search_p95_raw",
            "limit", "ms", at_most=2.0),
        Row("core", "keyword search in a session p95", "search_p95", None, "", "ms",
            at_most=25.0, absolute=True),
    ]
    return rows


def _service_rows() -> list[Row]:
    rows = []
    for op, label in (("add", "add (durable)"), ("context", "context"),
                      ("search", "keyword search")):
        rows.append(Row("service", f"HTTP {label} requests/s", f"http_{op}_rate",
                        f"best_local_{op}_rate", "in-process, same concurrency", "/s"))
        target = TARGET_RATE.get(op)
        if target is not None:
            rows.append(Row("service", f"HTTP {label} requests/s", f"http_{op}_rate", None,
                            "", "/s", at_least=target, absolute=True))
        rows.append(Row("service", f"HTTP {label} CPU per call", f"http_{op}_cpu_ms",
                        f"best_local_{op}_cpu_ms", "in-process, same concurrency", "ms"))
    rows.append(Row("service", "HTTP context p95 / p50 (a starved client)", "http_context_tail",
                    None, "", "x", at_most=TARGET_CONTEXT_TAIL, absolute=True))
    return rows


def _peer_rows(peers: Sequence[str]) -> list[Row]:
    rows = []
    for peer in peers:
        rows.append(Row("peers", "writes/s, as each system stores", "memstrata_writes",
                        f"{peer}_writes", peer, "/s", at_least=10.0))
        rows.append(Row("peers", "writes/s, searchable by meaning", "memstrata_searchable",
                        f"{peer}_searchable", peer, "/s"))
        rows.append(Row("peers", "context read p50", "memstrata_context_p50",
                        f"{peer}_context_p50", peer, "ms", at_most=0.1))
    rows.append(Row("peers", "recall set R@5 (hybrid)", "memstrata_recall5", "best_peer_recall5",
                    "best peer", "%", at_least=1.0))
    rows.append(Row("peers", "recall set R@10 (hybrid)", "memstrata_recall10",
                    "best_peer_recall10", "best peer", "%", at_least=1.0))
    rows.append(Row("peers", "recall set R@5 (hybrid, floor off)", "memstrata_ranked5",
                    "best_peer_recall5", "best peer", "%", at_least=1.0))
    rows.append(Row("peers", "recall set R@10 (hybrid, floor off)", "memstrata_ranked10",
                    "best_peer_recall10", "best peer", "%", at_least=1.0))
    return rows


# -- running the parts ----------------------------------------------------------------------


def _run(cmd: list[str], chrt: int | None, log_path: Path) -> None:
    if chrt is not None:
        cmd = ["chrt", "-f", str(chrt), *cmd]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE.parent / "src"), str(HERE), os.environ.get("PYTHONPATH", ""))
        if p)}
    with log_path.open("ab") as sink:
        done = subprocess.run(cmd, stdout=sink, stderr=sink, env=env, check=False)
    if done.returncode != 0:
        tail = log_path.read_text(errors="replace")[-3000:]
        raise SystemExit(f"{' '.join(cmd[:4])} … failed ({done.returncode}):\n{tail}")


def core_round(n: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    out = work / f"core-{n}.json"
    sizes = CORE_QUICK if args.quick else CORE_FULL
    cmd = [sys.executable, str(HERE / "_headline_core.py"), *sizes, "--round", str(n),
           "--out", str(out), "--work-dir", str(work)]
    if args.no_drop:
        cmd.append("--no-drop")
    _run(cmd, args.chrt, work / "core.log")
    fig: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return fig


def service_round(n: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    out = work / f"service-{n}"
    sizes = SERVICE_QUICK if args.quick else SERVICE_FULL
    _run([sys.executable, str(HERE / "service.py"), *sizes, "--local", "both", "--out",
          str(out), "--work-dir", str(work)], args.chrt, work / "service.log")
    found = next(out.glob("service-*.json"))
    phases: dict[str, dict[str, float]] = json.loads(found.read_text("utf-8"))["phases"]
    fig: dict[str, Any] = {}
    for name, f in phases.items():
        fig[f"{name}_rate"] = f["rate"]
        if "cpu_ms" in f:
            fig[f"{name}_cpu_ms"] = f["cpu_ms"]
        fig[f"{name}_p50"], fig[f"{name}_p95"] = f["p50_ms"], f["p95_ms"]
    for op in ("add", "context", "search"):
        # The stronger in-process figure of the two ways of calling is the baseline.
        best = max(("local", "threads"), key=lambda s: fig.get(f"{s}_{op}_rate", 0.0))
        fig[f"best_local_{op}_rate"] = fig[f"{best}_{op}_rate"]
        fig[f"best_local_{op}_cpu_ms"] = fig[f"{best}_{op}_cpu_ms"]
        fig[f"best_local_{op}_way"] = best
    fig["http_context_tail"] = fig["http_context_p95"] / fig["http_context_p50"]
    return fig


def peers_round(n: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    out = work / f"peers-{n}"
    cmd = [sys.executable, str(HERE / "peers.py"), "--headline", "--out", str(out)]
    if args.quick:
        cmd += ["--quick", "--embedder", "hash", "--skip-missing"]
    _run(cmd, args.chrt, work / "peers.log")
    found = next(out.glob("peers-*.json"))
    data = json.loads(found.read_text("utf-8"))
    fig: dict[str, Any] = {"peers": [], "skipped": data.get("skipped", {})}
    best5 = best10 = 0.0
    for r in data["results"]:
        name = r["name"]
        fig[f"{name}_writes"] = r["writes_per_s"]
        fig[f"{name}_searchable"] = r["searchable_per_s"]
        fig[f"{name}_context_p50"] = r["context"]["p50"]
        recall = r["own_recall"]
        if name == "memstrata":
            fig["memstrata_recall5"], fig["memstrata_recall10"] = recall["hybrid"]
            fig["memstrata_keyword_recall5"], fig["memstrata_keyword_recall10"] = \
                recall["keyword"]
            if "ranked" in recall:
                fig["memstrata_ranked5"], fig["memstrata_ranked10"] = recall["ranked"]
        else:
            fig["peers"].append(name)
            if recall:
                best5 = max(best5, recall["search"][0])
                best10 = max(best10, recall["search"][1])
    fig["best_peer_recall5"], fig["best_peer_recall10"] = best5, best10
    return fig


RUNNERS: dict[str, Callable[[int, argparse.Namespace, Path], dict[str, Any]]] = {
    "core": core_round, "service": service_round, "peers": peers_round}


# -- the table ------------------------------------------------------------------------------


def _fmt(x: float, unit: str) -> str:
    if unit == "/s":
        return f"{x:,.0f}/s"
    if unit == "%":
        return f"{x:.1f}"
    if unit == "x":
        return f"{x:.2f}x"
    return f"{x:.3f} ms" if x < 1 else f"{x:.2f} ms" if x < 100 else f"{x:,.0f} ms"


def _spread(values: list[float], unit: str) -> str:
    med = statistics.median(values)
    return f"{_fmt(med, unit)} [{_fmt(min(values), unit)}{DASH}{_fmt(max(values), unit)}]"


def _ratio(values: list[float]) -> str:
    med = statistics.median(values)

    def f(x: float) -> str:
        return f"{x:.2f}" if x < 10 else f"{x:,.1f}" if x < 100 else f"{x:,.0f}"
    return f"{f(med)}x [{f(min(values))}{DASH}{f(max(values))}]"


def table_rows(rows: Sequence[Row], rounds: dict[str, list[dict[str, Any]]]
               ) -> list[list[str]]:
    out: list[list[str]] = []
    for row in rows:
        figs = [f for f in rounds.get(row.part, []) if row.ours in f
                and (row.base is None or row.base in f)]
        if not figs:
            continue
        ours = [float(f[row.ours]) for f in figs]
        if row.base is None:
            base_cell, ratio_cell = "", ""
            judged = ours
        else:
            base = [float(f[row.base]) for f in figs]
            ratios = [o / b if b else float("inf") for o, b in zip(ours, base, strict=True)]
            base_cell = f"{row.base_label} {_spread(base, row.unit)}"
            ratio_cell = _ratio(ratios)
            judged = ratios
        target, met = "", ""
        suffix = "" if row.absolute else "x"
        if row.at_most is not None:
            target = (f"≤ {_fmt(row.at_most, row.unit)}" if row.absolute
                      else f"≤ {row.at_most:g}{suffix}")
            met = "yes" if max(judged) <= row.at_most else "NO"
        elif row.at_least is not None:
            target = (f"≥ {_fmt(row.at_least, row.unit)}" if row.absolute
                      else f"≥ {row.at_least:g}{suffix}")
            met = "yes" if min(judged) >= row.at_least else "NO"
        out.append([row.label, _spread(ours, row.unit), base_cell, ratio_cell, target, met])
    return out


def render(rows: list[list[str]]) -> str:
    head = ["metric", "memstrata", "baseline", "ratio", "target", "met (worst run)"]
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=False)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |"
              for r in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--rounds", type=int, default=MIN_ROUNDS)
    p.add_argument("--quick", action="store_true", help="tiny data and short phases")
    p.add_argument("--parts", default=",".join(PARTS),
                   help=f"comma-separated, of {', '.join(PARTS)}")
    p.add_argument("--chrt", type=int, default=None, metavar="PRIORITY",
                   help="run every round under chrt -f PRIORITY (inherited by the processes "
                        "a round starts, the HTTP server among them)")
    p.add_argument("--no-drop", action="store_true",
                   help="cold reads without dropping the page cache (store reopened only)")
    p.add_argument("--out", type=Path, default=HERE / "out")
    p.add_argument("--work-dir", default=None)
    args = p.parse_args(argv)
    parts = [x.strip() for x in args.parts.split(",") if x.strip()]
    if unknown := [x for x in parts if x not in PARTS]:
        p.error(f"--parts: unknown {', '.join(unknown)}; allowed: {', '.join(PARTS)}")
    if args.rounds < MIN_ROUNDS:
        p.error(f"--rounds must be at least {MIN_ROUNDS} (a median of fewer is no result)")

    machine = {"cpus": os.cpu_count(), "python": platform.python_version(),
               "sqlite": sqlite3.sqlite_version, "platform": platform.platform(),
               "load_before": os.getloadavg()[0], "chrt": args.chrt}
    work = Path(tempfile.mkdtemp(prefix="memstrata-headline-", dir=args.work_dir))
    rounds: dict[str, list[dict[str, Any]]] = {part: [] for part in parts}
    start = time.perf_counter()
    try:
        # Round by round, every part in turn: each part's rounds meet the machine at
        # different moments of the run, not all at once.
        for n in range(args.rounds):
            for part in parts:
                log(f"round {n + 1}/{args.rounds}: {part}")
                rounds[part].append(RUNNERS[part](n, args, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    machine["load_after"] = os.getloadavg()[0]
    machine["minutes"] = round((time.perf_counter() - start) / 60, 1)
    peers = rounds.get("peers", [{}])[0].get("peers", []) if "peers" in rounds else []
    spec = _core_rows() + _service_rows() + _peer_rows(peers)
    rows = table_rows(spec, rounds)
    dropped = all(f.get("cold_cache_dropped", True) for f in rounds.get("core", []))
    print(f"memstrata headline: {args.rounds} rounds{' (quick)' if args.quick else ''}, "
          f"{machine['cpus']} CPUs, load {machine['load_before']:.1f} → "
          f"{machine['load_after']:.1f}, Python {machine['python']}, SQLite "
          f"{machine['sqlite']}, "
          + (f"chrt -f {args.chrt} (the HTTP server inherits it)" if args.chrt is not None
             else "normal priority")
          + f", {machine['minutes']} min")
    print(render(rows))
    print(f"figures: median [min{DASH}max] of the rounds; ratio = memstrata / baseline within a "
          "round; a target is met when its worst round meets it")
    if "core" in rounds and not dropped:
        why = ("--no-drop" if args.no_drop
               else "the page cache could not be dropped (it needs root)")
        print(f"note: {why}: the cold rows are a reopened store only")
    for part in ("peers",):
        for name, reason in (rounds.get(part) or [{}])[0].get("skipped", {}).items():
            print(f"note: {name} was not run: {reason}")
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"headline{'-quick' if args.quick else ''}.json"
    out.write_text(json.dumps({"machine": machine, "rounds": rounds, "table": rows},
                              indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
