"""The Memory facade on real SQLite files: writes, context, search, lifecycle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import T0, ManualClock

from memstrata import Closed, InvalidInput, Memory, NotFound, Settings
from memstrata._context import SYSTEM_PROMPT


async def test_add_returns_committed_message(mem: Memory, db_path: str) -> None:
    m = await mem.add("s1", "user", "hello there", sender="Ann", meta={"k": 1})
    assert m.id > 0 and m.session == "s1" and m.at == T0 and m.meta == {"k": 1}
    # Visible from a second, independent connection at once.
    async with Memory.open(db_path, settings=mem.settings, background=False) as other:
        (seen,) = (await other.context("s1")).messages
        assert seen == m


async def test_add_many_is_atomic(mem: Memory) -> None:
    with pytest.raises(InvalidInput) as err:
        await mem.add_many("s1", [{"role": "user", "content": "ok"},
                                  {"role": "robot", "content": "bad"}])
    assert err.value.field == "items[1].role"
    assert (await mem.context("s1")).messages == []
    ms = await mem.add_many("s1", [{"role": "user", "content": "a"},
                                   {"role": "assistant", "content": "b"}])
    assert [m.id for m in ms] == sorted(m.id for m in ms)


async def test_idempotency_key(mem: Memory) -> None:
    a = await mem.add("s", "user", "pay invoice 7", key="req-1")
    b = await mem.add("s", "user", "pay invoice 7", key="req-1")
    assert a == b and (await mem.stats("s")).messages == 1


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"role": "system"}, "role"),
    ({"role": "tool"}, "role"),
    ({"content": "x" * 10_001}, "content"),
    ({"content": "   "}, "content"),
    ({"content": 5}, "content"),
    ({"session": "bad id!"}, "session"),
    ({"session": ""}, "session"),
    ({"session": "x" * 129}, "session"),
    ({"meta": [1, 2]}, "meta"),
    ({"meta": {"x": float("nan")}}, "meta"),
    ({"at": -1}, "at"),
    ({"at": "yesterday"}, "at"),
    ({"sender": ""}, "sender"),
])
async def test_bad_input_names_field_and_writes_nothing(mem: Memory, kwargs: dict[str, object],
                                                        field: str) -> None:
    args: dict[str, object] = {"session": "s1", "role": "user", "content": "fine"} | kwargs
    with pytest.raises(InvalidInput) as err:
        await mem.add(args.pop("session"), args.pop("role"), args.pop("content"),  # type: ignore[arg-type]
                      **args)  # type: ignore[arg-type]
    assert err.value.field == field
    assert isinstance(err.value, ValueError)
    assert await mem.sessions() == []


async def test_oversize_limit_is_configurable(db_path: str) -> None:
    settings = Settings(embedder=None, max_content_chars=20)
    async with Memory.open(db_path, settings=settings, background=False) as mem:
        with pytest.raises(InvalidInput, match="at most 20"):
            await mem.add("s", "user", "x" * 21)


async def test_multimodal_content_is_stored_as_text(mem: Memory) -> None:
    m = await mem.add("s", "user", [{"type": "text", "text": "look"},
                                    {"type": "image_url", "image_url": {"url": "x"}}])
    assert m.content == "look"


async def test_context_window_and_headers(db_path: str, clock: ManualClock) -> None:
    settings = Settings(embedder=None, window_messages=4, timezone="Asia/Taipei")
    async with Memory.open(db_path, settings=settings, background=False, clock=clock) as mem:
        for i in range(6):
            await mem.add("s", "user" if i % 2 == 0 else "assistant", f"m{i}",
                          sender="Ann" if i % 2 == 0 else None)
        ctx = await mem.context("s")
        assert [m.content for m in ctx.messages] == ["m2", "m3", "m4", "m5"]
        assert ctx.summary is None and ctx.system_prompt == "" and ctx.turn_context is None
        wire = ctx.to_openai(system="You are helpful.")
        assert wire[0] == {"role": "system", "content": "You are helpful."}
        # T0 is 2026-05-28 20:26 UTC, i.e. 2026-05-29 04:26 in Taipei.
        assert wire[1]["content"] == "[2026-05-29 04:26 · Ann]\nm2"
        assert str(wire[2]["content"]).startswith("[2026-05-29 04:26 · assistant]\n")
        anthropic = ctx.to_anthropic()
        assert anthropic["system"] == "" and len(anthropic["messages"]) == 4


async def test_digest_summary_reaches_the_context(db_path: str, clock: ManualClock) -> None:
    settings = Settings(embedder=None, window_messages=2)
    async with Memory.open(db_path, settings=settings, background=False, clock=clock) as mem:
        for i in range(5):
            await mem.add("s", "user" if i % 2 == 0 else "assistant", f"point {i}")
        body = await mem.summarize("s")
        assert body is not None and "point 0" in body["text"] and "point 2" in body["text"]
        assert "point 3" not in body["text"]  # still in the window
        stats = await mem.stats("s")
        assert stats.summary_kind == "digest" and stats.cursor is not None
        ctx = await mem.context("s")
        assert ctx.system_prompt == SYSTEM_PROMPT
        assert ctx.turn_context is not None and "automatic digest" in ctx.turn_context["content"]
        wire = ctx.to_openai("sys")
        assert str(wire[0]["content"]).startswith("sys\n\n## Prior Conversation Context")
        assert wire[-1] == ctx.turn_context
        # Nothing new: the summary is returned unchanged.
        assert await mem.summarize("s") == body


async def test_keyword_search(mem: Memory) -> None:
    await mem.add_many("s", [
        {"role": "user", "content": "Let's use PostgreSQL for the analytics database"},
        {"role": "assistant", "content": "好的，我們用 PostgreSQL 當分析資料庫"},
        {"role": "user", "content": "And cache the dashboards for an hour"},
    ])
    await mem.add("other", "user", "database of another conversation")
    hits = await mem.search("s", "database")
    assert [h.message.content[:9] for h in hits] == ["Let's use"]
    assert hits[0].rank == 1 and hits[0].matched and hits[0].source in ("archive", "recent")
    assert [h.message.session for h in await mem.search(None, "database")] == ["s", "other"]
    zh = await mem.search("s", "資料")
    assert len(zh) == 1 and "資料庫" in zh[0].message.content
    for q in ['"', "NEAR AND (", "NEAR(x y)", "caches*"]:  # "AND (" alone: stop words
        await mem.search("s", q)
    assert await mem.search("s", "nonexistentword") == []
    both = await mem.search("s", "postgresql", limit=2)
    assert [h.message.id for h in both] == sorted(h.message.id for h in both)
    assert sorted(h.rank or 0 for h in both) == [1, 2]


async def test_search_validation(mem: Memory) -> None:
    for kwargs, field in [({"match": "semantic"}, "match"), ({"match": "fuzzy"}, "match"),
                          ({"time_range": "2w"}, "time_range"), ({"limit": 33}, "limit"),
                          ({"limit": 0}, "limit")]:
        with pytest.raises(InvalidInput) as err:
            await mem.search("s", "x", **kwargs)  # type: ignore[arg-type]
        assert err.value.field == field
    with pytest.raises(InvalidInput):
        await mem.search("s", "  ")


async def test_time_range_filters_on_message_time(mem: Memory, clock: ManualClock) -> None:
    day = 86_400 * 10**9
    await mem.add("s", "user", "budget review old", at=T0 - 40 * day)
    await mem.add("s", "user", "budget review recent", at=T0 - 2 * day)
    assert len(await mem.search("s", "budget", time_range="all")) == 2
    assert len(await mem.search("s", "budget", time_range="7d")) == 1
    assert len(await mem.search("s", "budget", time_range="1d")) == 0
    assert len(await mem.recent("s", time_range="1m")) == 1


async def test_compaction_keeps_archive(db_path: str) -> None:
    settings = Settings(embedder=None, max_history_bytes=2000)
    async with Memory.open(db_path, settings=settings, background=False) as mem:
        for i in range(40):
            await mem.add("s", "user" if i % 2 == 0 else "assistant", f"{i:03d} " + "w" * 96)
        stats = await mem.stats("s")
        assert stats.messages == 40 and stats.hot_bytes <= 2000 and stats.cutoff > 0
        assert stats.hot_messages < 40
        # The archive still finds the oldest message; the hot tier no longer holds it.
        hits = await mem.search("s", "000")
        assert [h.message.content[:3] for h in hits] == ["000"]
        assert hits[0].source == "archive"


async def test_sessions_stats_reset_remove(mem: Memory, clock: ManualClock) -> None:
    await mem.add("a", "user", "first")
    clock.advance(60)
    await mem.add("b", "user", "second")
    await mem.add("temp-x", "user", "scratch")
    assert [s.id for s in await mem.sessions()] == ["b", "a"]
    await mem.reset("a", mode="summary")
    a = await mem.stats("a")
    assert a.messages == 0 and a.summary_kind == "digest"
    assert "first" in json.dumps((await mem.context("a")).summary)
    await mem.reset("b", mode="all")
    assert (await mem.context("b")).summary is None and (await mem.stats("b")).messages == 0
    with pytest.raises(InvalidInput):
        await mem.reset("a", mode="everything")  # type: ignore[arg-type]
    assert await mem.remove("a") and not await mem.remove("a")
    with pytest.raises(NotFound):
        await mem.stats("a")
    m = await mem.add("b", "user", "again")
    assert await mem.forget(m.id) and not await mem.forget(m.id)


async def test_temp_sessions_hidden_never_summarised_and_purged(mem: Memory,
                                                                clock: ManualClock) -> None:
    await mem.add("temp-scratch", "user", "throwaway")
    assert await mem.summarize("temp-scratch") is None
    assert await mem.sessions() == []
    clock.advance(29 * 60)
    assert await mem.sweep() == []
    clock.advance(2 * 60)
    assert await mem.sweep() == ["temp-scratch"]
    assert (await mem.context("temp-scratch")).messages == []
    assert await mem.search("temp-scratch", "throwaway") == []


async def test_export_import_round_trip(db_path: str) -> None:
    settings = Settings(embedder=None, window_messages=2)
    async with Memory.open(db_path, settings=settings, background=False) as mem:
        await _round_trip(mem)


async def _round_trip(mem: Memory) -> None:
    await mem.add_many("s", [{"role": "user", "content": f"line {i}", "sender": "Bo"}
                             for i in range(5)])
    await mem.summarize("s")
    records = [r async for r in mem.export("s")]
    assert records[-1]["type"] == "summary" and len(records) == 6
    lines = [json.dumps(r) for r in records]
    assert await mem.import_("copy", lines) == 5
    copied = [r async for r in mem.export("copy")]
    assert [r["content"] for r in copied[:-1]] == [r["content"] for r in records[:-1]]
    assert copied[-1]["body"] == records[-1]["body"]
    # The cursor was mapped onto the new ids.
    assert copied[-1]["cursor"] in {r["id"] for r in copied[:-1]}


async def test_import_is_all_or_nothing_with_line_numbers(mem: Memory) -> None:
    good = json.dumps({"type": "message", "role": "user", "content": "ok"})
    for bad, where in [("{not json", "line 2"),
                       (json.dumps({"type": "message", "role": "bot", "content": "x"}),
                        "line 2: role"),
                       (json.dumps({"type": "note"}), "line 2: type")]:
        with pytest.raises(InvalidInput) as err:
            await mem.import_("s", [good, bad, good])
        assert err.value.field == where
    assert await mem.sessions() == []


async def test_import_seed_history_array(mem: Memory) -> None:
    history = [
        {"role": "system", "content": "You are a bot", "sendAt": 0},
        {"role": "user", "content": "嗨，記得我的預算嗎？", "sendAt": T0, "sender": "小明"},
        {"role": "assistant", "content": "記得，三萬元。", "sendAt": T0 + 10**9, "sender": ""},
    ]
    assert await mem.import_history("s", json.dumps(history)) == 2
    ctx = await mem.context("s")
    assert [m.sender for m in ctx.messages] == ["小明", None]
    assert (await mem.search("s", "預算"))[0].message.content.startswith("嗨")
    with pytest.raises(InvalidInput) as err:
        await mem.import_history("t", [{"role": "user", "content": "ok"},
                                       {"role": "user", "content": ""}])
    assert err.value.field == "history[1].content"


async def test_open_forms_and_close(tmp_path: Path) -> None:
    settings = Settings(embedder=None)
    path = tmp_path / "u.db"
    mem = await Memory.open(f"sqlite:///{path}", settings=settings, background=True)
    await mem.add("s", "user", "x")
    await mem.close()
    await mem.close()
    with pytest.raises(Closed):
        await mem.add("s", "user", "y")
    async with Memory.open(str(path), settings=settings) as again:
        assert len((await again.context("s")).messages) == 1
        assert await again.check() == []
    with pytest.raises(InvalidInput):
        Memory.open("mysql://x/y")  # postgresql:// is a backend; this scheme is not
    with pytest.raises(InvalidInput):
        Memory.open(":memory:", tenant="bad tenant")


async def test_memory_database_is_shared(clock: ManualClock) -> None:
    async with Memory.open(":memory:", settings=Settings(embedder=None), clock=clock) as mem:
        await mem.add("s", "user", "in memory")
        assert len(await mem.search("s", "memory")) == 1


async def test_tenants_are_isolated(db_path: str) -> None:
    settings = Settings(embedder=None)
    async with Memory.open(db_path, settings=settings, tenant="acme") as a, \
            Memory.open(db_path, settings=settings, tenant="globex") as b:
        m = await a.add("s", "user", "secret plan")
        await a.add("s", "user", "second secret")
        await b.add("s", "user", "public plan")
        assert [h.message.content for h in await b.search(None, "plan")] == ["public plan"]
        # Ids are numbers within a tenant: globex's id 2 names nothing of acme's.
        assert await b.message(m.id + 1) is None
        assert not await b.forget(m.id + 1)
        with pytest.raises(NotFound):
            await b.read(m.id + 1)
        mine = await b.message(m.id)
        assert mine is not None and mine.content == "public plan"
        assert [x.content for x in await a.recent("s")] == ["second secret", "secret plan"]
