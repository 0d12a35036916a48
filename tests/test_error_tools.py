"""The error-memory tools: their definitions, and the text the executor returns, including for
a model's bad arguments (which never raise)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from helpers import ManualClock

from memstrata.config import Settings
from memstrata.errormem import ErrorMemory
from memstrata.errormem._tools import ERROR_TOOL_NAMES, error_tool_definitions, execute_error_tool
from memstrata.providers._hashing import HashEmbedder
from memstrata.store.sqlite import SQLiteStore
from memstrata.types import ErrorRecord

WRITE_ARGS: dict[str, Any] = {
    "tool_name": "web_fetch", "keywords": ["timeout"], "symptom": "the page timed out",
    "cause": "slow site", "action": "retry with timeout=120"}


@pytest.fixture
async def errors(tmp_path: Path, clock: ManualClock) -> AsyncIterator[ErrorMemory]:
    store = await SQLiteStore.open(str(tmp_path / "tools.db"))
    yield ErrorMemory(store.errors, tenant="acme", settings=Settings(),
                      embedder=HashEmbedder(), clock=clock)
    await store.close()


def test_definitions() -> None:
    defs = error_tool_definitions(16)
    assert [d["name"] for d in defs] == list(ERROR_TOOL_NAMES)
    history, write = defs
    assert history["parameters"]["properties"]["mode"]["enum"] == ["search", "read", "write"]
    assert history["parameters"]["properties"]["limit"]["maximum"] == 16
    assert history["parameters"]["required"] == ["mode"]
    assert write["parameters"]["properties"]["outcome"]["enum"] == [
        "resolved", "failed", "abandoned"]
    assert set(write["parameters"]["required"]) == {"tool_name", "keywords", "symptom",
                                                    "action"}
    assert all(d["description"] and d["parameters"]["type"] == "object" for d in defs)


async def test_write_search_and_read(errors: ErrorMemory) -> None:
    written = await execute_error_tool(errors, "write_error", WRITE_ARGS)
    (rec,) = await errors.list()
    assert written.startswith(f"Recorded error {rec.id[:8]} for tool web_fetch")
    found = await execute_error_tool(errors, "error_history",
                                     {"mode": "search", "keyword": "timeout"})
    assert f"[{rec.id[:8]}] web_fetch · resolved" in found
    assert "action: retry with timeout=120" in found and "cause: slow site" in found
    shown = await execute_error_tool(errors, "error_history", {"mode": "read", "id": rec.id[:8]})
    assert f"id: {rec.id}" in shown and "found 1 time(s)" in shown
    assert "keywords: timeout" in shown


async def test_write_through_error_history_and_json_text(errors: ErrorMemory) -> None:
    text = await execute_error_tool(
        errors, "error_history",
        '{"mode": "write", "tool_name": "sql_query", "keywords": "deadlock, orders", '
        '"symptom": "deadlock detected", "action": "retry", "outcome": "failed"}')
    assert text.startswith("Recorded error ")
    (rec,) = await errors.list()
    assert rec.keywords == ("deadlock", "orders") and rec.outcome == "failed"


async def test_limit_is_clamped(errors: ErrorMemory) -> None:
    for i in range(18):
        await errors.write(tool_name="t", keywords=["boom"], symptom=f"boom {i}", action="a")
    text = await execute_error_tool(errors, "error_history",
                                    {"mode": "search", "keyword": "boom", "limit": 999})
    assert text.count("symptom:") == 16
    text = await execute_error_tool(errors, "error_history",
                                    {"mode": "search", "keyword": "boom", "limit": -3})
    assert text.count("symptom:") == 1


async def test_nothing_found_texts(errors: ErrorMemory) -> None:
    assert await execute_error_tool(errors, "error_history",
                                    {"mode": "search", "keyword": "boom", "tool": "x"}) == (
        "No error records match 'boom' for tool 'x'.")
    assert await execute_error_tool(errors, "error_history",
                                    {"mode": "read", "id": "0123456789ab"}) == (
        "No error record has id '0123456789ab' (it may have expired).")


@pytest.mark.parametrize(("name", "args", "expected"), [
    ("error_history", {}, "Error: mode: must be one of search, read, write."),
    ("error_history", {"mode": "list"}, "Error: mode: must be one of search, read, write."),
    ("error_history", {"mode": "search"}, "Error: keyword: "),
    ("error_history", {"mode": "search", "keyword": "x", "limit": "many"}, "Error: limit: "),
    ("error_history", {"mode": "search", "keyword": "x", "tool": 5}, "Error: tool: "),
    ("error_history", {"mode": "read", "id": "abc"}, "Error: id: "),
    ("error_history", {"mode": "read"}, "Error: id: "),
    ("write_error", {**WRITE_ARGS, "outcome": "fixed"},
     "Error: outcome: must be one of resolved, failed, abandoned"),
    ("write_error", {"tool_name": "t"}, "Error: symptom: "),
    ("write_error", {**WRITE_ARGS, "keywords": [1, 2]}, "Error: keywords: "),
    ("write_error", [], "Error: arguments must be a JSON object."),
    ("write_error", "{not json", "Error: arguments are not valid JSON"),
    ("chat_history", {}, "Error: unknown tool 'chat_history'; available: error_history, "
                         "write_error."),
])
async def test_bad_arguments_come_back_as_text(errors: ErrorMemory, name: str, args: Any,
                                               expected: str) -> None:
    text = await execute_error_tool(errors, name, args)
    assert text.startswith(expected)
    assert await errors.list() == []


async def test_ambiguous_id_is_reported_as_text(tmp_path: Path, clock: ManualClock) -> None:
    store = await SQLiteStore.open(str(tmp_path / "twins.db"))
    errors = ErrorMemory(store.errors, tenant="acme", settings=Settings(),
                         embedder=None, clock=clock)
    twins = [ErrorRecord(id="abcdef01" + tail * 24, tool_name="t", keywords=(), symptom="s",
                         cause=None, action="a", outcome="resolved", created_at=clock.now,
                         expires_at=clock.now + 10**12, hits=0) for tail in "01"]
    for rec in twins:
        await store.errors.insert("acme", rec, search_text="s", vector=None,
                                             model_id=None)
    text = await execute_error_tool(errors, "error_history", {"mode": "read", "id": "abcdef01"})
    assert text.startswith("Error: id: prefix 'abcdef01' matches several records")
    assert twins[0].id in text and twins[1].id in text
    text = await execute_error_tool(errors, "error_history", {"mode": "read", "id": "abcdef011"})
    assert text.startswith(f"id: {twins[1].id}")
    await store.close()
