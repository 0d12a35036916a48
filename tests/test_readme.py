"""The Python examples in README.md and docs/usage.md run as written.

Each ```python block is executed on its own, in a fresh empty directory, by a separate
interpreter with warnings as errors, so the docs cannot drift from the code.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import run_example

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "docs" / "usage.md"]
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[str, str]]:
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for number, match in enumerate(PYTHON_BLOCK.finditer(text), start=1):
            line = text[: match.start()].count("\n") + 1
            out.append((f"{doc.name}#{number}(line {line})", match.group(1)))
    return out


def test_the_docs_have_examples() -> None:
    names = [name for name, _ in blocks()]
    assert any(n.startswith("README.md") for n in names)
    assert sum(n.startswith("usage.md") for n in names) >= 4


@pytest.mark.parametrize(("name", "code"), blocks(), ids=[n for n, _ in blocks()])
def test_example_runs(name: str, code: str, tmp_path: Path) -> None:
    run_example(name, code, tmp_path, timeout=120)
