"""The engine of the kill -9 campaign (``test_reliability_kill*.py``): start a child doing one
kind of work (``tests/scripts/crash_worker.py``), kill it with SIGKILL at a random moment,
check the database with ``tests/reliability.py``, and let the next run finish the work.

A write is acknowledged when the call returned (the child then appends it to a side file) or
the HTTP answer was 2xx. The next run is given a clock 11 minutes later: a dead worker's
summary lease (10 minutes) and indexing claims (2 minutes) expire by time, by design, and the
campaign does not wait them out.

Quick by default (2 rounds per kind and backend); ``MEMSTRATA_LONG=1`` runs 50. The seed is
random unless ``MEMSTRATA_KILL_SEED`` is set, and printed (``-s``) with each line of figures.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer
from pg_server import PgServer
from reliability import Ack, Acknowledged, SessionKey, Snapshot, verify

from memstrata import Memory, Settings
from memstrata.providers import HashEmbedder

__all__ = ["LONG", "PLAIN", "ROUNDS", "SEED", "WORKER", "Figures", "Round", "backend", "campaign",
           "check", "later", "make_target", "resume_adding", "run_and_kill"]

SCRIPTS = Path(__file__).resolve().parent / "scripts"
WORKER = str(SCRIPTS / "crash_worker.py")

LONG = os.environ.get("MEMSTRATA_LONG") == "1"
ROUNDS = 50 if LONG else 2
SEED = int(os.environ.get("MEMSTRATA_KILL_SEED") or random.SystemRandom().randrange(10**9))
LATER_NS = 11 * 60 * 10**9  # past the summary lease (10 min) and a stale claim (2 min)
PLAIN = Settings(embedder=None, summary_cron=None)
# Seconds between the child saying it is ready and the kill, per kind.
WINDOW = {"add": (0.0, 0.6), "import": (0.0, 1.2), "compact": (0.0, 1.0),
          "index": (0.0, 1.5), "summarise": (0.0, 1.0), "migrate": (0.0, 0.8)}


def later() -> int:
    return time.time_ns() + LATER_NS


@dataclass
class Figures:
    kind: str
    backend: str
    rounds: int = 0
    kills: int = 0
    resumed: int = 0
    acked: Acknowledged = field(default_factory=Acknowledged)
    lost: int = 0
    duplicated: int = 0
    notes: dict[str, int] = field(default_factory=dict)

    def note(self, name: str, count: int = 1) -> None:
        self.notes[name] = self.notes.get(name, 0) + count

    def line(self) -> str:
        extra = "".join(f" {k}={v}" for k, v in sorted(self.notes.items()))
        return (f"kill campaign {self.kind} {self.backend}: seed={SEED} rounds={self.rounds} "
                f"kills={self.kills} acknowledged={len(self.acked)} lost={self.lost} "
                f"duplicated={self.duplicated} resumed={self.resumed}/{self.rounds}{extra}")


@dataclass
class Round:
    """What one round's run and its resumption share."""

    n: int
    target: str
    tmp: Path
    rng: random.Random
    figures: Figures
    config: dict[str, Any] = field(default_factory=dict)
    llm: LLMServer | None = None


def make_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new database for a test parametrised by backend: a file, or a PostgreSQL database
    on the session's server."""
    if request.param == "sqlite":
        return str(tmp_path / "kill.db")
    server: PgServer = request.getfixturevalue("pg_server")
    return server.create_database("kill")


def backend(target: str) -> str:
    return "postgres" if target.startswith("postgresql://") else "sqlite"


async def check(rnd: Round, *, covered: dict[SessionKey, int] | None = None) -> Snapshot:
    """Every invariant of ``reliability.verify`` over everything acknowledged so far."""
    verdict = await verify(rnd.target, rnd.figures.acked, covered=covered)
    rnd.figures.lost, rnd.figures.duplicated = verdict.lost, verdict.duplicated
    assert verdict.problems == [], (f"seed {SEED}, {rnd.figures.kind} round {rnd.n}",
                                    verdict.problems)
    return verdict.snapshot


async def run_and_kill(rnd: Round, kind: str) -> None:
    """Start the child, wait until it is working, kill -9 it at a random moment, collect its
    acknowledgements."""
    acks = rnd.tmp / f"acks-{kind}-{rnd.n}"
    config = {"kind": kind, "target": rnd.target, "acks": str(acks), "round": rnd.n,
              "seed": rnd.rng.randrange(10**9), **rnd.config}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, WORKER, json.dumps(config), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    ready = await asyncio.wait_for(proc.stdout.readline(), 120)
    if ready == b"opening\n":
        ready = await asyncio.wait_for(proc.stdout.readline(), 120)
    if ready != b"ready\n":
        _, err = await proc.communicate()
        raise AssertionError(f"the {kind} worker did not start: {err.decode()[-3000:]}")
    await asyncio.sleep(rnd.rng.uniform(*WINDOW[kind]))
    if proc.returncode is None:
        proc.kill()
    _, err = await proc.communicate()
    assert proc.returncode == -9, f"the {kind} worker died first: {err.decode()[-3000:]}"
    rnd.figures.kills += 1
    rnd.figures.acked.acks += Acknowledged.read(acks).acks


async def campaign(kind: str, target: str, tmp: Path,
                   resume: Callable[[Round], Awaitable[None]],
                   prepare: Callable[[Round], Awaitable[None]] | None = None,
                   llm: LLMServer | None = None) -> Figures:
    figures = Figures(kind, backend(target))
    rng = random.Random(f"{SEED}-{kind}-{figures.backend}")
    for n in range(ROUNDS):
        rnd = Round(n, target, tmp, rng, figures, llm=llm)
        if prepare is not None:
            await prepare(rnd)
        await run_and_kill(rnd, kind)
        figures.rounds += 1
        await resume(rnd)
        figures.resumed += 1
    print(figures.line())
    assert figures.lost == figures.duplicated == 0
    return figures


async def resume_adding(rnd: Round) -> None:
    """The writer's queue drains, and the next write gets an id above every id ever given."""
    before = await check(rnd)
    async with Memory.open(rnd.target, settings=PLAIN, embedder=HashEmbedder(16),
                           background=False, clock=later) as mem:
        m = await mem.add("s0", "user", f"resumed after round {rnd.n}")
        await mem.flush(timeout=120)
    assert m.id > before.id_counter >= max((r.id for r in before.messages), default=0)
    rnd.figures.acked.add(Ack(session="s0", content=m.content, id=m.id, writer="resumer"))
    after = await check(rnd)
    assert not after.queue and {v[0] for v in after.vectors} == after.hot_ids()
