"""``migrate``: a SQLite database copied into PostgreSQL with a progress bar, resumable and
verified (``memstrata.store.migrate`` does the work; this module shows it)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.text import Text

from ..store import migrate as migrate_database
from ..types import MigrationReport
from ._app import app, emit_json, err, exits, fail, get_state, out

__all__: list[str] = []


class _Bars:
    """One progress bar per table, added when the migration reaches it."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._tasks: dict[str, TaskID] = {}

    def __call__(self, table: str, done: int, total: int) -> None:
        if table not in self._tasks:
            self._tasks[table] = self._progress.add_task(table, total=total or None)
        self._progress.update(self._tasks[table], completed=done)


@app.command()
def migrate(
    ctx: typer.Context,
    source: Annotated[str, typer.Option(
        "--from", metavar="SRC", show_default=False,
        help="The SQLite database to copy: a file path or sqlite:///path (only read).")],
    target: Annotated[str, typer.Option(
        "--to", metavar="URL", show_default=False,
        help="The PostgreSQL database to copy into: postgresql://user@host/database.")],
    batch: Annotated[int, typer.Option(
        "--batch", metavar="ROWS", min=1,
        help="Rows per target transaction (an interruption loses at most one).")] = 2000,
) -> None:
    """Copy a SQLite database into PostgreSQL, keeping every id.

    Copies every tenant's sessions, messages, summaries, vectors, index queue, error records
    and API keys. Run it again after an interruption to resume; a finished migration copies
    nothing the second time. Exit code 1 when the target holds other data for the same ids or
    when the counts per table disagree at the end. --db and --tenant are not used.
    """
    state = get_state(ctx)
    state.need_local()
    console = err()
    with Progress(TextColumn("{task.description:<14}"), BarColumn(), MofNCompleteColumn(),
                  console=console, transient=True,
                  disable=state.json or not console.is_terminal) as progress, exits():
        try:
            report = asyncio.run(migrate_database(source, target, _Bars(progress),
                                                  batch=batch))
        except KeyboardInterrupt:
            fail("interrupted: the batches copied so far are kept; run the same command "
                 "again to resume", code=1, kind="Interrupted")
    if state.json:
        emit_json({**dataclasses.asdict(report), "copied": report.copied,
                   "verified": not report.differences})
    else:
        _print(out(), report)
    if report.differences:
        fail("the target's counts differ from the source's: " + "; ".join(report.differences),
             code=1, kind="MigrationMismatch", differences=list(report.differences))


def _print(console: Console, r: MigrationReport) -> None:
    if r.copied == 0 and not r.differences:
        console.print(f"nothing to copy: {r.target} already holds everything in {r.source} "
                      "(counts verified)", soft_wrap=True)
        return
    console.print(f"migrated {r.source} into {r.target}", soft_wrap=True)
    for t in r.tables:
        line = f"  {t.name + ':':15}{t.copied:,} copied"
        if t.present:
            line += f", {t.present:,} already there"
        console.print(line)
    if not r.differences:
        console.print(Text("counts verified: every table of every tenant matches the source",
                           style="green"), soft_wrap=True)
