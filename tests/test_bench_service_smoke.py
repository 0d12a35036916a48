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


def test_postgres_outage_benchmark_quick(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "pg_outage.py"), "--quick",
         "--work-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False)
    # Exit status 1 is a missed target; the timings are judged on a quiet machine, here only
    # that the run measured them. What must hold anywhere: nothing acknowledged was lost and
    # every answer was one the outage allows.
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
    rows = {line.split("  ")[1].strip(): line for line in proc.stdout.splitlines()
            if line.startswith("  ") and "target" in line}
    assert set(rows) == {"longest wait of any request",
                         "first write stored after the database's return",
                         "acknowledged writes lost", "answers other than 200, 201 and 503"}
    assert rows["acknowledged writes lost"].rstrip().endswith("PASS")
    assert rows["answers other than 200, 201 and 503"].rstrip().endswith("PASS")
    assert " 0 of " in rows["acknowledged writes lost"]
