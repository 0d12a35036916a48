"""The library's contract, the same on every backend: a backup restored where it came from adds
nothing, NUL is refused the same way everywhere, and ``Context`` says how many older messages
no summary covers yet. Each test runs on a SQLite file and on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import json
import pydoc
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from helpers import ManualClock

from memstrata import Memory, Settings
from memstrata.errors import InvalidInput

PLAIN = Settings(embedder=None, summary_cron=None)


@pytest.fixture(params=["sqlite", "postgres"])
async def mem(request: pytest.FixtureRequest, tmp_path: Path,
              clock: ManualClock) -> AsyncIterator[Memory]:
    if request.param == "sqlite":
        url = str(tmp_path / "memory.db")
        tenant = "default"
    else:
        url = request.getfixturevalue("pg_url")
        tenant = request.node.name.removeprefix("test_").replace("[", ".")[:60].strip("]")
        tenant = "".join(c if c.isalnum() or c in "._-" else "-" for c in tenant)
    async with Memory.open(url, settings=PLAIN, tenant=tenant, background=False,
                           clock=clock) as m:
        yield m


async def _export(mem: Memory, session: str) -> list[dict[str, object]]:
    return [r async for r in mem.export(session)]


async def test_restoring_a_backup_where_it_came_from_adds_nothing(mem: Memory) -> None:
    await mem.add("trip", "user", "Two nights in Hualien?", sender="Mei")
    await mem.add("trip", "assistant", "Yes, two nights.")
    await mem.add("trip", "assistant", "Yes, two nights.")  # the same words twice: two messages
    await mem.add("trip", "user", "Book it.", key="k-1")
    backup = await _export(mem, "trip")
    assert await mem.import_("trip", backup) == 0
    assert await mem.import_("trip", [json.dumps(r) for r in backup]) == 0
    after = await _export(mem, "trip")
    assert after == backup
    keys = [r["key"] for r in after]
    assert len(set(keys)) == len(keys) == 4
    # Into a fresh session: every message, once, however often it is imported.
    assert await mem.import_("copy", after) == 4
    assert await mem.import_("copy", after) == 0
    copied = await _export(mem, "copy")
    assert [r["content"] for r in copied] == [r["content"] for r in backup]
    assert await mem.import_("copy", copied) == 0


async def test_a_restored_backup_keeps_the_messages_added_since(mem: Memory) -> None:
    await mem.add("s", "user", "first")
    backup = await _export(mem, "s")
    await mem.forget(int(str(backup[0]["id"])))
    await mem.add("s", "user", "second")
    assert await mem.import_("s", backup) == 1  # the forgotten one comes back, once
    assert [m.content for m in (await mem.context("s")).messages] == ["second", "first"]
    assert await mem.import_("s", backup) == 0


async def test_a_record_under_an_id_of_another_message_is_added(mem: Memory) -> None:
    first = await mem.add("s", "user", "hello")
    record = {"type": "message", "id": first.id, "role": "user", "content": "other words",
              "at": first.at}
    assert await mem.import_("s", [record]) == 1
    assert await mem.import_("s", [record]) == 0


async def test_nul_is_refused_the_same_way_on_every_backend(mem: Memory) -> None:
    writes: dict[str, Callable[[], Awaitable[object]]] = {
        "content": lambda: mem.add("s", "user", "a\x00b"),
        "sender": lambda: mem.add("s", "user", "ok", sender="M\x00ei"),
        "key": lambda: mem.add("s", "user", "ok", key="k\x00"),
        "items[1].content": lambda: mem.add_many("s", [{"role": "user", "content": "ok"},
                                                       {"role": "user", "content": "\x00"}]),
        "line 2: content": lambda: mem.import_("s", [
            {"type": "message", "role": "user", "content": "ok"},
            {"type": "message", "role": "user", "content": "x\x00"}]),
        "symptom": lambda: mem.errors.write(tool_name="t", keywords=["k"], symptom="bad\x00",
                                            action="retry"),
    }
    for field, write in writes.items():
        with pytest.raises(InvalidInput) as err:
            await write()
        assert err.value.field == field and "NUL character (U+0000) at position" in \
            err.value.reason and "on any backend" in err.value.reason, field
    assert (await mem.context("s")).messages == []
    # Inside meta (JSON), NUL is an escape both backends keep.
    stored = await mem.add("s", "user", "ok", meta={"note": "x\x00y"})
    assert (await mem.message(stored.id)) == stored


async def test_context_counts_the_older_messages_no_summary_covers(mem: Memory) -> None:
    window = mem.settings.window_messages
    await mem.add_many("s", [{"role": "user", "content": f"message {i}"} for i in range(window)])
    assert (await mem.context("s")).unsummarized == 0  # the window holds everything
    await mem.add_many("s", [{"role": "user", "content": f"more {i}"} for i in range(5)])
    ctx = await mem.context("s")
    assert ctx.summary_kind is None and ctx.unsummarized == 5
    await mem.summarize("s")  # no model: a digest of everything before the window
    ctx = await mem.context("s")
    assert ctx.summary_kind == "digest" and ctx.unsummarized == 0
    await mem.add_many("s", [{"role": "user", "content": f"later {i}"} for i in range(3)])
    assert (await mem.context("s", query="later")).unsummarized == 3
    assert (await mem.context("other")).unsummarized == 0


def test_help_shows_how_to_open_and_what_there_is() -> None:
    shown = pydoc.plain(pydoc.render_doc(Memory))
    assert " object at 0x" not in shown and "<from settings>" in shown
    assert "use ``Memory.open(...)``" in shown
    assert "errors\n" in shown and "memory of tool errors" in shown
    tools = pydoc.plain(pydoc.render_doc(Memory.tools))
    assert all(name in tools for name in ("chat_history", "error_history", "write_error"))
    with pytest.raises(ValueError, match=r"write `mem = await Memory\.open\(\.\.\.\)` or "
                                         r"`async with Memory\.open\(\.\.\.\) as mem:`; "
                                         r"without asyncio use memstrata\.SyncMemory\.open"):
        asyncio.run(Memory.open(":memory:"))  # type: ignore[arg-type]
    loop = asyncio.new_event_loop()  # helpers that take any awaitable still take it
    try:
        opened = loop.run_until_complete(Memory.open(":memory:", background=False))
        loop.run_until_complete(opened.close())
    finally:
        loop.close()
