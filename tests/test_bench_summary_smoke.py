"""The rolling-summary benchmark runs end to end in its quick form and prints its tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_FILE = Path("bench-data", "locomo", "locomo-dev6.json")
LOCOMO_FOUND = any((base / _FILE).exists() for base in (ROOT.parent / "shared",
                                                         Path("/work/shared")))


@pytest.mark.skipif(not LOCOMO_FOUND, reason="the LoCoMo dev file is not on this machine")
def test_summary_benchmark_quick() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "summary.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert any(line.startswith("| conversation | messages | own tokens") for line in lines)
    for system in ("memstrata", "memstrata + decision model", "baseline"):
        assert any(line.startswith("| **total**") and f"| {system} |" in line
                   for line in lines), system
    assert any(line.startswith("| generated-500 |") for line in lines)
    assert "at-most-once: PASS" in lines
    assert "repeated deliveries" in proc.stdout
    assert "MaxRetry" not in proc.stderr and "Traceback" not in proc.stderr
