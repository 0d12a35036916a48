"""Hostile input at scale: generated queries through every surface, on both stores.

Queries mix FTS5 and tsquery operators (AND OR NOT NEAR, ``*``, ``^``, column filters,
``<->``, ``:*``), unbalanced quotes and brackets, control characters, NUL, lone surrogates,
CJK, Arabic, Hebrew, emoji sequences, combining marks and bidi controls, and empty or
whitespace-only text; a separate test sends 1 MB queries. They go through every match mode of
``Memory.search`` (one session and the whole tenant) on SQLite and PostgreSQL, the
model-facing tools, the HTTP API of a real server and its MCP tools. Nothing but
``InvalidInput`` may escape, every result list must be well-formed, and the service answers
2xx or 4xx with a JSON error naming the field, never 5xx. Import files with malformed
lines are the business of ``test_reliability_hostile_imports``.

Hypothesis runs derandomized (the seed comes from each test's code), so every run of the
same code tries the same inputs. The quick version (the
default) tries 1,000 queries on SQLite and the tools, 300 on PostgreSQL and HTTP, 100 over
MCP; ``MEMSTRATA_LONG=1`` tries 10,000 (2,000 over MCP). Each test prints one line of
figures (run with ``-s``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import socket
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import TextContent
from server_helpers import auth, make_key, running_server

from memstrata import Memory, Settings
from memstrata.errors import InvalidInput
from memstrata.providers import HashEmbedder
from memstrata.types import Hit

LONG = os.environ.get("MEMSTRATA_LONG") == "1"
QUERIES = 10_000 if LONG else 1_000
SLOW_QUERIES = 10_000 if LONG else 300
"""For the surfaces where one input costs ~10 requests or statements (HTTP, PostgreSQL)."""
MCP_QUERIES = 2_000 if LONG else 100
HUGE = 1_000_000
SOURCES = {"archive", "recent", "semantic", "hybrid"}
MODES: tuple[str | None, ...] = ("keyword", "semantic", "hybrid", None)
MAX_CHARS = 2_000

OPERATORS = ["AND", "OR", "NOT", "NEAR", "NEAR(", "NEAR(train nine, 2)", "NEAR/3", "*", "^",
             "text:", "body:", "scope:", "content:", "{body scope}:", "-body:", "+", "-", '"',
             "'", "(", ")", "((", "))", ":", '"train', 'train"', "tr*", "^train", "train*",
             "rowid", "MATCH", "'; DROP TABLE messages; --", "%", "_", "\\", "/", "[", "]",
             "{", "}", "<", ">", "&", "|", "!", "<->", "<2>", ":*", "&&", "@@", "::", "$1",
             "?", "'||'", "''", '""', "NULL", "\\x00", "%s", "%(now)s", "{0}"]
SCRIPTS = ["記憶體", "花蓮", "太魯閣", "テスト", "ひらがな", "한국어", "مرحبا بالعالم", "שלום",
           "ไทย", "हिन्दी", "Ελληνικά", "Ünïcödé", "🙂", "👩‍👩‍👧‍👦", "🇹🇼", "e\u0301",
           "a\u0300\u0301\u0302\u0303", "\u200f", "\u200e", "\u202e", "\u2066", "\u2069",
           "\u200b", "\u200d", "\ufeff", "\u3000", "\u00a0", "\u2028", "\ufdfa", "ǅ", "İ",
           "ß", "\ufffd", "\uffff", "\U0010ffff", "\U000e0001", "Ⅻ", "½",
           "\U0001d518\U0001d52b\U0001d526"]  # Fraktur "Uni"
WORDS = ["train", "Hualien", "nine", "Friday", "release", "memory", "timeout", "記憶",
         "花蓮", "the", "a", "I", "x"]
SPACES = ["", " ", "  ", "\t", "\n", "\r\n", "\u3000", "\u00a0", "\u2028", "\x0b", "\x0c"]

_piece = st.one_of(
    st.sampled_from(OPERATORS), st.sampled_from(SCRIPTS), st.sampled_from(WORDS),
    st.sampled_from(SPACES),
    st.characters(min_codepoint=0, max_codepoint=0x1F),  # control characters, NUL included
    st.characters(min_codepoint=0x7F, max_codepoint=0x9F),
    st.characters(codec=None), st.text(max_size=6))
_glued = st.lists(_piece, max_size=14).map("".join)
_surrogate = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
hostile_query = st.one_of(
    _glued, st.lists(_piece, min_size=1, max_size=10).map(" ".join), _glued,
    st.tuples(_glued, _surrogate, _glued).map("".join),  # a lone surrogate somewhere
    st.lists(st.sampled_from(SPACES), max_size=5).map("".join))

CORPUS = [
    "The train to Hualien leaves at nine", "記憶體 is memory; the release is on Friday",
    "我妹妹想去花蓮看太魯閣。", "テストは金曜日です", "مرحبا، القطار يغادر في التاسعة",
    "Don't use NEAR or AND in \"quotes\" (really)", "emoji 🙂 and 👩‍👩‍👧‍👦 and e\u0301",
    "the timeout was 30 s; retry with a longer timeout", "text: body: scope: column filters",
    "שלום עולם and \u202eright to left\u202c marks",
]


def examples(n: int) -> settings:
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


def check_hits(hits: list[Hit], session: str | None, limit: int) -> None:
    """What every result list must be: chronological, no duplicates, ranks 1..k for the
    matched hits, neighbours unranked with score 0, scope respected, text valid."""
    assert isinstance(hits, list)
    ids = [h.message.id for h in hits]
    assert ids == sorted(set(ids)), ids
    matched = [h for h in hits if h.matched]
    assert len(matched) <= limit
    assert sorted(h.rank or 0 for h in matched) == list(range(1, len(matched) + 1))
    for h in hits:
        assert isinstance(h, Hit) and h.source in SOURCES and math.isfinite(h.score)
        assert session is None or h.message.session == session
        assert h.matched or (h.rank is None and h.score == 0.0)
        h.message.content.encode("utf-8")


class Tally:
    """Counts what a test tried; any exception other than ``InvalidInput`` fails the test."""

    def __init__(self) -> None:
        self.n: Counter[str] = Counter()

    async def call(self, surface: str, fn: Callable[..., Awaitable[Any]], *args: Any,
                   **kwargs: Any) -> Any:
        self.n[surface] += 1
        try:
            return await fn(*args, **kwargs)
        except InvalidInput as exc:
            assert exc.field and str(exc), exc
            self.n["invalid_input"] += 1
            return exc

    def line(self, title: str, **extra: object) -> str:
        calls = sum(v for k, v in self.n.items() if k not in ("inputs", "invalid_input"))
        parts = [f"{k}={v}" for k, v in sorted(self.n.items())]
        parts.append(f"answered={calls - self.n['invalid_input']}")
        parts += [f"{k}={v}" for k, v in extra.items()]
        return f"hostile {title}: " + " ".join(parts) + " other_exceptions=0"


def _settings() -> Settings:
    return Settings(embedder="hash:64", summary_cron=None, window_messages=4,
                    max_content_chars=MAX_CHARS)


async def _seed(mem: Memory) -> None:
    for i, text in enumerate(CORPUS * 2):
        await mem.add("s" if i % 3 else "t", "user" if i % 2 else "assistant", text)
    await mem.errors.write(tool_name="web_fetch", keywords=["timeout"], symptom="timed out",
                           action="retry with a longer timeout")
    await mem.flush()


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def _open(loop: asyncio.AbstractEventLoop, target: str) -> Memory:
    mem = loop.run_until_complete(Memory.open(target, settings=_settings(), background=False,
                                              embedder=HashEmbedder(64)))
    loop.run_until_complete(_seed(mem))
    return mem


async def _search_everywhere(mem: Memory, tally: Tally, query: str, limit: int) -> None:
    for match in MODES:
        for session in ("s", None):
            got = await tally.call("search", mem.search, session, query, match=match,
                                   limit=limit)
            if has_surrogate(query) or not query.strip():
                assert isinstance(got, InvalidInput) and got.field == "query"
            elif not isinstance(got, InvalidInput):
                check_hits(got, session, limit)
    await tally.call("context", mem.context, "s", query=query)
    await tally.call("errors", mem.errors.search, query)
    await tally.call("errors", mem.errors.hint, "web_fetch", query)


def _run_queries(loop: asyncio.AbstractEventLoop, mem: Memory, n: int, title: str) -> None:
    tally = Tally()

    @examples(n)
    @given(query=hostile_query, limit=st.integers(1, 32))
    def one(query: str, limit: int) -> None:
        tally.n["inputs"] += 1
        loop.run_until_complete(_search_everywhere(mem, tally, query, limit))

    one()
    assert tally.n["inputs"] >= n * 0.9
    print("\n" + tally.line(title))


def test_queries_through_every_match_mode_on_sqlite(loop: asyncio.AbstractEventLoop,
                                                    tmp_path: Path) -> None:
    mem = _open(loop, str(tmp_path / "q.db"))
    try:
        _run_queries(loop, mem, QUERIES, "sqlite search")
    finally:
        loop.run_until_complete(mem.close())


def test_queries_through_every_match_mode_on_postgres(loop: asyncio.AbstractEventLoop,
                                                      pg_url: str) -> None:
    mem = _open(loop, pg_url)
    try:
        _run_queries(loop, mem, SLOW_QUERIES, "postgres search")
    finally:
        loop.run_until_complete(mem.close())


def test_tools_answer_text_for_any_argument(loop: asyncio.AbstractEventLoop,
                                            tmp_path: Path) -> None:
    mem = _open(loop, str(tmp_path / "tools.db"))
    tools = mem.tools("s")
    n: Counter[str] = Counter()

    async def calls(text: str, number: float) -> None:
        arguments: list[tuple[str, dict[str, Any] | str]] = [
            *[("chat_history", {"mode": "search", "keyword": text, "match": m})
              for m in MODES],
            ("chat_history", {"mode": "search", "keyword": text, "limit": number}),
            ("chat_history", {"mode": "list", "time_range": text}),
            ("chat_history", {"mode": text, "keyword": text}),
            ("chat_history", {"mode": "read", "id": text}),
            ("chat_history", {"mode": "read", "id": number}),
            ("chat_history", {"mode": "list", "before_id": number, "limit": number}),
            ("chat_history", '{"mode": "search", "keyword": ' + json.dumps(text)),
            ("error_history", {"mode": "search", "keyword": text}),
            ("error_history", {"mode": "read", "id": text}),
            ("error_history", {"mode": "search", "keyword": text, "limit": number}),
        ]
        for name, args in arguments:
            n["calls"] += 1
            answer = await tools.execute(name, args)
            assert isinstance(answer, str) and answer
            answer.encode("utf-8")
            n["error_text"] += answer.startswith("Error")

    digest = hashlib.sha256()

    @examples(QUERIES)
    @given(text=hostile_query, number=st.one_of(st.integers(-2**70, 2**70), st.floats()))
    def one(text: str, number: float) -> None:
        n["inputs"] += 1
        digest.update(repr((text, number)).encode("utf-8", "surrogatepass"))
        loop.run_until_complete(calls(text, number))

    try:
        one()
    finally:
        loop.run_until_complete(mem.close())
    print(f"\nhostile tools: inputs={n['inputs']} calls={n['calls']} "
          f"error_answers={n['error_text']} raised=0 inputs_digest={digest.hexdigest()[:12]}")


async def test_out_of_range_ids_and_limits_are_invalid_input(tmp_path: Path) -> None:
    # Ids past SQLite's integer range and non-finite limits once escaped as OverflowError or
    # ValueError, from the Python API and from the model-facing tool alike.
    async with Memory.open(str(tmp_path / "ids.db"), settings=_settings(), background=False,
                           embedder=None) as mem:
        await mem.add("s", "user", "hello")
        for call in (mem.read, mem.message, mem.forget):
            with pytest.raises(InvalidInput) as caught:
                await call(2**63)
            assert caught.value.field
        with pytest.raises(InvalidInput, match="before_id"):
            await mem.recent("s", before_id=2**64)
        tools = mem.tools("s")
        for args in ({"mode": "read", "id": "²"}, {"mode": "read", "id": str(2**64)},
                     {"mode": "search", "keyword": "hello", "limit": math.inf},
                     {"mode": "list", "limit": math.nan}):
            assert (await tools.execute("chat_history", args)).startswith("Error: ")
        # The history array's time field is sendAt; an out-of-range one was called "at".
        with pytest.raises(InvalidInput) as caught:
            await mem.import_history("h", [{"role": "user", "content": "x", "sendAt": 2**70}])
        assert caught.value.field == "history[0].sendAt"
        answer = await tools.execute("error_history", {"mode": "search", "keyword": "x",
                                                       "limit": math.inf})
        assert answer.startswith("Error: ")


def _q(text: str) -> str:
    """Percent-encoded as UTF-8; a lone surrogate goes out as the bytes a careless client
    would send (its WTF-8 encoding), which is not UTF-8."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def check_answer(r: httpx.Response, n: Counter[str]) -> None:
    n["requests"] += 1
    n[f"{r.status_code // 100}xx"] += 1
    assert r.status_code < 500, (r.status_code, r.text[:500])
    if r.status_code >= 400:
        error = r.json()["error"]
        assert error["type"] and error["message"]
        if r.status_code == 422:
            assert error["field"], error


def test_http_answers_4xx_naming_the_field_never_5xx(tmp_path: Path) -> None:
    db = str(tmp_path / "http.db")
    n: Counter[str] = Counter()
    with running_server(db, settings=_settings()) as base:
        key = make_key(db, "acme")
        with httpx.Client(base_url=base, headers=auth(key), timeout=60) as client:
            for text in CORPUS:
                check_answer(client.post("/v1/sessions/s/messages",
                                         json={"role": "user", "content": text}), n)

            @examples(SLOW_QUERIES)
            @given(text=hostile_query, pick=st.integers(0, 3))
            def one(text: str, pick: int) -> None:
                n["inputs"] += 1
                q, mode = _q(text), ["keyword", "semantic", "hybrid", "x"][pick]
                for url in (f"/v1/sessions/s/search?q={q}&match={mode}", f"/v1/search?q={q}",
                            f"/v1/sessions/s/context?query={q}", f"/v1/errors/search?q={q}",
                            f"/v1/errors/hint?tool={q}&error={q}",
                            f"/v1/sessions/s/search?q=train&time_range={q}",
                            f"/v1/sessions/{q}/search?q=train"):
                    check_answer(client.get(url), n)
                body = ('{"role": "user", "content": ' + json.dumps(text) + "}").encode(
                    "utf-8", "surrogatepass")
                check_answer(client.post("/v1/sessions/h/messages", content=body,
                                         headers={"Content-Type": "application/json"}), n)

            one()
    print(f"\nhostile http: inputs={n['inputs']} requests={n['requests']} 2xx={n['2xx']} "
          f"4xx={n['4xx']} 5xx={n['5xx']}")


HUGE_QUERIES = {"words": "train " * (HUGE // 6), "cjk": "記憶體花蓮" * (HUGE // 5),
                "operators": 'NEAR("(*^' * (HUGE // 8), "one word": "x" * HUGE,
                "controls": "\x00\x01\x1b\u202e" * (HUGE // 4)}


def test_megabyte_queries(loop: asyncio.AbstractEventLoop, tmp_path: Path) -> None:
    mem = _open(loop, str(tmp_path / "huge.db"))
    tally = Tally()
    # 1 MB through every mode in the long run; the quick one sends 1 MB to keyword search
    # (FTS5 and the substring scan) and 16 KB to the modes that embed the query.
    size = HUGE if LONG else 16_000

    async def go() -> None:
        for text in HUGE_QUERIES.values():
            for match in MODES:
                query = text if match == "keyword" else text[:size]
                for session in ("s", None):
                    got = await tally.call("search", mem.search, session, query,
                                           match=match)
                    if not isinstance(got, InvalidInput):
                        check_hits(got, session, 8)
            answer = await mem.tools("s").execute("chat_history", {
                "mode": "search", "keyword": text, "match": "keyword"})
            assert isinstance(answer, str) and answer
        await tally.call("search", mem.search, "s", "\ud800" + "a" * HUGE)

    try:
        loop.run_until_complete(go())
    finally:
        loop.run_until_complete(mem.close())
    print("\n" + tally.line("1 MB queries", size=f"{HUGE}/{size}"))


def _raw_get(base: str, target: str, key: str) -> bytes:
    """One GET sent byte for byte (httpx refuses URLs this long before sending them)."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=60) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n"
                  "Connection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data


def test_http_megabyte_requests(tmp_path: Path) -> None:
    db = str(tmp_path / "huge.db")
    n: Counter[str] = Counter()
    with running_server(db, settings=_settings()) as base:
        key = make_key(db, "acme")
        for name, text in HUGE_QUERIES.items():
            # Past ~64 KB the request line is refused by the HTTP layer itself (a plain
            # 400 from uvicorn, before the app): 4xx, never 5xx and never a hang.
            answer = _raw_get(base, f"/v1/sessions/s/search?q={_q(text)}", key)
            status = int(answer.split(b" ", 2)[1])
            assert 400 <= status < 500, (name, answer[:200])
            n[f"{status // 100}xx"] += 1
            n["requests"] += 1
        with httpx.Client(base_url=base, headers=auth(key), timeout=60) as client:
            for text in (HUGE_QUERIES["words"][:HUGE], "x" * (2 * HUGE)):
                r = client.post("/v1/sessions/s/messages", json={"role": "user",
                                                                 "content": text})
                check_answer(r, n)
                assert r.status_code == 413, r.text[:300]
            r = client.get("/v1/sessions/s/search", params={"q": "記憶體" * 2_000})  # 54 KB encoded
            check_answer(r, n)
    print(f"\nhostile http 1 MB: requests={n['requests']} 2xx={n['2xx']} 4xx={n['4xx']} "
          f"5xx={n['5xx']}")


async def _mcp_calls(base: str, key: str, texts: list[str]) -> Counter[str]:
    """Each text through the MCP tools, over the streamable HTTP transport of the server."""
    n: Counter[str] = Counter()
    async with httpx2.AsyncClient(headers=auth(key), timeout=60) as http, \
            streamable_http_client(f"{base}/mcp", http_client=http) as (read, write), \
            ClientSession(read, write) as client:
        await client.initialize()
        for text in texts:
            n["inputs"] += 1
            calls: list[tuple[str, dict[str, Any]]] = [
                *[("chat_history", {"session": "s", "mode": "search", "keyword": text,
                                    "match": m}) for m in ("keyword", "semantic", "hybrid")],
                ("chat_history", {"session": "s", "mode": "read", "id": text}),
                ("context", {"session": "s", "query": text}),
                ("context", {"session": text}),
                ("error_history", {"mode": "search", "keyword": text}),
                ("remember", {"session": "m", "role": "user", "content": text}),
            ]
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)  # a protocol error raises
                n["calls"] += 1
                n["tool_errors"] += bool(result.is_error)
                texts_out = [c.text for c in result.content if isinstance(c, TextContent)]
                assert result.is_error or result.structured_content is not None
                assert not result.is_error or (texts_out and texts_out[0])
    return n


def _mcp_by_hand(base: str, key: str, texts: list[str]) -> int:
    """Tool calls whose JSON carries lone surrogates as escapes (valid JSON, not valid
    Unicode), POSTed by hand since a client library will not send them; returns how many."""
    headers = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json", **auth(key)}
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "by-hand", "version": "1"}}}
    sent = 0
    with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
        r = http.post("/mcp", content=json.dumps(hello))
        if "mcp-session-id" in r.headers:
            http.headers["Mcp-Session-Id"] = r.headers["mcp-session-id"]
        http.post("/mcp", content=json.dumps({"jsonrpc": "2.0",
                                              "method": "notifications/initialized"}))
        for text in texts:
            for name, args in (("chat_history", {"session": "s", "mode": "search",
                                                 "keyword": text}),
                               ("remember", {"session": "m", "role": "user", "content": text})):
                r = http.post("/mcp", content=json.dumps({
                    "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": name, "arguments": args}}))
                assert r.status_code == 200, r.text[:300]
                assert '"isError":true' in r.text and "not valid Unicode" in r.text, r.text
                sent += 1
    return sent


def test_mcp_tools_answer_hostile_arguments(tmp_path: Path) -> None:
    db = str(tmp_path / "mcp.db")
    texts: list[str] = []

    @examples(MCP_QUERIES)
    @given(text=hostile_query)
    def collect(text: str) -> None:
        texts.append(text)

    collect()
    with running_server(db, settings=_settings()) as base:
        key = make_key(db, "acme")
        n = asyncio.run(_mcp_calls(base, key, [t for t in texts if not has_surrogate(t)]))
        by_hand = _mcp_by_hand(base, key, [t for t in texts if has_surrogate(t)])
    print(f"\nhostile mcp: inputs={len(texts)} calls={n['calls'] + by_hand} "
          f"tool_errors={n['tool_errors'] + by_hand} protocol_errors=0")
