"""MemstrataSession as the OpenAI Agents SDK uses it: items of every kind and size come back
exactly, their text is memstrata's to search, and an agent run with the SDK's scripted model
keeps its history across turns (the SDK's own session tests run in CI as well)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from agents import (
    Agent,
    MessageOutputItem,
    RunConfig,
    Runner,
    TResponseInputItem,
    function_tool,
    handoff,
)
from agents.memory import OpenAIResponsesCompactionSession, Session, SQLiteSession
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


def _damaged(text: str, part: int = 0, parts: int = 1) -> dict[str, Any]:
    """A message carrying the session's tag over JSON that does not parse, as a program that
    wrote the meta by hand, or a damaged import, could leave."""
    return {"role": "assistant", "content": text,
            "meta": {"openai_agents": {"p": part, "n": parts, "j": "not valid json {{{"}}}


async def test_pop_drops_damaged_records_newer_than_the_item(mem: Memory) -> None:
    session = MemstrataSession("s", memory=mem)
    older = _items({"role": "user", "content": "older"}, {"role": "user", "content": "valid"})
    await session.add_items(older)
    await mem.add_many("s", [_damaged("unreadable"), _damaged("orphan part", part=1, parts=2)])
    assert await session.pop_item() == older[1]
    assert [m.content for m in await mem.recent("s")] == ["older"]  # the damage is gone
    assert await session.get_items() == older[:1]


async def test_pop_of_only_damaged_records_is_none_and_drops_them(mem: Memory) -> None:
    session = MemstrataSession("s", memory=mem)
    await mem.add_many("s", [_damaged("first part", parts=2), _damaged("unreadable")])
    assert await session.pop_item() is None
    assert await mem.recent("s") == [] and await session.get_items() == []


async def test_a_limited_read_skips_damaged_newest_records(mem: Memory) -> None:
    session = MemstrataSession("s", memory=mem, session_settings={"limit": 1})
    older = _items({"role": "user", "content": "older"}, {"role": "user", "content": "valid"})
    await session.add_items(older)
    await mem.add_many("s", [_damaged("unreadable"), _damaged("orphan part", part=1, parts=2)])
    assert await session.get_items() == older[1:]  # session_settings.limit
    assert await session.get_items(limit=2) == older


@pytest.mark.parametrize("write", ["add", "pop", "clear"])
async def test_a_cancelled_write_finishes_then_the_cancellation_propagates(
        mem: Memory, write: str) -> None:
    session = MemstrataSession("s", memory=mem)
    kept = _items({"role": "user", "content": "kept"}, {"role": "user", "content": "last"})
    await session.add_items(kept)
    calls = {"add": lambda: session.add_items(EVERY_KIND[3:5]), "pop": session.pop_item,
             "clear": session.clear_session}
    running = asyncio.ensure_future(calls[write]())
    await asyncio.sleep(0)
    running.cancel()  # lands while the write is under way: it completes all the same
    with pytest.raises(asyncio.CancelledError):
        await running
    expected = {"add": [*kept, *EVERY_KIND[3:5]], "pop": kept[:1], "clear": []}[write]
    assert await session.get_items() == expected


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
    # As the SDK's own sessions do: a RuntimeError naming the session's class, and an empty
    # add is refused too rather than passing as a no-op.
    with pytest.raises(RuntimeError, match=r"^MemstrataSession is closed \(session 's'\)$"):
        await session.add_items([])
    for call in (session.pop_item(), session.clear_session()):
        with pytest.raises(RuntimeError, match="MemstrataSession is closed"):
            await call


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


# -- compaction: the SDK's OpenAIResponsesCompactionSession over MemstrataSession -----------

class _Compactor:
    """The ``responses.compact`` end of an OpenAI client: records what it is sent and answers
    with one summary message (no network)."""

    def __init__(self) -> None:
        self.inputs: list[list[dict[str, Any]]] = []
        self.responses = self

    async def compact(self, **kwargs: Any) -> SimpleNamespace:
        self.inputs.append(kwargs["input"])
        return SimpleNamespace(output=[{"role": "assistant", "content": "summary so far"}],
                               usage=None)


async def _compacted_history(backend: Session) -> tuple[list[Any], list[Any]]:
    """One run over ``backend`` (reads limited to its newest item) in a compaction session
    that always compacts: what was sent to ``responses.compact``, and the history after."""
    compactor = _Compactor()
    session = OpenAIResponsesCompactionSession(
        "limited", backend, client=cast(Any, compactor), compaction_mode="input",
        should_trigger_compaction=lambda _: True)
    await session.add_items(_items({"role": "user", "content": "hidden by the read limit"},
                                   {"role": "user", "content": "visible tail"}))
    agent = Agent(name="a", model=ScriptedModel([[_text("ok")]]))
    await Runner.run(agent, "question", session=session,
                     run_config=RunConfig(tracing_disabled=True))
    return compactor.inputs, await backend.get_items(limit=100)


async def test_compaction_replaces_the_visible_suffix_as_over_the_sdks_sqlite(
        mem: Memory) -> None:
    # With reads limited to the newest item, compaction needs a bounded snapshot of the
    # session to replace the part the model saw and keep the older items.
    reference = SQLiteSession("limited", session_settings={"limit": 1})
    try:
        expected = await _compacted_history(reference)
    finally:
        reference.close()
    ours = await _compacted_history(
        MemstrataSession("limited", memory=mem, session_settings={"limit": 1}))
    assert ours == expected
    sent, history = ours
    assert len(sent) == 1 and "hidden" not in json.dumps(sent)
    assert history == [{"role": "user", "content": "hidden by the read limit"},
                       {"role": "assistant", "content": "summary so far"}]


async def test_snapshot_replacement_refuses_a_changed_session(mem: Memory) -> None:
    session = MemstrataSession("s", memory=mem)
    await session.add_items(EVERY_KIND[:4])
    snapshot = await session._get_compaction_snapshot(2)
    assert snapshot is not None and snapshot.items == EVERY_KIND[2:4] and not snapshot.complete
    whole = await session._get_compaction_snapshot(4)
    assert whole is not None and whole.complete
    await MemstrataSession("s", memory=mem).add_items(EVERY_KIND[4:5])  # another writer
    assert not await snapshot.replace_suffix(0, _items({"role": "user", "content": "x"}))
    assert await session.get_items() == EVERY_KIND[:5]


async def test_snapshot_replacement_finishes_when_cancelled_and_prunes_the_prefix(
        tmp_path: Path) -> None:
    session = MemstrataSession("s", str(tmp_path / "a.db"), settings=_NO_MODEL)
    old = _items(*({"role": "user", "content": f"expired {i}"} for i in range(3)),
                 {"role": "user", "content": "kept"})
    await session.add_items([*old, *EVERY_KIND[3:5]])
    snapshot = await session._get_compaction_snapshot(
        2, prune_prefix=lambda item: "expired" in str(item))
    assert snapshot is not None
    compacted = _items({"role": "assistant", "content": "summary so far"})
    replacing = asyncio.ensure_future(snapshot.replace_suffix(0, compacted))
    await asyncio.sleep(0)
    replacing.cancel()  # lands in the middle: the replacement still completes, whole
    with pytest.raises(asyncio.CancelledError):
        await replacing
    assert await session.get_items() == [old[-1], *compacted]
    session.close()


async def test_a_subclass_that_changes_items_gets_no_snapshot(mem: Memory) -> None:
    class Redacting(MemstrataSession):
        async def add_items(self, items: list[TResponseInputItem]) -> None:
            await super().add_items([{"role": "user", "content": "[redacted]"} for _ in items])

    assert await Redacting("s", memory=mem)._get_compaction_snapshot(5) is None


async def test_a_run_cancelled_while_compaction_replaces_history_resumes(
        tmp_path: Path) -> None:
    # The run is cancelled while the compacted items wait to replace the history (another
    # connection holds the database's write lock): the replacement completes whole, and the
    # run resumes from its state without repeating the handoff or the compaction.
    db = tmp_path / "handoff.db"
    compacted = _items({"role": "assistant", "content": "compacted history"})
    compact_calls: list[Any] = []
    compacting = asyncio.Event()
    blocker = sqlite3.connect(db, isolation_level=None, check_same_thread=False)

    async def compact(**kwargs: Any) -> SimpleNamespace:
        compact_calls.append(kwargs["input"])
        blocker.execute("BEGIN IMMEDIATE")  # the replacement's write waits for this
        compacting.set()
        return SimpleNamespace(output=compacted, usage=None)

    backend = MemstrataSession("handoff", str(db), settings=_NO_MODEL)
    session = OpenAIResponsesCompactionSession(
        "handoff", backend,
        client=cast(Any, SimpleNamespace(responses=SimpleNamespace(compact=compact))),
        compaction_mode="input",
        should_trigger_compaction=lambda context: context["response_id"] == "resp-handoff")
    handoffs: list[str] = []
    model = ScriptedModel([
        {"output": [_text("delegating"),
                    ResponseFunctionToolCall(type="function_call", id="fc", call_id="h-1",
                                             name="transfer_to_delegate", arguments="{}")],
         "response_id": "resp-handoff"},
        {"output": [_text("done")], "response_id": "resp-delegate"},
    ])
    delegate = Agent(name="delegate", model=model)
    triage = Agent(name="triage", model=model, handoffs=[
        handoff(delegate, on_handoff=lambda _: handoffs.append("handoff"),
                input_filter=lambda data: data.clone(new_items=tuple(
                    i for i in data.new_items if isinstance(i, MessageOutputItem))))])
    config = RunConfig(tracing_disabled=True)

    result = Runner.run_streamed(triage, "hello", session=session, run_config=config)

    async def drain() -> None:
        async for _ in result.stream_events():
            pass

    consumer = asyncio.ensure_future(drain())
    try:
        await asyncio.wait_for(compacting.wait(), timeout=30)
        await asyncio.sleep(0.2)  # the replacement is now waiting for the write lock
        result.cancel()
        blocker.execute("COMMIT")
        await asyncio.wait_for(consumer, timeout=30)
        assert await session.get_items() == compacted
        assert len(model.calls) == 1 and len(compact_calls) == 1

        resumed = await Runner.run(triage, result.to_state(), session=session,
                                   run_config=config)
        assert resumed.final_output == "done"
        assert len(model.calls) == 2 and len(compact_calls) == 1 and handoffs == ["handoff"]
        assert await session.get_items() == [*compacted, resumed.new_items[-1].to_input_item()]
    finally:
        if blocker.in_transaction:
            blocker.execute("ROLLBACK")
        blocker.close()
        result.cancel()
        await asyncio.gather(consumer, return_exceptions=True)
        backend.close()
