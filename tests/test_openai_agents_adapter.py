"""MemstrataSession as the OpenAI Agents SDK uses it: items of every kind and size come back
exactly, their text is memstrata's to search, and an agent run with the SDK's scripted model
keeps its history across turns (the SDK's own session tests run in CI as well)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest
from agents import Agent, Runner, TResponseInputItem, function_tool
from agents.memory import Session
from agents.testing import ScriptedModel
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from memstrata import Closed, InvalidInput, Memory, Settings
from memstrata.adapters.openai_agents import MemstrataSession

_NO_MODEL = Settings(embedder=None)


@pytest.fixture
async def mem(tmp_path: Path) -> AsyncIterator[Memory]:
    async with Memory.open(str(tmp_path / "m.db"), settings=_NO_MODEL,
                           background=False) as m:
        yield m


def _items(*raw: dict[str, Any]) -> list[TResponseInputItem]:
    return [cast(TResponseInputItem, r) for r in raw]


BIG_OUTPUT = "weather report line 42: sunny\n" * 3_000 + "末尾 🎉 \"quoted\" \\ end"
EVERY_KIND = _items(
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [{"type": "input_text", "text": "What is the weather?"},
                                 {"type": "input_image", "detail": "auto",
                                  "image_url": "data:image/png;base64," + "A" * 120_000}]},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text",
                                                     "text": "Call the weather tool."}],
     "encrypted_content": "E" * 70_000},
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
     "arguments": json.dumps({"city": "花蓮"}, ensure_ascii=False), "status": "completed"},
    {"type": "function_call_output", "call_id": "call_1", "output": BIG_OUTPUT},
    {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
     "content": [{"type": "output_text", "text": "Sunny in 花蓮.", "annotations": []}]},
)


def test_satisfies_the_session_protocol_and_opens_nothing(tmp_path: Path) -> None:
    target = tmp_path / "never.db"
    session = MemstrataSession("s1", str(target))
    assert isinstance(session, Session)
    assert session.session_settings is not None and session.session_settings.limit is None
    assert not target.exists()  # built synchronously, opened on first use
    session.close()


def test_refuses_a_session_id_memstrata_cannot_store() -> None:
    with pytest.raises(InvalidInput, match="session_id"):
        MemstrataSession("has space")


async def test_every_kind_and_size_of_item_comes_back_exactly(tmp_path: Path) -> None:
    db = str(tmp_path / "agents.db")
    first = MemstrataSession("trip", db, settings=_NO_MODEL)
    await first.add_items(EVERY_KIND[:3])
    await first.add_items(EVERY_KIND[3:])
    first.close()

    again = MemstrataSession("trip", db, settings=_NO_MODEL)
    got = await again.get_items()
    # Exactly, key order included: the SDK may send them back to the model as they are.
    assert [json.dumps(i) for i in got] == [json.dumps(i) for i in EVERY_KIND]
    assert await again.get_items(limit=2) == EVERY_KIND[-2:]
    assert await again.get_items(limit=100) == EVERY_KIND
    assert await again.get_items(limit=0) == []
    again.close()


@pytest.mark.parametrize("output", ["🎉" * 40_000, '"\\' * 40_000, "\x00\x1f\n" * 20_000])
async def test_json_pieces_fit_whatever_the_characters(mem: Memory, output: str) -> None:
    # Astral characters cost 4 bytes in meta, quotes and backslashes are escaped twice.
    session = MemstrataSession("s", memory=mem)
    item = _items({"type": "function_call_output", "call_id": "c", "output": output})
    await session.add_items(item)
    assert await session.get_items() == item


async def test_item_text_is_searchable_and_in_the_window(mem: Memory) -> None:
    session = MemstrataSession("trip", memory=mem)
    await session.add_items(EVERY_KIND)

    hits = await mem.search("trip", "sunny", match="keyword", exclude_window=False)
    assert any("weather report line 42" in h.message.content for h in hits)
    hits = await mem.search("trip", "get_weather", match="keyword", exclude_window=False)
    assert any(h.message.content.startswith("get_weather(") for h in hits)
    hits = await mem.search("trip", "What is the weather", match="keyword",
                            exclude_window=False)
    assert any(h.message.content.startswith("What is the weather?\n[image]") for h in hits)
    ctx = await mem.context("trip")
    contents = [str(m.get("content")) for m in ctx.to_openai()]
    assert any("Sunny in 花蓮." in c for c in contents)
    # The image's bytes and the encrypted reasoning are kept, not shown as text.
    assert not any("AAAA" in c or "EEEE" in c for c in contents)
    session.close()  # a shared memory stays open
    assert await mem.sessions()


async def test_limits_pop_and_clear(mem: Memory) -> None:
    session = MemstrataSession("s", memory=mem, session_settings={"limit": 2})
    assert await session.pop_item() is None
    await session.add_items(EVERY_KIND)
    assert await session.get_items() == EVERY_KIND[-2:]  # session_settings.limit
    assert await session.get_items(limit=3) == EVERY_KIND[-3:]
    assert await session.get_items(limit=-1) == EVERY_KIND
    assert await session.pop_item() == EVERY_KIND[-1]
    assert await session.pop_item() == EVERY_KIND[-2]  # a record of several messages
    assert await session.get_items(limit=10) == EVERY_KIND[:-2]
    await session.clear_session()
    assert await session.get_items() == []
    assert await mem.recent("s") == []


async def test_concurrent_pops_each_take_a_different_item(mem: Memory) -> None:
    one = MemstrataSession("s", memory=mem)
    two = MemstrataSession("s", memory=mem)
    items = _items(*({"role": "user", "content": f"message {i}"} for i in range(12)))
    await one.add_items(items)
    popped = await asyncio.gather(*(s.pop_item() for s in (one, two) for _ in range(6)))
    assert sorted(json.dumps(p) for p in popped) == sorted(json.dumps(i) for i in items)
    assert await one.get_items() == []


async def test_a_record_missing_a_part_is_not_read(mem: Memory) -> None:
    session = MemstrataSession("s", memory=mem)
    await session.add_items(EVERY_KIND[3:5])
    parts = await mem.recent("s", limit=32)
    assert len(parts) > 2  # the tool output took several messages
    await mem.forget(parts[1].id)  # a part in the middle of the tool output
    assert await session.get_items() == EVERY_KIND[3:4]


async def test_messages_written_by_others_read_as_easy_input(mem: Memory) -> None:
    await mem.add("s", "user", "written without the SDK")
    session = MemstrataSession("s", memory=mem)
    await session.add_items(EVERY_KIND[-1:])
    assert await session.get_items() == [{"role": "user", "content": "written without the SDK"},
                                         EVERY_KIND[-1]]


async def test_closed_session_refuses_calls() -> None:
    session = MemstrataSession("s", settings=_NO_MODEL)
    await session.add_items(EVERY_KIND[:1])
    session.close()
    with pytest.raises(Closed):
        await session.get_items()


def _text(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg", type="message", role="assistant",
                                 status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text,
                                                             annotations=[])])


def _run_sync(agent: Agent[Any], text: str, session: MemstrataSession) -> Any:
    loop = asyncio.new_event_loop()  # what a script's main thread would have
    asyncio.set_event_loop(loop)
    try:
        return Runner.run_sync(agent, text, session=session)
    finally:
        asyncio.set_event_loop(None)
        loop.close()


@function_tool
def station_log(day: str) -> str:
    """The station's log of one day."""
    return f"log of {day}: " + "trains on time. " * 2_000


async def test_an_agent_run_keeps_its_turns_including_a_large_tool_output(tmp_path: Path) -> None:
    model = ScriptedModel([
        [ResponseFunctionToolCall(type="function_call", id="fc", call_id="call_9",
                                  name="station_log", arguments='{"day": "Monday"}')],
        [_text("The trains were on time on Monday.")],
        [_text("You asked about Monday.")],
    ])
    agent = Agent(name="clerk", model=model, tools=[station_log])
    session = MemstrataSession("clerk", str(tmp_path / "runs.db"), settings=_NO_MODEL)

    await Runner.run(agent, "How were the trains on Monday?", session=session)
    # run_sync makes an event loop of its own; the session works from any loop.
    result = await asyncio.to_thread(_run_sync, agent, "What did I ask?", session)
    assert result.final_output == "You asked about Monday."

    history = await session.get_items()
    kinds = [i.get("type", "message") for i in cast(list[dict[str, Any]], history)]
    assert kinds == ["message", "function_call", "function_call_output", "message",
                     "message", "message"]
    output = cast(dict[str, Any], history[2])["output"]
    assert output.startswith("log of Monday: ") and len(output) > 30_000
    # The second model call was sent the whole first turn, from the session.
    sent = json.dumps(model.calls[-1].input)
    assert "call_9" in sent and "How were the trains on Monday?" in sent
    session.close()
