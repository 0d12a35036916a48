"""The library's outputs type-check against the OpenAI and Anthropic SDKs' own parameter types,
and misspelled choices (match, time_range, role, reset mode) are type errors: ``mypy --strict``
over the scripts in tests/typing, as a user's type checker would see them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")
mypy_api = pytest.importorskip("mypy.api")

HERE = Path(__file__).parent / "typing"


def test_outputs_fit_the_sdks_and_misspelled_choices_are_type_errors(
        request: pytest.FixtureRequest) -> None:
    good, wrong = HERE / "sdk_calls.py", HERE / "wrong_literals.py"
    # The SDKs are large: a cache kept between runs (pytest's) makes every run after the
    # first take seconds.
    # (None under ``-p no:cacheprovider``, which leaves the attribute out.)
    kept = getattr(request.config, "cache", None)
    cache = kept.mkdir("mypy") if kept is not None else None
    stdout, stderr, _ = mypy_api.run([
        "--strict", "--no-error-summary", "--show-error-codes", "--python-version", "3.11",
        *(["--cache-dir", str(cache)] if cache else []), str(good), str(wrong)])
    assert stderr == ""
    errors = [line for line in stdout.splitlines() if ": error:" in line]
    assert [e for e in errors if "sdk_calls.py:" in e] == []
    expected = {n for n, line in enumerate(wrong.read_text().splitlines(), start=1)
                if line.endswith("# error")}
    found = {int(m.group(1)) for e in errors
             if (m := re.search(r"wrong_literals\.py:(\d+): error: .*\[arg-type\]", e))}
    assert found == expected, stdout
    assert len(errors) == len(expected), stdout
