"""The LoCoMo benchmark runs end to end on two conversations and prints its table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = next((p for p in (ROOT.parent / "shared" / "bench-data" / "locomo",
                         Path("/work/shared/bench-data/locomo"))
             if (p / "locomo-dev6.json").exists()), None)


@pytest.mark.skipif(DATA is None, reason="the LoCoMo data is not beside this checkout")
def test_locomo_benchmark_quick() -> None:
    assert DATA is not None
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "locomo.py"), "--quick", "--embedder", "hash",
         "--data", str(DATA)],
        capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    for row in ("FTS5 BM25 (plain)", "memstrata keyword", "memstrata semantic",
                "memstrata hybrid"):
        assert row in out, row
    assert "per category" in out and "indexer:" in out
    for line in ("precision checks", "abstains on", "own text ranks its message first",
                 "rare word's messages rank above", "time_range 7d: 0 of"):
        assert line in out, line
