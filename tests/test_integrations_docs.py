"""Every Python example in docs/integrations.md runs as written.

Each ```python block of the page, whatever section it is in, runs on its own in a fresh empty
directory, in a separate interpreter with warnings as errors and no network needed. A block
whose framework is not installed fails rather than being skipped: the dev extra installs them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import run_example

DOC = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
HEADING = re.compile(r"^## (.+)$", re.M)


def blocks() -> list[tuple[str, str]]:
    """(``section#n``, code) for every Python block, named by its ``##`` section."""
    text = DOC.read_text(encoding="utf-8")
    out: list[tuple[str, str]] = []
    counts: dict[str, int] = {}
    for match in PYTHON_BLOCK.finditer(text):
        sections = HEADING.findall(text, 0, match.start())
        section = sections[-1] if sections else "intro"
        counts[section] = counts.get(section, 0) + 1
        line = text.count("\n", 0, match.start()) + 1
        out.append((f"{section}#{counts[section]}(line {line})", match.group(1)))
    return out


def test_the_page_has_examples() -> None:
    assert any(name.startswith("Sync API#") for name, _ in blocks())


@pytest.mark.parametrize(("name", "code"), blocks(), ids=[n for n, _ in blocks()])
def test_example_runs(name: str, code: str, tmp_path: Path) -> None:
    run_example(name, code, tmp_path, timeout=300)
