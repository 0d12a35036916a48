"""Hostile import files: generated JSONL records and history arrays with malformed lines.

Each file mixes good lines (mixed scripts, NUL, blank lines, times in the past) with up to
three bad ones (truncated JSON, arrays, unknown types and fields, bad roles, oversize or
empty content, lone surrogates, times that are text, negative, NaN, past 2^63 or far in the
future, bytes that are not UTF-8). Through ``Memory.import_`` (records as text, bytes),
``Memory.import_history`` (a list or JSON text), the HTTP import route and the command line,
a file with a bad line is refused naming the first one (``line N``, 1-based, blank lines
counted; ``history[i]`` for an array) and the session is exactly as before (its export,
counts, cutoff, cursor, and the session list); a file without one imports every message.

Quick by default; ``MEMSTRATA_LONG=1`` tries ten times as many files. Each test prints one
line of figures (run with ``-s``).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import T0, ManualClock
from hypothesis import given
from hypothesis import strategies as st
from server_helpers import auth, make_key, running_server
from test_reliability_hostile import CORPUS, LONG, MAX_CHARS, check_answer, examples

from memstrata import Memory, Settings
from memstrata.errors import InvalidInput

IMPORTS = 2_000 if LONG else 200
HTTP_IMPORTS = 2_000 if LONG else 60


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def _settings() -> Settings:
    return Settings(embedder=None, summary_cron=None, window_messages=2,
                    max_content_chars=MAX_CHARS)


DAY = 86_400 * 10**9
FUTURE = 4_000_000_000 * 10**9
"""2096: ahead of a test clock and of the real one alike."""


def _message(content: str, **more: Any) -> str:
    return json.dumps({"type": "message", "role": "user", "content": content, **more},
                      ensure_ascii=False)


BAD_LINES: dict[str, str | bytes] = {
    "truncated JSON": '{"type": "message", "role": "user", "content": "unterminated',
    "array": "[1, 2, 3]", "string": '"just text"', "number": "42", "null": "null",
    "type": json.dumps({"type": "note", "content": "x"}),
    "role": json.dumps({"type": "message", "role": "system", "content": "x"}),
    "content type": json.dumps({"type": "message", "role": "user", "content": 42}),
    "blank content": _message(" \n\t"),
    "long content": _message("x" * (MAX_CHARS + 1)),
    "surrogate": '{"type": "message", "role": "user", "content": "bad \\ud800 text"}',
    "NUL": _message("NUL \x00 in text"),
    "at text": _message("x", at="yesterday"), "at negative": _message("x", at=-1),
    "at future": _message("x", at=FUTURE), "at huge": _message("x", at=10**30),
    "at NaN": '{"type": "message", "role": "user", "content": "x", "at": NaN}',
    "meta": _message("x", meta=[1, 2]), "unknown field": _message("x", colour="red"),
    "sender": _message("x", sender=7), "key": _message("x", key=5),
    "summary kind": json.dumps({"type": "summary", "kind": "poem", "body": {}}),
    "summary body": json.dumps({"type": "summary", "body": {"key_decisions": []}}),
    "not UTF-8": b'{"type": "message", "role": "user", "content": "\xff\xfe"}',
}
GOOD_LINES = [_message(t) for t in CORPUS] + [
    "", "   ", _message("escape \x1b and bell \x07"), _message("x", at=T0 - DAY, sender="Mei"),
    json.dumps({"type": "message", "role": "assistant", "content": "ok", "meta": {"k": [1]}})]
BAD_ITEMS: dict[str, Any] = {
    "not an object": "x", "role": {"role": "robot", "content": "x"},
    "content type": {"role": "user", "content": 5}, "blank": {"role": "user", "content": ""},
    "sendAt text": {"role": "user", "content": "x", "sendAt": "now"},
    "sendAt negative": {"role": "user", "content": "x", "sendAt": -1},
    "sendAt float": {"role": "user", "content": "x", "sendAt": 1.5},
    "sendAt future": {"role": "user", "content": "x", "sendAt": FUTURE},
    "sendAt huge": {"role": "user", "content": "x", "sendAt": 2**70},
    "sender": {"role": "user", "content": "x", "sender": 5},
    "surrogate": {"role": "user", "content": "\ud800"},
    "long": {"role": "assistant", "content": "y" * (MAX_CHARS + 1)},
}
GOOD_ITEMS: list[Any] = [{"role": "user", "content": t, "sendAt": T0 - i, "sender": "Mei"}
                         for i, t in enumerate(CORPUS)] + [
    {"role": "system", "content": "you are a bot"}, {"role": "tool", "content": "{}"},
    {"role": "assistant", "content": [{"type": "text", "text": "parts"}]}]


@st.composite
def import_file(draw: st.DrawFn) -> tuple[list[str | bytes], int | None]:
    """JSONL lines, some of them bad; the number of the first bad line (1-based) or None."""
    n = draw(st.integers(1, 30))
    lines: list[str | bytes] = [draw(st.sampled_from(GOOD_LINES)) for _ in range(n)]
    bad = draw(st.sets(st.integers(0, n - 1), max_size=3))
    for i in bad:
        lines[i] = BAD_LINES[draw(st.sampled_from(sorted(BAD_LINES)))]
    return lines, (min(bad) + 1 if bad else None)


@st.composite
def history_array(draw: st.DrawFn) -> tuple[list[Any], int | None]:
    n = draw(st.integers(1, 30))
    items = [draw(st.sampled_from(GOOD_ITEMS)) for _ in range(n)]
    bad = draw(st.sets(st.integers(0, n - 1), max_size=3))
    for i in bad:
        items[i] = BAD_ITEMS[draw(st.sampled_from(sorted(BAD_ITEMS)))]
    return items, (min(bad) if bad else None)


def names_line(field: str, number: int) -> bool:
    return field == f"line {number}" or field.startswith(f"line {number}:")


async def _state(mem: Memory, session: str) -> tuple[Any, ...]:
    records = [r async for r in mem.export(session)]
    stats = await mem.stats(session)
    return records, stats.messages, stats.cutoff, stats.cursor, len(await mem.sessions())


def test_imports_refuse_bad_lines_whole(loop: asyncio.AbstractEventLoop,
                                        tmp_path: Path) -> None:
    mem = loop.run_until_complete(Memory.open(str(tmp_path / "imp.db"), settings=_settings(),
                                              background=False, clock=ManualClock(T0)))
    n: Counter[str] = Counter()

    async def seed(session: str) -> tuple[Any, ...]:
        for text in CORPUS[:4]:
            await mem.add(session, "user", text)
        await mem.summarize(session)  # a digest: the session has a summary and a cursor
        return await _state(mem, session)

    async def attempt(session: str, call: Callable[[], Awaitable[int]], first_bad: int | None,
                      good: int, where: Callable[[str], bool], kind: str) -> None:
        before = await seed(session)
        n[f"{kind}_files"] += 1
        try:
            added = await call()
        except InvalidInput as exc:
            assert first_bad is not None and where(exc.field), (first_bad, exc.field, exc)
            assert await _state(mem, session) == before  # nothing half-imported
            n[f"{kind}_refused"] += 1
            return
        assert first_bad is None and added == good
        n[f"{kind}_imported"] += 1

    @examples(IMPORTS)
    @given(file=import_file(), as_bytes=st.booleans())
    def jsonl(file: tuple[list[str | bytes], int | None], as_bytes: bool) -> None:
        lines, first_bad = file
        records = [x.encode() if isinstance(x, str) and as_bytes else x for x in lines]
        good = sum(1 for x in lines if isinstance(x, str) and x.strip())
        loop.run_until_complete(attempt(
            f"j{n['jsonl_files']}", lambda: mem.import_(f"j{n['jsonl_files']}", records),
            first_bad, good, lambda f: first_bad is not None and names_line(f, first_bad),
            "jsonl"))

    @examples(IMPORTS)
    @given(array=history_array(), as_text=st.booleans())
    def history(array: tuple[list[Any], int | None], as_text: bool) -> None:
        items, first_bad = array
        body: Any = json.dumps(items) if as_text else items
        good = sum(1 for x in items if x in GOOD_ITEMS and x["role"] in ("user", "assistant"))
        loop.run_until_complete(attempt(
            f"h{n['history_files']}", lambda: mem.import_history(f"h{n['history_files']}",
                                                                 body),
            first_bad, good, lambda f: f.startswith(f"history[{first_bad}]"), "history"))

    try:
        jsonl()
        history()
    finally:
        loop.run_until_complete(mem.close())
    assert n["jsonl_refused"] and n["jsonl_imported"] and n["history_refused"]
    print("\nhostile imports: " + " ".join(f"{k}={v}" for k, v in sorted(n.items()))
          + " half_imported=0")


def _body(lines: list[str | bytes]) -> bytes:
    return b"\n".join(x.encode() if isinstance(x, str) else x for x in lines)


def test_http_and_cli_imports_refuse_bad_lines_whole(tmp_path: Path) -> None:
    db = str(tmp_path / "imports.db")
    n: Counter[str] = Counter()
    with running_server(db, settings=_settings()) as base:
        key = make_key(db, "default")
        with httpx.Client(base_url=base, headers=auth(key), timeout=60) as client:

            def state(session: str) -> tuple[int, str]:
                r = client.get(f"/v1/sessions/{session}/export")
                return r.status_code, r.text

            @examples(HTTP_IMPORTS)
            @given(file=import_file())
            def one(file: tuple[list[str | bytes], int | None]) -> None:
                lines, first_bad = file
                session = f"w{n['files']}"
                n["files"] += 1
                check_answer(client.post(f"/v1/sessions/{session}/messages",
                                         json={"role": "user", "content": "before"}), n)
                before = state(session)
                r = client.post(f"/v1/sessions/{session}/import", content=_body(lines),
                                headers={"Content-Type": "application/x-ndjson"})
                check_answer(r, n)
                if first_bad is None:
                    assert r.status_code == 200, r.text
                    return
                field = r.json()["error"]["field"]
                # A body that starts with "[" is read as a history array, as documented.
                assert r.status_code == 422 and (names_line(field, first_bad) or (
                    _body(lines).lstrip()[:1] == b"[" and field.startswith("history"))), field
                assert state(session) == before
                n["refused"] += 1

            one()
    cli_files = len(BAD_LINES) if LONG else 3
    env = {**os.environ, "MEMSTRATA_EMBEDDER": "none",
           "MEMSTRATA_MAX_CONTENT_CHARS": str(MAX_CHARS)}
    for i in range(cli_files):
        lines = [*GOOD_LINES[:3], *([""] * i), BAD_LINES[sorted(BAD_LINES)[i]], GOOD_LINES[0]]
        path = tmp_path / f"bad{i}.jsonl"
        path.write_bytes(_body(lines))
        done = subprocess.run([sys.executable, "-m", "memstrata", "--db", db, "import",
                               f"cli{i}", str(path)], capture_output=True, text=True,
                              timeout=120, env=env)
        assert done.returncode == 2 and f"line {4 + i}" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
        n["cli_refused"] += 1

    async def cli_sessions() -> list[str]:
        async with Memory.open(db, settings=_settings(), background=False) as mem:
            return [s.id for s in await mem.sessions() if s.id.startswith("cli")]

    assert asyncio.run(cli_sessions()) == []  # nothing of a refused file was stored
    print(f"\nhostile http+cli imports: files={n['files']} refused={n['refused']} "
          f"cli_files={n['cli_refused']} 5xx={n['5xx']} half_imported=0")
