"""How the command line shows things: JSON shapes and rich tables, no I/O of its own."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any
from zoneinfo import ZoneInfo

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .._context import Context, format_time
from ..types import ErrorRecord, Hit, Message

__all__ = ["context_json", "error_json", "errors_table", "hit_json", "hits_table",
           "kv_table", "message_json", "print_error_record", "print_summary", "print_window"]


def message_json(m: Message, tz: ZoneInfo) -> dict[str, Any]:
    return {**dataclasses.asdict(m), "time": format_time(m.at, tz)}


def hit_json(h: Hit, tz: ZoneInfo) -> dict[str, Any]:
    return {"rank": h.rank, "score": h.score, "source": h.source, "matched": h.matched,
            "message": message_json(h.message, tz)}


def context_json(ctx: Context, tz: ZoneInfo) -> dict[str, Any]:
    return {"session": ctx.session, "messages": [message_json(m, tz) for m in ctx.messages],
            "summary": ctx.summary, "summary_kind": ctx.summary_kind,
            "system_prompt": ctx.system_prompt, "turn_context": ctx.turn_context,
            "unsummarized": ctx.unsummarized}


def error_json(r: ErrorRecord, tz: ZoneInfo) -> dict[str, Any]:
    data = dataclasses.asdict(r)
    data["keywords"] = list(r.keywords)
    data["created"] = format_time(r.created_at, tz)
    data["expires"] = format_time(r.expires_at, tz)
    return data


def print_window(console: Console, ctx: Context) -> None:
    """The window as the model sees it: a ``[time · sender]`` header, then the text."""
    if not ctx.messages:
        console.print("(no messages)")
    for m, wire in zip(ctx.messages, ctx.window(), strict=True):
        head, _, body = wire["content"].partition("\n")
        style = "bold cyan" if m.role == "user" else "bold green"
        console.print(Text(f"#{m.id} {head}", style=style))
        console.print(Text(body), soft_wrap=True)


def print_summary(console: Console, ctx: Context) -> None:
    if ctx.turn_context is None:
        console.print("(no summary yet)")
        return
    console.print(Text("system prompt:", style="bold"))
    console.print(Text(ctx.system_prompt), soft_wrap=True)
    console.print(Text(f"turn context ({ctx.summary_kind}):", style="bold"))
    console.print(Text(ctx.turn_context["content"]), soft_wrap=True)


def hits_table(hits: list[Hit], tz: ZoneInfo, *, show_session: bool) -> Table:
    """Hits in chronological order; expansion neighbours show ``·`` instead of a rank."""
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
        table.add_row(*row, style=None if h.matched else "dim")
    return table


def kv_table(items: Iterable[tuple[str, Any]]) -> Table:
    """A two-column field/value table (``None`` shows as empty)."""
    table = Table(show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in items:
        table.add_row(key, "" if value is None else str(value))
    return table


def errors_table(records: list[ErrorRecord], tz: ZoneInfo) -> Table:
    table = Table()
    for name in ("id", "tool", "outcome", "keywords", "symptom", "hits", "expires"):
        table.add_column(name, overflow="fold")
    for r in records:
        table.add_row(r.id[:8], r.tool_name, r.outcome, ", ".join(r.keywords), r.symptom,
                      str(r.hits), format_time(r.expires_at, tz)[:10])
    return table


def print_error_record(console: Console, r: ErrorRecord, tz: ZoneInfo) -> None:
    console.print(kv_table([
        ("id", r.id), ("tool", r.tool_name), ("outcome", r.outcome),
        ("keywords", ", ".join(r.keywords)), ("symptom", r.symptom), ("cause", r.cause),
        ("action", r.action), ("hits", r.hits), ("created", format_time(r.created_at, tz)),
        ("expires", format_time(r.expires_at, tz))]))
