"""First-hour fixes in the library: failed opens, foreign databases, session ids and future
timestamps, and imports that can be repeated. Real SQLite files throughout."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from helpers import ManualClock

from memstrata import Memory, Settings
from memstrata.errors import InvalidInput, StoreError

SETTINGS = Settings(embedder=None, summary_cron=None)


# -- 7. a failed open leaves nothing behind -------------------------------------------------


async def test_failed_opens_leave_no_thread_behind(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    for target in (str(tmp_path / "missing" / "x.db"), str(tmp_path)):
        for _ in range(10):
            with pytest.raises(StoreError, match="cannot open SQLite database"):
                await Memory.open(target, settings=SETTINGS, background=False)
            # Checked at once: the driver's thread is gone when the error is raised.
            assert [t.name for t in threading.enumerate() if t not in before] == []


FAILING_OPENS = textwrap.dedent("""
    import asyncio, sys
    from memstrata import Memory, Settings
    from memstrata.errors import StoreError

    async def once(target):
        try:
            await Memory.open(target, settings=Settings(embedder=None), background=False)
        except StoreError:
            return
        raise SystemExit("opened?")

    for target in sys.argv[1:]:
        for _ in range(25):
            asyncio.run(once(target))  # each run closes its event loop right after the error
""")


def test_failed_opens_print_nothing_on_stderr(tmp_path: Path) -> None:
    # Before the fix most of these runs printed a thread traceback ending in "Event loop is
    # closed" (the driver's thread outlived the loop).
    result = subprocess.run([sys.executable, "-c", FAILING_OPENS, "/nonexistent/dir/x.db",
                             str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_cli_failed_open_prints_only_the_error(tmp_path: Path) -> None:
    for _ in range(4):
        result = subprocess.run([sys.executable, "-m", "memstrata", "--db",
                                 "/nonexistent/dir/x.db", "stats", "s"], capture_output=True,
                                text=True, timeout=120, cwd=tmp_path)
        assert result.returncode != 0
        assert "Traceback" not in result.stderr and "Event loop" not in result.stderr
        # One line naming the target (its wording is the CLI's business).
        [line] = result.stderr.strip().splitlines()
        assert "/nonexistent/dir/x.db" in line, line


# -- 10. another application's database is refused ------------------------------------------


def _foreign(path: Path) -> None:
    c = sqlite3.connect(path)
    c.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    c.execute("CREATE INDEX users_by_name ON users (name)")
    c.execute("INSERT INTO users (name) VALUES ('mei')")
    c.commit()
    c.close()


def _schema(path: Path) -> tuple[list[tuple[str, str]], str]:
    c = sqlite3.connect(path)
    try:
        names = c.execute("SELECT type, name FROM sqlite_master ORDER BY name").fetchall()
        return names, c.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        c.close()


async def test_foreign_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    _foreign(path)
    before = _schema(path)
    for target in (str(path), f"sqlite:///{path}"):
        with pytest.raises(StoreError) as err:
            await Memory.open(target, settings=SETTINGS, background=False)
        message = str(err.value)
        assert str(path) in message and "not a memstrata database" in message
        assert "'users'" in message
    assert _schema(path) == before  # no memstrata table, journal mode unchanged
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"]


async def test_a_file_that_is_not_sqlite_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 200)
    with pytest.raises(StoreError, match=r"notes\.db' is not a memstrata database"):
        await Memory.open(str(path), settings=SETTINGS, background=False)


async def test_empty_file_and_memstrata_database_open_as_before(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        await mem.add("s", "user", "hello")
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        assert [m.content for m in (await mem.context("s")).messages] == ["hello"]
        assert await mem.check() == []
    async with Memory.open(":memory:", settings=SETTINGS, background=False) as mem:
        await mem.add("s", "user", "hello")


# -- 13. session ids and timestamps -----------------------------------------------------------


async def test_session_id_error_says_exactly_what_is_allowed(db_path: str) -> None:
    async with Memory.open(db_path, settings=SETTINGS, background=False) as mem:
        for bad, char in (("旅行", "'旅' (U+65C5)"), ("trip 2", "' ' (U+0020)"),
                          ("café", "'é' (U+00E9)")):
            with pytest.raises(InvalidInput) as err:
                await mem.add(bad, "user", "hi")
            assert err.value.field == "session"
            reason = err.value.reason
            assert "A-Z a-z 0-9 . _ : @ -" in reason and "ASCII only" in reason, reason
            assert char in reason, reason
        assert await mem.sessions() == []
        await mem.add("trip-2025.taiwan:mei@home_1", "user", "allowed")


async def test_future_timestamps_are_refused_past_the_skew(db_path: str,
                                                           clock: ManualClock) -> None:
    minute = 60 * 10**9
    async with Memory.open(db_path, settings=SETTINGS, background=False, clock=clock) as mem:
        ok = await mem.add("s", "user", "a little ahead", at=clock.now + 4 * minute)
        assert ok.at == clock.now + 4 * minute
        with pytest.raises(InvalidInput) as err:
            await mem.add("s", "user", "next year", at=clock.now + 365 * 24 * 60 * minute)
        assert err.value.field == "at" and "at most 5 minutes" in err.value.reason
        assert "365 days ahead" in err.value.reason
        with pytest.raises(InvalidInput) as err:
            await mem.add_many("s", [{"role": "user", "content": "fine"},
                                     {"role": "user", "content": "ahead",
                                      "at": clock.now + 6 * minute}])
        assert err.value.field == "items[1].at" and "6.0 minutes ahead" in err.value.reason
        record = {"type": "message", "role": "user", "content": "x", "at": clock.now + 10**15}
        with pytest.raises(InvalidInput) as err:
            await mem.import_("t", [json.dumps(record)])
        assert err.value.field == "line 1: at"
        with pytest.raises(InvalidInput) as err:
            await mem.import_history("t", [{"role": "user", "content": "x",
                                            "sendAt": clock.now + 3 * 60 * minute}])
        assert err.value.field == "history[0].sendAt"
        assert [m.content for m in (await mem.context("s")).messages] == ["a little ahead"]
        assert [s.id for s in await mem.sessions()] == ["s"]


# -- 14. importing the same file twice ------------------------------------------------------


async def test_importing_the_same_export_twice_stores_each_message_once(tmp_path: Path) -> None:
    async with Memory.open(str(tmp_path / "a.db"), settings=SETTINGS.replace(window_messages=2),
                           background=False) as mem:
        await mem.add_many("trip", [{"role": "user", "content": "ok"},
                                    {"role": "assistant", "content": "ok"},
                                    {"role": "user", "content": "ok"},
                                    {"role": "assistant", "content": "booked", "key": "k-7"}])
        await mem.summarize("trip")
        records = [r async for r in mem.export("trip")]
    assert records[-1]["type"] == "summary"
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    messages = [r for r in records if r["type"] == "message"]
    assert all(isinstance(r["key"], str) for r in messages) and messages[-1]["key"] == "k-7"
    assert len({r["key"] for r in messages}) == 4  # equal messages keep distinct keys
    async with Memory.open(str(tmp_path / "b.db"), settings=SETTINGS,
                           background=False) as mem:
        assert await mem.import_("copy", lines) == 4
        assert await mem.import_("copy", lines) == 0
        again = [r async for r in mem.export("copy")]
        assert [r["content"] for r in again[:-1]] == ["ok", "ok", "ok", "booked"]
        assert [r["key"] for r in again[:-1]] == [r["key"] for r in messages]
        assert again[-1]["cursor"] in {r["id"] for r in again[:-1]}
        # A copy of the copy still lands on the same messages.
        assert await mem.import_("copy", [json.dumps(r) for r in again]) == 0
        assert (await mem.stats("copy")).messages == 4


async def test_records_without_keys_are_imported_once_too(db_path: str) -> None:
    plain = [json.dumps({"type": "message", "role": "user", "content": "ok"}),
             json.dumps({"type": "message", "role": "user", "content": "ok"}),
             json.dumps({"type": "message", "role": "assistant", "content": "sure",
                         "at": 1_741_003_320 * 10**9, "id": 9})]
    history = [{"role": "user", "content": "嗨", "sendAt": 1_700_000_000 * 10**9},
               {"role": "user", "content": "嗨", "sendAt": 1_700_000_000 * 10**9},
               {"role": "assistant", "content": "你好"}]
    async with Memory.open(db_path, settings=SETTINGS, background=False) as mem:
        assert await mem.import_("a", plain) == 3
        assert await mem.import_("a", plain) == 0
        assert await mem.import_history("h", history) == 3
        assert await mem.import_history("h", history) == 0
        assert await mem.import_("other", plain) == 3  # keys are per session
        sizes = {s.id: s.messages for s in await mem.sessions()}
        assert sizes == {"a": 3, "h": 3, "other": 3}
