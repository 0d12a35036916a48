"""Every framework adapter over a real ``memstrata serve``: given a ``RemoteMemory`` (or a
``SyncMemory`` of one), it stores and reads what it does over a local file, and two API keys of
two tenants see nothing of each other through it. ``tenant=`` cannot override a key."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from agents import TResponseInputItem
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.storage.chat_store.base_db import MessageStatus
from serve_process import serve_process
from server_helpers import make_key

from memstrata import InvalidInput, Settings, SyncMemory
from memstrata.adapters.langchain import MemstrataChatMessageHistory, MemstrataRetriever
from memstrata.adapters.llamaindex import MemstrataChatStore
from memstrata.adapters.openai_agents import MemstrataSession
from memstrata.client import RemoteMemory

SETTINGS = Settings(summary_cron=None, embedder=None)
ITEMS = [cast(TResponseInputItem, item) for item in (
    {"role": "user", "content": "What is the weather in Hualien?"},
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
     "arguments": json.dumps({"city": "花蓮"}, ensure_ascii=False), "status": "completed"},
    # Larger than one message: stored as a run of messages in one request.
    {"type": "function_call_output", "call_id": "call_1",
     "output": "sunny, 24 °C, light wind 花蓮\n" * 2_000},
    {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
     "content": [{"type": "output_text", "text": "Sunny in Hualien.", "annotations": []}]},
)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """A ``memstrata serve`` process and one key for each of two tenants: (url, key a, key b)."""
    db = str(tmp_path_factory.mktemp("adapters") / "served.db")
    with serve_process(db, {"MEMSTRATA_EMBEDDER": "none"}) as url:
        yield url, make_key(db, "tenant-a"), make_key(db, "tenant-b")


@pytest.fixture
async def remotes(server: tuple[str, str, str]
                  ) -> AsyncIterator[tuple[RemoteMemory, RemoteMemory]]:
    url, key_a, key_b = server
    async with RemoteMemory.open(url, key_a, settings=SETTINGS) as a, \
            RemoteMemory.open(url, key_b, settings=SETTINGS) as b:
        yield a, b


async def test_agents_session(remotes: tuple[RemoteMemory, RemoteMemory]) -> None:
    a, b = remotes
    mine, theirs = MemstrataSession("agent", memory=a), MemstrataSession("agent", memory=b)
    await mine.add_items(ITEMS)
    assert await mine.get_items() == ITEMS
    assert await mine.get_items(limit=1) == ITEMS[-1:]
    assert await theirs.get_items() == []
    assert await b.sessions() == []
    # The items are memstrata messages of tenant a, readable and searchable as any.
    assert [h.message.content for h in await a.search("agent", "Hualien", match="keyword",
                                                      exclude_window=False)][:1] == \
        ["What is the weather in Hualien?"]
    await theirs.add_items(ITEMS[:1])
    assert await theirs.pop_item() == ITEMS[0]
    assert await mine.pop_item() == ITEMS[-1]
    assert await mine.get_items() == ITEMS[:-1]
    await theirs.clear_session()  # tenant b's session: a's stays
    assert len(await mine.get_items()) == 3
    await mine.clear_session()
    assert await a.sessions() == []
    mine.close()
    assert a.tenant == "tenant-a" and await a.sessions() == []  # shared: left open


async def test_a_record_past_the_request_limit_is_refused_whole(
        remotes: tuple[RemoteMemory, RemoteMemory]) -> None:
    a, _ = remotes
    session = MemstrataSession("big", memory=a)
    huge = cast(TResponseInputItem, {"type": "function_call_output", "call_id": "c",
                                     "output": "x" * (1 << 20)})
    with pytest.raises(InvalidInput) as info:
        await session.add_items([ITEMS[0], huge])
    assert info.value.field == "request" and "1,048,576 bytes" in str(info.value)
    assert await session.get_items() == []


async def test_agents_session_over_a_sync_memory(server: tuple[str, str, str]) -> None:
    url, key_a, key_b = server
    a = await asyncio.to_thread(SyncMemory.remote, url, key_a, settings=SETTINGS)
    b = await asyncio.to_thread(SyncMemory.remote, url, key_b, settings=SETTINGS)
    try:
        mine, theirs = MemstrataSession("sync", memory=a), MemstrataSession("sync", memory=b)
        await mine.add_items(ITEMS[:2])
        assert await mine.get_items() == ITEMS[:2]
        assert await theirs.get_items() == []
        await mine.clear_session()
    finally:
        await asyncio.to_thread(a.close)
        await asyncio.to_thread(b.close)


async def test_langchain_history_and_retriever(
        remotes: tuple[RemoteMemory, RemoteMemory]) -> None:
    a, b = remotes
    mine = MemstrataChatMessageHistory("chat", memory=a)
    theirs = MemstrataChatMessageHistory("chat", memory=b)
    said = [HumanMessage("Book the night train to Taitung."),
            AIMessage("Booked: the night train, berth 12."),
            ToolMessage("ok", tool_call_id="c1")]
    await mine.aadd_messages(said)
    assert [(m.type, m.content) for m in await mine.aget_messages()] == \
        [(m.type, m.content) for m in said]
    assert await theirs.aget_messages() == []
    # The blocking methods reach the shared memory on its loop from another thread.
    assert [m.content for m in await asyncio.to_thread(lambda: mine.messages)] == \
        [m.content for m in said]

    everywhere_a = MemstrataRetriever(memory=a, k=2)
    everywhere_b = MemstrataRetriever(memory=b, k=2, match="keyword")
    docs = await everywhere_a.ainvoke("night train")
    assert [d.page_content for d in docs] == ["Booked: the night train, berth 12.",
                                              "Book the night train to Taitung."]
    assert {d.metadata["session"] for d in docs} == {"chat"}
    assert await everywhere_b.ainvoke("night train") == []
    one_session = MemstrataRetriever(memory=a, session="chat", k=1, match="keyword")
    (doc,) = await asyncio.to_thread(one_session.invoke, "berth")
    assert doc.page_content == "Booked: the night train, berth 12."

    await theirs.aclear()
    assert len(await mine.aget_messages()) == 3
    await mine.aclear()
    assert await mine.aget_messages() == []


async def test_llamaindex_store(remotes: tuple[RemoteMemory, RemoteMemory]) -> None:
    a, b = remotes
    mine, theirs = MemstrataChatStore(memory=a), MemstrataChatStore(memory=b)
    messages = [ChatMessage(role=MessageRole.USER, content="Which platform for Hualien?"),
                ChatMessage(role=MessageRole.ASSISTANT, content="Platform 3, 花蓮.")]
    await mine.add_messages("trip", messages)
    assert await mine.get_messages("trip") == messages
    assert await mine.get_keys() == ["trip"]
    assert await theirs.get_keys() == [] and await theirs.get_messages("trip") == []
    assert [m.content for m in await mine.archive_oldest_messages("trip", 1)] == \
        ["Which platform for Hualien?"]
    assert await mine.get_messages("trip") == messages[1:]
    assert await mine.count_messages("trip", MessageStatus.ARCHIVED) == 1
    await theirs.delete_messages("trip")
    assert await mine.count_messages("trip", None) == 2
    await mine.delete_messages("trip")
    assert await mine.get_keys() == []


async def test_tenant_is_the_keys(remotes: tuple[RemoteMemory, RemoteMemory]) -> None:
    a, _ = remotes
    for build in (lambda: MemstrataSession("s", memory=a, tenant="tenant-b"),
                  lambda: MemstrataChatStore(memory=a, tenant="tenant-b")):
        with pytest.raises(InvalidInput, match="tenant-a") as info:
            build()
        assert info.value.field == "tenant"
    # Naming the key's own tenant is allowed, and so is leaving it out.
    MemstrataSession("s", memory=a, tenant="tenant-a").close()
    MemstrataChatStore(memory=a, tenant="tenant-a").close()


def test_anything_but_a_memory_is_refused(tmp_path: Path) -> None:
    for thing in (object(), "memory.db", RemoteMemory):
        with pytest.raises(TypeError, match="memory= takes an open memstrata memory"):
            MemstrataChatMessageHistory("s", memory=cast(Any, thing))
        with pytest.raises(TypeError, match="memory= takes an open memstrata memory"):
            MemstrataRetriever(memory=cast(Any, thing))
        with pytest.raises(TypeError, match="memory= takes an open memstrata memory"):
            MemstrataSession("s", memory=cast(Any, thing))
    assert not list(tmp_path.iterdir())
