"""pytest plugin: langchain-core's own ``RunnableWithMessageHistory`` tests, run against
``MemstrataChatMessageHistory``.

Loaded with ``-p langchain_history_swap`` (this directory on ``sys.path``) by ``.ci/run``,
which unpacks ``tests/unit_tests/runnables/test_history.py`` (and the test package around it)
from langchain-core's source distribution. Before any test module is imported,
``langchain_core.chat_history.InMemoryChatMessageHistory`` becomes a subclass of
``MemstrataChatMessageHistory`` with ``InMemoryChatMessageHistory``'s constructor: each
instance is its own SQLite file with its own session, pre-filled (through ``add_messages``)
with the ``messages=`` it was given. The summary says how many tests really built one; none at
all fails the run (the swap would have silently tested the in-memory history).

The tests compare histories with ``==`` (``store == {"1": InMemoryChatMessageHistory(
messages=[...])}``): the in-memory history is a pydantic model, equal to another when their
messages are. The swapped class keeps that meaning, reading both sides back from their files.

langchain-core's own conftest stays in force: its ``blockbuster`` fixture fails a test when
langchain-core's code, on the running event loop, reaches a blocking call, so the adapter's
async methods (``aget_messages``, ``aadd_messages``) are checked for never blocking the loop.
Only the tests are unpacked: a ``langchain_core`` package beside them would be imported instead
of the installed one, and the plugin refuses to run then.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import langchain_core
import langchain_core.chat_history
import pytest
from known_failures import mark_known_failures
from langchain_core.messages import BaseMessage

from memstrata import Settings
from memstrata.adapters.langchain import MemstrataChatMessageHistory

_built = 0
_tests_built: set[str] = set()
_tests_run: set[str] = set()
_open: list[MemstrataChatMessageHistory] = []
_dir = Path(tempfile.mkdtemp(prefix="memstrata-lc-history-"))

# Every test of test_history.py passes against the swapped history, test_interfaces (the
# history's own add_message and str) included; a test that fails in a later version is
# listed here with its reason, and is then expected (strictly) to keep failing.
KNOWN_FAILURES: dict[str, str] = {}


class SwappedInMemoryChatMessageHistory(MemstrataChatMessageHistory):
    """``MemstrataChatMessageHistory`` built with ``InMemoryChatMessageHistory``'s arguments."""

    def __init__(self, messages: Sequence[BaseMessage] | None = None) -> None:
        global _built
        _built += 1
        # Only a path: the file is created (and migrated) on first use, off the event loop
        # when that use is async, as for any user of the adapter.
        db = _dir / f"history-{_built}.db"
        # No embedder: these tests check the history protocol, and loading the local
        # embedding model for every history would only make them slow.
        super().__init__(f"lc-{uuid.uuid4().hex}", str(db), settings=Settings(embedder=None))
        _open.append(self)
        if messages:
            self.add_messages(messages)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SwappedInMemoryChatMessageHistory):
            return NotImplemented
        return self.messages == other.messages

    __hash__ = None  # type: ignore[assignment]


_module = langchain_core.chat_history
_module.InMemoryChatMessageHistory = SwappedInMemoryChatMessageHistory  # type: ignore[misc,assignment]


def pytest_configure(config: pytest.Config) -> None:
    # The tests must exercise the installed langchain-core (the one memstrata runs with),
    # not a copy of its source that happens to sit next to the tests.
    installed = Path(langchain_core.__file__).resolve().parent
    if Path(config.rootpath).resolve() in installed.parents:
        raise pytest.UsageError(f"langchain_core was imported from the test tree ({installed}); "
                                "unpack only the tests from the source distribution")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_known_failures(items, KNOWN_FAILURES)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    _tests_run.add(item.nodeid)
    before = _built
    yield
    if _built > before:
        _tests_built.add(item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    yield
    # Each history owns a memory (and its loop thread): close them with their test.
    while _open:
        _open.pop().close()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    terminalreporter.write_line(
        f"memstrata: {len(_tests_built)} of {len(_tests_run)} tests built a "
        f"MemstrataChatMessageHistory ({_built} histories, each its own SQLite file)")
    others = sorted(n.split("::", 1)[-1] for n in _tests_run - _tests_built)
    if others:
        # Schema checks, for instance: they build a RunnableWithMessageHistory but never run it.
        terminalreporter.write_line(f"memstrata: {len(others)} never asked for a history: "
                                    + ", ".join(others))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not _tests_built:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_dir, ignore_errors=True)
