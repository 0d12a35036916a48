"""The command line's shared parts: the typer app, the global options and running one call.

Every command module registers on :data:`app`; ``cli.py`` imports them all in the order the
help lists them. Bad input exits with code 2 and one red line on stderr; a failed provider,
database or integrity check exits with 1.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar
from zoneinfo import ZoneInfo

import platformdirs
import typer
from rich.console import Console
from rich.text import Text

from ..config import Settings
from ..errors import InvalidInput, MemstrataError, NotFound, ProviderError
from ..memory import Memory

__all__ = ["DB_ENV", "State", "app", "emit_json", "err", "fail", "get_state", "one_line",
           "out", "run", "warn"]

T = TypeVar("T")

DB_ENV = "MEMSTRATA_DB"

app = typer.Typer(
    name="memstrata",
    help="Layered long-term conversation memory for LLM agents (embedded SQLite, offline).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: stable text that docs/cli.md can show and a test can compare.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100,
                      "terminal_width": 100},
)


@dataclasses.dataclass
class State:
    """The global options, resolved once per invocation."""

    db: str | None
    tenant: str
    config: Path | None
    json: bool
    no_embedder: bool = False
    _settings: Settings | None = None

    def settings(self) -> Settings:
        """TOML file first (if given), then ``MEMSTRATA_*`` variables, then ``--no-embedder``."""
        if self._settings is None:
            base = Settings.from_toml(self.config) if self.config is not None else None
            chosen = Settings.from_env(base=base)
            if self.no_embedder:
                chosen = chosen.replace(embedder=None)
            self._settings = chosen
        return self._settings

    def target(self) -> str:
        """``--db``, else ``$MEMSTRATA_DB``, else ``memory.db`` in the user data directory."""
        if self.db:
            return self.db
        if os.environ.get(DB_ENV):
            return os.environ[DB_ENV]
        folder = Path(platformdirs.user_data_dir("memstrata"))
        folder.mkdir(parents=True, exist_ok=True)
        return str(folder / "memory.db")

    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.settings().timezone)


def out() -> Console:
    """The console for results (created per call so test runners that swap stdout work)."""
    return Console(highlight=False)


def err() -> Console:
    """The console for errors, warnings and progress."""
    return Console(stderr=True, highlight=False)


def one_line(exc: BaseException) -> str:
    """An error's text on one line (provider errors may quote multi-line replies)."""
    return " ".join(str(exc).split())


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` in red on stderr and exit with ``code``."""
    err().print(Text(f"error: {message}", style="bold red"), soft_wrap=True)
    raise typer.Exit(code)


def warn(message: str) -> None:
    """One yellow line on stderr; the command goes on."""
    err().print(Text(f"warning: {message}", style="yellow"), soft_wrap=True)


def emit_json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


def get_state(ctx: typer.Context) -> State:
    state = ctx.find_object(State)
    assert state is not None, "the app callback always sets the state"
    return state


def run(state: State, work: Callable[[Memory], Awaitable[T]], *,
        target: str | None = None) -> T:
    """Open the database without background work, run one call, map errors to exit codes.

    The configured embedder and LLMs are used; the local embedding model loads only when
    something is embedded (a semantic search, an error record, indexing), never to open.
    """
    async def go() -> T:
        async with Memory.open(target or state.target(), settings=state.settings(),
                               tenant=state.tenant, background=False) as mem:
            return await work(mem)

    try:
        return asyncio.run(go())
    except (InvalidInput, NotFound) as exc:
        fail(one_line(exc))
    except ProviderError as exc:
        fail(f"model failed: {one_line(exc)}", code=1)
    except MemstrataError as exc:
        fail(f"{type(exc).__name__}: {one_line(exc)}", code=1)
