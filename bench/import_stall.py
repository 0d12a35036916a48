"""Does a large import stall the service? ``/healthz`` and ``context`` latency while imports run.

A real ``memstrata serve`` subprocess on a temporary SQLite file takes ``--imports`` JSONL
imports at once (each ``--mib`` MiB of messages of about 600 characters, into its own
session) while one client asks ``/healthz`` and another a small session's ``context`` (with an
API key: a key lookup and a read) every 20 ms; the script prints the time until the last
import is done, the latency of both (p50, p99, max) and the server's peak resident memory
(``VmHWM``). ``--baseline-src DIR`` runs the same against a server from another source tree
(an earlier ``src``) first, and prints both side by side. Targets: ``/healthz`` p99 <= 50 ms,
``context`` p99 <= 100 ms, peak RSS <= 400 MB.

    python bench/import_stall.py --mib 60 --imports 3 --baseline-src /path/to/earlier/src
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(src: str | None) -> dict[str, str]:
    env = {**os.environ, "MEMSTRATA_EMBEDDER": "none", "MEMSTRATA_SUMMARY_CRON": "none"}
    if src is not None:
        env["PYTHONPATH"] = src
    return env


@contextlib.contextmanager
def _serving(db: Path, imports: int, src: str | None) -> Iterator[tuple[str, int]]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "memstrata", "--db", str(db), "serve",
                             "--port", str(port), "--max-imports", str(imports)],
                            env=_env(src), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        yield url, proc.pid
    finally:
        proc.terminate()
        proc.wait(30)


def _body(mib: float) -> bytes:
    lines = []
    size = 0
    i = 0
    while size < mib * (1 << 20):
        line = json.dumps({"type": "message", "role": "user" if i % 2 == 0 else "assistant",
                           "content": f"message {i}: " + "a fairly ordinary sentence. " * 21})
        lines.append(line)
        size += len(line) + 1
        i += 1
    return ("\n".join(lines) + "\n").encode()


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(body: bytes, imports: int, src: str | None) -> dict[str, float]:
    """One run against a server from ``src`` (``None``: this interpreter's memstrata)."""
    with tempfile.TemporaryDirectory() as work:
        db = Path(work) / "stall.db"
        key = subprocess.run([sys.executable, "-m", "memstrata", "--db", str(db), "keys",
                              "create", "--tenant", "bench"], check=True, capture_output=True,
                             text=True, env=_env(src)).stdout.strip()
        headers = {"Authorization": f"Bearer {key}"}
        with _serving(db, imports, src) as (url, pid):
            httpx.post(f"{url}/v1/sessions/small/messages/batch", headers=headers, timeout=60,
                       json={"items": [{"role": "user", "content": f"note {i}"}
                                          for i in range(20)]}).raise_for_status()
            base_rss = _peak_rss_mib(pid)
            latencies: dict[str, list[float]] = {"healthz": [], "context": []}
            failed: list[int] = []
            done = threading.Event()

            def probe(name: str, path: str) -> None:
                with httpx.Client(timeout=120, headers=headers) as client:
                    while not done.is_set():
                        start = time.perf_counter()
                        status = client.get(f"{url}{path}").status_code
                        latencies[name].append((time.perf_counter() - start) * 1000)
                        if status != 200:
                            failed.append(status)
                        time.sleep(0.02)

            probers = [threading.Thread(target=probe, args=("healthz", "/healthz")),
                       threading.Thread(target=probe,
                                        args=("context", "/v1/sessions/small/context"))]
            for t in probers:
                t.start()
            answers: list[httpx.Response] = []

            def send(n: int) -> None:
                answers.append(httpx.post(
                    f"{url}/v1/sessions/big-{n}/import", content=body, timeout=600,
                    headers={**headers, "Content-Type": "application/x-ndjson"}))

            senders = [threading.Thread(target=send, args=(n,)) for n in range(imports)]
            start = time.perf_counter()
            for t in senders:
                t.start()
            for t in senders:
                t.join()
            took = time.perf_counter() - start
            done.set()
            for t in probers:
                t.join()
            for answer in answers:
                answer.raise_for_status()
            peak = _peak_rss_mib(pid)
    out = {"import_s": took, "imported": float(sum(a.json()["imported"] for a in answers)),
           "rss_idle_mib": base_rss, "rss_peak_mib": peak, "probe_errors": float(len(failed))}
    for name, values in latencies.items():
        out |= {f"{name}_n": float(len(values)), f"{name}_p50_ms": _pct(values, 0.5),
                f"{name}_p99_ms": _pct(values, 0.99), f"{name}_max_ms": max(values)}
    return out


# VmHWM is in MiB: 400 MB is 381 MiB.
_TARGETS = {"healthz_p99_ms": 50.0, "context_p99_ms": 100.0, "rss_peak_mib": 400 / 1.048576}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=float, default=8.0, help="size of each import body")
    parser.add_argument("--imports", type=int, default=1, help="imports sent at once")
    parser.add_argument("--baseline-src", default=None,
                        help="also run a server from this source tree (an earlier src), first")
    args = parser.parse_args()
    body = _body(args.mib)
    runs = {}
    if args.baseline_src:
        runs["baseline"] = run(body, args.imports, str(Path(args.baseline_src).resolve()))
    runs["this"] = run(body, args.imports, None)
    print(f"import_stall: {args.imports} import(s) of {len(body) / (1 << 20):.1f} MiB at once, "
          f"{int(runs['this']['imported']):,} messages; SQLite, no embedder")
    print(f"{'':<16}" + "".join(f"{name:>12}" for name in runs) + "  target")
    for what in runs["this"]:
        target = _TARGETS.get(what)
        verdict = "" if target is None else (
            f"  {'met' if runs['this'][what] <= target else 'missed'} (<= {target:,.0f})")
        print(f"{what:<16}" + "".join(f"{r[what]:>12,.1f}" for r in runs.values()) + verdict)


if __name__ == "__main__":
    main()
