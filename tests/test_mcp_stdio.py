"""``memstrata mcp``: the tools over stdio, driven by the official MCP client.

The server runs as a real subprocess on a temporary SQLite file. The lone-surrogate checks
also speak the protocol by hand, since the official client cannot send such text at all.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_checks import MALFORMED, call, check_bad_input, check_every_tool, check_listing, error_text

from memstrata import Memory, Settings
from memstrata.server._mcp import build_mcp

# The subprocess's settings: a deterministic embedder (semantic modes offered, nothing to
# load) and no summary schedule.
# The server process imports the same memstrata as the tests (a PYTHONPATH that points at a
# checkout is kept: the MCP client passes only a few variables of its own environment on).
ENV = {"MEMSTRATA_EMBEDDER": "hash:64", "MEMSTRATA_SUMMARY_CRON": "none",
       **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
COMMAND = [sys.executable, "-m", "memstrata"]
_READ_TIMEOUT_S = 60.0


@asynccontextmanager
async def stdio_session(db: str, *args: str) -> AsyncIterator[ClientSession]:
    """An initialised client session to ``memstrata mcp --db DB ARGS…``."""
    params = StdioServerParameters(command=COMMAND[0], args=[*COMMAND[1:], "mcp", "--db", db,
                                                             *args], env=ENV)
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def stored(db: str, tenant: str, session: str) -> list[str]:
    """The contents of a session in the database file, as the library reads them."""
    async with Memory.open(db, settings=Settings(embedder=None, summary_cron=None),
                           tenant=tenant, background=False) as mem:
        return [m.content for m in reversed(await mem.recent(session))]


async def test_the_tools_are_listed_with_their_schemas(tmp_path: Path) -> None:
    async with stdio_session(str(tmp_path / "m.db")) as session:
        await check_listing(session)


async def test_every_tool_works_on_the_tenant_given(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    async with stdio_session(db, "--tenant", "acme") as session:
        await check_every_tool(session)
    assert await stored(db, "acme", "trip") == ["Let's take the train to Hualien.",
                                                "Agreed: the train on April 14."]
    assert await stored(db, "default", "trip") == []


async def test_the_global_tenant_option_is_used_too(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    params = StdioServerParameters(command=COMMAND[0], args=[*COMMAND[1:], "--tenant", "team",
                                                             "mcp", "--db", db], env=ENV)
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            await call(session, "remember", session="s", role="user", content="hello")
    assert await stored(db, "team", "s") == ["hello"]


async def test_bad_input_is_a_tool_error_and_the_server_keeps_serving(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    async with stdio_session(db) as session:
        await check_bad_input(session)
    assert await stored(db, "default", "s1") == ["still here"]


async def test_a_bad_tenant_is_refused_before_serving(tmp_path: Path) -> None:
    done = subprocess.run([*COMMAND, "mcp", "--db", str(tmp_path / "m.db"), "--tenant",
                           "not a tenant"], input="", capture_output=True, text=True,
                          env={**os.environ, **ENV}, timeout=_READ_TIMEOUT_S, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "tenant" in done.stderr and "must be 1-128 characters" in done.stderr


def test_without_the_server_extra_the_command_says_what_to_install(tmp_path: Path) -> None:
    # The MCP SDK made unimportable, as in an install without the extra.
    code = ("import sys; sys.modules['mcp'] = None; from memstrata.cli import main; "
            f"sys.argv = ['memstrata', 'mcp', '--db', {str(tmp_path / 'm.db')!r}]; main()")
    done = subprocess.run([sys.executable, "-c", code], input="", capture_output=True,
                          text=True, env={**os.environ, **ENV}, timeout=_READ_TIMEOUT_S,
                          check=False)
    assert done.returncode == 1
    assert done.stdout == ""
    assert "pip install 'memstrata[server]'" in done.stderr
    assert not (tmp_path / "m.db").exists()


# -- text that is not valid Unicode -----------------------------------------------------------


class RawClient:
    """The protocol spoken by hand over a subprocess's pipes: one JSON message a line."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[bytes] = []

    async def send(self, message: dict[str, Any] | str) -> None:
        line = message if isinstance(message, str) else json.dumps(message)
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode("ascii") + b"\n")
        await self.process.stdin.drain()

    async def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), _READ_TIMEOUT_S)
        self.lines.append(line)
        answer: dict[str, Any] = json.loads(line)
        return answer


def tool_call(ident: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


async def test_a_lone_surrogate_is_a_tool_error_on_the_wire(tmp_path: Path) -> None:
    """JSON can carry a lone surrogate (``\\ud800``), which the SDK's parser would drop
    unanswered: it is answered as a tool error with the request's id instead, nothing is
    stored, and stdout carries nothing but protocol lines."""
    db = str(tmp_path / "m.db")
    process = await asyncio.create_subprocess_exec(
        *COMMAND, "mcp", "--db", db, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, **ENV})
    client = RawClient(process)
    try:
        await client.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "by-hand", "version": "1"}}})
        assert (await client.receive())["result"]["serverInfo"]["name"] == "memstrata"
        await client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        # json.dumps writes the surrogate as the escape \ud800, as JSON.stringify does.
        await client.send(tool_call(2, "remember", {"session": "s", "role": "user",
                                                    "content": "half an emoji \ud83d"}))
        refused = await client.receive()
        assert refused["id"] == 2 and refused["result"]["isError"] is True
        assert refused["result"]["content"][0]["text"].startswith(
            "arguments.content: is not valid Unicode: a lone surrogate U+D83D")
        await client.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                           "params": {"cursor": "\udc00"}})
        assert (await client.receive())["error"]["message"].startswith("cursor: is not valid")
        await client.send(tool_call(4, "remember", {"session": "s", "role": "user",
                                                    "content": "a whole emoji \U0001f600"}))
        kept = await client.receive()
        assert kept["id"] == 4 and kept["result"]["structuredContent"]["id"] == 1
    finally:
        assert process.stdin is not None
        process.stdin.close()
        await asyncio.wait_for(process.wait(), _READ_TIMEOUT_S)
    assert process.stdout is not None
    assert await process.stdout.read() == b""
    assert all(line.endswith(b"\n") and json.loads(line) for line in client.lines)
    assert await stored(db, "default", "s") == ["a whole emoji \U0001f600"]


@pytest.mark.parametrize(("tool", "arguments", "field"), [
    ("remember", {"session": "s", "role": "user", "content": "x\ud800"}, "content"),
    ("remember", {"session": "s", "role": "user", "content": "x", "sender": "\udfff"},
     "sender"),
    ("context", {"session": "s", "query": "\ud800?"}, "query"),
    ("chat_history", {"session": "s", "mode": "search", "keyword": "\ud800"}, "keyword"),
    ("write_error", {"tool_name": "t", "keywords": ["k"], "symptom": "\ud800",
                     "action": "a"}, "symptom"),
])
async def test_a_lone_surrogate_that_reaches_a_tool_is_a_tool_error(
        tool: str, arguments: dict[str, Any], field: str) -> None:
    """Behind the wire (an in-process client passes the text as it is), every tool refuses
    the text with a message naming the field, and goes on serving."""
    settings = Settings(embedder="hash:64", summary_cron=None)
    async with Memory.open(":memory:", settings=settings, background=False) as mem, \
            Client(build_mcp(lambda _request: mem)) as client:
        message = await error_text(client.session, tool, **arguments)
        assert f"{field}: is not valid Unicode: a lone surrogate" in message
        assert (await call(client.session, "context", session="s"))["messages"] == []


async def test_every_malformed_line_is_answered_and_the_server_goes_on(tmp_path: Path) -> None:
    """Each line the SDK cannot take (not JSON, a batch, a wrong version, params as a list,
    nesting a thousand deep …) gets a JSON-RPC error with its id, a malformed notification
    and a blank line get nothing, a line past the size bound is refused without being held
    whole, and the server serves on."""
    db = str(tmp_path / "m.db")
    process = await asyncio.create_subprocess_exec(
        *COMMAND, "mcp", "--db", db, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, **ENV})
    client = RawClient(process)
    try:
        await client.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "by-hand", "version": "1"}}})
        await client.receive()
        await client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for line, ident, code in MALFORMED:
            await client.send(line)
            answer = await client.receive()
            assert (answer["id"], answer["error"]["code"]) == (ident, code), line[:60]
        await client.send('{"jsonrpc": "2.0", "method": 5}')  # a notification: no answer
        await client.send("   ")
        await client.send('{"jsonrpc": "2.0", "id": 20, "method": "tools/list", "params": '
                          '{"cursor": "' + "x" * (5 << 20) + '"}}')
        assert (await client.receive())["error"]["code"] == -32600
        await client.send(tool_call(21, "remember", {"session": "s", "role": "user",
                                                     "content": "still here"}))
        assert (await client.receive())["id"] == 21
    finally:
        assert process.stdin is not None
        process.stdin.close()
        await asyncio.wait_for(process.wait(), _READ_TIMEOUT_S)
    assert process.returncode == 0
    assert await stored(db, "default", "s") == ["still here"]
