"""The headline benchmark runs end to end in its quickest mode and prints its one table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_headline_quick(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "headline.py"), "--quick", "--no-drop",
         "--out", str(out), "--work-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| metric"))
    table = [line for line in lines[header:] if line.startswith("|")]
    assert "met (worst run)" in table[0]
    for metric in ("context() p50, after other work", "context() p99, back to back",
                   "context() p50, cold page cache", "add_many throughput",
                   "keyword search in a session p95", "HTTP context requests/s",
                   "HTTP add (durable) CPU per call", "writes/s, searchable by meaning",
                   "recall set R@5 (hybrid)"):
        assert any(line.startswith(f"| {metric}") for line in table), metric
    # Every figure is a median with its range, every targeted row is judged.
    row = next(line for line in table if line.startswith("| add_many throughput"))
    assert "[" in row and "limit" in row and ("yes" in row or "NO" in row)
    assert "cold rows are a reopened store only" in proc.stdout  # --no-drop is said
    results = json.loads((out / "headline-quick.json").read_text(encoding="utf-8"))
    assert [len(results["rounds"][part]) for part in ("core", "service", "peers")] == [3, 3, 3]
    # The databases lived in temporary folders that the run removed.
    assert not any(p.suffix == ".db" for p in tmp_path.rglob("*"))


def test_headline_refuses_fewer_than_three_rounds() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "headline.py"), "--quick", "--rounds", "2"],
        capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert "--rounds must be at least 3" in proc.stderr
