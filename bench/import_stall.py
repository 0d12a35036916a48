"""Does a large import stall the service? ``/healthz`` latency while one import runs.

A real ``memstrata serve`` subprocess on a temporary SQLite file takes ``--imports`` JSONL
imports at once (each ``--mib`` MiB of messages of about 600 characters, into its own
session) while a client asks ``/healthz`` every 20 ms; the script prints the time until the
last import is done, the latency of ``/healthz`` (p50, p99, max) and the server's peak
resident memory (``VmHWM``) against the bodies' size.

    python bench/import_stall.py --mib 8 --imports 3
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


@contextlib.contextmanager
def _serving(db: Path) -> Iterator[tuple[str, int]]:
    port = _free_port()
    env = {**os.environ, "MEMSTRATA_EMBEDDER": "none", "MEMSTRATA_SUMMARY_CRON": "none"}
    proc = subprocess.Popen([sys.executable, "-m", "memstrata", "--db", str(db), "serve",
                             "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=float, default=8.0, help="size of each import body")
    parser.add_argument("--imports", type=int, default=1, help="imports sent at once")
    args = parser.parse_args()
    body = _body(args.mib)
    with tempfile.TemporaryDirectory() as work:
        db = Path(work) / "stall.db"
        key = subprocess.run([sys.executable, "-m", "memstrata", "--db", str(db), "keys",
                              "create", "--tenant", "bench"], check=True, capture_output=True,
                             text=True).stdout.strip()
        with _serving(db) as (url, pid):
            base_rss = _peak_rss_mib(pid)
            latencies: list[float] = []
            done = threading.Event()

            def probe() -> None:
                with httpx.Client(timeout=120) as client:
                    while not done.is_set():
                        start = time.perf_counter()
                        client.get(f"{url}/healthz")
                        latencies.append((time.perf_counter() - start) * 1000)
                        time.sleep(0.02)

            prober = threading.Thread(target=probe)
            prober.start()
            answers: list[httpx.Response] = []

            def send(n: int) -> None:
                answers.append(httpx.post(
                    f"{url}/v1/sessions/big-{n}/import", content=body, timeout=600,
                    headers={"Authorization": f"Bearer {key}",
                             "Content-Type": "application/x-ndjson"}))

            senders = [threading.Thread(target=send, args=(n,)) for n in range(args.imports)]
            start = time.perf_counter()
            for t in senders:
                t.start()
            for t in senders:
                t.join()
            took = time.perf_counter() - start
            done.set()
            prober.join()
            for answer in answers:
                answer.raise_for_status()
            peak = _peak_rss_mib(pid)
    latencies.sort()

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))]

    imported = sum(a.json()["imported"] for a in answers)
    print(f"import_stall: imports={args.imports} body_mib={len(body) / (1 << 20):.1f} "
          f"imported={imported} import_s={took:.2f} "
          f"healthz_n={len(latencies)} healthz_p50_ms={pct(0.5):.1f} "
          f"healthz_p99_ms={pct(0.99):.1f} healthz_max_ms={latencies[-1]:.1f} "
          f"rss_before_mib={base_rss:.0f} rss_peak_mib={peak:.0f}")


if __name__ == "__main__":
    main()
