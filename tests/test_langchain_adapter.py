"""The LangChain adapter: the chat message history under RunnableWithMessageHistory, and the
retriever, on real SQLite files.

The RunnableWithMessageHistory cases follow the scenarios langchain-core tests its own
in-memory history with (messages in, a dict with an input key, a separate history key, a
message / a list / a dict out, a custom session factory, async and streaming runs), here with
memstrata's history swapped in and langchain-core's fake chat models standing in for an LLM.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from blockbuster import BlockingError, blockbuster_ctx
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_core.runnables.utils import ConfigurableFieldSpec

from memstrata import InvalidInput, Memory, Settings, SyncMemory
from memstrata.adapters.langchain import MemstrataChatMessageHistory, MemstrataRetriever
from memstrata.providers import HashEmbedder

# RunnableWithMessageHistory still works in langchain-core 1.x but announces its deprecation
# (in favour of LangGraph persistence) each time one is built.
pytestmark = pytest.mark.filterwarnings(
    "ignore:RunnableWithMessageHistory is deprecated:DeprecationWarning")

SETTINGS = Settings(embedder=None, summary_cron=None)


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "memory.db")


@pytest.fixture
def histories(db: str) -> Iterator[Callable[..., MemstrataChatMessageHistory]]:
    """A session factory for RunnableWithMessageHistory, closing what it made afterwards."""
    made: list[MemstrataChatMessageHistory] = []

    def get_session_history(session_id: str, **_: Any) -> MemstrataChatMessageHistory:
        history = MemstrataChatMessageHistory(session_id, db, settings=SETTINGS)
        made.append(history)
        return history

    yield get_session_history
    for history in made:
        history.close()


def _humans(messages: list[BaseMessage]) -> str:
    return "you said: " + "\n".join(str(m.content) for m in messages
                                    if isinstance(m, HumanMessage))


# -- messages in and out ---------------------------------------------------------------------

ALL_KINDS: list[BaseMessage] = [
    SystemMessage("Answer in one sentence."),
    HumanMessage("What's the weather in Paris?", name="Mei"),
    AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Paris"}, "id": "c1"}]),
    ToolMessage("sunny, 24 °C", tool_call_id="c1"),
    AIMessage("Sunny and 24 °C.", id="reply-1", response_metadata={"model": "m"}),
    HumanMessage([{"type": "text", "text": "And "}, {"type": "text", "text": "tomorrow?"}]),
    ChatMessage(content="a custom role", role="critic"),
]


def test_every_message_kind_round_trips(db: str) -> None:
    history = MemstrataChatMessageHistory("s1", db, settings=SETTINGS)
    history.add_messages(ALL_KINDS)
    assert history.messages == ALL_KINDS
    assert asyncio.run(history.aget_messages()) == ALL_KINDS
    history.close()
    # What memstrata itself holds: a conversation of user and assistant messages with text.
    with SyncMemory.open(db, settings=SETTINGS) as mem:
        stored = mem.recent("s1", limit=10)[::-1]
    assert [m.role for m in stored] == ["user", "user", "assistant", "assistant", "assistant",
                                        "user", "user"]
    assert stored[1].sender == "Mei"
    assert stored[2].content == 'called weather({"city": "Paris"})'
    assert stored[5].content == "And tomorrow?"
    assert stored[1].meta is None  # a plain human message needs no meta
    assert stored[0].meta == {"langchain": {"type": "system"}}


def test_messages_written_by_memstrata_read_as_human_and_ai(db: str) -> None:
    with SyncMemory.open(db, settings=SETTINGS) as mem:
        mem.add("s1", "user", "hello", sender="Mei")
        mem.add("s1", "assistant", "hi Mei")
        history = MemstrataChatMessageHistory("s1", memory=mem)
        assert history.messages == [HumanMessage("hello", name="Mei"), AIMessage("hi Mei")]
        history.add_user_message("how are you?")
        history.add_ai_message("fine")
        assert [m.content for m in mem.recent("s1")] == ["fine", "how are you?", "hi Mei",
                                                         "hello"]
        history.clear()
        assert history.messages == [] and mem.sessions() == []


def test_opens_lazily_and_refuses_bad_ids(db: str) -> None:
    history = MemstrataChatMessageHistory("s1", db, settings=SETTINGS)
    assert not Path(db).exists()
    assert history.messages == []
    assert Path(db).exists()
    history.close()
    with pytest.raises(InvalidInput, match="session_id"):
        MemstrataChatMessageHistory("not a valid id!", db)
    history = MemstrataChatMessageHistory("s1", db, settings=SETTINGS)
    with pytest.raises(InvalidInput, match=r"items\[1\]\.meta"):  # a batch is all or nothing
        history.add_messages([HumanMessage("kept?"),
                              ToolMessage("ok", tool_call_id="c", artifact=object())])
    assert history.messages == []
    history.close()


async def test_async_methods_share_an_open_memory(db: str) -> None:
    async with Memory.open(db, settings=SETTINGS) as mem:
        history = MemstrataChatMessageHistory("s1", memory=mem)
        await history.aadd_messages([HumanMessage("hello"), AIMessage("hi")])
        assert await history.aget_messages() == [HumanMessage("hello"), AIMessage("hi")]
        # A blocking call on the Memory's own loop would wait on itself: refused.
        with pytest.raises(RuntimeError, match="async methods"):
            _ = history.messages
        # From another thread, the blocking methods reach the Memory on its loop.
        assert await asyncio.to_thread(lambda: history.messages) == [HumanMessage("hello"),
                                                                     AIMessage("hi")]
        await history.aclear()
        assert await mem.sessions() == []


async def test_async_methods_never_block_the_running_loop(db: str) -> None:
    # blockbuster raises on any blocking call (file I/O, SQLite, waiting on a lock) made on
    # this loop's thread by code of the adapters: from the first use, which creates and
    # migrates the file, through writing, reading, searching and clearing.
    with blockbuster_ctx("memstrata.adapters"):
        history = MemstrataChatMessageHistory("s1", db, settings=SETTINGS)
        retriever = MemstrataRetriever(db, session="s1", settings=SETTINGS)
        await history.aadd_messages([HumanMessage("the train to Hualien"), AIMessage("ok")])
        assert await history.aget_messages() == [HumanMessage("the train to Hualien"),
                                                 AIMessage("ok")]
        (doc,) = await retriever.ainvoke("Hualien")
        assert doc.page_content == "the train to Hualien"
        await history.aclear()
        assert await history.aget_messages() == []
        # The detector is live: the blocking property, called here, is caught. It is caught
        # when it waits; the memory's own thread may answer first (this thread put off past
        # the hand-over, on a busy machine), and then nothing waited: asked again.
        caught = False
        for _ in range(50):
            try:
                _ = history.messages
            except BlockingError:
                caught = True
                break
        assert caught, "the blocking property never waited on this loop's thread"
    history.close()
    retriever.close()


def test_threads_share_one_lazily_opened_memory(db: str) -> None:
    history = MemstrataChatMessageHistory("s1", db, settings=SETTINGS)
    start = threading.Barrier(4)

    def write(n: int) -> None:
        start.wait()
        for i in range(10):
            history.add_messages([HumanMessage(f"{n}.{i}")])

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(str(m.content) for m in history.messages) == sorted(
        f"{n}.{i}" for n in range(4) for i in range(10))
    history.close()


# -- RunnableWithMessageHistory --------------------------------------------------------------

def test_messages_in(histories: Callable[..., MemstrataChatMessageHistory]) -> None:
    chain = RunnableWithMessageHistory(RunnableLambda(_humans), histories)
    config: RunnableConfig = {"configurable": {"session_id": "a"}}
    assert chain.invoke([HumanMessage("hello")], config) == "you said: hello"
    assert chain.invoke([HumanMessage("good bye")], config) == "you said: hello\ngood bye"
    assert histories("a").messages == [HumanMessage("hello"), AIMessage("you said: hello"),
                                       HumanMessage("good bye"),
                                       AIMessage("you said: hello\ngood bye")]


def test_dict_in_with_messages_key(histories: Callable[..., MemstrataChatMessageHistory]
                                   ) -> None:
    def echo(d: dict[str, Any]) -> str:
        return _humans(d["messages"])

    chain = RunnableWithMessageHistory(RunnableLambda(echo), histories,
                                       input_messages_key="messages")
    config: RunnableConfig = {"configurable": {"session_id": "b"}}
    assert chain.invoke({"messages": [HumanMessage("hello")]}, config) == "you said: hello"
    assert chain.invoke({"messages": [HumanMessage("good bye")]},
                        config) == "you said: hello\ngood bye"


def _echo_with_history(d: dict[str, Any]) -> str:
    return _humans([*d["history"], HumanMessage(d["input"])])


@pytest.mark.parametrize("shape", ["text", "message", "list", "dict"])
def test_history_key_and_output_shapes(
        histories: Callable[..., MemstrataChatMessageHistory], shape: str) -> None:
    def reply(d: dict[str, Any]) -> Any:
        text = _echo_with_history(d)
        return {"text": text, "message": AIMessage(text), "list": [AIMessage(text)],
                "dict": {"output": [AIMessage(text)]}}[shape]

    chain = RunnableWithMessageHistory(
        RunnableLambda(reply), histories, input_messages_key="input",
        history_messages_key="history",
        output_messages_key="output" if shape == "dict" else None)
    config: RunnableConfig = {"configurable": {"session_id": f"shape-{shape}"}}
    chain.invoke({"input": "hello"}, config)
    out = chain.invoke({"input": "good bye"}, config)
    expected = AIMessage("you said: hello\ngood bye")
    assert out == {"text": expected.content, "message": expected, "list": [expected],
                   "dict": {"output": [expected]}}[shape]
    assert histories(f"shape-{shape}").messages[-1] == expected


def test_custom_session_factory(db: str) -> None:
    made: list[MemstrataChatMessageHistory] = []

    def by_user(user_id: str, conversation_id: str) -> MemstrataChatMessageHistory:
        made.append(MemstrataChatMessageHistory(f"{user_id}.{conversation_id}", db,
                                                settings=SETTINGS))
        return made[-1]

    def echo(d: dict[str, Any]) -> list[BaseMessage]:
        return [AIMessage(_humans(d["messages"]))]

    chain = RunnableWithMessageHistory(
        RunnableLambda(echo), by_user,
        input_messages_key="messages", history_messages_key="history",
        history_factory_config=[
            ConfigurableFieldSpec(id="user_id", annotation=str, default="", is_shared=True),
            ConfigurableFieldSpec(id="conversation_id", annotation=str, default=None,
                                  is_shared=True)])
    for user, text in [("u1", "hello"), ("u1", "goodbye"), ("u2", "meow")]:
        config: RunnableConfig = {"configurable": {"user_id": user, "conversation_id": "1"}}
        assert chain.invoke({"messages": [HumanMessage(text)]}, config) == [
            AIMessage(f"you said: {text}")]
    with SyncMemory.open(db, settings=SETTINGS) as mem:
        assert sorted(s.id for s in mem.sessions()) == ["u1.1", "u2.1"]
        assert mem.stats("u1.1").messages == 4
    for history in made:
        history.close()


def _prompted(model: Any) -> Any:
    prompt = ChatPromptTemplate.from_messages([
        ("system", "You are terse."), MessagesPlaceholder("history"), ("human", "{question}")])
    return prompt | model


async def test_async_run_with_a_fake_chat_model(
        histories: Callable[..., MemstrataChatMessageHistory]) -> None:
    model = FakeListChatModel(responses=["Paris.", "About 2.1 million."])
    chain = RunnableWithMessageHistory(_prompted(model), histories,
                                       input_messages_key="question",
                                       history_messages_key="history")
    config: RunnableConfig = {"configurable": {"session_id": "geo"}}
    first = await chain.ainvoke({"question": "Capital of France?"}, config)
    second = await chain.ainvoke({"question": "Its population?"}, config)
    assert (first.content, second.content) == ("Paris.", "About 2.1 million.")
    stored = await histories("geo").aget_messages()
    assert [(m.type, m.content) for m in stored] == [
        ("human", "Capital of France?"), ("ai", "Paris."),
        ("human", "Its population?"), ("ai", "About 2.1 million.")]


def test_streamed_reply_is_stored_whole(
        histories: Callable[..., MemstrataChatMessageHistory]) -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage("The train leaves at nine.")]))
    chain = RunnableWithMessageHistory(_prompted(model), histories,
                                       input_messages_key="question",
                                       history_messages_key="history")
    config: RunnableConfig = {"configurable": {"session_id": "trip"}}
    chunks = [c.content for c in chain.stream({"question": "When?"}, config)]
    assert len(chunks) > 1 and "".join(str(c) for c in chunks) == "The train leaves at nine."
    assert [str(m.content) for m in histories("trip").messages] == [
        "When?", "The train leaves at nine."]


# -- the retriever ---------------------------------------------------------------------------

TRIP = ["We take the train to Hualien.", "Which day?", "April 14, the morning train.",
        "Book two seats.", "Done, car 5.", "My sister wants to see Taroko Gorge.",
        "Then we need a day in Taroko.", "The hotel is near the station.",
        "Breakfast is included.", "Return train on April 17."]


def _fill(mem: SyncMemory) -> None:
    mem.add_many("trip", [{"role": ("user", "assistant")[i % 2], "content": text}
                          for i, text in enumerate(TRIP)])
    mem.add_many("work", [{"role": "user", "content": "The train to the office was late."}])


def test_exactly_k_best_first_with_metadata(db: str) -> None:
    with SyncMemory.open(db, settings=SETTINGS) as mem:
        _fill(mem)
        retriever = MemstrataRetriever(memory=mem, session="trip", k=2)
        docs = retriever.invoke("train")
        assert len(docs) == 2 and all(isinstance(d, Document) for d in docs)
        assert [d.metadata["rank"] for d in docs] == [1, 2]
        first = docs[0]
        message = mem.message(int(first.id or 0))
        assert message is not None and message.content == first.page_content
        assert first.metadata["session"] == "trip"
        assert first.metadata["time"].endswith("+00:00")
        assert first.metadata["score"] > 0 and first.metadata["neighbours"] == []
        assert len(retriever.invoke("train", k=3)) == 3  # k per call
        assert len(retriever.invoke("train", k=5)) == 3  # only three match
        assert retriever.invoke("submarine") == []
        everywhere = MemstrataRetriever(memory=mem, k=5).invoke("train")
        assert {d.metadata["session"] for d in everywhere} == {"trip", "work"}
        assert asyncio.run(retriever.ainvoke("train")) == docs


def test_neighbours_go_into_metadata(db: str) -> None:
    with SyncMemory.open(db, settings=SETTINGS, embedder=HashEmbedder()) as mem:
        _fill(mem)
        mem.flush(timeout=60)
        retriever = MemstrataRetriever(memory=mem, session="trip", k=1, match="hybrid")
        (doc,) = retriever.invoke("sister Taroko Gorge")
        assert doc.page_content == "My sister wants to see Taroko Gorge."
        around = [n["content"] for n in doc.metadata["neighbours"]]
        assert around == ["Book two seats.", "Done, car 5.", "Then we need a day in Taroko."]
        # never as documents of their own: k matched messages, and only those
        docs = retriever.invoke("sister Taroko Gorge", k=3)
        assert len(docs) <= 3 and all(d.metadata["rank"] is not None for d in docs)


async def test_retriever_on_a_shared_async_memory(db: str) -> None:
    async with Memory.open(db, settings=SETTINGS) as mem:
        await mem.add("trip", "user", "We take the train to Hualien.")
        retriever = MemstrataRetriever(memory=mem, session="trip")
        (doc,) = await retriever.ainvoke("Hualien")
        assert doc.metadata["rank"] == 1
        assert await asyncio.to_thread(retriever.invoke, "Hualien") == [doc]


def test_retriever_opens_lazily(db: str) -> None:
    with SyncMemory.open(db, settings=SETTINGS) as mem:
        _fill(mem)
    retriever = MemstrataRetriever(db, session="trip", k=3, settings=SETTINGS)
    assert len(retriever.invoke("train")) == 3
    retriever.close()
    with pytest.raises(InvalidInput):
        MemstrataRetriever(db, session="bad id!")
