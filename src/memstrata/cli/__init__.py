"""The ``memstrata`` command line: each command is one ``Memory`` call (or a loop of them).

Global options pick the database (or, with ``--server``, a memstrata server, which the same
commands reach through ``memstrata.client``), tenant and settings; ``--json`` (before or after
the command) switches every command to machine-readable output on stdout and JSON lines on
stderr. Bad input exits with code 2 and a one-line error on stderr; a failing model, database
or integrity check exits with 1.

The commands live in the private modules of this package, which register on the shared app
when imported here, in the order ``--help`` lists them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import _errors, _keys, _mcp, _migrate, _serve, _sessions, _transfer, _worker
from ._app import KEY_ENV, URL_ENV, State, app
from ._demo import DEMO_SESSION, demo_records

__all__ = ["DEMO_SESSION", "app", "demo_records", "main"]

# Imported for their commands; named so linters see them used.
_COMMAND_MODULES = (_sessions, _transfer, _errors, _worker, _mcp, _serve, _keys, _migrate)


@app.callback()
def _options(
    ctx: typer.Context,
    db: Annotated[str | None, typer.Option(
        "--db", metavar="TARGET",
        help="Database file, sqlite:/// URL or postgresql:// URL [default: $MEMSTRATA_DB, else "
             "memory.db in the user data directory]", show_default=False)] = None,
    tenant: Annotated[str, typer.Option(metavar="NAME",
                                        help="Tenant (namespace) to work in.")] = "default",
    config: Annotated[Path | None, typer.Option(
        "--config", metavar="FILE.toml", help="Settings file; MEMSTRATA_* variables override it.",
        dir_okay=False)] = None,
    no_embedder: Annotated[bool, typer.Option(
        "--no-embedder", help="No embedding model: keyword search only (same as "
                              "MEMSTRATA_EMBEDDER=none).")] = False,
    json_: Annotated[bool, typer.Option(
        "--json", help="Machine-readable JSON output, errors included (here or after the "
                       "command).")] = False,
    server: Annotated[str | None, typer.Option(
        "--server", metavar="URL", envvar=URL_ENV, show_envvar=False,
        help=f"Talk to a memstrata server instead of a database file (same commands, same "
             f"output) [default: ${URL_ENV}]", show_default=False)] = None,
    key: Annotated[str | None, typer.Option(
        "--key", metavar="KEY", envvar=KEY_ENV, show_envvar=False,
        help=f"API key for --server; it chooses the tenant [default: ${KEY_ENV}]",
        show_default=False)] = None,
) -> None:
    """Layered long-term conversation memory for LLM agents (embedded SQLite, offline)."""
    def given(name: str, how: str) -> bool:
        source = ctx.get_parameter_source(name)
        return source is not None and source.name == how

    ctx.obj = State(db=db, tenant=tenant, config=config, json=json_, no_embedder=no_embedder,
                    server=server or None, key=key or None,
                    server_from_env=given("server", "ENVIRONMENT"),
                    tenant_given=not given("tenant", "DEFAULT"))


def main() -> None:
    """Entry point of the ``memstrata`` script and ``python -m memstrata``."""
    app(prog_name="memstrata")
