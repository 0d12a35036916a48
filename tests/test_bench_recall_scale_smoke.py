"""The recall-at-scale benchmark runs end to end at a small scale, both code paths, and prints
every row of its table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_recall_scale_small(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "recall_scale.py"), "--big", "200",
         "--messages", "300", "--sessions", "10", "--queries", "3", "--writes", "2",
         "--old-writes", "1", "--data", str(tmp_path), "--phases", "session,tenant,ranker"],
        capture_output=True, text=True, timeout=300, check=False, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    for row in ("new: session of 200, hybrid p95 right after a write",
                "old: session of 200, hybrid p95 right after a write",
                "new: tenant-wide hybrid p95 warm", "new: tenant-wide semantic p95 after a write",
                "new: index bytes per hot message", "old: tenant-wide hybrid, first query",
                "new: process memory kept per hot message, read from the store",
                "new: process memory kept per hot message, started from the saved index",
                "new: tenant-wide hybrid, first query from the saved index",
                "learned ranker: session of 200, hybrid p95 (3 queries)",
                "learned ranker: tenant-wide, 300 messages over 10 sessions, hybrid p95"):
        assert row in out, row
    # The data is built once and kept for the next run.
    assert sorted(p.name for p in tmp_path.glob("*.db")) == ["session-200.db",
                                                            "tenant-10x30.db"]
