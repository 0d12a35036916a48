"""The command line's shared parts: the typer app, the global options and running one call.

Every command module registers on :data:`app`; ``cli.py`` imports them all in the order the
help lists them. Bad input exits with code 2 and one red line on stderr; a failed provider,
database or integrity check exits with 1. With ``--json`` (accepted before or after the
command) every line memstrata writes on stderr is a JSON object instead: ``{"error": {"type",
"field", "message"}}``, ``{"warning": {…}}`` or ``{"note": {…}}``, with the same exit codes.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import json
import os
import re
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn, TypeVar
from zoneinfo import ZoneInfo

import platformdirs
import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

from ..client import MemoryAPI, RemoteMemory
from ..config import Settings
from ..errors import InvalidInput, MemstrataError, NotFound, ProviderError
from ..memory import Memory

__all__ = ["DB_ENV", "KEY_ENV", "URL_ENV", "State", "app", "asks", "confirm", "emit_json", "err",
           "exits", "fail", "get_state", "note", "one_line", "out", "run", "run_local", "warn"]

T = TypeVar("T")

DB_ENV = "MEMSTRATA_DB"
URL_ENV = "MEMSTRATA_URL"
KEY_ENV = "MEMSTRATA_KEY"


def _hoist_json(args: list[str]) -> tuple[list[str], bool]:
    """``--json`` wherever it was given (before a ``--``), moved in front of the command,
    where the global option is parsed: ``memstrata stats trip --json`` works too."""
    end = args.index("--") if "--" in args else len(args)
    if "--json" not in args[:end]:
        return args, False
    return ["--json", *(a for a in args[:end] if a != "--json"), *args[end:]], True


class _Group(TyperGroup):
    """The top-level group: takes ``--json`` after the command too, and in JSON mode reports
    command-line usage errors (unknown option, missing argument, bad choice) as JSON."""

    # Contexts are typed Any: their class lives in typer's private copy of click.
    def make_context(self, info_name: str | None, args: list[str], parent: Any = None,
                     **extra: Any) -> Any:
        as_json = False
        if parent is None:
            args, as_json = _hoist_json(list(args))
            _current.set(None)
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except typer.TyperException as exc:
            if as_json:
                _usage_error(exc)
            raise

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.TyperException as exc:
            if ctx.params.get("json_"):
                _usage_error(exc)
            raise


def _usage_error(exc: typer.TyperException) -> None:
    """A usage error as a JSON error line; help shown for missing arguments stays help."""
    if type(exc).__name__ == "NoArgsIsHelpError":
        return
    param = getattr(exc, "param", None)
    field = getattr(exc, "option_name", None)
    if param is not None:
        field = str(param.get_error_hint()).strip("'\"")
    _emit("error", code=exc.exit_code, type="UsageError", field=field,
          message=" ".join(exc.format_message().split()))


app = typer.Typer(
    name="memstrata",
    cls=_Group,
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
    server: str | None = None
    """``--server`` / ``$MEMSTRATA_URL``: the commands talk to this server, not a file."""
    key: str | None = None
    server_from_env: bool = False
    tenant_given: bool = False
    command: str = "memstrata"
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
        self.need_local()
        if self.db:
            return self.db
        if os.environ.get(DB_ENV):
            return os.environ[DB_ENV]
        folder = Path(platformdirs.user_data_dir("memstrata"))
        folder.mkdir(parents=True, exist_ok=True)
        return str(folder / "memory.db")

    def remote(self) -> bool:
        """Whether the commands talk to a server: ``--server``, or ``$MEMSTRATA_URL`` unless
        ``--db`` names a file on the command line (which then wins over the environment)."""
        return bool(self.server) and not (self.db and self.server_from_env)

    def need_local(self) -> None:
        """Refuse, with ``--server``, a command that works only on a database file here."""
        if self.remote():
            fail(f"{self.command} works on a local database file and has no remote "
                 f"equivalent; give --db PATH instead of --server (and unset {URL_ENV})",
                 field="--server", kind="InvalidInput")

    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.settings().timezone)

    def default_db(self) -> bool:
        """Whether the database is the default one (neither ``--db`` nor ``$MEMSTRATA_DB``)."""
        return not self.db and not os.environ.get(DB_ENV)


_current: contextvars.ContextVar[State | None] = contextvars.ContextVar("memstrata_cli_state",
                                                                         default=None)


def out() -> Console:
    """The console for results (created per call so test runners that swap stdout work)."""
    return Console(highlight=False)


def err() -> Console:
    """The console for errors, warnings and progress."""
    return Console(stderr=True, highlight=False)


def one_line(exc: BaseException) -> str:
    """An error's text on one line (provider errors may quote multi-line replies)."""
    return " ".join(str(exc).split())


# ``field: what is wrong``, as the commands spell the messages they fail with.
_FIELD_FIRST = re.compile(r"([A-Za-z_][\w.\-\[\]]*(?: \d+)?): (.+)", re.S)


def _json_mode() -> bool:
    state = _current.get()
    return state is not None and state.json


def _emit(kind: str, *, code: int | None = None, **data: Any) -> None:
    """One JSON object on stderr (``{kind: data}``); exits with ``code`` when one is given."""
    typer.echo(json.dumps({kind: data}, ensure_ascii=False), err=True)
    if code is not None:
        raise typer.Exit(code)


def fail(message: str, code: int = 2, *, field: str | None = None, kind: str | None = None,
         **data: Any) -> NoReturn:
    """Print ``error: [field: ]message`` in red on stderr (with ``--json``: ``{"error":
    {"type", "field", "message", …}}``) and exit with ``code``."""
    if field is None and kind is None and code == 2 and (split := _FIELD_FIRST.fullmatch(message)):
        field, message = split.group(1), split.group(2)
    if _json_mode():
        kind = kind or ("InvalidInput" if code == 2 else "Error")
        _emit("error", code=code, type=kind, field=field,
              message=message.removeprefix(f"{kind}: "), **data)
    line = f"{field}: {message}" if field else message
    err().print(Text(f"error: {line}", style="bold red"), soft_wrap=True)
    raise typer.Exit(code)


def warn(message: str, **data: Any) -> None:
    """One yellow line on stderr (``{"warning": …}`` with ``--json``); the command goes on."""
    if _json_mode():
        _emit("warning", message=message, **data)
    else:
        err().print(Text(f"warning: {message}", style="yellow"), soft_wrap=True)


def note(message: str, **data: Any) -> None:
    """Something the user should know, on stderr (``{"note": …}`` with ``--json``)."""
    if _json_mode():
        _emit("note", message=message, **data)
    else:
        err().print(Text(f"note: {message}", style="yellow"), soft_wrap=True)


def asks(yes: bool) -> bool:
    """Whether a destructive command asks first: only a person at a terminal is asked, and
    ``--yes`` skips it; a script (stdin not a terminal) goes ahead as it always did."""
    return not yes and sys.stdin.isatty()


def confirm(question: str) -> None:
    """Ask ``question [y/N]`` on stderr (stdout keeps only results); anything but yes, end of
    input included, exits with 1 having changed nothing."""
    sys.stderr.write(f"{question} [y/N]: ")
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        fail("aborted: nothing was changed", code=1, kind="Aborted")


def emit_json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


def get_state(ctx: typer.Context) -> State:
    state = ctx.find_object(State)
    assert state is not None, "the app callback always sets the state"
    state.command = ctx.command_path
    _current.set(state)
    return state


@contextlib.contextmanager
def exits() -> Iterator[None]:
    """Map memstrata's errors to exit codes: bad input and unknown things 2, the rest 1."""
    try:
        yield
    except InvalidInput as exc:
        fail(" ".join(exc.reason.split()), field=exc.field, kind=type(exc).__name__)
    except NotFound as exc:
        fail(one_line(exc), kind="NotFound")
    except ProviderError as exc:
        fail(f"model failed: {one_line(exc)}", code=1, kind=type(exc).__name__)
    except MemstrataError as exc:
        fail(f"{type(exc).__name__}: {one_line(exc)}", code=1, kind=type(exc).__name__)


def run(state: State, work: Callable[[MemoryAPI], Awaitable[T]]) -> T:
    """Run one call on the database (see :func:`run_local`), or on the server with
    ``--server``; errors map to exit codes the same way in both cases."""
    if not state.remote():
        return run_local(state, work)
    with exits():
        return asyncio.run(_remote(state, work))


async def _remote(state: State, work: Callable[[MemoryAPI], Awaitable[T]]) -> T:
    if state.db:
        raise InvalidInput("--db", "give --db (a database file here) or --server, not both")
    if not state.key:
        raise InvalidInput("--key", f"a server needs an API key: give --key or set {KEY_ENV} "
                                    "(memstrata keys create prints one)")
    async with RemoteMemory.open(state.server or "", state.key,
                                 settings=state.settings()) as mem:
        if state.tenant_given and state.tenant != mem.tenant:
            raise InvalidInput("--tenant", f"the key belongs to tenant {mem.tenant!r}, not "
                                           f"{state.tenant!r} (on a server the key chooses "
                                           "the tenant)")
        state.tenant = mem.tenant  # messages name the tenant the server answered for
        return await work(mem)


def run_local(state: State, work: Callable[[Memory], Awaitable[T]], *,
              target: str | None = None) -> T:
    """Open the database without background work, run one call, map errors to exit codes.

    The configured embedder and LLMs are used; the local embedding model loads only when
    something is embedded (a semantic search, an error record, indexing), never to open.
    The command that creates the default database says where it is (once: it exists after).
    """
    state.need_local()
    where = target or state.target()
    creates = target is None and state.default_db() and not os.path.exists(where)

    async def go() -> T:
        async with Memory.open(where, settings=state.settings(), tenant=state.tenant,
                               background=False) as mem:
            return await work(mem)

    with exits():
        try:
            return asyncio.run(go())
        finally:  # before an error is printed, so the error stays the last line
            if creates and os.path.exists(where):
                note(f"created the memory database {where} (the default; choose another "
                     f"with --db or {DB_ENV})", db=where)
