"""Small test helpers shared by several test modules."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memstrata import Hit
from memstrata.providers import HashEmbedder, Vectors

T0 = 1_780_000_000 * 10**9
"""A fixed 'now' (2026-05-28) for tests that inject a clock."""


class ManualClock:
    """A clock the test moves by hand (UTC nanoseconds)."""

    def __init__(self, now: int = T0) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1e9)


class CountingEmbedder:
    """A HashEmbedder that counts what it embeds, and can be told to fail or stall."""

    def __init__(self, dim: int = 64) -> None:
        self._inner = HashEmbedder(dim)
        self.model_id = self._inner.model_id
        self.dim = dim
        self.texts: list[str] = []
        self.fail = False
        self.delay = 0.0

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail:
            raise ConnectionError("embedding service unreachable")
        self.texts.extend(texts)
        return await self._inner.embed(texts)


class Saves:
    """The ``save`` callback of a summary run, recording each call."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, Any], int, int, int]] = []

    async def __call__(self, body: dict[str, Any], cursor: int, t_in: int, t_out: int) -> None:
        self.calls.append((body, cursor, t_in, t_out))

    @property
    def cursors(self) -> list[int]:
        return [c[1] for c in self.calls]


def run_example(name: str, code: str, cwd: Path, *, timeout: float) -> None:
    """Run a documentation example as a fresh Python process in ``cwd`` (warnings are errors,
    no MEMSTRATA_ setting leaks in from the environment); fail with its stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSTRATA_")}
    env["PYTHONIOENCODING"] = "utf-8"
    result = subprocess.run([sys.executable, "-W", "error", "-c", code], cwd=cwd, env=env,
                            capture_output=True, text=True, encoding="utf-8", timeout=timeout,
                            check=False)
    assert result.returncode == 0, f"{name} failed:\n{result.stderr}"


def show_hits(hits: Sequence[Hit]) -> str:
    """What a search returned, in its order: rank (``-`` for a neighbour), score, text."""
    return "".join(f"\n    {h.rank if h.matched else '-':>2} {h.score:6.3f} "
                   f"{h.message.session}: {h.message.content[:48]}" for h in hits) or " []"


def show_each(returned: dict[str, str]) -> str:
    """What each of several searches returned (``{query: show_hits(...)}``)."""
    return "".join(f"\n  {query}:{shown}" for query, shown in returned.items())


def matched_hits(hits: Sequence[Hit]) -> list[Hit]:
    """The matched hits of a search, best first."""
    return sorted((h for h in hits if h.matched), key=lambda h: h.rank or 0)


def chat(*lines: str) -> list[dict[str, str]]:
    """Messages from lines: the assistant's start with ``"A: "``, the rest are the user's."""
    return [{"role": "assistant", "content": line[3:]} if line.startswith("A: ")
            else {"role": "user", "content": line} for line in lines]
