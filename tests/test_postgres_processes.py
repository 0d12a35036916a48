"""The PostgreSQL backend under several processes and faults, on a real server.

Writers and summary workers are separate Python processes, each with its own ``Memory`` and
connection pool; the test process watches the database (and the LLM endpoint the workers call)
while they run. Faults are real: ``kill -9`` of writers, and the server stopped with
``pg_ctl -m fast`` and started again while a ``Memory`` is writing.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
import textwrap
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from llm_server import LLMServer, Reply, Request
from pg_server import PgServer

from memstrata import Memory, Settings
from memstrata.errors import StoreError

PLAIN = Settings(embedder=None, summary_cron=None)
SESSION = "shared"
TAG = re.compile(r"\b[a-z]\d*x\d+[ab]?\b")
SUMMARY_TEXT = json.dumps({"key_decisions": ["Keep writing notes."], "past_discussions": [],
                           "current_discussion": {"topic": "notes", "description": "notes"}})

# Each line it prints is "<id> <tag>", once ``add``/``add_many`` has returned (committed).
WRITER = textwrap.dedent("""
    import asyncio, sys
    from memstrata import Memory, Settings

    async def main(url, tenant, name, count):
        settings = Settings(embedder=None, summary_cron=None)
        async with Memory.open(url, settings=settings, tenant=tenant, background=False) as mem:
            i = 0
            while count < 0 or i < count:
                tag = f"{name}x{i}"
                if i % 4 == 3:
                    done = await mem.add_many("shared", [
                        {"role": "user", "content": f"note {tag}a"},
                        {"role": "assistant", "content": f"note {tag}b"}])
                    print(f"{done[0].id} {tag}a\\n{done[1].id} {tag}b", flush=True)
                else:
                    one = await mem.add("shared", "user", f"note {tag}")
                    print(f"{one.id} {tag}", flush=True)
                i += 1

    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
""")

# Summarises the tenant's due sessions in a loop until the stop file exists, then once more.
WORKER = textwrap.dedent("""
    import asyncio, os, sys
    from memstrata import Memory, Settings

    async def main(url, tenant, model, base_url, stop):
        settings = Settings(embedder=None, summary_cron=None, summary_model="openai:" + model,
                            llm_base_url=base_url, llm_api_key="k", llm_max_retries=0,
                            summary_chunk_chars=300)
        async with Memory.open(url, settings=settings, tenant=tenant, background=False) as mem:
            saved = 0
            while True:
                last = os.path.exists(stop)
                saved += await mem.summarize_due()
                if last:
                    break
                await asyncio.sleep(0.005)
            print(saved, flush=True)

    asyncio.run(main(*sys.argv[1:]))
""")


async def _spawn(script: str, *args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)


def _acks(out: bytes) -> dict[int, str]:
    """The ``id tag`` lines a writer printed (complete lines only)."""
    acked: dict[int, str] = {}
    for line in out.decode().splitlines(keepends=True):
        if line.endswith("\n") and line.strip():
            mid, tag = line.split()
            acked[int(mid)] = tag
    return acked


def _rows(url: str, tenant: str) -> list[tuple[int, str]]:
    """``(id, tag)`` of the shared session's messages, in id order, read in one statement
    (a message's id is its number within the tenant, ``seq``)."""
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT seq, content FROM messages WHERE tenant = %s AND "
                            "session = %s ORDER BY seq", (tenant, SESSION)).fetchall()
    return [(int(i), str(c).removeprefix("note ")) for i, c in rows]


@dataclass
class Call:
    model: str
    lease_owner: str | None
    tags: list[str]


@dataclass
class Observer:
    """Stands behind the LLM endpoint: records who calls, under which lease, with which
    messages, and whether two calls were ever in progress at once."""

    url: str
    tenant: str
    calls: list[Call] = field(default_factory=list)
    overlaps: list[tuple[str, str]] = field(default_factory=list)
    _inside: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: Request) -> Reply:
        body = request.json
        model = str(body["model"])
        with self._lock:
            self.overlaps += [(model, other) for other in self._inside]
            self._inside.add(model)
        try:
            with psycopg.connect(self.url) as conn:
                row = conn.execute("SELECT lease_owner FROM summary_runs WHERE tenant = %s "
                                   "AND session = %s", (self.tenant, SESSION)).fetchone()
            # Stay inside a little, so that a second worker running at once would be seen.
            threading.Event().wait(0.02)
            sent = " ".join(str(m["content"]) for m in body["messages"])
            with self._lock:
                self.calls.append(Call(model, row[0] if row else None, TAG.findall(sent)))
        finally:
            with self._lock:
                self._inside.discard(model)
        return Reply(text=SUMMARY_TEXT)


@pytest.fixture
def llm_server() -> Iterator[LLMServer]:
    with LLMServer(default_text=SUMMARY_TEXT) as server:
        yield server


async def _watch(url: str, tenant: str, stop: asyncio.Event, snapshots: list[list[int]],
                 cursors: list[int]) -> None:
    """Until ``stop``: the session's ids (one statement, one snapshot) and summary cursor."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        while not stop.is_set():
            cur = await conn.execute("SELECT seq FROM messages WHERE tenant = %s AND "
                                     "session = %s ORDER BY seq", (tenant, SESSION))
            snapshots.append([int(r[0]) for r in await cur.fetchall()])
            cur = await conn.execute("SELECT cursor FROM summaries WHERE tenant = %s AND "
                                     "session = %s", (tenant, SESSION))
            row = await cur.fetchone()
            if row is not None and row[0] is not None:
                cursors.append(int(row[0]))
            await asyncio.sleep(0.003)


async def test_two_writers_and_two_summary_workers_on_one_session(
        pg_url: str, llm_server: LLMServer, tmp_path: Path) -> None:
    tenant = "together"
    async with Memory.open(pg_url, settings=PLAIN, tenant=tenant, background=False):
        pass  # the schema exists before the processes race
    observer = Observer(pg_url, tenant)
    llm_server.script(*([observer] * 5000))
    stop_file = tmp_path / "stop"
    workers = [await _spawn(WORKER, pg_url, tenant, f"worker-{w}", llm_server.openai_url,
                            str(stop_file)) for w in "ab"]
    writers = [await _spawn(WRITER, pg_url, tenant, name, "120") for name in ("a", "b")]
    stop = asyncio.Event()
    snapshots: list[list[int]] = []
    cursors: list[int] = []
    watcher = asyncio.create_task(_watch(pg_url, tenant, stop, snapshots, cursors))

    acked: list[dict[int, str]] = []
    for proc in writers:
        out, err = await proc.communicate()
        assert proc.returncode == 0, err.decode()[-2000:]
        acked.append(_acks(out))
    stop_file.touch()
    for proc in workers:
        out, err = await proc.communicate()
        assert proc.returncode == 0, err.decode()[-2000:]
    stop.set()
    await watcher

    # Whatever the workers left (a run that began before the last write) is summarised here,
    # through the same endpoint, under the same lease rules.
    final = Settings(embedder=None, summary_cron=None, summary_model="openai:final",
                     llm_base_url=llm_server.openai_url, llm_api_key="k", llm_max_retries=0,
                     summary_chunk_chars=300)
    async with Memory.open(pg_url, settings=final, tenant=tenant, background=False) as mem:
        await mem.summarize(SESSION)
        rows = _rows(pg_url, tenant)
        ids = [i for i, _ in rows]
        # Nothing lost, nothing doubled: 120 writes each, every fourth a pair.
        assert len(rows) == 2 * 150 and len(set(ids)) == len(ids)
        stored = dict(rows)
        for mine in acked:
            assert len(mine) == 150
            assert all(stored[i] == tag for i, tag in mine.items())
            assert list(mine) == sorted(mine)  # each writer saw its ids grow
        # Commit order is id order: every snapshot taken while the writers ran was a prefix
        # of the final list (no id ever committed below one already visible).
        assert len(snapshots) > 1
        for seen in snapshots:
            assert seen == ids[:len(seen)]

        # The summary: never two runs at once, each run under its own lease (a token made of
        # its worker's name and a run number), every message merged exactly once, the cursor
        # only moving forward, to the newest message.
        assert observer.overlaps == []
        assert observer.calls
        owners: dict[str, set[str | None]] = {}
        for call in observer.calls:
            owner = call.lease_owner
            owners.setdefault(call.model, set()).add(owner and owner.split("#run", 1)[0])
        assert all(len(o) == 1 and None not in o for o in owners.values()), owners
        assert len({o for os_ in owners.values() for o in os_}) == len(owners)
        merged = Counter(t for call in observer.calls for t in call.tags)
        assert set(merged) == set(stored.values())
        assert max(merged.values()) == 1, merged.most_common(3)
        assert cursors == sorted(cursors)
        summary = await mem.summary(SESSION)
        assert summary is not None and summary.cursor == ids[-1]
        assert not cursors or cursors[-1] <= summary.cursor
        run = await mem.stats(SESSION)
        assert run.messages == 300
        with psycopg.connect(pg_url) as conn:
            lease = conn.execute("SELECT lease_owner, failures FROM summary_runs WHERE "
                                 "tenant = %s AND session = %s", (tenant, SESSION)).fetchone()
        assert lease == (None, 0)  # released, and no run failed
        assert await mem.check() == []


async def test_kill_9_of_writers_loses_no_acknowledged_message(pg_url: str) -> None:
    tenant = "killed"
    async with Memory.open(pg_url, settings=PLAIN, tenant=tenant, background=False):
        pass
    rng = random.Random(20261201)
    acked: dict[int, str] = {}
    for rnd in range(10):
        procs = [await _spawn(WRITER, pg_url, tenant, f"k{rnd}{w}", "-1") for w in (0, 1)]
        first = procs[0]
        assert first.stdout is not None
        early = b""
        for _ in range(rng.randint(1, 30)):
            line = await first.stdout.readline()
            assert line, (await first.communicate())[1].decode()[-2000:]
            early += line
        await asyncio.sleep(rng.random() * 0.03)
        for proc in procs:
            proc.kill()  # SIGKILL: no cleanup, transactions cut wherever they are
        for proc, head in zip(procs, (early, b""), strict=True):
            out, _ = await proc.communicate()
            acked.update(_acks(head + out))
    assert len(acked) >= 10

    rows = _rows(pg_url, tenant)
    stored = dict(rows)
    tags = Counter(tag for _, tag in rows)
    assert max(tags.values()) == 1  # nothing written twice
    for mid, tag in acked.items():
        assert stored.get(mid) == tag, (mid, tag)  # every acknowledged message, as written
    halves = {t[:-1] for t in tags if t.endswith(("a", "b"))}
    for pair in halves:  # add_many is all or nothing, even when killed mid-call
        assert tags[pair + "a"] == tags[pair + "b"] == 1
    async with Memory.open(pg_url, settings=PLAIN, tenant=tenant, background=False) as mem:
        assert await mem.check() == []
        assert (await mem.stats(SESSION)).messages == len(rows)
        after = await mem.add(SESSION, "user", "still writable")  # no lock left behind
        assert after.id > max(stored)


async def test_server_restart_under_load(pg_server: PgServer, pg_url: str) -> None:
    tenant = "restarted"
    where = f"127.0.0.1:{pg_server.port}"
    async with Memory.open(pg_url, settings=PLAIN, tenant=tenant, background=False) as mem:
        acked: dict[int, str] = {}
        failed: list[str] = []
        errors: list[StoreError] = []
        read_errors: list[StoreError] = []
        late: list[StoreError] = []  # failures after a call had succeeded on the new server
        restarted = asyncio.Event()
        done = asyncio.Event()
        after = Counter[str]()

        async def writer(k: int) -> None:
            i = 0
            while not done.is_set():
                tag = f"w{k}x{i}"
                i += 1
                try:
                    message = await mem.add(SESSION, "user", f"note {tag}")
                except StoreError as exc:  # anything else fails the test
                    errors.append(exc)
                    failed.append(tag)
                    late.extend([exc] if after[f"w{k}"] else [])
                    continue
                acked[message.id] = tag
                after[f"w{k}"] += restarted.is_set()

        async def reader() -> None:
            while not done.is_set():
                try:
                    await mem.context(SESSION)
                except StoreError as exc:
                    read_errors.append(exc)
                    late.extend([exc] if after["reader"] else [])
                    continue
                after["reader"] += restarted.is_set()

        async def drive() -> None:
            while len(acked) < 60:
                await asyncio.sleep(0.01)
            await asyncio.to_thread(pg_server.restart)
            restarted.set()
            # The same Memory carries on: its pool reconnects with no help from the caller.
            while len(after) < 5 or min(after.values()) < 20:
                await asyncio.sleep(0.01)
            done.set()

        tasks = [*(writer(k) for k in range(4)), reader()]
        await asyncio.wait_for(asyncio.gather(drive(), *tasks), timeout=120)

        # Calls cut off by the restart failed, with a StoreError naming the server, not the
        # pool (which never closed).
        assert errors or read_errors
        assert late == []  # once back, it stays back: no stale connection is handed out
        for exc in [*errors, *read_errors]:
            text = str(exc)
            assert where in text and "pool" not in text, text
        rows = _rows(pg_url, tenant)
        stored = dict(rows)
        assert len(stored) == len(rows)
        for mid, tag in acked.items():
            assert stored.get(mid) == tag
        # A write whose commit was cut may or may not have landed; nothing else is there.
        unacked = {tag for mid, tag in stored.items() if mid not in acked}
        assert unacked <= set(failed)
        assert (await mem.stats(SESSION)).messages == len(rows)
        assert await mem.check() == []
