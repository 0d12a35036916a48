"""pytest plugin: the OpenAI Agents SDK's own tests, run against ``MemstrataSession``.

Loaded with ``-p agents_session_swap`` (this directory on ``sys.path``) by ``.ci/run``, which
unpacks the tests from the SDK's source distribution. Before any test module is imported,
``agents.SQLiteSession`` (and ``agents.memory.SQLiteSession``) become a subclass of
``MemstrataSession`` with ``SQLiteSession``'s constructor, so every test that builds a SQLite
session builds a memstrata one instead. The summary says how many tests really did; none
at all fails the run (the swap would have silently tested SQLite).
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import agents
import agents.memory
import pytest
from known_failures import mark_known_failures

from memstrata import Settings
from memstrata.adapters.openai_agents import MemstrataSession

_built = 0
_tests_built: set[str] = set()
_outcomes: dict[str, str] = {}

# Tests that reach into SQLiteSession's internals (its connections, file locks, tables, SQL
# and worker thread), which a different backend cannot meaningfully pass. Each reason says
# what the test touches, then which of memstrata's own tests checks the same behaviour
# (tests/test_test_setup.py checks that each test named there exists).
_CONNECTIONS = ("reads SQLiteSession's per-thread sqlite3 connection bookkeeping "
                "(_connections); a MemstrataSession holds one SyncMemory, whose loop thread "
                "close() ends: tests/test_sync_memory.py::"
                "test_close_is_bounded_and_releases_waiting_callers")
_CORRUPT = "inserts a row of invalid JSON through SQLiteSession._locked_connection(); "
_CORRUPT_READ = (_CORRUPT + "damaged records skipped by a limited read: "
                 "tests/test_openai_agents_adapter.py::"
                 "test_a_limited_read_skips_damaged_newest_records")
_FAILED_WRITE = ("; a write memstrata refuses stores nothing and the next write works: "
                 "tests/test_reliability_disk.py::"
                 "test_full_disk_refuses_each_write_kind_and_recovers")
_SETTLED = ("swaps in a sqlite3.Connection subclass whose commit() pauses (and may raise) "
            "after committing; a cancelled pop or clear that completes anyway: "
            "tests/test_openai_agents_adapter.py::"
            "test_a_cancelled_write_finishes_then_the_cancellation_propagates")
KNOWN_FAILURES: dict[str, str] = {
    "test_sqlite_session_close_closes_worker_thread_connections": _CONNECTIONS,
    "test_sqlite_session_reaps_connections_from_exited_worker_threads": _CONNECTIONS,
    "test_sqlite_session_closes_retired_connections_before_the_next_allocation": _CONNECTIONS,
    "test_sqlite_session_keeps_connections_of_live_worker_threads": _CONNECTIONS,
    "test_sqlite_session_rollback_failure_evicts_connection":
        "patches a sqlite3 connection of SQLiteSession to fail its rollback, then checks that "
        "connection was evicted; a database failing under memstrata is refused with "
        "StoreError, nothing stored: tests/test_reliability_damage.py::"
        "test_write_after_the_file_is_deleted_is_refused",
    "test_sqlite_session_close_retries_quarantined_connection":
        "patches a sqlite3 connection of SQLiteSession to fail its close(), then checks "
        "SQLiteSession's quarantine of it; closing memstrata is bounded whatever is pending: "
        "tests/test_sync_memory.py::test_close_is_bounded_and_releases_waiting_callers",
    "test_sqlite_session_post_commit_cancellation_propagates_after_known_outcome":
        "patches SQLiteSession's connection to pause after a commit, then cancels; the same "
        "add, pop and clear cancelled mid-write: tests/test_openai_agents_adapter.py::"
        "test_a_cancelled_write_finishes_then_the_cancellation_propagates",
    "test_sqlite_session_failed_add_items_releases_write_lock":
        "patches SQLiteSession's SQL to fail mid-transaction, then takes SQLite's write lock "
        "on the file itself" + _FAILED_WRITE,
    "test_sqlite_session_failed_clear_session_rolls_back":
        "patches SQLiteSession's SQL to fail mid-transaction, then reads SQLiteSession's "
        "tables" + _FAILED_WRITE,
    "test_sqlite_session_failed_pop_item_releases_write_lock":
        "patches SQLiteSession's SQL to fail mid-transaction, then takes SQLite's write lock "
        "on the file itself" + _FAILED_WRITE,
    "test_sqlite_session_file_lock_is_shared_across_instances":
        "compares SQLiteSession's class-level registry of per-file locks; two sessions on "
        "one memory popping at once each take a different item: "
        "tests/test_openai_agents_adapter.py::test_concurrent_pops_each_take_a_different_item",
    "test_sqlite_session_pop_item_skips_corrupt_most_recent":
        _CORRUPT + "damaged records dropped by pop_item: tests/test_openai_agents_adapter.py::"
        "test_pop_drops_damaged_records_newer_than_the_item",
    "test_sqlite_session_pop_item_returns_none_after_dropping_only_corrupt_rows":
        _CORRUPT + "only damaged records, dropped by pop_item: "
        "tests/test_openai_agents_adapter.py::"
        "test_pop_of_only_damaged_records_is_none_and_drops_them",
    "test_sqlite_session_get_items_limit_skips_corrupt_newest_rows": _CORRUPT_READ,
    "test_sqlite_session_get_items_session_settings_limit_skips_corrupt_rows": _CORRUPT_READ,
    "test_handoff_resume_after_cancelled_compaction_commits":
        "patches SQLiteSession._insert_items to hold its worker thread before the compacted "
        "items commit, then cancels the run; the same run cancelled while compaction "
        "replaces history, resumed: tests/test_openai_agents_adapter.py::"
        "test_a_run_cancelled_while_compaction_replaces_history_resumes",
    "TestOpenAIResponsesCompactionSession::test_settled_pop_failure_invalidates_response_chain":
        _SETTLED,
    "TestOpenAIResponsesCompactionSession::test_settled_clear_failure_invalidates_response_chain":
        _SETTLED,
}


class SwappedSQLiteSession(MemstrataSession):
    """``MemstrataSession`` built with ``SQLiteSession``'s arguments."""

    def __init__(self, session_id: str, db_path: str | Path = ":memory:",
                 sessions_table: str = "agent_sessions", messages_table: str = "agent_messages",
                 session_settings: Any = None) -> None:
        global _built
        _built += 1
        # No embedder: these tests check the session protocol, and loading the local
        # embedding model for every session would only make them slow.
        super().__init__(session_id, str(db_path), session_settings=session_settings,
                         settings=Settings(embedder=None))


agents.SQLiteSession = SwappedSQLiteSession  # type: ignore[misc,assignment]
agents.memory.SQLiteSession = SwappedSQLiteSession  # type: ignore[misc,assignment]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_known_failures(items, KNOWN_FAILURES)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    # Setup, call and teardown: a fixture may build the session too.
    before = _built
    yield
    if _built > before:
        _tests_built.add(item.nodeid)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # A test's worst phase decides how it counts: failed, then expected failure, else passed.
    if report.failed:
        _outcomes[report.nodeid] = "failed"
    elif hasattr(report, "wasxfail") and _outcomes.get(report.nodeid) != "failed":
        _outcomes[report.nodeid] = "known failure"
    elif report.skipped and report.nodeid not in _outcomes:
        _outcomes[report.nodeid] = "skipped"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    counts = {"passed": 0, "failed": 0, "known failure": 0, "skipped": 0}
    for nodeid in _tests_built:
        counts[_outcomes.get(nodeid, "passed")] += 1
    terminalreporter.write_line(
        f"memstrata: {len(_tests_built)} tests built a MemstrataSession ({_built} sessions): "
        + ", ".join(f"{n} {what}" for what, n in counts.items()))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not _tests_built:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
