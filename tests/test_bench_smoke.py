"""The core benchmark runs end to end at a small scale and prints its table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_core_benchmark_small(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "core.py"), "--messages", "3000", "--sessions",
         "30", "--samples", "50", "--out", str(out), "--work-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| metric"))
    table = lines[header:]
    for metric in ("add_many throughput", "database size", "context() p99",
                   "search in a session p95", "search across tenant p95"):
        assert any(line.startswith(f"| {metric}") for line in table), metric
    # Every baseline ran: none is skipped with a note.
    for baseline in ("raw FTS5, same texts, index and commits",
                     "raw FTS5, pair text handed over ready", "raw FTS5, same prepared texts",
                     "raw FTS5, plain texts",
                     "seed-003 load_context", "LangChain .messages", "LangChain add_messages"):
        assert any(baseline in line for line in table), baseline
    assert "skipped" not in proc.stdout
    results = json.loads((out / "core-3000.json").read_text(encoding="utf-8"))
    assert results["config"]["messages"] == 3000
    assert 0.2 < results["config"]["chinese_share"] < 0.45
    assert results["timings"]["memstrata_context"]["calls"] == 50
    # The databases live in a temporary folder that the run removes.
    assert not any(p.suffix == ".db" for p in tmp_path.rglob("*"))
