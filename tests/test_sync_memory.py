"""SyncMemory: the blocking wrapper, against real SQLite files and the async API itself."""

from __future__ import annotations

import ast
import asyncio
import gc
import inspect
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import pytest
from helpers import ManualClock

from memstrata import (
    Closed,
    ErrorMemory,
    InvalidInput,
    Memory,
    Message,
    NotFound,
    Settings,
    SyncErrors,
    SyncMemory,
    SyncTools,
    Tools,
)
from memstrata._sync import call_async
from memstrata.providers import HashEmbedder, Vectors
from memstrata.types import Role

SETTINGS = Settings(embedder=None, summary_cron=None)
TURNS = [
    ("user", "Let's take the train to Hualien on April 14."),
    ("assistant", "Agreed: the morning train to Hualien."),
    ("user", "My sister wants to see Taroko Gorge."),
    ("assistant", "Then book two seats on the train."),
]


def _fill(mem: SyncMemory, session: str = "trip") -> None:
    for role, text in TURNS:
        mem.add(session, cast("Role", role), text, sender="Mei" if role == "user" else "Atlas")


def test_results_equal_the_async_api(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    clock = ManualClock()
    with SyncMemory.open(db, settings=SETTINGS, background=False, clock=clock) as mem:
        _fill(mem)
        mem.errors.write(tool_name="web_fetch", keywords=["timeout"], symptom="timed out",
                         action="retried with a longer timeout")
        seen: dict[str, Any] = {
            "search": mem.search("trip", "train", match="keyword", exclude_window=False),
            "tenant": mem.search(None, "Taroko", exclude_window=False),
            "context": mem.context("trip").to_openai(system="s"),
            "recent": mem.recent("trip", limit=2),
            "read": mem.read(2),
            "sessions": mem.sessions(),
            "stats": mem.stats("trip"),
            "export": mem.export("trip"),
            "errors": mem.errors.search("timeout"),
            "tool": mem.tools("trip").execute("chat_history", {"mode": "search",
                                                               "keyword": "Taroko"}),
        }

    async def the_same_through_memory() -> dict[str, Any]:
        async with Memory.open(db, settings=SETTINGS, background=False, clock=clock) as amem:
            return {
                "search": await amem.search("trip", "train", match="keyword",
                                            exclude_window=False),
                "tenant": await amem.search(None, "Taroko", exclude_window=False),
                "context": (await amem.context("trip")).to_openai(system="s"),
                "recent": await amem.recent("trip", limit=2),
                "read": await amem.read(2),
                "sessions": await amem.sessions(),
                "stats": await amem.stats("trip"),
                "export": [r async for r in amem.export("trip")],
                # the search above renewed the record: compare what is stored now
                "errors": await amem.errors.search("timeout"),
                "tool": await amem.tools("trip").execute(
                    "chat_history", {"mode": "search", "keyword": "Taroko"}),
            }

    expected = asyncio.run(the_same_through_memory())
    assert [h.message.content for h in seen["search"]] == [
        h.message.content for h in expected["search"]]
    assert len(seen["search"]) == 3
    for key in ("tenant", "context", "recent", "read", "sessions", "stats", "export", "tool"):
        assert seen[key] == expected[key], key
    assert [r.id for r in seen["errors"]] == [r.id for r in expected["errors"]]
    assert isinstance(seen["export"], list) and seen["export"][0]["content"] == TURNS[0][1]


def test_wrapped_sub_apis_block_too(tmp_path: Path) -> None:
    with SyncMemory.open(str(tmp_path / "m.db"), settings=SETTINGS, background=False) as mem:
        assert isinstance(mem.errors, SyncErrors)
        tools = mem.tools("trip")
        assert isinstance(tools, SyncTools)
        assert tools.openai()[0]["function"]["name"] == "chat_history"
        record = mem.errors.write(tool_name="shell", keywords=["permission"],
                                  symptom="permission denied", action="ran with sudo")
        assert mem.errors.read(record.id[:8]) == record
        assert "sudo" in tools.execute("error_history", {"mode": "search",
                                                           "keyword": "permission denied"})
        assert mem.tenant == "default" and mem.settings is SETTINGS
        other = mem.sibling("acme")
        assert isinstance(other, SyncMemory)
        other.add("s", "user", "hello from another tenant")
        other.close()  # a sibling's close leaves the shared loop running
        assert mem.sessions() == []
        assert [s.id for s in mem.sibling("acme").sessions()] == ["s"]


def test_eight_threads_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    per_thread = 30
    with SyncMemory.open(str(tmp_path / "m.db"), settings=SETTINGS, background=False) as mem:
        start = threading.Barrier(8)
        failures: list[BaseException] = []

        def write(n: int) -> None:
            try:
                start.wait()
                for i in range(per_thread):
                    mem.add(f"own-{n}", "user", f"thread {n} message {i}")
                    mem.add("shared", "user", f"shared {n}.{i}")
            except BaseException as exc:  # reported below, in the test's own thread
                failures.append(exc)

        threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert failures == []
        for n in range(8):
            texts = [m.content for m in reversed(mem.recent(f"own-{n}", limit=32))]
            assert texts == [f"thread {n} message {i}" for i in range(per_thread)]
        assert mem.stats("shared").messages == 8 * per_thread
        shared = {m["content"] for m in mem.export("shared") if m.get("type") != "summary"}
        assert shared == {f"shared {n}.{i}" for n in range(8) for i in range(per_thread)}


def test_works_inside_a_running_event_loop(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")

    async def main() -> list[str]:
        # A blocking call from a coroutine: it waits on the helper thread's loop, not this one.
        with SyncMemory.open(db, settings=SETTINGS, background=False) as mem:
            _fill(mem)
            await asyncio.sleep(0)  # this loop still runs between the calls
            return [h.message.content for h in mem.search("trip", "Taroko",
                                                          exclude_window=False)]

    assert asyncio.run(main()) == [TURNS[2][1]]


async def test_works_inside_the_test_event_loop(tmp_path: Path) -> None:
    with SyncMemory.open(str(tmp_path / "m.db"), settings=SETTINGS, background=True) as mem:
        mem.add("s", "user", "from a coroutine")
        assert [m.content for m in mem.recent("s")] == ["from a coroutine"]


def test_errors_are_the_async_api_types(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")

    def raised(call: Any) -> type[BaseException]:
        with pytest.raises(Exception) as info:
            call()
        return info.type

    async def raised_async(call: Any) -> type[BaseException]:
        with pytest.raises(Exception) as info:
            await call()
        return info.type

    with SyncMemory.open(db, settings=SETTINGS, background=False) as mem:
        sync_types = [
            raised(lambda: mem.add("s", "robot", "x")),  # type: ignore[arg-type]
            raised(lambda: mem.read(999)),
            raised(lambda: mem.stats("missing")),
            raised(lambda: mem.search("s", "x", match="semantic")),
            raised(lambda: mem.errors.read("zz")),
        ]

    async def async_types() -> list[type[BaseException]]:
        async with Memory.open(db, settings=SETTINGS, background=False) as amem:
            return [
                await raised_async(lambda: amem.add("s", "robot", "x")),  # type: ignore[arg-type]
                await raised_async(lambda: amem.read(999)),
                await raised_async(lambda: amem.stats("missing")),
                await raised_async(lambda: amem.search("s", "x", match="semantic")),
                await raised_async(lambda: amem.errors.read("zz")),
            ]

    assert sync_types == asyncio.run(async_types())
    assert sync_types[:3] == [InvalidInput, NotFound, NotFound]
    with pytest.raises(InvalidInput):  # refused before any thread is left behind
        SyncMemory.open(db, tenant="bad tenant!", settings=SETTINGS)


class _StallingEmbedder:
    """Never finishes an embedding: a provider that hangs (signals when it was reached)."""

    model_id = "stall"
    dim = 8

    def __init__(self) -> None:
        self.reached = threading.Event()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.reached.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


def _helper_threads() -> int:
    return sum(t.name == "memstrata-sync" and t.is_alive() for t in threading.enumerate())


def test_close_is_bounded_and_releases_waiting_callers(tmp_path: Path) -> None:
    before = _helper_threads()
    embedder = _StallingEmbedder()
    mem = SyncMemory.open(str(tmp_path / "m.db"), settings=SETTINGS, background=True,
                          embedder=embedder)
    mem.add("s", "user", "to be embedded, never")
    outcome: list[BaseException | None] = []

    def flush() -> None:
        try:
            mem.flush()
            outcome.append(None)
        except BaseException as exc:  # reported below
            outcome.append(exc)

    waiter = threading.Thread(target=flush)
    waiter.start()
    assert embedder.reached.wait(60)
    closer = threading.Thread(target=mem.close, kwargs={"timeout": 0.2})
    closer.start()
    closer.join(60)  # a guard against a hang, not a measurement
    assert not closer.is_alive()
    waiter.join(60)
    assert not waiter.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], Closed)
    assert _helper_threads() == before
    with pytest.raises(Closed):
        mem.add("s", "user", "after close")
    mem.close()  # twice is fine


class _ReentrantEmbedder:
    """An embedder that calls back into the SyncMemory it serves (it runs on that memory's
    own loop, where a blocking call could only wait on itself)."""

    model_id = "reentrant"
    dim = 8

    def __init__(self) -> None:
        self.mem: SyncMemory | None = None
        self.refused: list[BaseException] = []

    async def embed(self, texts: Sequence[str]) -> Vectors:
        assert self.mem is not None
        try:
            self.mem.sessions()
        except RuntimeError as exc:
            self.refused.append(exc)
        return await HashEmbedder(self.dim).embed(texts)


def test_a_call_from_its_own_loop_is_refused_not_deadlocked(tmp_path: Path) -> None:
    embedder = _ReentrantEmbedder()
    with SyncMemory.open(str(tmp_path / "m.db"), settings=SETTINGS, background=False,
                         embedder=embedder) as mem:
        embedder.mem = mem
        mem.add("s", "user", "hello")
        mem.flush(timeout=60)
        assert embedder.refused and "own event loop" in str(embedder.refused[0])
        assert mem.index_backlog() == 0


def test_one_left_open_is_closed_when_collected(tmp_path: Path) -> None:
    before = _helper_threads()
    mem = SyncMemory.open(str(tmp_path / "m.db"), settings=SETTINGS, background=True)
    errors = mem.errors  # keeps the memory (and its loop) alive while it is used
    del mem
    gc.collect()
    assert errors.list() == []
    del errors
    gc.collect()
    assert _helper_threads() == before
    with SyncMemory.open(str(tmp_path / "m.db"), settings=SETTINGS) as again:
        assert again.check() == []


async def test_call_async_awaits_from_another_loop(tmp_path: Path) -> None:
    with SyncMemory.open(str(tmp_path / "m.db"), settings=SETTINGS, background=False) as mem:
        added = await call_async(mem, "add", "s", "user", "awaited")
        assert isinstance(added, Message) and added.content == "awaited"
        assert await call_async(mem, "export", "s") == mem.export("s")
        with pytest.raises(NotFound):
            await call_async(mem, "read", 12345)
        assert await call_async(mem.errors, "list") == []


def test_semantic_search_through_the_wrapper(tmp_path: Path) -> None:
    with SyncMemory.open(str(tmp_path / "m.db"), settings=SETTINGS, background=True,
                         embedder=HashEmbedder()) as mem:
        _fill(mem)
        mem.flush(timeout=60)
        assert mem.index_backlog() == 0
        assert mem.match_modes() == ["keyword", "semantic", "hybrid"]
        hits = mem.search("trip", "Taroko Gorge", match="hybrid", exclude_window=False)
        assert TURNS[2][1] in [h.message.content for h in hits if h.matched]


# -- the declared signatures follow the async ones --------------------------------------------

_SYNC_OF = {"Memory": "SyncMemory", "ErrorMemory": "SyncErrors", "Tools": "SyncTools"}
# Results that the wrapper turns into something else (everything else is returned as is).
_RETURNS = {"AsyncIterator[dict[str, Any]]": "list[dict[str, Any]]", "Memory": "SyncMemory",
            "Tools": "SyncTools"}


def _declared(path: Path, cls: str) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods written in class ``cls`` of ``path``, including those under an ``if``."""
    (node,) = [n for n in ast.walk(ast.parse(path.read_text())) if
               isinstance(n, ast.ClassDef) and n.name == cls]
    body = list(node.body)
    for stmt in node.body:
        if isinstance(stmt, ast.If):  # the declarations under ``if TYPE_CHECKING:``
            body.extend(stmt.body)
    return {f.name: f for f in body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}


@pytest.mark.parametrize("async_cls", [Memory, ErrorMemory, Tools])
def test_declared_signatures_match_the_async_api(async_cls: type) -> None:
    sync_name = _SYNC_OF[async_cls.__name__]
    wrapper = _declared(Path(inspect.getfile(SyncMemory)), sync_name)
    original = _declared(Path(inspect.getfile(async_cls)), async_cls.__name__)
    public = {n for n, f in original.items()
              if not n.startswith("_") and n != "open"
              and not any(isinstance(d, ast.Name) and d.id in ("property", "staticmethod")
                          for d in f.decorator_list)}
    assert public <= set(wrapper), f"{sync_name} does not declare {public - set(wrapper)}"
    for name in public:
        ours, theirs = wrapper[name], original[name]
        assert ast.unparse(ours.args) == ast.unparse(theirs.args), name
        returns = ast.unparse(theirs.returns) if theirs.returns else "None"
        assert (ast.unparse(ours.returns) if ours.returns else "None") == \
            _RETURNS.get(returns, returns), name
    if async_cls is Memory:  # open takes exactly Memory.open's arguments
        assert ast.unparse(wrapper["open"].args) == ast.unparse(original["open"].args)
