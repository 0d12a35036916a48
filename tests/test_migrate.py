"""``memstrata migrate`` / ``memstrata.store.migrate``: a SQLite file of 100,000 messages (two
tenants, summaries with token totals, vectors, a queue, error records, API keys) copied into a
real PostgreSQL database, then read back through ``Memory`` on both sides and compared.

Also: an interrupted run (a progress callback that stops it after a few batches) resumed to
the same end state, a second run that copies nothing, a target holding other data for the same
ids refused, and the command line's ``--json`` report and exit codes.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pg_server import PgServer
from test_cli import cli, ok

from memstrata import Memory, Settings
from memstrata._keys import ApiKeys
from memstrata.errors import InvalidInput, StoreError
from memstrata.providers import HashEmbedder
from memstrata.store import migrate, open_store
from memstrata.testing._common import OFF
from memstrata.types import Draft, MigrationReport

PLAIN = Settings(embedder=None, summary_cron=None)
DIM = 32
T0 = 1_740_000_000_000_000_000
MINUTE = 60_000_000_000
TOPICS = ["the train to Hualien", "花蓮的夜市和太魯閣", "quarterly report numbers",
          "a beef noodle soup place", "book the hotel in Da'an"]
# tenant -> (sessions, messages per session): 100,000 messages in all.
LAYOUT = {"default": (9, 10_000), "acme": (2, 5_000)}
TOTAL = sum(n * per for n, per in LAYOUT.values())


def text(tenant: str, session: str, i: int) -> str:
    return f"{tenant}/{session} #{i:05d}: {TOPICS[i % len(TOPICS)]} ({i * 7919 % 10007})"


async def _build(path: str) -> None:
    for tenant, (sessions, per) in LAYOUT.items():
        async with Memory.open(path, settings=PLAIN, tenant=tenant, background=False,
                               embedder=HashEmbedder(DIM)) as mem:
            for s in range(sessions):
                session = f"s{s}"
                for start in range(0, per, 5_000):
                    await mem.add_many(session, [
                        {"role": "user" if i % 2 == 0 else "assistant",
                         "content": text(tenant, session, i), "at": T0 + i * MINUTE,
                         "sender": "Mei" if i % 3 == 0 else None,
                         "meta": {"i": i} if i % 7 == 0 else None}
                        for i in range(start, min(start + 5_000, per))])
            await mem.flush()  # vectors for every hot message
            await mem.summarize("s0")
            await mem.summarize("s1")
            # Queued and not yet embedded: the queue must come along.
            await mem.add_many("s0", [{"role": "user", "content": f"late {i}"}
                                      for i in range(3)])
            for n in range(3):
                record = await mem.errors.write(
                    tool_name="web_fetch", keywords=[f"timeout-{tenant}-{n}"],
                    symptom=f"GET {n} timed out", action="retry with 120 s")
            await mem.errors.search(record.symptom)  # hits and expiry renewed
    store = await open_store(path)
    try:
        await store.runs.add_tokens("default", "s0", 1234, 567)
        keys = ApiKeys(store.api_keys)
        await keys.create("default", "laptop")
        _, revoked = await keys.create("acme", None)
        await keys.revoke(revoked.id)
    finally:
        await store.close()


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("migrate") / "memory.db")
    asyncio.run(_build(path))
    return path


async def _state(target: str) -> dict[str, Any]:
    """What a user sees of a database through ``Memory``: every session's listing, stats,
    summary and window, a sample of messages by id, keyword and semantic hits, error records
    and API keys, per tenant."""
    out: dict[str, Any] = {}
    for tenant in LAYOUT:
        async with Memory.open(target, settings=PLAIN, tenant=tenant, background=False,
                               embedder=HashEmbedder(DIM)) as mem:
            sessions = await mem.sessions()
            per: dict[str, Any] = {"sessions": sessions}
            for info in sessions:
                ctx = await mem.context(info.id)
                semantic = await mem.search(info.id, "beef noodle soup", match="semantic",
                                            exclude_window=False)
                keyword = await mem.search(info.id, "夜市", match="keyword", limit=5)
                per[info.id] = (await mem.stats(info.id), await mem.summary(info.id),
                                ctx.messages, [(h.message.id, h.rank) for h in semantic],
                                [h.message.id for h in keyword])
            per["sample"] = [await mem.message(i) for i in range(1, TOTAL + 10, 997)]
            per["errors"] = await mem.errors.list()
            out[tenant] = per
    store = await open_store(target)
    try:
        out["keys"] = await ApiKeys(store.api_keys).list()
    finally:
        await store.close()
    return out


class Stop(Exception):
    """Raised by a progress callback to interrupt a migration."""


@pytest.fixture
def fresh(pg_server: PgServer) -> Iterator[str]:
    yield pg_server.create_database("migrate")


def _rows(report: MigrationReport) -> dict[str, tuple[int, int, int, int]]:
    return {t.name: (t.source, t.copied, t.present, t.target) for t in report.tables}


async def test_everything_arrives_and_a_second_run_copies_nothing(source: str,
                                                                  fresh: str) -> None:
    seen: list[tuple[str, int, int]] = []
    report = await migrate(source, fresh, lambda *a: seen.append(a))
    assert report.differences == ()
    rows = _rows(report)
    assert rows["messages"] == (TOTAL + 6, TOTAL + 6, 0, TOTAL + 6)
    assert rows["api_keys"] == (2, 2, 0, 2) and rows["error_records"] == (6, 6, 0, 6)
    assert rows["summaries"] == (4, 4, 0, 4) and rows["index_queue"][1] == 6
    assert rows["vectors"][1] > 0 and rows["sessions"][1] == 11
    # Progress: every table announced, messages in id-ordered batches up to the total.
    done = [d for t, d, _ in seen if t == "messages"]
    assert done == sorted(done) and done[-1] == TOTAL + 6 and len(done) > 10
    assert {t for t, _, _ in seen} == set(rows)

    again = await migrate(source, fresh)
    assert again.copied == 0 and again.differences == (), _rows(again)
    assert all(t.present == t.source for t in again.tables)

    # Read with an embedder, which may move the indexer's marks: compared after the runs.
    before, after = await _state(source), await _state(fresh)
    assert after == before
    assert after["default"]["s0"][0].summary_tokens_in == 1234  # token totals came along
    assert after["default"]["s0"][0].index_backlog == 3
    assert any(r.hits == 1 for r in after["default"]["errors"])
    assert any(k.revoked_at is not None for k in after["keys"])
    assert all(after[t]["s0"][3] for t in LAYOUT)  # semantic search finds on the target
    assert all(after[t]["s0"][4] for t in LAYOUT)  # keyword search too

    # Ids are numbers within a tenant: the target's next follows the tenant's counter in the
    # source (every message of the tenant, and the three added late).
    for tenant, (sessions, per) in LAYOUT.items():
        async with Memory.open(fresh, settings=PLAIN, tenant=tenant, background=False) as mem:
            assert (await mem.add("s0", "user", "after the move")).id == sessions * per + 4


async def test_an_interrupted_run_resumes_to_the_same_end(source: str, fresh: str) -> None:
    batches = 0

    def stop_after_some(table: str, done: int, total: int) -> None:
        nonlocal batches
        batches += table == "messages" and done > 0
        if batches == 7:
            raise Stop

    with pytest.raises(Stop):
        await migrate(source, fresh, stop_after_some, batch=1_000)
    async with Memory.open(fresh, settings=PLAIN, background=False) as mem:
        assert 0 < sum(s.messages for s in await mem.sessions()) <= TOTAL
    resumed = await migrate(source, fresh, batch=1_500)
    rows = _rows(resumed)
    assert rows["messages"][2] == 7_000  # what the first run committed was skipped
    assert rows["messages"][1] == TOTAL + 6 - 7_000
    assert resumed.differences == ()
    assert await _state(fresh) == await _state(source)


async def test_a_killed_process_resumes_to_the_same_end(source: str, fresh: str) -> None:
    """The command killed outright (SIGKILL: no cleanup, a transaction cut mid-way), then run
    again."""
    proc = subprocess.Popen([sys.executable, "-m", "memstrata", "migrate", "--from", source,
                             "--to", fresh, "--batch", "500"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        copied = 0
        give_up = time.monotonic() + 300  # a bound on waiting, not on speed
        while copied < 5_000 and proc.poll() is None and time.monotonic() < give_up:
            await asyncio.sleep(0.05)
            copied = _count_messages(fresh)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    finally:
        proc.kill()
        proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
    committed = _count_messages(fresh)
    assert 5_000 <= committed < TOTAL and committed % 500 == 0  # whole batches only
    resumed = await migrate(source, fresh)
    assert resumed.differences == () and _rows(resumed)["messages"][2] == committed
    assert await _state(fresh) == await _state(source)


def _count_messages(url: str) -> int:
    """Messages in the target as another client sees them (0 before its schema exists)."""
    with psycopg.connect(url) as conn:
        try:
            row = conn.execute("SELECT count(*) FROM messages").fetchone()
        except psycopg.errors.UndefinedTable:
            return 0
        return int(row[0]) if row is not None else 0


async def _small(path: str, tenant: str, words: str) -> None:
    async with Memory.open(path, settings=PLAIN, tenant=tenant, background=False) as mem:
        await mem.add_many("chat", [{"role": "user", "content": f"{words} {i}"}
                                    for i in range(5)])


async def test_a_target_with_other_data_for_the_same_ids_is_refused(tmp_path: Path,
                                                                    fresh: str) -> None:
    first, second = str(tmp_path / "first.db"), str(tmp_path / "second.db")
    await _small(first, "default", "first file")
    await _small(second, "default", "second file")
    await migrate(first, fresh)
    with pytest.raises(StoreError, match=r"already holds other data in sessions|"
                                         r"already holds other data in messages"):
        await migrate(second, fresh)
    # The same ids under another tenant are refused as well: ids are unique database-wide.
    other = str(tmp_path / "other.db")
    await _small(other, "elsewhere", "other file")
    with pytest.raises(StoreError, match=r"messages \(id=1: another tenant's message"):
        await migrate(other, fresh)
    async with Memory.open(fresh, settings=PLAIN, background=False) as mem:
        assert [m.content for m in (await mem.context("chat")).messages] == [
            f"first file {i}" for i in range(5)]


async def test_every_row_with_nul_is_named_before_anything_is_written(tmp_path: Path,
                                                                     fresh: str) -> None:
    path = str(tmp_path / "nul.db")
    async with Memory.open(path, settings=PLAIN, background=False) as mem:
        with pytest.raises(InvalidInput, match=r"U\+0000"):  # refused on SQLite too
            await mem.add("chat", "user", "before\x00after")
        fine = await mem.add("chat", "user", "fine")
    # A file written before NUL was refused holds some: the store itself still takes them.
    store = await open_store(path)
    try:
        first, second = await store.append("default", "chat", [
            Draft(role="user", content="before\x00after", at=T0, size=12),
            Draft(role="assistant", content="ok", sender="At\x00las", at=T0, size=2)],
            now=T0, policy=OFF)
    finally:
        await store.close()
    with pytest.raises(StoreError) as err:
        await migrate(path, fresh)
    assert f"messages (id={first.id}): content" in str(err.value)
    assert f"messages (id={second.id}): sender" in str(err.value)
    assert "2 rows" in str(err.value) and "Nothing was written" in str(err.value)
    assert _count_messages(fresh) == 0
    refused = await asyncio.to_thread(cli, None, "migrate", "--from", path, "--to", fresh)
    assert refused.exit_code == 1 and f"messages (id={second.id}): sender" in refused.stderr
    # Fixed in the source, the same command runs from the start to the end.
    async with Memory.open(path, settings=PLAIN, background=False) as mem:
        assert await mem.forget(first.id) and await mem.forget(second.id)
    report = await migrate(path, fresh)
    assert not report.differences and _count_messages(fresh) == 1
    async with Memory.open(fresh, settings=PLAIN, background=False) as mem:
        assert [m.id for m in (await mem.context("chat")).messages] == [fine.id]


def test_command_line_json_report_and_exit_codes(tmp_path: Path, fresh: str) -> None:
    small = tmp_path / "small.db"
    asyncio.run(_small(str(small), "default", "hello"))
    report = json.loads(ok(cli(None, "--json", "migrate", "--from", f"sqlite:///{small}",
                               "--to", fresh, "--batch", "2")).stdout)
    assert report["verified"] and report["copied"] == 5 + 1 + 1  # messages, session, tenant
    assert {t["name"]: t["copied"] for t in report["tables"]}["messages"] == 5
    assert report["target"].endswith(fresh.rsplit("/", 1)[1]) and "@" not in report["target"]
    second = ok(cli(None, "migrate", "--from", str(small), "--to", fresh))
    assert "nothing to copy" in second.stdout

    # A session written on the target since: the counts disagree, exit 1 names the tables.
    async def write() -> None:
        async with Memory.open(fresh, settings=PLAIN, background=False) as mem:
            await mem.add("new", "user", "written on the target")
    asyncio.run(write())
    mismatch = cli(None, "--json", "migrate", "--from", str(small), "--to", fresh)
    assert mismatch.exit_code == 1
    error = json.loads(mismatch.stderr.strip().splitlines()[-1])["error"]
    assert error["type"] == "MigrationMismatch"
    assert "messages of tenant 'default': 5 in the source, 6 in the target" in error["message"]
    assert "sessions of tenant 'default': 1 in the source, 2 in the target" in error["message"]
    # The same session changed on the target: other data under the same key, refused.
    async def touch() -> None:
        async with Memory.open(fresh, settings=PLAIN, background=False) as mem:
            await mem.add("chat", "user", "also written on the target")
    asyncio.run(touch())
    refused = cli(None, "migrate", "--from", str(small), "--to", fresh)
    assert refused.exit_code == 1
    assert "already holds other data in sessions (tenant='default', id='chat': " \
        "message_count differs)" in " ".join(refused.stderr.split())

    bad = cli(None, "migrate", "--from", str(small), "--to", str(tmp_path / "x.db"))
    assert bad.exit_code == 2 and "PostgreSQL URL" in bad.stderr
    missing = cli(None, "migrate", "--from", str(tmp_path / "none.db"), "--to", fresh)
    assert missing.exit_code == 2 and "no database file" in missing.stderr
