"""What every MCP transport must do, checked through the official MCP client's session.

``test_mcp_stdio`` and ``test_mcp_http`` run these over their transport; each takes a
connected, initialised ``ClientSession`` to a memstrata MCP server whose memory has an
embedder (semantic match modes offered) and is empty when the check starts.
"""

from __future__ import annotations

import re
from typing import Any

from mcp import ClientSession
from mcp_types import CallToolResult, TextContent

from memstrata import Memory, Settings

__all__ = ["MALFORMED", "TOOL_NAMES", "call", "check_bad_input", "check_every_tool",
           "check_listing", "error_text", "text_of"]

TOOL_NAMES = {"context", "remember", "chat_history", "error_history", "write_error"}


def text_of(result: CallToolResult) -> str:
    """The text a model would read from a result."""
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def call(client: ClientSession, name: str, /, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its structured content."""
    result = await client.call_tool(name, arguments)
    assert not result.is_error, text_of(result)
    content: dict[str, Any] | None = result.structured_content
    assert content is not None
    return content


async def error_text(client: ClientSession, name: str, /, **arguments: Any) -> str:
    """Call a tool that must fail as a tool error (not a protocol error); its message."""
    result = await client.call_tool(name, arguments)
    assert result.is_error, f"{name} should have failed: {result}"
    assert result.structured_content is None
    return text_of(result)


async def model_facing_definitions() -> dict[str, dict[str, Any]]:
    """The definitions the Python tools give a model, with the same embedder kind."""
    async with Memory.open(":memory:", settings=Settings(embedder="hash:64", summary_cron=None),
                           background=False) as mem:
        return {d["name"]: d for d in mem.tools("any").definitions()}


async def check_listing(session: ClientSession) -> None:
    """Five tools; the three model-facing ones publish the Python tools' own definitions
    (chat_history also names its session), and every tool has an output schema."""
    listed = {t.name: t for t in (await session.list_tools()).tools}
    assert set(listed) == TOOL_NAMES
    for tool in listed.values():
        assert tool.description
        assert tool.input_schema["type"] == "object" and tool.input_schema["properties"]
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
    definitions = await model_facing_definitions()
    for name in ("error_history", "write_error"):
        assert listed[name].input_schema == definitions[name]["parameters"]
        assert listed[name].description == definitions[name]["description"]
    history = listed["chat_history"].input_schema
    expected = definitions["chat_history"]["parameters"]
    assert history["required"] == ["session", *expected["required"]]
    assert {k: v for k, v in history["properties"].items() if k != "session"} == \
        expected["properties"]
    assert "hybrid" in history["properties"]["match"]["enum"]
    assert listed["remember"].input_schema["required"] == ["session", "role", "content"]
    outputs = {name: tool.output_schema or {} for name, tool in listed.items()}
    assert set(outputs["context"]["properties"]) >= {"messages", "summary", "unsummarized"}
    assert outputs["write_error"]["properties"]["text"]["type"] == "string"


async def check_every_tool(session: ClientSession) -> list[int]:
    """Each tool once, on a fresh memory; returns the ids of the messages it stored."""
    first = await call(session, "remember", session="trip", role="user",
                       content="Let's take the train to Hualien.", sender="Mei")
    second = await call(session, "remember", session="trip", role="assistant",
                        content="Agreed: the train on April 14.")
    assert first["session"] == "trip" and first["sender"] == "Mei"
    assert second["id"] > first["id"] and second["at"] >= first["at"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", first["at_iso"])

    context = await call(session, "context", session="trip", query="when do we leave?")
    assert [m["content"] for m in context["messages"]] == [
        "Let's take the train to Hualien.", "Agreed: the train on April 14."]
    assert context["summary"] is None and context["turn_context"] is None
    assert context["unsummarized"] == 0
    for i in range(20):
        await call(session, "remember", session="long", role="user", content=f"turn {i}")
    context = await call(session, "context", session="long")
    assert context["unsummarized"] == 20 - len(context["messages"]) > 0

    found = await call(session, "chat_history", session="trip", mode="search",
                       keyword="Hualien", match="keyword")
    assert f"#{first['id']}" in found["text"] and "(match 1)" in found["text"]
    listed = await call(session, "chat_history", session="trip", mode="list")
    assert listed["text"].index("April 14") < listed["text"].index("Hualien")  # newest first
    read = await call(session, "chat_history", session="trip", mode="read", id=second["id"])
    assert f"> #{second['id']}" in read["text"]

    written = await call(session, "write_error", tool_name="web_fetch",
                         keywords=["timeout"], symptom="GET https://example.org timed out",
                         action="retried with a 30 s timeout", cause="slow upstream")
    short_id = re.search(r"Recorded error ([0-9a-f]{8})", written["text"])
    assert short_id is not None, written["text"]
    searched = await call(session, "error_history", mode="search", keyword="timed out")
    assert short_id.group(1) in searched["text"] and "web_fetch" in searched["text"]
    record = await call(session, "error_history", mode="read", id=short_id.group(1))
    assert "cause: slow upstream" in record["text"]
    return [first["id"], second["id"]]


async def check_bad_input(session: ClientSession) -> None:
    """Bad arguments come back as tool errors naming the problem; the server keeps
    serving and nothing was stored."""
    assert "role: must be one of user, assistant" in await error_text(
        session, "remember", session="s1", role="robot", content="beep")
    assert "content: must not be empty" in await error_text(
        session, "remember", session="s1", role="user", content="   ")
    assert "session: must be 1-128 characters" in await error_text(
        session, "remember", session="no spaces allowed", role="user", content="hi")
    assert "id: message 987654 is not in this conversation" in await error_text(
        session, "chat_history", session="s1", mode="read", id=987654)
    assert "mode: must be one of search, list, read" in await error_text(
        session, "chat_history", session="s1", mode="delete")
    assert "keyword" in await error_text(session, "chat_history", session="s1",
                                         mode="search", keyword="  ")
    assert "id: must be the record id or a prefix" in await error_text(
        session, "error_history", mode="read", id="not-an-id")
    assert "outcome" in await error_text(session, "write_error", tool_name="t",
                                         keywords=["k"], symptom="s", action="a",
                                         outcome="maybe")
    assert "limit" in await error_text(session, "chat_history", session="s1", mode="list",
                                       limit="many")
    assert "session" in await error_text(session, "context")  # a required argument missing
    assert "Unknown tool" in await error_text(session, "forget_everything")
    context = await call(session, "context", session="s1")
    assert context["messages"] == []
    stored = await call(session, "remember", session="s1", role="user", content="still here")
    assert stored["content"] == "still here"


# -- malformed messages -----------------------------------------------------------------------

_DEEP = "[" * 1000 + "]" * 1000
MALFORMED: list[tuple[str, int | str | None, int]] = [
    # (the message as sent, the id its answer carries, the JSON-RPC error code)
    ("not json", None, -32700),
    ('{"jsonrpc": "2.0", "id": 5, "method": "tools/list"', None, -32700),
    ('[{"jsonrpc": "2.0", "id": 6, "method": "tools/list"}]', None, -32600),
    ("[]", None, -32600),
    ("42", None, -32600),
    ("null", None, -32600),
    ('{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": [1]}', 7, -32602),
    ('{"jsonrpc": "1.0", "id": 8, "method": "tools/list"}', 8, -32600),
    ('{"id": "nine", "method": "tools/list"}', "nine", -32600),
    ('{"jsonrpc": "2.0", "id": 10}', 10, -32600),
    ('{"jsonrpc": "2.0", "id": 11, "method": 5}', 11, -32600),
    ('{"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}', None, -32600),
    ('{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": 3}}', 12,
     -32602),
    # A lone surrogate and arrays nested a thousand deep: once enough to end the process.
    ('{"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": "x\\ud800", '
     f'"arguments": {{"a": {_DEEP}}}}}}}', 13, -32600),
    ('{"jsonrpc": "2.0", "method": "tools/list", "params": {"a": ' + _DEEP + '}, "id": "14"}',
     "14", -32600),
    ('{"jsonrpc": "2.0", "id": 15, "method": "tools/list", "params": {"cursor": '
     + '{"a": ' * 3000 + "1" + "}" * 3000 + "}}", 15, -32600),
]
"""Messages the SDK cannot take, each of which must get an error answer with its id."""
