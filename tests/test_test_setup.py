"""The test command as the README gives it shows why a test was skipped."""

from __future__ import annotations

import ast
import re
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


def test_each_known_failure_names_an_existing_test_of_ours() -> None:
    """The reasons of the Agents SDK's known failures name memstrata's own test of the same
    behaviour (``tests/….py::test_name``); each one named must exist. (The plugin itself is
    not imported: it swaps the SDK's SQLiteSession for the whole process.)"""
    plugin = (ROOT / "tests/plugins/agents_session_swap.py").read_text()
    joined = re.sub(r'"\s*\n\s*"', "", plugin)  # adjacent string literals, as Python joins
    named = re.findall(r"(tests/[\w/]+\.py)::(test_\w+)", joined)
    assert len({name for _, name in named}) >= 8
    for path, name in named:
        tree = ast.parse((ROOT / path).read_text())
        tests = {node.name for node in ast.walk(tree)
                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
        assert name in tests, f"{path}::{name}"
