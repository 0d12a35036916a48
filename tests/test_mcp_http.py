"""The MCP tools at ``/mcp`` of the HTTP service, driven by the official MCP client.

A real uvicorn server on 127.0.0.1 serves a temporary SQLite file; API keys are stored in it
as ``memstrata keys create`` does. The key chooses the tenant, per request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_checks import MALFORMED, call, check_bad_input, check_every_tool, check_listing, error_text
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from server_helpers import auth, make_key, revoke_key, running_server

# What a client must accept on /mcp (the streamable HTTP transport answers JSON or SSE).
ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "by-hand", "version": "1"}}}


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "service.db")


@pytest.fixture
def base_url(db: str) -> Iterator[str]:
    with running_server(db) as url:
        yield url


@asynccontextmanager
async def mcp_session(base_url: str, key: str) -> AsyncIterator[ClientSession]:
    """An initialised MCP client session to the service, authenticated with ``key``."""
    async with httpx2.AsyncClient(headers=auth(key)) as http, \
            streamable_http_client(f"{base_url}/mcp", http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


def post(base_url: str, key: str | None, message: dict[str, Any] | str,
         session_id: str | None = None) -> httpx.Response:
    """One JSON-RPC message POSTed by hand."""
    headers = {**ACCEPT, "Content-Type": "application/json",
               **(auth(key) if key is not None else {})}
    if session_id is not None:
        headers["Mcp-Session-Id"] = session_id
    body = message if isinstance(message, str) else json.dumps(message)
    return httpx.post(f"{base_url}/mcp", content=body, headers=headers, timeout=30.0)


def answer_of(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC answer in a response, sent as JSON or as one server-sent event."""
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        found: dict[str, Any] = json.loads(data[-1])
        return found
    plain: dict[str, Any] = response.json()
    return plain


async def test_the_tools_are_listed_and_each_one_works(db: str, base_url: str) -> None:
    key = make_key(db, "acme")
    async with mcp_session(base_url, key) as session:
        await check_listing(session)
        await check_every_tool(session)
    listed = httpx.get(f"{base_url}/v1/sessions/trip/messages", headers=auth(key))
    assert [m["content"] for m in listed.json()["messages"]] == [
        "Agreed: the train on April 14.", "Let's take the train to Hualien."]


async def test_bad_input_is_a_tool_error_and_the_server_keeps_serving(
        db: str, base_url: str) -> None:
    async with mcp_session(base_url, make_key(db, "acme")) as session:
        await check_bad_input(session)


def test_no_key_or_a_wrong_key_is_refused(db: str, base_url: str) -> None:
    key = make_key(db, "acme")
    for given in (None, "ms_00000000_wrong", key[:-2] + "xx"):
        refused = post(base_url, given, INITIALIZE)
        assert refused.status_code == 401
        assert refused.json()["error"]["type"] == "unauthorized"
        assert refused.headers["www-authenticate"] == "Bearer"
    assert post(base_url, key, INITIALIZE).status_code == 200
    assert httpx.post(f"{base_url}/mcp/", json=INITIALIZE).status_code == 401
    revoke_key(db, key)
    assert post(base_url, key, INITIALIZE).status_code == 401


async def test_the_official_client_with_a_wrong_key_cannot_connect(
        db: str, base_url: str) -> None:
    make_key(db, "acme")
    with pytest.raises(BaseExceptionGroup) as caught:
        async with mcp_session(base_url, "ms_00000000_not-a-key"):
            pass
    assert [type(e) for e in leaves(caught.value)] == [MCPError]


def leaves(group: BaseException) -> list[BaseException]:
    """The exceptions at the bottom of nested exception groups."""
    if isinstance(group, BaseExceptionGroup):
        return [leaf for e in group.exceptions for leaf in leaves(e)]
    return [group]


async def test_two_tenants_are_isolated(db: str, base_url: str) -> None:
    acme, globex = make_key(db, "acme"), make_key(db, "globex")
    async with mcp_session(base_url, acme) as session:
        mine = await call(session, "remember", session="shared-name", role="user",
                          content="acme's secret plan")
        await call(session, "write_error", tool_name="deploy", keywords=["quota"],
                   symptom="acme quota exceeded", action="raised the quota")
    async with mcp_session(base_url, globex) as session:
        assert (await call(session, "context", session="shared-name"))["messages"] == []
        refused = await error_text(session, "chat_history", session="shared-name",
                                   mode="read", id=mine["id"])
        assert f"id: message {mine['id']} is not in this conversation" in refused
        assert "acme" not in refused and "globex" not in refused
        nothing = await call(session, "chat_history", session="shared-name", mode="search",
                             keyword="secret", match="keyword")
        assert nothing["text"].startswith("No messages match")
        none = await call(session, "error_history", mode="search", keyword="quota")
        assert none["text"].startswith("No error records match")
        theirs = await call(session, "remember", session="shared-name", role="user",
                            content="globex's plan")
    async with mcp_session(base_url, acme) as session:
        context = await call(session, "context", session="shared-name")
        assert [m["content"] for m in context["messages"]] == ["acme's secret plan"]
        # Ids are numbers within a tenant: each tenant's first message is 1, and the same
        # number names each tenant's own message.
        assert theirs["id"] == mine["id"] == 1
        read = await call(session, "chat_history", session="shared-name", mode="read",
                          id=mine["id"])
        assert "acme's secret plan" in read["text"] and "globex" not in read["text"]


def test_an_mcp_session_answers_only_the_tenant_that_opened_it(db: str, base_url: str) -> None:
    acme, globex = make_key(db, "acme"), make_key(db, "globex")
    opened = post(base_url, acme, INITIALIZE)
    session_id = opened.headers["mcp-session-id"]
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    post(base_url, acme, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session_id)
    assert post(base_url, globex, listing, session_id).status_code == 404
    assert len(answer_of(post(base_url, acme, listing, session_id))["result"]["tools"]) == 5


async def test_a_lone_surrogate_is_a_tool_error_and_the_session_goes_on(
        db: str, base_url: str) -> None:
    key = make_key(db, "acme")
    bad = ('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": '
           '"remember", "arguments": {"session": "s", "role": "user", "content": "\\ud800"}}}')
    refused = answer_of(post(base_url, key, bad))
    assert refused["id"] == 7 and refused["result"]["isError"] is True
    assert "arguments.content: is not valid Unicode" in refused["result"]["content"][0]["text"]
    async with mcp_session(base_url, key) as session:
        assert (await call(session, "context", session="s"))["messages"] == []
        await call(session, "remember", session="s", role="user", content="fine")


async def test_the_newer_protocol_revision_works_and_keeps_tenants_apart(
        db: str, base_url: str) -> None:
    """The client's own choice of revision (per-request, without an MCP session) is served
    the same way, tenant by tenant."""
    contents: dict[str, list[str]] = {}
    for tenant in ("acme", "globex"):
        key = make_key(db, tenant)
        async with httpx2.AsyncClient(headers=auth(key)) as http, \
                Client(streamable_http_client(f"{base_url}/mcp", http_client=http)) as client:
            assert client.session.protocol_version in MODERN_PROTOCOL_VERSIONS
            await check_listing(client.session)
            await call(client.session, "remember", session="s", role="user",
                       content=f"{tenant} was here")
            context = await call(client.session, "context", session="s")
            contents[tenant] = [m["content"] for m in context["messages"]]
    assert contents == {"acme": ["acme was here"], "globex": ["globex was here"]}


def test_every_malformed_message_is_answered_with_its_id(db: str, base_url: str) -> None:
    """Over HTTP as over stdio: each message the SDK cannot take is a JSON-RPC error with its
    id (400 when the message is refused as a whole), never a 500."""
    key = make_key(db, "acme")
    session_id = post(base_url, key, INITIALIZE).headers["mcp-session-id"]
    post(base_url, key, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session_id)
    for message, ident, code in MALFORMED:
        response = post(base_url, key, message, session_id)
        assert response.status_code in (200, 400), message[:60]
        answer = answer_of(response)
        assert (answer["id"], answer["error"]["code"]) == (ident, code), message[:60]
    assert post(base_url, key, '{"jsonrpc": "2.0", "method": 5}').status_code == 202
