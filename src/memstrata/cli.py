"""The ``memstrata`` command line: each command is one ``Memory`` call.

Global options pick the database, tenant and settings; ``--json`` switches every command to
machine-readable output on stdout. Bad input exits with code 2 and a one-line error on stderr;
a failed integrity check exits with 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar
from zoneinfo import ZoneInfo

import platformdirs
import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from .config import Settings
from .context import Context, format_time
from .errors import InvalidInput, MemstrataError, NotFound
from .memory import Memory
from .types import Hit, Message

__all__ = ["app", "main"]

T = TypeVar("T")

DB_ENV = "MEMSTRATA_DB"
DEMO_SESSION = "demo-taiwan-trip"
_CHUNK = 1 << 20
# Below this size reading is instant; a progress bar would only flicker.
_PROGRESS_MIN_BYTES = 1 << 20

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


class Format(StrEnum):
    """Output formats of ``context``."""

    text = "text"
    openai = "openai"
    anthropic = "anthropic"


class ResetMode(StrEnum):
    """What ``reset`` keeps."""

    summary = "summary"
    all = "all"


@dataclasses.dataclass
class State:
    """The global options, resolved once per invocation."""

    db: str | None
    tenant: str
    config: Path | None
    json: bool
    _settings: Settings | None = None

    def settings(self) -> Settings:
        """TOML file first (if given), then ``MEMSTRATA_*`` variables on top."""
        if self._settings is None:
            base = Settings.from_toml(self.config) if self.config is not None else None
            self._settings = Settings.from_env(base=base)
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


# -- plumbing ------------------------------------------------------------------------------


def _out() -> Console:
    # Created per call so that test runners that swap sys.stdout are honoured.
    return Console(highlight=False)


def _err() -> Console:
    return Console(stderr=True, highlight=False)


def _fail(message: str, code: int = 2) -> NoReturn:
    _err().print(Text(f"error: {message}", style="bold red"), soft_wrap=True)
    raise typer.Exit(code)


def _emit_json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


def _state(ctx: typer.Context) -> State:
    state = ctx.find_object(State)
    assert state is not None, "the app callback always sets the state"
    return state


def _run(state: State, work: Callable[[Memory], Awaitable[T]], *,
         target: str | None = None) -> T:
    """Open the database (no background work), run one call, map errors to exit codes."""
    async def go() -> T:
        # One-shot commands run no background indexer, so vectors would never be written or
        # read here: keyword search only, and the embedding model is never loaded.
        async with Memory.open(target or state.target(), settings=state.settings(),
                               tenant=state.tenant, background=False, embedder=None) as mem:
            return await work(mem)

    try:
        return asyncio.run(go())
    except (InvalidInput, NotFound) as exc:
        _fail(str(exc))
    except MemstrataError as exc:
        _fail(f"{type(exc).__name__}: {exc}", code=1)


def _message_json(m: Message, tz: ZoneInfo) -> dict[str, Any]:
    return {**dataclasses.asdict(m), "time": format_time(m.at, tz)}


def _hit_json(h: Hit, tz: ZoneInfo) -> dict[str, Any]:
    return {"rank": h.rank, "score": h.score, "source": h.source, "matched": h.matched,
            "message": _message_json(h.message, tz)}


# -- global options ------------------------------------------------------------------------


@app.callback()
def _options(
    ctx: typer.Context,
    db: Annotated[str | None, typer.Option(
        "--db", metavar="PATH",
        help="Database file or sqlite:/// URL [default: $MEMSTRATA_DB, else memory.db in the "
             "user data directory]", show_default=False)] = None,
    tenant: Annotated[str, typer.Option(metavar="NAME",
                                        help="Tenant (namespace) to work in.")] = "default",
    config: Annotated[Path | None, typer.Option(
        "--config", metavar="FILE.toml", help="Settings file; MEMSTRATA_* variables override it.",
        dir_okay=False)] = None,
    json_: Annotated[bool, typer.Option("--json", help="Machine-readable JSON output.")] = False,
) -> None:
    """Layered long-term conversation memory for LLM agents (embedded SQLite, offline)."""
    ctx.obj = State(db=db, tenant=tenant, config=config, json=json_)


# -- writes --------------------------------------------------------------------------------


def _parse_at(value: str | None, tz: ZoneInfo) -> int | None:
    """``--at``: Unix nanoseconds, or an ISO 8601 time (without an offset: in the timezone)."""
    if value is None:
        return None
    if value.strip().lstrip("-").isdigit():
        return int(value)
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise InvalidInput("--at", "must be Unix nanoseconds or an ISO 8601 time such as "
                           f"2025-04-12T14:30; got {value!r}") from exc
    if when.tzinfo is None:
        when = when.replace(tzinfo=tz)
    return int(when.timestamp()) * 10**9 + when.microsecond * 1000


@app.command()
def add(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="Session id.")],
    role: Annotated[str, typer.Argument(help="user or assistant.")],
    text: Annotated[str, typer.Argument(help="The message text.")],
    sender: Annotated[str | None, typer.Option(metavar="NAME",
                                               help="Display name of the author.")] = None,
    at: Annotated[str | None, typer.Option(
        metavar="TIME", help="When it was said: ISO 8601 (in the configured timezone unless "
                             "it has an offset) or Unix nanoseconds. Default: now.")] = None,
) -> None:
    """Store one message."""
    state = _state(ctx)

    async def work(mem: Memory) -> Message:
        return await mem.add(session, role, text, sender=sender, at=_parse_at(at, state.tz()))

    m = _run(state, work)
    if state.json:
        _emit_json(_message_json(m, state.tz()))
    else:
        _out().print(f"added #{m.id} to {m.session} at {format_time(m.at, state.tz())}")


# -- reads ---------------------------------------------------------------------------------


def _print_window(console: Console, ctx_: Context) -> None:
    """The window as the model sees it: a ``[time · sender]`` header, then the text."""
    if not ctx_.messages:
        console.print("(no messages)")
    for m, wire in zip(ctx_.messages, ctx_.window(), strict=True):
        head, _, body = wire["content"].partition("\n")
        style = "bold cyan" if m.role == "user" else "bold green"
        console.print(Text(f"#{m.id} {head}", style=style))
        console.print(Text(body), soft_wrap=True)


def _print_summary(console: Console, ctx_: Context) -> None:
    if ctx_.turn_context is None:
        console.print("(no summary yet)")
        return
    console.print(Text("system prompt:", style="bold"))
    console.print(Text(ctx_.system_prompt), soft_wrap=True)
    console.print(Text(f"turn context ({ctx_.summary_kind}):", style="bold"))
    console.print(Text(ctx_.turn_context["content"]), soft_wrap=True)


def _context_json(ctx_: Context, tz: ZoneInfo) -> dict[str, Any]:
    return {"session": ctx_.session, "messages": [_message_json(m, tz) for m in ctx_.messages],
            "summary": ctx_.summary, "summary_kind": ctx_.summary_kind,
            "system_prompt": ctx_.system_prompt, "turn_context": ctx_.turn_context}


@app.command()
def context(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="Session id.")],
    query: Annotated[str | None, typer.Option(
        metavar="TEXT", help="The new user input (selects what of the summary is relevant).")
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", help="text, or the wire format to send.")
                   ] = Format.text,
) -> None:
    """Show the context window and summary to send before the next user input."""
    state = _state(ctx)
    ctx_ = _run(state, lambda mem: mem.context(session, query=query))
    if fmt is Format.openai:
        _emit_json(ctx_.to_openai())
    elif fmt is Format.anthropic:
        _emit_json(ctx_.to_anthropic())
    elif state.json:
        _emit_json(_context_json(ctx_, state.tz()))
    else:
        console = _out()
        _print_window(console, ctx_)
        if ctx_.turn_context is not None:
            console.rule("summary")
            _print_summary(console, ctx_)


def _hits_table(hits: list[Hit], tz: ZoneInfo, *, show_session: bool) -> Table:
    table = Table(show_lines=False, expand=False)
    table.add_column("rank", justify="right")
    table.add_column("#id", justify="right")
    if show_session:
        table.add_column("session")
    table.add_column("time · sender", no_wrap=True)
    table.add_column("text", overflow="fold")
    for h in hits:
        m = h.message
        row = [str(h.rank) if h.rank is not None else "·", str(m.id)]
        if show_session:
            row.append(m.session)
        row += [f"{format_time(m.at, tz)} · {m.sender or m.role}", m.content]
        table.add_row(*row)
    return table


@app.command()
def search(
    ctx: typer.Context,
    words: Annotated[list[str], typer.Argument(
        metavar="[SESSION] QUERY", show_default=False,
        help="Session id, then the query (quote it if it has spaces); only the query with "
             "--all.")],
    all_: Annotated[bool, typer.Option("--all", help="Search every session of the tenant.")
                    ] = False,
    match: Annotated[str | None, typer.Option(
        metavar="MODE", help="keyword, semantic or hybrid [default: hybrid with an embedder, "
                             "else keyword]")] = None,
    time_range: Annotated[str, typer.Option(metavar="RANGE",
                                            help="1d, 7d, 1m, 1y or all.")] = "all",
    limit: Annotated[int | None, typer.Option(
        metavar="N", help="Most matches to return (1-32) [default: 8]")] = None,
) -> None:
    """Search a session's history (or every session with --all)."""
    state = _state(ctx)
    if all_ and len(words) != 1:
        _fail("query: with --all give only the query (quoted if it has spaces), no session")
    if not all_ and len(words) != 2:
        _fail("query: give a SESSION and a QUERY (quoted if it has spaces), or --all and a "
              "QUERY")
    session, query = (None, words[0]) if all_ else (words[0], words[1])
    hits = _run(state, lambda mem: mem.search(session, query, match=match,
                                              time_range=time_range, limit=limit))
    tz = state.tz()
    if state.json:
        _emit_json([_hit_json(h, tz) for h in hits])
    elif not hits:
        _out().print(f"no messages match {query!r}")
    else:
        _out().print(_hits_table(hits, tz, show_session=session is None))


@app.command()
def sessions(ctx: typer.Context) -> None:
    """List the tenant's sessions, newest activity first."""
    state = _state(ctx)
    rows = _run(state, lambda mem: mem.sessions())
    tz = state.tz()
    if state.json:
        _emit_json([dataclasses.asdict(s) for s in rows])
        return
    table = Table()
    for name, justify in (("session", "left"), ("messages", "right"), ("first", "left"),
                          ("last", "left"), ("summary", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in rows:
        table.add_row(s.id, str(s.messages),
                      format_time(s.first_at, tz) if s.first_at is not None else "",
                      format_time(s.last_at, tz) if s.last_at is not None else "",
                      "yes" if s.has_summary else "")
    _out().print(table if rows else "no sessions")


@app.command()
def stats(ctx: typer.Context,
          session: Annotated[str, typer.Argument(help="Session id.")]) -> None:
    """Counts, hot tier, cutoff, summary cursor and cost of one session."""
    state = _state(ctx)
    st = _run(state, lambda mem: mem.stats(session))
    data = dataclasses.asdict(st)
    if state.json:
        _emit_json(data)
        return
    table = Table(show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    for key, value in data.items():
        table.add_row(key, "" if value is None else str(value))
    _out().print(table)


@app.command()
def summarize(ctx: typer.Context,
              session: Annotated[str, typer.Argument(help="Session id.")]) -> None:
    """Bring the session's summary up to date (a digest when no LLM is configured)."""
    state = _state(ctx)
    body = _run(state, lambda mem: mem.summarize(session))
    if state.json:
        _emit_json({"session": session, "summary": body})
    elif body is None:
        _out().print("no summary: nothing older than the context window yet")
    elif set(body) == {"text"}:
        _out().print(Text(str(body["text"])), soft_wrap=True)
    else:
        _out().print(Text(json.dumps(body, ensure_ascii=False, indent=2)), soft_wrap=True)


@app.command()
def reset(ctx: typer.Context,
          session: Annotated[str, typer.Argument(help="Session id.")],
          mode: Annotated[ResetMode, typer.Option(help="summary: summarise, then delete the "
                                                       "messages and keep the summary; all: "
                                                       "delete both.")] = ResetMode.summary,
          ) -> None:
    """Delete a session's messages (keeping its summary unless --mode all)."""
    state = _state(ctx)
    _run(state, lambda mem: mem.reset(session, mode=mode.value))
    if state.json:
        _emit_json({"session": session, "reset": mode.value})
    else:
        _out().print(f"reset {session} (mode {mode.value})")


@app.command()
def remove(ctx: typer.Context,
           session: Annotated[str, typer.Argument(help="Session id.")]) -> None:
    """Delete a session from every stratum."""
    state = _state(ctx)
    if not _run(state, lambda mem: mem.remove(session)):
        _fail(f"session: no session {session!r} in tenant {state.tenant!r}")
    if state.json:
        _emit_json({"removed": session})
    else:
        _out().print(f"removed {session}")


@app.command()
def forget(ctx: typer.Context,
           message_id: Annotated[int, typer.Argument(metavar="ID", help="Message id.")]) -> None:
    """Remove one message from every stratum (a summary that absorbed it is kept)."""
    state = _state(ctx)
    if not _run(state, lambda mem: mem.forget(message_id)):
        _fail(f"id: no message #{message_id} in tenant {state.tenant!r}")
    if state.json:
        _emit_json({"forgotten": message_id})
    else:
        _out().print(f"forgot #{message_id}")


@app.command()
def check(ctx: typer.Context) -> None:
    """Check the database's integrity (exit code 1 when a problem is found)."""
    state = _state(ctx)
    problems = _run(state, lambda mem: mem.check())
    if state.json:
        _emit_json({"ok": not problems, "problems": problems})
    elif problems:
        for p in problems:
            _err().print(Text(p, style="red"), soft_wrap=True)
    else:
        _out().print("ok")
    if problems:
        raise typer.Exit(1)


# -- import / export -----------------------------------------------------------------------


def _progress(state: State, size: int) -> Progress:
    console = _err()
    quiet = state.json or size < _PROGRESS_MIN_BYTES or not console.is_terminal
    return Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                    console=console, transient=True, disable=quiet)


def _read_source(source: str, progress: Progress) -> bytes:
    """The whole input, with a progress bar over the bytes read from a file."""
    if source == "-":
        return sys.stdin.buffer.read()
    path = Path(source)
    try:
        task = progress.add_task("reading", total=path.stat().st_size)
        chunks = []
        with path.open("rb") as f:
            while chunk := f.read(_CHUNK):
                chunks.append(chunk)
                progress.advance(task, len(chunk))
    except OSError as exc:
        raise InvalidInput("FILE", f"cannot read {source!r}: {exc.strerror or exc}") from exc
    return b"".join(chunks)


def _lines(data: bytes, progress: Progress) -> Iterator[str]:
    """JSONL lines, decoded one by one so a bad byte is reported with its line number.

    The core validates them as it consumes this iterator, which moves the progress bar.
    """
    task = progress.add_task("validating", total=len(data))
    for number, raw in enumerate(data.split(b"\n"), start=1):
        progress.advance(task, len(raw) + 1)
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"line {number}", f"is not UTF-8 text (byte {exc.start + 1})"
                               ) from exc


def _is_history_array(data: bytes) -> bool:
    return data.lstrip()[:1] == b"["


@app.command(name="import")
def import_(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="Session id to import into.")],
    file: Annotated[str, typer.Argument(
        metavar="FILE", help="JSONL as written by export, or a history array "
                             "[{role, content, sendAt, sender}]; - reads stdin.")],
) -> None:
    """Import messages (all or nothing); a bad record is reported by line or index."""
    state = _state(ctx)
    size = 0 if file == "-" else (Path(file).stat().st_size if Path(file).is_file() else 0)
    with _progress(state, size) as progress:
        try:
            data = _read_source(file, progress)
        except InvalidInput as exc:
            _fail(str(exc))
        history = _is_history_array(data)

        async def work(mem: Memory) -> int:
            if history:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise InvalidInput("history", f"is not UTF-8 text (byte {exc.start + 1})"
                                       ) from exc
                return await mem.import_history(session, text)
            return await mem.import_(session, _lines(data, progress))

        count = _run(state, work)
    kind = "history array" if history else "jsonl"
    if state.json:
        _emit_json({"session": session, "imported": count, "format": kind})
    else:
        _out().print(f"imported {count} messages into {session} ({kind})")


@app.command()
def export(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="Session id.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", metavar="FILE", dir_okay=False,
                                                help="Write here instead of stdout.")] = None,
) -> None:
    """Write a session as JSONL: its messages, oldest first, then its summary."""
    state = _state(ctx)

    async def work(mem: Memory) -> int:
        count = 0
        sink_cm = (output.open("w", encoding="utf-8") if output is not None
                   else contextlib.nullcontext(sys.stdout))
        with sink_cm as sink:
            async for record in mem.export(session):
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
        return count

    count = _run(state, work)
    if count == 0:
        _err().print(Text(f"note: session {session!r} has nothing to export", style="yellow"))
    if output is not None:
        if state.json:
            _emit_json({"session": session, "records": count, "file": str(output)})
        else:
            _out().print(f"exported {count} records of {session} to {output}")



# -- demo ----------------------------------------------------------------------------------

DEMO_QUERIES = ("train", "night market", "花蓮", '"AND" OR (')


@dataclasses.dataclass
class _DemoRun:
    loaded: int
    before: Context
    after: Context
    searches: list[tuple[str, list[Hit]]]
    stats: dict[str, Any]


def demo_records() -> list[str]:
    """The bundled sample conversation, as JSONL lines in the export format."""
    text = resources.files("memstrata").joinpath("data/demo.jsonl").read_text("utf-8")
    return text.splitlines()


async def _demo_steps(mem: Memory) -> _DemoRun:
    # The demo owns its session: a re-run replaces it rather than doubling it.
    await mem.remove(DEMO_SESSION)
    loaded = await mem.import_(DEMO_SESSION, demo_records())
    before = await mem.context(DEMO_SESSION)
    await mem.summarize(DEMO_SESSION)
    after = await mem.context(DEMO_SESSION)
    searches = [(q, await mem.search(DEMO_SESSION, q, limit=3)) for q in DEMO_QUERIES]
    stats_ = dataclasses.asdict(await mem.stats(DEMO_SESSION))
    return _DemoRun(loaded=loaded, before=before, after=after, searches=searches,
                    stats=stats_)


def _print_demo(run: _DemoRun, target: str, tz: ZoneInfo, *, saved: bool) -> None:
    console = _out()
    console.rule("[bold]memstrata demo")
    console.print(f"Loaded {run.loaded} messages (English and Traditional Chinese) into session "
                  f"{DEMO_SESSION!r} of {target}", soft_wrap=True)
    console.rule(f"[bold]1. Context window: the last {len(run.before.messages)} messages")
    _print_window(console, run.before)
    console.rule("[bold]2. Summarize (no LLM configured: a digest of the older messages)")
    _print_summary(console, _clipped(run.after, 12))
    console.rule("[bold]3. Search (keyword: BM25 over the archive + CJK bigrams)")
    for query, hits in run.searches:
        console.print(Text(f"search {query!r}: {len(hits)} hits", style="bold"))
        if hits:
            console.print(_hits_table(hits, tz, show_session=False))
    console.rule("[bold]4. Stats")
    table = Table(show_header=False)
    for key, value in run.stats.items():
        table.add_row(key, "" if value is None else str(value))
    console.print(table)
    if saved:
        console.print(f"Try it yourself: memstrata --db {target} search {DEMO_SESSION} Taroko",
                      soft_wrap=True)
    else:
        console.print("The database was temporary; run `memstrata --db demo.db demo` to keep "
                      "it and explore with the other commands.", soft_wrap=True)


def _clipped(ctx_: Context, lines: int) -> Context:
    """The context with its turn context cut to ``lines`` lines, for display only."""
    if ctx_.turn_context is None:
        return ctx_
    content = ctx_.turn_context["content"].splitlines()
    if len(content) <= lines:
        return ctx_
    shown = [*content[:lines], f"… ({len(content) - lines} more lines)"]
    return dataclasses.replace(ctx_, turn_context={**ctx_.turn_context,
                                                   "content": "\n".join(shown)})


def _demo_json(run: _DemoRun, target: str, tz: ZoneInfo) -> dict[str, Any]:
    return {"db": target, "session": DEMO_SESSION, "loaded": run.loaded,
            "context": _context_json(run.before, tz),
            "after_summarize": _context_json(run.after, tz),
            "searches": [{"query": q, "hits": [_hit_json(h, tz) for h in hits]}
                         for q, hits in run.searches],
            "stats": run.stats}


@app.command()
def demo(ctx: typer.Context) -> None:
    """Load a bundled bilingual conversation into a fresh database and show each stratum.

    Uses a temporary database unless --db is given (MEMSTRATA_DB is ignored here, so the
    demo never writes into your real memory by accident).
    """
    state = _state(ctx)
    with tempfile.TemporaryDirectory(prefix="memstrata-demo-") as tmp:
        target = state.db or str(Path(tmp) / "demo.db")
        run = _run(state, _demo_steps, target=target)
        if state.json:
            _emit_json(_demo_json(run, target, state.tz()))
        else:
            _print_demo(run, target if state.db else "a temporary database", state.tz(),
                        saved=state.db is not None)


def main() -> None:
    """Entry point of the ``memstrata`` script and ``python -m memstrata``."""
    app(prog_name="memstrata")
