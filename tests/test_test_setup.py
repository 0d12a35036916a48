"""The test command as the README gives it shows why a test was skipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_skipped_test_shows_its_reason_in_the_summary(tmp_path: Path) -> None:
    (tmp_path / "test_needs.py").write_text(
        "import pytest\n\n\n"
        "@pytest.mark.skip(reason=\"needs Debian's chromium\")\n"
        "def test_browser() -> None:\n    pass\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"),
         "--rootdir", str(tmp_path), "-p", "no:cacheprovider", "-q", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_needs.py:4: needs Debian's chromium" in done.stdout, done.stdout
    assert "SKIPPED [1] " in done.stdout, done.stdout
