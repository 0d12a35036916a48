"""The MCP server: memstrata's tools for any MCP client, over stdio or streamable HTTP.

Five tools act on the ``Memory`` of the caller, resolved for every request (the one memory
of a stdio process; over HTTP the tenant of the bearer key):

- ``chat_history``, ``error_history`` and ``write_error`` run the very executors of the
  model-facing tools (:class:`memstrata.tools.Tools`, ``execute_error_tool``), so their
  arguments, descriptions and answers are the same; ``chat_history`` also takes the session.
- ``remember`` stores one message; ``context`` returns the window and summary to send
  before the next user input.

Every tool publishes an output schema and returns structured content. Bad input, an id that
does not exist and a failed model come back as tool errors (``isError``) carrying
memstrata's message, so the model can correct its call and the connection keeps serving.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable, Callable, Iterator, Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any, cast

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from ..errormem import execute_error_tool
from ..errors import InvalidInput, MemstrataError, NotFound, ProviderError
from ..memory import Memory
from ..tools import Tools
from ..types import Role
from ._schemas import MessageOut, message_out

__all__ = ["ContextResult", "McpServer", "MemoryFor", "TextResult", "build_mcp"]

MemoryFor = Callable[[Any], Awaitable[Memory] | Memory]
"""Resolves the ``Memory`` a request acts on, from the transport's request object (the
Starlette request over HTTP, ``None`` over stdio); may be sync or async."""

SERVER_NAME = "memstrata"
_INSTRUCTIONS = (
    "Long-term memory of conversations. Call 'context' before answering to get the recent "
    "messages and the summary of older ones, 'remember' to store each user input and reply, "
    "'chat_history' to look up what was said earlier, and 'error_history' / 'write_error' "
    "for tool errors and how they were fixed.")
_SESSION_DESCRIPTION = ("the conversation (session id: 1-128 characters of letters, digits "
                        "and ._:@-)")
# The model-facing executors answer a model's bad arguments with text in this form.
_ERROR_PREFIX = "Error: "


class TextResult(BaseModel):
    """What a model-facing tool answered: the text the model should read."""

    text: str = Field(description="the tool's answer, for the model to read")


Answer = Annotated[CallToolResult, TextResult]
"""What the model-facing tools return: their text, published with :class:`TextResult`'s
schema."""


class ContextResult(BaseModel):
    """What to send before the next user input: the window and the rolling summary."""

    session: str
    messages: list[MessageOut] = Field(description="the window, oldest first")
    summary: dict[str, Any] | None = Field(
        description="the summary of the messages before the window, if any")
    summary_kind: str | None = Field(description="'llm' or 'digest' (no model configured)")
    system_prompt: str | None = Field(
        description="instructions for using the summary, to add to the system prompt")
    turn_context: str | None = Field(
        description="the user message that carries the summary: send it after the window "
                    "and before the new input")
    unsummarized: int = Field(
        0, description="messages older than the window that the summary does not cover yet")


async def resolve(memory_for: MemoryFor, request: Any) -> Memory:
    """The memory ``memory_for`` resolves for ``request``."""
    got = memory_for(request)
    return await got if inspect.isawaitable(got) else got


def _readable(text: str) -> str:
    """``text`` safe to send as JSON: a lone surrogate quoted in an error is escaped."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


@contextlib.contextmanager
def _tool_errors() -> Iterator[None]:
    """memstrata's errors, raised inside, become tool errors carrying their message."""
    try:
        yield
    except (InvalidInput, NotFound) as exc:
        raise ToolError(_readable(str(exc))) from exc
    except ProviderError as exc:
        raise ToolError(_readable(f"model failed: {exc}")) from exc
    except MemstrataError as exc:
        raise ToolError(_readable(f"{type(exc).__name__}: {exc}")) from exc


def _answer(text: str) -> CallToolResult:
    """An executor's answer: the model reads it as plain text, a program reads ``text``; an
    error text (the model's bad arguments) is a tool error."""
    if text.startswith(_ERROR_PREFIX):
        raise ToolError(_readable(text.removeprefix(_ERROR_PREFIX)))
    text = _readable(text)
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=TextResult(text=text).model_dump())


def _present(**values: Any) -> dict[str, Any]:
    """The arguments the caller gave (the executors apply their own defaults)."""
    return {k: v for k, v in values.items() if v is not None}


class _Handlers:
    """The tool functions, bound to the resolver of the request's memory."""

    def __init__(self, memory_for: MemoryFor) -> None:
        self._memory_for = memory_for

    async def memory(self, ctx: Context[Any, Any]) -> Memory:
        return await resolve(self._memory_for, ctx.request_context.request)

    async def chat_history(
            self, ctx: Context[Any, Any],
            session: Annotated[str, Field(description=_SESSION_DESCRIPTION)],
            mode: str, keyword: str | None = None, match: str | None = None,
            time_range: str | None = None, limit: int | None = None,
            id: int | str | None = None,  # noqa: A002  (the tool's argument is named id)
            before_id: int | None = None) -> Answer:
        """Look up a conversation's history (search, list or read)."""
        args = _present(mode=mode, keyword=keyword, match=match, time_range=time_range,
                        limit=limit, id=id, before_id=before_id)
        with _tool_errors():
            mem = await self.memory(ctx)
            text = await mem.tools(session).execute("chat_history", args)
        return _answer(text)

    async def error_history(
            self, ctx: Context[Any, Any], mode: str, keyword: str | None = None,
            tool: str | None = None, limit: int | None = None,
            id: str | int | None = None,  # noqa: A002  (the tool's argument is named id)
            tool_name: str | None = None, keywords: list[str] | str | None = None,
            symptom: str | None = None, cause: str | None = None,
            action: str | None = None, outcome: str | None = None) -> Answer:
        """Look up how earlier tool errors were handled (search, read or write)."""
        args = _present(mode=mode, keyword=keyword, tool=tool, limit=limit, id=id,
                        tool_name=tool_name, keywords=keywords, symptom=symptom, cause=cause,
                        action=action, outcome=outcome)
        with _tool_errors():
            mem = await self.memory(ctx)
            text = await execute_error_tool(mem.errors, "error_history", args)
        return _answer(text)

    async def write_error(
            self, ctx: Context[Any, Any], tool_name: str, keywords: list[str] | str,
            symptom: str, action: str, cause: str | None = None,
            outcome: str | None = None) -> Answer:
        """Record a tool error and how it was handled."""
        args = _present(tool_name=tool_name, keywords=keywords, symptom=symptom, cause=cause,
                        action=action, outcome=outcome)
        with _tool_errors():
            mem = await self.memory(ctx)
            text = await execute_error_tool(mem.errors, "write_error", args)
        return _answer(text)

    async def remember(
            self, ctx: Context[Any, Any],
            session: Annotated[str, Field(description=_SESSION_DESCRIPTION)],
            role: Annotated[str, Field(description="who said it: 'user' or 'assistant'")],
            content: Annotated[str, Field(description="what was said")],
            sender: Annotated[str | None, Field(
                description="the speaker's name, if there are several (optional)")] = None,
    ) -> MessageOut:
        """Store one message of a conversation (each user input and each reply, in order).
        It is committed when this returns, and found by 'context' and 'chat_history'."""
        with _tool_errors():
            mem = await self.memory(ctx)
            message = await mem.add(session, cast("Role", role), content, sender=sender)
        return message_out(message)

    async def context(
            self, ctx: Context[Any, Any],
            session: Annotated[str, Field(description=_SESSION_DESCRIPTION)],
            query: Annotated[str | None, Field(
                description="the new user input; with a decision model, picks the parts of "
                            "the summary relevant to it (optional)")] = None,
    ) -> ContextResult:
        """The context to send before the next user input: the last messages of the
        session (the window) and the rolling summary of everything before them. Call it
        before storing the new input."""
        with _tool_errors():
            mem = await self.memory(ctx)
            got = await mem.context(session, query)
        turn = got.turn_context["content"] if got.turn_context is not None else None
        return ContextResult(session=got.session,
                             messages=[message_out(m) for m in got.messages],
                             summary=got.summary, summary_kind=got.summary_kind,
                             system_prompt=got.system_prompt or None, turn_context=turn,
                             unsummarized=got.unsummarized)


def _published(definitions: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The model-facing definitions as MCP publishes them: ``chat_history`` names its session
    (the model-facing tool is bound to one)."""
    out: dict[str, dict[str, Any]] = {}
    for d in definitions:
        schema = dict(d["parameters"])
        if d["name"] == "chat_history":
            schema["properties"] = {"session": {"type": "string",
                                                "description": _SESSION_DESCRIPTION},
                                    **schema["properties"]}
            schema["required"] = ["session", *schema["required"]]
        out[d["name"]] = {"description": d["description"], "inputSchema": schema}
    return out


class _Definitions:
    """Publishes the model-facing tools' own definitions in ``tools/list``.

    Their limits and match modes come from the settings and embedder of the memory the
    request acts on, so they are filled in per request rather than fixed when the server is
    built.
    """

    def __init__(self, memory_for: MemoryFor) -> None:
        self._memory_for = memory_for

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method != "tools/list" or not isinstance(result, dict):
            return result
        try:
            mem = await resolve(self._memory_for, ctx.request)
        except (MemstrataError, ToolError):
            return result  # the tools answer the same error when called
        published = _published(Tools(mem, "-").definitions())
        tools = result.get("tools")
        if isinstance(tools, list):
            result["tools"] = [_replace(t, published) for t in tools]
        return result


def _replace(tool: Any, published: Mapping[str, dict[str, Any]]) -> Any:
    if isinstance(tool, dict) and tool.get("name") in published:
        return {**tool, **published[tool["name"]]}
    return tool


class McpServer(MCPServer):
    """The SDK's server, plus serving stdio through given streams (``memstrata mcp`` filters
    its input and guards its stdout)."""

    async def run_stdio_streams(self, stdin: anyio.AsyncFile[str],
                                stdout: anyio.AsyncFile[str]) -> None:
        """Serve one client on ``stdin``/``stdout`` until ``stdin`` ends."""
        server = self._lowlevel_server
        async with stdio_server(stdin, stdout) as (read, write):
            await server.run(read, write, server.create_initialization_options())


def build_mcp(memory_for: MemoryFor) -> McpServer:
    """An MCP server whose tools act on ``memory_for(request)``: served over stdio by
    ``memstrata mcp`` (``_mcp_stdio``), mounted at ``/mcp`` of the service (``_mcp_http``)."""
    handlers = _Handlers(memory_for)
    server = McpServer(SERVER_NAME, version=_version(), instructions=_INSTRUCTIONS,
                       log_level="WARNING", middleware=[_Definitions(memory_for)])
    server.add_tool(handlers.context)
    server.add_tool(handlers.remember)
    server.add_tool(handlers.chat_history)
    server.add_tool(handlers.error_history)
    server.add_tool(handlers.write_error)
    return server



def _version() -> str:
    try:
        return version("memstrata")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"
