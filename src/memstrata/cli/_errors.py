"""``memstrata errors …``: the tenant's memory of tool errors and how they were handled."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from ..client import MemoryAPI
from ..types import ErrorRecord
from ._app import app, emit_json, fail, get_state, out, run
from ._render import error_json, errors_table, print_error_record

__all__ = ["errors_app"]

errors_app = typer.Typer(
    name="errors",
    help="Remember tool errors and their fixes; shared by every session of the tenant.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(errors_app)

_ID = typer.Argument(metavar="ID", help="The record id or a unique prefix of 8+ characters.",
                     show_default=False)


@errors_app.command()
def write(
    ctx: typer.Context,
    tool: Annotated[str, typer.Option(metavar="NAME", help="The tool that failed.",
                                      show_default=False)],
    keyword: Annotated[list[str], typer.Option(
        metavar="WORD", help="A keyword to find the record by (repeat the option for more).",
        show_default=False)],
    symptom: Annotated[str, typer.Option(metavar="TEXT", help="What went wrong, as seen.",
                                         show_default=False)],
    action: Annotated[str, typer.Option(metavar="TEXT", help="What was done about it.",
                                        show_default=False)],
    cause: Annotated[str | None, typer.Option(metavar="TEXT", help="Why it happened.")
                     ] = None,
    outcome: Annotated[str, typer.Option(
        metavar="OUTCOME", help="resolved, failed or abandoned.")] = "resolved",
) -> None:
    """Remember a tool error and what was done about it (searchable at once)."""
    state = get_state(ctx)

    async def work(mem: MemoryAPI) -> ErrorRecord:
        return await mem.errors.write(tool_name=tool, keywords=keyword, symptom=symptom,
                                      action=action, cause=cause, outcome=outcome)

    record = run(state, work)
    if state.json:
        emit_json(error_json(record, state.tz()))
    else:
        out().print(f"remembered {record.id} ({record.tool_name}, {record.outcome})")


@errors_app.command()
def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="Words, a phrase or an error "
                                                               "message.", show_default=False)],
    tool: Annotated[str | None, typer.Option(metavar="NAME", help="Only this tool's records.")
                    ] = None,
    limit: Annotated[int | None, typer.Option(
        metavar="N", help="Most records to return (1-16) [default: 4]")] = None,
) -> None:
    """Find records related to QUERY, best first (each one found is renewed for 90 days)."""
    state = get_state(ctx)
    found = run(state, lambda mem: mem.errors.search(query, tool=tool, limit=limit))
    if state.json:
        emit_json([error_json(r, state.tz()) for r in found])
    elif not found:
        out().print(f"no error records relate to {query!r}")
    else:
        out().print(errors_table(found, state.tz()))


@errors_app.command()
def read(ctx: typer.Context, record_id: Annotated[str, _ID]) -> None:
    """Show one record in full."""
    state = get_state(ctx)
    record = run(state, lambda mem: mem.errors.read(record_id))
    if record is None:
        fail(f"id: no error record {record_id!r} in tenant {state.tenant!r}")
    if state.json:
        emit_json(error_json(record, state.tz()))
    else:
        print_error_record(out(), record, state.tz())


@errors_app.command(name="list")
def list_(
    ctx: typer.Context,
    tool: Annotated[str | None, typer.Option(metavar="NAME", help="Only this tool's records.")
                    ] = None,
) -> None:
    """List the live records, newest first (listing does not renew them)."""
    state = get_state(ctx)
    records = run(state, lambda mem: mem.errors.list(tool=tool))
    if state.json:
        emit_json([error_json(r, state.tz()) for r in records])
    elif not records:
        out().print("no error records")
    else:
        out().print(errors_table(records, state.tz()))


@errors_app.command()
def delete(ctx: typer.Context, record_id: Annotated[str, _ID]) -> None:
    """Delete one record."""
    state = get_state(ctx)
    if not run(state, lambda mem: mem.errors.delete(record_id)):
        fail(f"id: no error record {record_id!r} in tenant {state.tenant!r}")
    if state.json:
        emit_json({"deleted": record_id})
    else:
        out().print(f"deleted {record_id}")


@errors_app.command()
def hint(
    ctx: typer.Context,
    tool: Annotated[str, typer.Argument(metavar="TOOL", help="The tool that just failed.",
                                        show_default=False)],
    error_text: Annotated[str, typer.Argument(metavar="ERROR_TEXT", help="Its error message.",
                                              show_default=False)],
) -> None:
    """Print what past records say about this failure, as a model would read it."""
    state = get_state(ctx)
    text = run(state, lambda mem: mem.errors.hint(tool, error_text))
    if state.json:
        emit_json({"tool": tool, "hint": text})
    elif text:
        out().print(Text(text), soft_wrap=True)
    else:
        out().print("no error records relate to this failure")
