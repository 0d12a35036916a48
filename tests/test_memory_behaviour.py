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
import re
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


# -- bad input: the same error, in the same words, on every backend ------------------------

_ROLE_RULE = "must be one of user, assistant; got {} (system prompts and tool calls are not " \
    "conversation memory)"
_AT_RULE = "must be UTC Unix time in nanoseconds (an integer 0..2^63-1), got {}"
_CONTENT_RULE = "must be text (or a list of content parts), got {}"
_ONE_STRING = "must be a non-empty string of at most 256 characters, or omitted"
_MIN_SCORE_RULE = "must be a number from -1 to 1 (the probability a hit needs; -1 turns the " \
    "floor off) or None; got {}"
_TOOL_RULE = "must be a non-empty string (the tool's name)"


def _record(**fields: Any) -> dict[str, Any]:
    return {"tool_name": "t", "keywords": ["k"], "symptom": "s", "action": "a", **fields}


# (what, the call, the field named, the reason given: exact, or a pattern when it holds a time)
REFUSED: list[tuple[str, Callable[[Any], Awaitable[Any]], str, str | re.Pattern[str]]] = [
    ("session before the rest", lambda m: m.add("a b", "robot", 5), "session",
     "must be 1-128 characters from A-Z a-z 0-9 . _ : @ - (ASCII only: no spaces, no "
     "letters of other scripts); character ' ' (U+0020) at position 1 is not allowed"),
    ("role missing", lambda m: m.add("s", None, "hi"), "role", _ROLE_RULE.format("None")),
    ("content a number", lambda m: m.add("s", "user", 5), "content",
     _CONTENT_RULE.format("int")),
    ("content a dict", lambda m: m.add("s", "user", {"text": "hi"}), "content",
     _CONTENT_RULE.format("dict")),
    ("content part a number", lambda m: m.add("s", "user", [1]), "content[0]",
     "content parts must be strings or objects"),
    ("content too long", lambda m: m.add("s", "user", "x" * 10_001), "content",
     "is 10,001 characters; at most 10,000 are allowed (max_content_chars), nothing is "
     "truncated"),
    ("sender a number", lambda m: m.add("s", "user", "x", sender=5), "sender", _ONE_STRING),
    ("at text", lambda m: m.add("s", "user", "x", at="now"), "at", _AT_RULE.format("'now'")),
    ("at a bool", lambda m: m.add("s", "user", "x", at=True), "at", _AT_RULE.format("True")),
    ("at a fraction", lambda m: m.add("s", "user", "x", at=1.5), "at", _AT_RULE.format("1.5")),
    ("at far ahead", lambda m: m.add("s", "user", "x", at=AT * 2), "at",
     re.compile(r"is [\d,]+ days ahead of the memory's clock; at most 5 minutes into the "
                r"future are allowed \(clock skew; at is UTC Unix nanoseconds\)")),
    ("meta a list", lambda m: m.add("s", "user", "x", meta=[1]), "meta",
     "must be a JSON object (dict), got list"),
    ("key a number", lambda m: m.add("s", "user", "x", key=5), "key", _ONE_STRING),
    ("item not a mapping", lambda m: m.add_many("s", [5]), "items[0]",
     "must be a mapping with role and content"),
    ("item field unknown", lambda m: m.add_many("s", [{"role": "user", "content": "x",
                                                        "to": "Mei"}]),
     "items[0].to", "unknown field; allowed: role, content, sender, at, meta, key"),
    ("item role missing", lambda m: m.add_many("s", [ITEMS[0], {"content": "x"}]),
     "items[1].role", _ROLE_RULE.format("None")),
    ("item content missing", lambda m: m.add_many("s", [{"role": "user"}]),
     "items[0].content", _CONTENT_RULE.format("NoneType")),
    ("item content a number", lambda m: m.add_many("s", [{"role": "user", "content": 3}]),
     "items[0].content", _CONTENT_RULE.format("int")),
    ("item at text", lambda m: m.add_many("s", [{"role": "user", "content": "x", "at": "x"}]),
     "items[0].at", _AT_RULE.format("'x'")),
    ("context query a number", lambda m: m.context("s", query=5), "query",
     "must be the new user input as text, or None"),
    ("search query empty", lambda m: m.search("s", ""), "query", "must be non-empty text"),
    ("search query a number", lambda m: m.search(None, 5), "query", "must be non-empty text"),
    ("search limit text", lambda m: m.search("s", "x", limit="3"), "limit",
     "must be an integer from 1 to 32; got '3'"),
    ("search limit a bool", lambda m: m.search("s", "x", limit=True), "limit",
     "must be an integer from 1 to 32; got True"),
    ("exclude_window text", lambda m: m.search("s", "x", exclude_window="yes"),
     "exclude_window", "must be true or false"),
    ("min_score an integer out of range", lambda m: m.search("s", "x", min_score=5),
     "min_score", _MIN_SCORE_RULE.format("5")),
    ("min_score text", lambda m: m.search("s", "x", min_score="a"), "min_score",
     _MIN_SCORE_RULE.format("'a'")),
    ("before_id negative", lambda m: m.recent("s", before_id=-3), "before_id",
     "must be a positive integer message id, got -3"),
    ("time_range a number", lambda m: m.recent("s", time_range=5), "time_range",
     "must be one of 1d, 7d, 1m, 1y, all; got 5"),
    ("read id text", lambda m: m.read("5"), "message_id",
     "must be a positive integer message id, got '5'"),
    ("record tool a number", lambda m: m.errors.write(**_record(tool_name=5)), "tool_name",
     _TOOL_RULE),
    ("record keywords one string", lambda m: m.errors.write(**_record(keywords="timeout")),
     "keywords", "must be a list of strings, e.g. ['timeout', 'http']"),
    ("record keyword a number", lambda m: m.errors.write(**_record(keywords=[5])),
     "keywords", "must be a list of strings; got 5"),
    ("record action a number", lambda m: m.errors.write(**_record(action=5)), "action",
     "must be a non-empty string"),
    ("record id a number", lambda m: m.errors.read(5), "id",
     "must be a string of 8 to 32 hex characters, got 5"),
    ("hint text a number", lambda m: m.errors.hint("shell", 5), "error_text",
     "must be a string"),
    ("records of a tool on two lines", lambda m: m.errors.list(tool="a\nb"), "tool",
     "must be one line of at most 128 characters, without control characters (NUL, tab, "
     "line breaks …)"),
]


@pytest.mark.parametrize(("call", "field", "reason"), [case[1:] for case in REFUSED],
                         ids=[case[0] for case in REFUSED])
async def test_bad_input_is_refused_in_the_same_words(
        mem: MemoryAPI, call: Callable[[Any], Awaitable[Any]], field: str,
        reason: str | re.Pattern[str]) -> None:
    refused = await bad(call(mem), field)
    if isinstance(reason, str):
        assert refused.reason == reason
    else:
        assert reason.fullmatch(refused.reason), refused.reason
    # Nothing of it was written.
    assert await mem.sessions() == [] and await mem.errors.list() == []


async def test_export_refuses_a_bad_session_id_when_called(mem: MemoryAPI) -> None:
    with pytest.raises(InvalidInput) as info:
        mem.export("a b")  # not iterated: refused at the call
    assert info.value.field == "session"
