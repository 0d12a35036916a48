"""The service benchmark runs end to end in its quick mode and prints its table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_service_benchmark_quick(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "service.py"), "--quick", "--clients", "8",
         "--out", str(out), "--work-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| metric"))
    table = lines[header:]
    assert "HTTP (8 clients)" in table[0] and "in-process (8 tasks)" in table[0]
    assert "in-process (8 threads)" in table[0]
    for metric, target in (("add (durable) requests/s", "≥ 1,000/s"),
                           ("context requests/s", "≥ 1,500/s"),
                           ("context p95", "≤ 1.5x HTTP p50")):
        row = next(line for line in table if line.startswith(f"| {metric} "))
        assert target in row
        assert "PASS" in row or "MISS" in row
    assert any(line.startswith("| search p95") for line in table)
    results = json.loads((out / "service-2000.json").read_text(encoding="utf-8"))
    for side in ("local", "threads", "http"):
        for op in ("add", "context", "search"):
            phase = results["phases"][f"{side}_{op}"]
            assert phase["calls"] > 0 and phase["errors"] == 0, (side, op, phase)
    # The database lived in a temporary folder that the run removed.
    assert not any(p.suffix == ".db" for p in tmp_path.rglob("*"))
