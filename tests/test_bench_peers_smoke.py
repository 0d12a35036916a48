"""The peers benchmark runs end to end in its quick mode and prints its table.

A peer whose package is not installed is left out here (``--skip-missing``) and the run says
so; the full benchmark has no such switch on by default and fails instead.
"""

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
def test_peers_benchmark_quick(tmp_path: Path) -> None:
    assert DATA is not None
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "peers.py"), "--quick", "--embedder", "hash",
         "--skip-missing", "--data", str(DATA), "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600, check=False,
        env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    for row in ("writes/s (1 message per call)", "context read p50", "context read p99",
                "search p95", "LoCoMo R@5", "LoCoMo R@10", "versions: memstrata"):
        assert row in out, row
    assert "hybrid" in out and "keyword" in out
    header = next(line for line in out.splitlines() if line.startswith("| metric"))
    for name in ("mem0", "LangChain", "LlamaIndex"):
        assert name in header or f"skipped {name}: not installed" in out, name
    assert (tmp_path / "peers-300.json").exists()
