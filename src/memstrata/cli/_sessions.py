"""The commands that write, read and manage sessions: each is one ``Memory`` call."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shlex
from datetime import datetime
from enum import StrEnum
from typing import Annotated, cast
from zoneinfo import ZoneInfo

import typer
from rich.table import Table
from rich.text import Text

from .._context import Context, format_time
from ..client import MemoryAPI
from ..errors import InvalidInput
from ..store import check_file
from ..types import Hit, MatchMode, Message, Role, TimeRange
from ._app import app, asks, confirm, emit_json, err, exits, fail, get_state, out, run
from ._index import catch_up
from ._lookup import Missing, lookup, missing
from ._render import (
    context_json,
    hit_json,
    hits_table,
    kv_table,
    message_json,
    print_summary,
    print_window,
)

__all__ = ["Format", "ResetMode"]


class Format(StrEnum):
    """Output formats of ``context``."""

    text = "text"
    openai = "openai"
    anthropic = "anthropic"


class ResetMode(StrEnum):
    """What ``reset`` keeps."""

    summary = "summary"
    all = "all"


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
    state = get_state(ctx)

    async def work(mem: MemoryAPI) -> Message:
        return await mem.add(session, cast("Role", role), text, sender=sender,
                             at=_parse_at(at, state.tz()))

    m = run(state, work)
    if state.json:
        emit_json(message_json(m, state.tz()))
    else:
        out().print(f"added #{m.id} to {m.session} at {format_time(m.at, state.tz())}")


# -- reads ---------------------------------------------------------------------------------


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
    state = get_state(ctx)

    async def work(mem: MemoryAPI) -> tuple[Context, Missing | None]:
        shown = await mem.context(session, query=query)
        empty = not shown.messages and shown.summary is None
        return shown, await missing(mem, session) if empty else None

    ctx_, gone = run(state, work)
    if gone is not None:
        gone.warn()  # the empty context below is still the right answer for a new session
    if fmt is Format.openai:
        emit_json(ctx_.to_openai())
    elif fmt is Format.anthropic:
        emit_json(ctx_.to_anthropic())
    elif state.json:
        emit_json(context_json(ctx_, state.tz()))
    else:
        console = out()
        print_window(console, ctx_)
        if ctx_.turn_context is not None:
            console.rule("summary")
            print_summary(console, ctx_)
        if ctx_.unsummarized:
            console.print(Text(f"{ctx_.unsummarized:,} older message"
                               f"{'s are' if ctx_.unsummarized != 1 else ' is'} not in the "
                               f"summary yet: memstrata summarize {session}", style="yellow"),
                          soft_wrap=True)


def _split_words(words: list[str], all_: bool) -> tuple[str | None, str]:
    if all_ and len(words) != 1:
        fail("query: with --all give only the query (quoted if it has spaces), no session")
    if not all_ and len(words) != 2:
        fail("query: give a SESSION and a QUERY (quoted if it has spaces), or --all and a "
             "QUERY")
    return (None, words[0]) if all_ else (words[0], words[1])


def _within(time_range: str) -> str:
    """The time range of an empty search result, said (nothing for ``all``)."""
    spans = {"1d": "day", "7d": "7 days", "1m": "30 days", "1y": "year"}
    if time_range not in spans:
        return ""
    return f" in the last {spans[time_range]} (--time-range {time_range})"


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
    exclude_window: Annotated[bool, typer.Option(
        "--exclude-window", help="Leave the context window (the session's last messages) out "
                                 "of semantic matching, as the chat_history tool does.")
    ] = False,
) -> None:
    """Search a session's history (or every session with --all).

    Semantic and hybrid search first index any messages still waiting for it (the first
    embedding loads the local model: about a second).
    """
    state = get_state(ctx)
    session, query = _split_words(words, all_)
    mode = match
    gone: Missing | None = None
    pending = 0

    async def work(mem: MemoryAPI) -> list[Hit]:
        nonlocal gone, pending
        gone = await missing(mem, session) if session is not None else None
        if mem.embedder is not None and mode != "keyword" and gone is None:
            await catch_up(mem, quiet=state.json, strict=mode == "semantic")
        hits = await mem.search(session, query, match=cast("MatchMode | None", mode),
                                time_range=cast("TimeRange", time_range),
                                limit=limit, exclude_window=exclude_window)
        if not hits and mem.embedder is not None and mode != "keyword":
            pending = await mem.index_backlog(session)  # indexing failed or fell behind
        return hits

    hits = run(state, work)
    if gone is not None:
        gone.warn()
    tz = state.tz()
    if state.json:
        emit_json([hit_json(h, tz) for h in hits])
    elif not hits and pending:
        out().print(f"no messages match {query!r}{_within(time_range)} yet: indexing is "
                    f"pending for {pending} message(s), which search by meaning cannot see "
                    "until they are embedded; search again later, or use --match keyword")
    elif not hits:
        out().print(f"no messages match {query!r}{_within(time_range)}")
    else:
        out().print(hits_table(hits, tz, show_session=session is None))


@app.command()
def sessions(ctx: typer.Context) -> None:
    """List the tenant's sessions, newest activity first."""
    state = get_state(ctx)
    rows = run(state, lambda mem: mem.sessions())
    tz = state.tz()
    if state.json:
        emit_json([dataclasses.asdict(s) for s in rows])
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
    out().print(table if rows else "no sessions")


@app.command()
def stats(ctx: typer.Context,
          session: Annotated[str, typer.Argument(help="Session id.")]) -> None:
    """Counts, hot tier, cutoff, summary cursor and cost of one session."""
    state = get_state(ctx)
    st = run(state, lambda mem: lookup(mem, session))
    if isinstance(st, Missing):
        st.fail()
    data = dataclasses.asdict(st)
    if state.json:
        emit_json(data)
        return
    out().print(kv_table(data.items()))


@app.command()
def summarize(ctx: typer.Context,
              session: Annotated[str, typer.Argument(help="Session id.")]) -> None:
    """Bring the session's summary up to date and print it.

    With a summary model (summary_model, llm_base_url, llm_api_key) every message after the
    summary's cursor is merged by the model; without one the summary is a digest of the
    messages older than the context window. A failing model exits with 1; the chunks merged
    before the failure stay saved.
    """
    state = get_state(ctx)
    body = run(state, lambda mem: mem.summarize(session))
    if state.json:
        emit_json({"session": session, "summary": body})
    elif body is None:
        out().print("no summary: nothing older than the context window yet")
    elif set(body) == {"text"}:
        out().print(Text(str(body["text"])), soft_wrap=True)
    else:
        out().print(Text(json.dumps(body, ensure_ascii=False, indent=2)), soft_wrap=True)


_YES = typer.Option("--yes", "-y", help="Do not ask for confirmation (asked only when stdin "
                                         "is a terminal).")


def _counted(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


@app.command()
def reset(ctx: typer.Context,
          session: Annotated[str, typer.Argument(help="Session id.")],
          mode: Annotated[ResetMode, typer.Option(help="summary: summarise, then delete the "
                                                       "messages and keep the summary; all: "
                                                       "delete both.")] = ResetMode.summary,
          yes: Annotated[bool, _YES] = False,
          ) -> None:
    """Delete a session's messages (keeping its summary unless --mode all)."""
    state = get_state(ctx)
    # Looked up first on a terminal and in a script alike: a misspelled session is an error
    # (exit 2, naming the sessions it may have meant), never a quiet success.
    found = run(state, lambda mem: lookup(mem, session))
    if isinstance(found, Missing):
        found.fail()
    if asks(yes):
        what = _counted(found.messages, "message")
        summary = " and its summary" if found.summary_kind is not None else ""
        confirm(f"Reset session {session!r}: summarise it, then delete its {what} (the summary "
                "stays)?" if mode is ResetMode.summary else
                f"Reset session {session!r}: delete its {what}{summary}?")
    run(state, lambda mem: mem.reset(session, mode=mode.value))
    if state.json:
        emit_json({"session": session, "reset": mode.value})
    else:
        out().print(f"reset {session} (mode {mode.value})")


@app.command()
def remove(ctx: typer.Context,
           session: Annotated[str, typer.Argument(help="Session id.")],
           yes: Annotated[bool, _YES] = False) -> None:
    """Delete a session from every stratum."""
    state = get_state(ctx)
    found = run(state, lambda mem: lookup(mem, session))
    if isinstance(found, Missing):
        found.fail()
    if asks(yes):
        summary = " and its summary" if found.summary_kind is not None else ""
        confirm(f"Remove session {session!r}: delete its "
                f"{_counted(found.messages, 'message')}{summary} from every stratum?")
    if not run(state, lambda mem: mem.remove(session)):
        fail(f"session: no session {session!r} in tenant {state.tenant!r}")
    if state.json:
        emit_json({"removed": session})
    else:
        out().print(f"removed {session}")


@app.command()
def forget(ctx: typer.Context,
           message_id: Annotated[int, typer.Argument(metavar="ID", help="Message id.")]) -> None:
    """Remove one message from every stratum (a summary that absorbed it is kept)."""
    state = get_state(ctx)
    if not run(state, lambda mem: mem.forget(message_id)):
        fail(f"id: no message #{message_id} in tenant {state.tenant!r}")
    if state.json:
        emit_json({"forgotten": message_id})
    else:
        out().print(f"forgot #{message_id}")


@app.command()
def check(ctx: typer.Context) -> None:
    """Check the database's integrity (exit code 1 when a problem is found).

    Names each damaged table, index and full-text index. The file is only read (never
    migrated), so this works on a file too damaged to open; salvage copies out what is left.
    """
    state = get_state(ctx)
    where = state.target()
    with exits():
        problems = asyncio.run(check_file(where))
    if state.json:
        emit_json({"ok": not problems, "problems": problems})
    elif problems:
        for p in problems:
            err().print(Text(p, style="red"), soft_wrap=True)
        err().print(Text("to copy every record that can still be read into a new file: "
                         f"memstrata salvage {shlex.quote(where)} NEW.db", style="yellow"),
                    soft_wrap=True)
    else:
        out().print("ok")
    if problems:
        raise typer.Exit(1)
