"""Generated hostile text through every entry point: nothing but ``InvalidInput`` escapes.

The text mixes lone surrogates, NUL, byte-order marks, bidi controls, FTS5 and SQL syntax,
emoji and CJK, so the checks cover what a careless caller or a confused model may send.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstrata import Memory, Settings
from memstrata.errors import InvalidInput
from memstrata.types import MatchMode

SPECIAL = ["\ud800", "\udfff", "\udc80", "\x00", "\ufeff", "\u202e", "\u2066", "\u200f",
           '"', "'", "*", "NEAR", "OR", "AND", "NOT", "(", ")", ":", "^", "-", "\\", ";",
           "DROP TABLE messages", "🙂", "記憶體", "テスト", "\n", "\t", " ", "hello", "train"]

hostile = st.lists(
    st.one_of(st.sampled_from(SPECIAL), st.characters(exclude_categories=()),
              st.text(max_size=5)),
    max_size=12).map("".join)

_SESSIONS = itertools.count()
EXAMPLES = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Memory, Any]]:
    loop = asyncio.new_event_loop()
    path = tmp_path_factory.mktemp("hostile") / "h.db"
    mem = loop.run_until_complete(Memory.open(
        str(path), settings=Settings(embedder="hash:64", summary_cron=None), background=False))

    async def seed() -> None:
        await mem.add("s", "user", "The train to Hualien leaves at nine")
        await mem.add("s", "assistant", "記憶體 is memory; the release is on Friday")
        await mem.errors.write(tool_name="web_fetch", keywords=["timeout"],
                               symptom="timed out", action="retry with a longer timeout")
        await mem.flush()

    loop.run_until_complete(seed())
    yield mem, loop
    loop.run_until_complete(mem.close())
    loop.close()


def _only_invalid_input(loop: Any, call: Callable[[], Awaitable[object]]) -> object:
    try:
        return loop.run_until_complete(call())
    except InvalidInput as exc:
        assert exc.field and str(exc)
        return exc


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


@EXAMPLES
@given(text=hostile)
def test_writes_store_valid_text_intact_and_reject_the_rest(
        memory: tuple[Memory, Any], text: str) -> None:
    mem, loop = memory
    got = _only_invalid_input(loop, lambda: mem.add("w", "user", text, sender=text or None,
                                                    meta={"note": text}))
    if _has_surrogate(text) or "\x00" in text:
        assert isinstance(got, InvalidInput)
        assert "position" in got.reason or "character" in got.reason
    elif text.strip() and not isinstance(got, InvalidInput):
        stored = loop.run_until_complete(mem.message(got.id))  # type: ignore[attr-defined]
        assert stored is not None and stored.content == text and stored.meta == {"note": text}
    _only_invalid_input(loop, lambda: mem.add_many("w", [{"role": "user", "content": text}]))
    _only_invalid_input(loop, lambda: mem.add(text, "user", "a session id from hostile text"))


@EXAMPLES
@given(query=hostile)
def test_queries_in_every_match_mode_raise_nothing_but_invalid_input(
        memory: tuple[Memory, Any], query: str) -> None:
    mem, loop = memory
    sessions: tuple[str | None, ...] = ("s", None)
    for match, session in itertools.product(("keyword", "semantic", "hybrid"), sessions):
        got = _only_invalid_input(loop, functools.partial(mem.search, session, query,
                                                          match=cast("MatchMode", match)))
        if _has_surrogate(query):
            assert isinstance(got, InvalidInput) and got.field == "query"
    _only_invalid_input(loop, lambda: mem.context("s", query=query))
    _only_invalid_input(loop, lambda: mem.errors.search(query))
    _only_invalid_input(loop, lambda: mem.errors.hint("web_fetch", query))
    _only_invalid_input(loop, lambda: mem.errors.read(query))


@EXAMPLES
@given(text=hostile)
def test_tools_answer_with_text_and_never_raise(memory: tuple[Memory, Any], text: str) -> None:
    mem, loop = memory
    tools = mem.tools("s")
    calls: list[tuple[str, dict[str, Any] | str]] = [
        ("chat_history", {"mode": "search", "keyword": text}),
        ("chat_history", {"mode": "search", "keyword": text, "match": "keyword"}),
        ("chat_history", {"mode": "read", "id": text}),
        ("chat_history", json.dumps({"mode": "search", "keyword": text})),
        ("error_history", {"mode": "search", "keyword": text}),
        ("write_error", {"tool_name": text, "keywords": [text], "symptom": text,
                         "action": text}),
        (text, {}),
    ]
    for name, args in calls:
        answer = loop.run_until_complete(tools.execute(name, args))
        assert isinstance(answer, str) and answer
        answer.encode("utf-8")  # what the model reads is valid text
        if _has_surrogate(text) and name == "chat_history" and args != calls[2][1]:
            assert answer.startswith("Error: keyword:")


@EXAMPLES
@given(text=hostile, line=st.integers(min_value=1, max_value=4))
def test_imports_name_the_bad_line_and_store_nothing(memory: tuple[Memory, Any], text: str,
                                                     line: int) -> None:
    mem, loop = memory
    records: list[Any] = [{"type": "message", "role": "user", "content": f"fine {i}"}
                          for i in range(4)]
    records[line - 1] = {"type": "message", "role": "user", "content": text}
    session = f"imp-{next(_SESSIONS)}"
    got = _only_invalid_input(loop, lambda: mem.import_(session, records))
    if _has_surrogate(text):
        assert isinstance(got, InvalidInput) and got.field.startswith(f"line {line}")
        assert loop.run_until_complete(mem.recent(session)) == []
    history = [{"role": "user", "content": text, "sendAt": 1, "sender": text}]
    _only_invalid_input(loop, lambda: mem.import_history("imph", history))
    summary = {"type": "summary", "body": {"key_decisions": [text], "past_discussions": []}}
    got = _only_invalid_input(loop, lambda: mem.import_("imps", [summary]))
    if _has_surrogate(text):
        assert isinstance(got, InvalidInput) and got.field.startswith("line 1: body")


def test_the_cli_reports_text_that_is_not_unicode(tmp_path: Path) -> None:
    # Bytes that are not UTF-8 reach Python's argv as lone surrogates.
    db = str(tmp_path / "cli.db")
    for argv in ([b"add", b"s", b"user", b"bad \xed\xa0\x80 text"],
                 [b"search", b"s", b"bad\xff"],
                 [b"errors", b"search", b"bad\xff"]):
        done = subprocess.run([sys.executable.encode(), b"-m", b"memstrata", b"--db",
                               db.encode(), *argv], capture_output=True, timeout=60)
        assert done.returncode == 2, done.stderr.decode(errors="replace")
        assert b"not valid Unicode" in done.stderr and b"Traceback" not in done.stderr
