"""``memstrata mcp``: the tools over the Model Context Protocol, on stdin and stdout.

An MCP client (Claude Desktop, Claude Code, Cursor, an agent framework) starts this command
and talks to it over its stdin and stdout, which carry nothing but the protocol; notes and
logs go to stderr. The MCP server lives in :mod:`memstrata.server`, which needs the
``server`` extra; it is imported only when the command runs.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from ._app import app, exits, fail, get_state

__all__: list[str] = []

_EXTRA_HINT = "pip install 'memstrata[server]'"


@app.command("mcp")
def mcp_command(
    ctx: typer.Context,
    db: Annotated[str | None, typer.Option(
        "--db", metavar="TARGET", help="Database file, sqlite:/// or postgresql:// URL (as the "
        "global --db).",
        show_default=False)] = None,
    tenant: Annotated[str | None, typer.Option(
        "--tenant", metavar="NAME", help="Tenant whose memory the tools use [default: the "
                                         "global --tenant, else default]",
        show_default=False)] = None,
) -> None:
    """Serve the memory tools to an MCP client over stdin/stdout.

    Tools: context, remember, chat_history, error_history and write_error. The client starts
    this command; it runs until the client closes its stdin.
    """
    state = get_state(ctx)
    try:
        from ..server._mcp_stdio import serve_stdio
    except ImportError as exc:
        fail(f"the MCP server needs the server extra ({exc.name or 'mcp'} is not installed): "
             f"{_EXTRA_HINT}", code=1, kind="MissingExtra")
    if db:
        state.db = db
    target = state.target()
    with exits():
        asyncio.run(serve_stdio(target, settings=state.settings(),
                                tenant=tenant or state.tenant))
