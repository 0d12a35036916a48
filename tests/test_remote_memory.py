"""``RemoteMemory`` gives what ``Memory`` gives: the same calls on two fresh databases, one
in-process and one behind a real server on 127.0.0.1, return equal values and raise the same
exceptions."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import make_key, running_server

from memstrata import InvalidInput, Memory, NotFound, Settings, SyncMemory
from memstrata.client import MemoryAPI, RemoteMemory, ServerError, Unauthorized, Unreachable
from memstrata.providers import HashEmbedder

SETTINGS = Settings(summary_cron=None, window_messages=3)
AT = 1_744_000_000 * 10**9
ITEMS = [{"role": "user", "content": f"message {i} about the train to Hualien",
          "sender": "Mei", "at": AT + i * 10**9, "meta": {"n": i}} for i in range(6)]


@pytest.fixture
async def pair(tmp_path: Path) -> AsyncIterator[tuple[Memory, RemoteMemory]]:
    served = str(tmp_path / "served.db")
    key = make_key(served, "acme")
    with running_server(served, settings=SETTINGS, embedder=HashEmbedder(64)) as url:
        async with Memory.open(str(tmp_path / "local.db"), settings=SETTINGS, tenant="acme",
                               embedder=HashEmbedder(64), background=False) as local, \
                RemoteMemory.open(url, key, settings=SETTINGS) as remote:
            yield local, remote


async def both(pair: tuple[Memory, RemoteMemory], call: Any) -> tuple[Any, Any]:
    local, remote = pair
    return await call(local), await call(remote)


async def same(pair: tuple[Memory, RemoteMemory], call: Any) -> Any:
    here, there = await both(pair, call)
    assert there == here
    return here


async def raises_same(pair: tuple[Memory, RemoteMemory], call: Any, *,
                      reason: bool = True) -> BaseException:
    caught: list[BaseException] = []
    for mem in pair:
        with pytest.raises(Exception) as info:
            await call(mem)
        caught.append(info.value)
    here, there = caught
    assert type(there) is type(here), (here, there)
    if isinstance(here, InvalidInput):
        assert isinstance(there, InvalidInput)
        assert there.field == here.field
        assert there.reason == here.reason or not reason
    return here


async def test_values_are_equal(pair: tuple[Memory, RemoteMemory]) -> None:
    local, remote = pair
    assert remote.tenant == "acme"
    assert isinstance(remote.embedder, str)
    added = await same(pair, lambda m: m.add_many("s1", ITEMS))
    assert len(added) == len(ITEMS)
    await same(pair, lambda m: m.add("s1", "assistant", "the 9:00 train, then", at=AT + 10**10,
                                     key="k1"))
    await same(pair, lambda m: m.add("s1", "assistant", "the 9:00 train, then", at=AT,
                                     key="k1"))
    await raises_same(pair, lambda m: m.add("s1", "assistant", "again", at=AT, key="k1"))
    assert (await same(pair, lambda m: m.context("s1"))).unsummarized == len(ITEMS) + 1 - 3
    await same(pair, lambda m: m.read(3, before=1, after=2))
    await same(pair, lambda m: m.recent("s1", limit=4))
    await same(pair, lambda m: m.recent("s1", limit=2, before_id=3))
    await same(pair, lambda m: m.search("s1", "Hualien", match="keyword", limit=2))
    await same(pair, lambda m: m.search(None, "train", match="keyword"))
    for mem in pair:
        await mem.flush()
    await same(pair, lambda m: m.search("s1", "message 2", match="semantic",
                                        exclude_window=False, min_score=-1))
    await same(pair, lambda m: m.stats("s1"))
    await same(pair, lambda m: m.summarize("s1"))
    await same(pair, lambda m: m.context("s1", query="train"))
    records = await same(pair, lambda m: _export(m, "s1"))
    assert records[-1]["type"] == "summary"
    assert await same(pair, lambda m: m.import_("copy", records)) == len(records) - 1
    assert await same(pair, lambda m: m.import_("copy", records)) == 0
    await same(pair, lambda m: m.sessions())
    assert await same(pair, lambda m: m.forget(2)) is True
    assert await same(pair, lambda m: m.forget(2)) is False
    await same(pair, lambda m: m.reset("copy", mode="all"))
    assert await same(pair, lambda m: m.remove("copy")) is True
    assert await same(pair, lambda m: m.remove("copy")) is False
    for mem in pair:
        await mem.flush()
    assert await same(pair, lambda m: m.index_backlog()) == 0
    assert remote.match_modes() == local.match_modes()
    assert await remote.message(1) == await local.message(1)
    assert await remote.message(999) is None


async def _export(mem: MemoryAPI, session: str) -> list[dict[str, Any]]:
    """The records, less the summary's time of writing (each side's own clock)."""
    return [{k: v for k, v in r.items() if k != "created_at"} async for r in mem.export(session)]


async def test_errors_are_the_same_exceptions(pair: tuple[Memory, RemoteMemory]) -> None:
    await same(pair, lambda m: m.add("s1", "user", "hello", at=AT))
    await raises_same(pair, lambda m: m.add("s1", "robot", "hello"))
    await raises_same(pair, lambda m: m.add("no spaces please", "user", "hello"))
    # The server's request schema words a missing field its own way; the field is the same.
    await raises_same(pair, lambda m: m.add_many("s1", [ITEMS[0], {"role": "user"}]),
                      reason=False)
    await raises_same(pair, lambda m: m.search("s1", "x", match="fuzzy"))
    await raises_same(pair, lambda m: m.search("s1", "x", time_range="soon"))
    await raises_same(pair, lambda m: m.read(999))
    await raises_same(pair, lambda m: m.read(1, before=99))
    await raises_same(pair, lambda m: m.stats("nowhere"))
    await raises_same(pair, lambda m: m.reset("s1", mode="some"))
    await raises_same(pair, lambda m: m.import_("s2", ['{"type": "message"}']))
    await raises_same(pair, lambda m: m.import_history("s2", "[{\"role\": \"user\"}]"))
    await raises_same(pair, lambda m: m.errors.write(tool_name="", keywords=[], symptom="s",
                                                     action="a"))
    await raises_same(pair, lambda m: m.errors.read("zz"))
    assert isinstance(await raises_same(pair, lambda m: m.read(12345)), NotFound)


async def test_error_memory(pair: tuple[Memory, RemoteMemory]) -> None:
    sides: tuple[MemoryAPI, MemoryAPI] = pair
    written = await both(pair, lambda m: m.errors.write(
        tool_name="web_fetch", keywords=["timeout"], symptom="timed out behind the proxy",
        action="set HTTPS_PROXY", outcome="resolved"))
    for mem, record in zip(sides, written, strict=True):
        assert await mem.errors.read(record.id[:8]) == record
        assert [r.id for r in await mem.errors.list()] == [record.id]
        assert [r.id for r in await mem.errors.search("proxy timeout")] == [record.id]
        assert "set HTTPS_PROXY" in await mem.errors.hint("web_fetch", "request timed out")
        assert await mem.errors.delete(record.id) is True
        assert await mem.errors.read(record.id) is None
        assert await mem.errors.delete(record.id) is False
    assert await same(pair, lambda m: m.errors.hint("shell", "permission denied")) == ""


async def test_connection_problems(tmp_path: Path) -> None:
    served = str(tmp_path / "served.db")
    make_key(served, "acme")
    with running_server(served) as url, pytest.raises(Unauthorized, match="refused the key"):
        await RemoteMemory.open(url, "ms_abcdefgh_" + "x" * 40)
    with pytest.raises(Unreachable, match="no answer"):
        await RemoteMemory.open(url, "ms_abcdefgh_" + "x" * 40, timeout=2)
    remote = RemoteMemory(url, "k")
    with pytest.raises(InvalidInput, match="not connected"):
        _ = remote.tenant
    await remote.close()


async def test_one_prefix_key_serves_each_end_user_as_a_tenant(tmp_path: Path) -> None:
    served = str(tmp_path / "served.db")
    key = make_key(served, "shop/*")
    with running_server(served, settings=SETTINGS) as url:
        async with RemoteMemory.open(url, key, tenant="shop/alice") as alice, \
                RemoteMemory.open(url, key, tenant="shop/bob") as bob:
            assert (alice.tenant, bob.tenant) == ("shop/alice", "shop/bob")
            stored = await alice.add("cart", "user", "alice wants the red shoes")
            await bob.add("cart", "user", "bob wants a hat")
            assert [m.content for m in await alice.recent("cart")] == [
                "alice wants the red shoes"]
            # Ids are numbers within a tenant: bob's 1 is bob's, and alice's 2 is not his.
            later = await alice.add("cart", "user", "and the blue ones")
            theirs = await bob.message(stored.id)
            assert theirs is not None and theirs.content == "bob wants a hat"
            assert await bob.message(later.id) is None
        blocking = SyncMemory.remote(url, key, tenant="shop/bob")
        try:
            assert [m.content for m in blocking.recent("cart")] == ["bob wants a hat"]
        finally:
            blocking.close()
        with pytest.raises(ServerError, match="X-Memstrata-Tenant") as refused:
            await RemoteMemory.open(url, key)  # a prefix key names no one tenant
        assert refused.value.status == 403
        with pytest.raises(ServerError, match="may not act for tenant 'acme'"):
            await RemoteMemory.open(url, key, tenant="acme")
    with pytest.raises(InvalidInput) as bad:
        RemoteMemory(url, key, tenant="shop/a b")  # refused before any request
    assert bad.value.field == "tenant"
