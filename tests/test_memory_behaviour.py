"""One behaviour, three ways to reach it: every test here runs on a ``Memory`` over SQLite, a
``Memory`` over PostgreSQL and a ``RemoteMemory`` on a real ``memstrata serve`` process, and
asserts the same things of each. The differences that remain (docs/usage.md, "Local and
remote") are asserted where they show, so a new one cannot creep in unnoticed.

Each test gets a fresh tenant, so the server (one per module) and the PostgreSQL database (one
per module) are shared without one test seeing another's data.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from serve_process import serve_process
from server_helpers import make_key

from memstrata import Closed, InvalidInput, KeyConflict, Memory, NotFound, Settings, SyncMemory
from memstrata.client import MemoryAPI, RemoteMemory, Unauthorized
from memstrata.providers import HashEmbedder

WINDOW = 4
SETTINGS = Settings(summary_cron=None, window_messages=WINDOW, embedder="hash:64")
AT = 1_744_000_000 * 10**9
CHAT = [("user", "Let's take the train to Hualien on Monday.", "Mei"),
        ("assistant", "Agreed: the 9:00 train from Taipei.", "Atlas"),
        ("user", "我妹妹想去花蓮看太魯閣。", "Mei"),
        ("assistant", "太魯閣 is an hour from Hualien station by bus.", "Atlas"),
        ("user", "Book the beef noodle place near the night market.", "Mei"),
        ("assistant", "Done: a table for two at seven.", "Atlas")]
ITEMS = [{"role": r, "content": c, "sender": s, "at": AT + i * 60 * 10**9, "meta": {"n": i}}
         for i, (r, c, s) in enumerate(CHAT)]

Opener = Callable[[str], Awaitable[MemoryAPI]]
_tenants = itertools.count()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A ``memstrata serve`` process with this module's settings: (URL, database file)."""
    db = str(tmp_path_factory.mktemp("served") / "served.db")
    with serve_process(db, {"MEMSTRATA_WINDOW_MESSAGES": str(WINDOW)}) as url:
        yield url, db


@pytest.fixture(params=["sqlite", "postgres", "remote"])
async def opener(request: pytest.FixtureRequest,
                 tmp_path: Path) -> AsyncIterator[Opener]:
    """Opens the memory of a tenant on this test's backend (closed after the test)."""
    kind: str = request.param
    target: str | None = str(tmp_path / "local.db") if kind == "sqlite" else \
        request.getfixturevalue("pg_url") if kind == "postgres" else None
    where = request.getfixturevalue("served") if kind == "remote" else None
    opened: list[MemoryAPI] = []

    async def open_tenant(tenant: str) -> MemoryAPI:
        mem: MemoryAPI
        if where is not None:
            url, db = where
            mem = await RemoteMemory.open(url, make_key(db, tenant), settings=SETTINGS)
        else:
            assert target is not None
            mem = await Memory.open(target, settings=SETTINGS, tenant=tenant,
                                    embedder=HashEmbedder(64))
        opened.append(mem)
        return mem

    yield open_tenant
    for mem in opened:
        await mem.close()


def fresh() -> str:
    return f"t{next(_tenants)}-{id(_tenants) % 10**6}"


@pytest.fixture
async def mem(opener: Opener) -> MemoryAPI:
    return await opener(fresh())


def is_remote(mem: MemoryAPI) -> bool:
    return isinstance(mem, RemoteMemory)


async def bad(call: Awaitable[Any], field: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        await call
    assert info.value.field == field, info.value
    return info.value


# -- writes ---------------------------------------------------------------------------------


async def test_add_and_add_many(mem: MemoryAPI) -> None:
    added = await mem.add_many("trip", ITEMS)
    assert [(m.role, m.content, m.sender, m.at, m.meta) for m in added] == \
        [(i["role"], i["content"], i["sender"], i["at"], i["meta"]) for i in ITEMS]
    assert [m.id for m in added] == sorted({m.id for m in added})
    one = await mem.add("trip", "user", [{"type": "text", "text": "and a hotel"}],
                        key="k1")
    assert (one.content, one.session, one.meta, one.sender) == ("and a hotel", "trip", None,
                                                               None)
    assert one.id > added[-1].id
    assert await mem.add("trip", "user", "and a hotel", key="k1") == one  # a retry: the same
    conflict = await bad(mem.add("trip", "user", "another text, same key", key="k1"), "key")
    assert isinstance(conflict, KeyConflict)


async def test_concurrent_writes_keep_everything(mem: MemoryAPI) -> None:
    said = [f"message {i} of many" for i in range(24)]
    added = await asyncio.gather(*(mem.add("busy", "user", text) for text in said))
    assert len({m.id for m in added}) == len(said)
    stored = await mem.recent("busy", limit=32)
    assert sorted(m.content for m in stored) == sorted(said)
    assert [m.id for m in stored] == sorted((m.id for m in added), reverse=True)


async def test_bad_writes_change_nothing(mem: MemoryAPI) -> None:
    await mem.add("trip", "user", "hello", at=AT)
    await bad(mem.add("trip", cast(Any, "robot"), "hi"), "role")
    await bad(mem.add("no spaces", "user", "hi"), "session")
    await bad(mem.add("trip", "user", "x" * 10_001), "content")
    await bad(mem.add("trip", "user", "   "), "content")
    await bad(mem.add("trip", "user", "bad \ud800 text"), "content")
    await bad(mem.add("trip", "user", "hi", meta={"x": float("nan")}), "meta")
    # The last item is bad: nothing of the batch is stored.
    with pytest.raises(InvalidInput):
        await mem.add_many("trip", [ITEMS[0], {"role": "user", "content": ""}])
    assert [m.content for m in await mem.recent("trip")] == ["hello"]


# -- reads ----------------------------------------------------------------------------------


async def test_context_window_and_summary(mem: MemoryAPI) -> None:
    empty = await mem.context("nowhere")
    assert (empty.messages, empty.summary, empty.system_prompt, empty.turn_context) == \
        ([], None, "", None)
    added = await mem.add_many("trip", ITEMS)
    ctx = await mem.context("trip")
    assert ctx.messages == added[-WINDOW:]
    assert ctx.summary is None and ctx.to_openai("Be brief.")[0]["role"] == "system"
    summary = await mem.summarize("trip")  # no model: a digest of what left the window
    assert summary is not None
    ctx = await mem.context("trip", query="train")
    assert ctx.summary == summary and ctx.summary_kind == "digest"
    assert ctx.turn_context is not None and "Hualien" in ctx.turn_context["content"]
    assert ctx.system_prompt and ctx.messages == added[-WINDOW:]
    openai = ctx.to_openai()
    assert openai[-1] == ctx.turn_context and len(openai) == WINDOW + 2
    assert str(openai[1]["content"]).startswith("[2025-04-07 04:")
    assert ctx.to_anthropic()["system"] == ctx.system_prompt


async def test_read_recent_and_message(mem: MemoryAPI) -> None:
    added = await mem.add_many("trip", ITEMS)
    ids = [m.id for m in added]
    assert await mem.read(ids[2], before=1, after=2) == added[1:5]
    assert await mem.read(ids[0]) == added[:2]  # the defaults: 2 before, 1 after
    assert await mem.recent("trip", limit=3) == added[::-1][:3]
    assert await mem.recent("trip", limit=2, before_id=ids[3]) == [added[2], added[1]]
    assert await mem.recent("trip", time_range="1d") == []  # written a year back
    with pytest.raises(NotFound):
        await mem.read(ids[-1] + 1000)
    await bad(mem.read(ids[0], before=99), "before")
    await bad(mem.recent("trip", limit=0), "limit")
    await bad(mem.recent("trip", time_range=cast(Any, "soon")), "time_range")
    message = getattr(mem, "message")  # noqa: B009 (not part of MemoryAPI)
    assert await message(ids[1]) == added[1]
    assert await message(ids[-1] + 1000) is None
    if is_remote(mem):  # the API lists one session at a time
        await bad(mem.recent(None), "session")
    else:
        assert await mem.recent(None, limit=1) == [added[-1]]


async def test_keyword_search(mem: MemoryAPI) -> None:
    added = await mem.add_many("trip", ITEMS)
    await mem.add("other", "user", "The train was late again.", at=AT)
    hits = await mem.search("trip", "train", match="keyword", exclude_window=False)
    assert [h.message for h in hits] == [added[0], added[1]] and \
        {h.source for h in hits} == {"archive"} and all(h.matched for h in hits)
    assert sorted(h.rank or 0 for h in hits) == [1, 2]
    # Quotes and operators are ordinary characters; CJK is found by two characters.
    assert await mem.search("trip", '"train" OR (', match="keyword", limit=1) != []
    assert [h.message for h in await mem.search("trip", "花蓮", match="keyword")] == \
        [added[2]]
    everywhere = await mem.search(None, "train", match="keyword")
    assert {h.message.session for h in everywhere} == {"trip", "other"}
    await bad(mem.search("trip", "x", match=cast(Any, "fuzzy")), "match")
    await bad(mem.search("trip", "x", limit=33), "limit")
    await bad(mem.search("trip", "x", time_range=cast(Any, "soon")), "time_range")
    await bad(mem.search("trip", "bad \udfff"), "query")


async def test_semantic_and_hybrid_search(mem: MemoryAPI) -> None:
    added = await mem.add_many("trip", ITEMS)
    await mem.flush(timeout=60)
    assert await mem.index_backlog() == 0 and await mem.index_backlog("trip") == 0
    assert mem.match_modes() == ["keyword", "semantic", "hybrid"]
    assert mem.embedder is not None
    semantic = await mem.search("trip", "Agreed: the 9:00 train from Taipei.",
                                match="semantic", exclude_window=False, limit=1)
    best = [h for h in semantic if h.matched]
    assert [h.message for h in best] == [added[1]] and best[0].source == "semantic"
    assert [h.message.id for h in semantic] == sorted(h.message.id for h in semantic)
    assert any(not h.matched and h.rank is None for h in semantic)  # the neighbours
    hybrid = await mem.search("trip", "train Taipei", exclude_window=False)
    assert hybrid and all(h.source == "hybrid" for h in hybrid if h.matched)
    # The window is left out by default.
    window = {m.id for m in added[-WINDOW:]}
    assert not {h.message.id for h in await mem.search(
        "trip", "a table for two", match="semantic") if h.matched} & window


async def test_edges(mem: MemoryAPI) -> None:
    assert await mem.summarize("nowhere") is None
    await mem.reset("nowhere")
    await bad(mem.reset("nowhere", mode=cast(Any, "some")), "mode")
    assert await mem.recent("nowhere") == []
    assert await mem.search("nowhere", "train") == []
    assert await mem.remove("nowhere") is False
    assert await mem.forget(10**12) is False
    await bad(mem.add("trip", "user", "from the future", at=AT * 2), "at")
    await bad(mem.add("trip", "user", "x", sender=""), "sender")
    await bad(mem.add("trip", "user", "x", meta=cast(Any, [1])), "meta")
    await bad(mem.add("trip", "user", "x", key=""), "key")
    await bad(mem.add("x" * 129, "user", "x"), "session")
    await bad(mem.search(None, "x", match="semantic", min_score=2), "min_score")
    await bad(mem.errors.search("x", limit=17), "limit")
    await bad(mem.errors.write(tool_name="t", keywords=["k"], symptom="s", action="a",
                               outcome="maybe"), "outcome")
    await bad(mem.recent("trip", before_id=0), "before_id")
    added = await mem.add_many("temp-scratch", ITEMS[:2])
    assert (await mem.context("temp-scratch")).messages == added
    assert await mem.summarize("temp-scratch") is None  # scratch sessions are never summarised
    assert await mem.add_many("trip", []) == []
    hits = await mem.search(None, "Hualien", match="keyword", time_range="1d")
    assert hits == []  # written a year back


# -- sessions -------------------------------------------------------------------------------


async def test_sessions_stats_reset_remove(mem: MemoryAPI) -> None:
    added = await mem.add_many("trip", ITEMS)
    await mem.add("temp-scratch", "user", "not listed")
    assert [(s.id, s.messages, s.first_at, s.last_at, s.has_summary)
            for s in await mem.sessions()] == [("trip", 6, AT, ITEMS[-1]["at"], False)]
    stats = await mem.stats("trip")
    assert (stats.messages, stats.hot_messages, stats.cursor) == (6, 6, None)
    with pytest.raises(NotFound):
        await mem.stats("nowhere")
    await bad(mem.reset("trip", mode=cast(Any, "some")), "mode")
    await mem.reset("trip", mode="summary")  # everything summarised, then deleted
    after = await mem.stats("trip")
    assert (after.messages, after.cursor, after.summary_kind) == (0, added[-1].id, "digest")
    kept = await mem.context("trip")
    assert kept.messages == [] and kept.summary is not None
    await mem.reset("trip", mode="all")
    assert (await mem.context("trip")).summary is None
    await mem.add("trip", "user", "again")
    assert await mem.remove("trip") is True
    assert await mem.remove("trip") is False
    assert [s.id for s in await mem.sessions()] == []


async def test_forget(mem: MemoryAPI) -> None:
    added = await mem.add_many("trip", ITEMS)
    assert await mem.forget(added[0].id) is True
    assert await mem.forget(added[0].id) is False
    assert await mem.search("trip", "Monday", match="keyword") == []
    with pytest.raises(NotFound):
        await mem.read(added[0].id)
    await bad(mem.forget(0), "message_id")


async def test_export_and_import(mem: MemoryAPI) -> None:
    assert [r async for r in mem.export("nowhere")] == []
    await mem.add_many("trip", ITEMS)
    await mem.summarize("trip")
    records = [r async for r in mem.export("trip")]
    assert [r["type"] for r in records] == ["message"] * 6 + ["summary"]
    assert await mem.import_("copy", records) == 6
    assert await mem.import_("copy", records) == 0  # the same records again: nothing new
    assert [m.content for m in await mem.recent("copy")][::-1] == [c for _, c, _ in CHAT]
    with pytest.raises(InvalidInput, match="line 2"):
        await mem.import_("other", [records[0], '{"type": "message"}'])
    history = [{"role": "user", "content": "from the Go runtime", "sendAt": AT,
                "sender": "Mei"}]
    assert await mem.import_history("go", history) == 1
    await bad(mem.import_history("go2", "{}"), "history")
    assert [s.id for s in await mem.sessions()] == ["copy", "go", "trip"] or \
        sorted(s.id for s in await mem.sessions()) == ["copy", "go", "trip"]


async def test_model_facing_tools(mem: MemoryAPI) -> None:
    added = await mem.add_many("trip", ITEMS)
    tools = mem.tools("trip")
    assert [t["function"]["name"] for t in tools.openai()] == \
        ["chat_history", "error_history", "write_error"]
    found = await tools.execute("chat_history", {"mode": "search", "keyword": "Taipei",
                                                 "match": "keyword"})
    assert "Agreed: the 9:00 train from Taipei." in found and f"#{added[1].id}" in found
    listed = await tools.execute("chat_history", {"mode": "list", "limit": 2})
    assert "a table for two" in listed and "Monday" not in listed
    read = await tools.execute("chat_history", {"mode": "read", "id": added[0].id})
    assert "Monday" in read
    assert (await tools.execute("chat_history", {"mode": "search"})).startswith("Error:")
    wrote = await tools.execute("write_error", {
        "tool_name": "web_fetch", "keywords": ["timeout"], "symptom": "timed out",
        "action": "retried with a longer timeout"})
    assert wrote.startswith("Recorded error ")
    assert "longer timeout" in await tools.execute("error_history", {
        "mode": "search", "keyword": "timeout"})
    assert (await tools.execute("write_error", {"tool_name": "x"})).startswith("Error:")
    with pytest.raises(InvalidInput):
        mem.tools("no spaces")


# -- error memory and tenants ---------------------------------------------------------------


async def test_error_memory(mem: MemoryAPI) -> None:
    record = await mem.errors.write(tool_name="web_fetch", keywords=["Timeout", "proxy"],
                                    symptom="timed out behind the proxy",
                                    action="set HTTPS_PROXY")
    assert (record.keywords, record.outcome, len(record.id)) == (("timeout", "proxy"),
                                                                 "resolved", 32)
    assert await mem.errors.read(record.id[:8]) == record
    assert [r.id for r in await mem.errors.search("proxy timeout")] == [record.id]
    assert [r.id for r in await mem.errors.list(tool="web_fetch")] == [record.id]
    assert "set HTTPS_PROXY" in await mem.errors.hint("web_fetch", "request timed out")
    assert await mem.errors.hint("shell", "permission denied") == ""
    await bad(mem.errors.write(tool_name="", keywords=[], symptom="s", action="a"),
              "tool_name")
    await bad(mem.errors.read("zz"), "id")
    assert await mem.errors.delete(record.id) is True
    assert await mem.errors.delete(record.id) is False
    assert await mem.errors.read(record.id) is None


async def test_tenants_see_nothing_of_each_other(opener: Opener) -> None:
    one, two = await opener(fresh()), await opener(fresh())
    assert one.tenant != two.tenant
    added = await one.add_many("trip", ITEMS)
    await one.errors.write(tool_name="shell", keywords=["denied"], symptom="permission denied",
                           action="use sudo")
    await two.add("trip", "user", "another tenant's trip")
    assert [m.content for m in await two.recent("trip")] == ["another tenant's trip"]
    assert await two.search(None, "train Hualien", match="keyword") == []
    assert [s.messages for s in await two.sessions()] == [1]
    # Ids are numbers within a tenant: two's only message is its 1, and one's last is
    # nothing of two's.
    with pytest.raises(NotFound):
        await two.read(added[-1].id)
    assert await two.forget(added[-1].id) is False
    assert await two.errors.list() == [] and await two.errors.search("denied") == []
    assert len(await one.recent("trip")) == 6


async def test_closed(opener: Opener) -> None:
    mem = await opener(fresh())
    await mem.add("trip", "user", "hello")
    await mem.close()
    await mem.close()  # twice is fine
    with pytest.raises(Closed):
        await mem.add("trip", "user", "after closing")
    with pytest.raises(Closed):
        await mem.context("trip")
    with pytest.raises(Closed):
        [r async for r in mem.export("trip")]


def test_a_refused_key_leaves_no_thread(served: tuple[str, str]) -> None:
    url, _ = served
    before = threading.active_count()
    with pytest.raises(Unauthorized):
        SyncMemory.remote(url, "ms_abcdefgh_" + "x" * 40)
    assert threading.active_count() == before


def test_sync_memory_over_each_backend(served: tuple[str, str], tmp_path: Path) -> None:
    url, db = served
    remote = SyncMemory.remote(url, make_key(db, fresh()), settings=SETTINGS)
    local = SyncMemory.open(str(tmp_path / "s.db"), settings=SETTINGS,
                            embedder=HashEmbedder(64))
    for mem in (local, remote):
        with mem:
            added = mem.add_many("trip", ITEMS)
            assert mem.context("trip").messages == added[-WINDOW:]
            assert [h.message for h in mem.search("trip", "Monday", match="keyword")] == \
                [added[0]]
            assert [r["type"] for r in mem.export("trip")] == ["message"] * 6
            rec = mem.errors.write(tool_name="t", keywords=["k"], symptom="s", action="a")
            assert mem.errors.read(rec.id) == rec
            with pytest.raises(InvalidInput):
                mem.add("trip", cast(Any, "robot"), "x")
            assert "Monday" in mem.tools("trip").execute(
                "chat_history", {"mode": "search", "keyword": "Monday"})
