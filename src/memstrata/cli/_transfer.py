"""``import`` and ``export``: sessions as JSONL (or the Go runtime's history arrays); and
``salvage``: a damaged database's readable records, into a new file."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
from rich.text import Text

from ..client import MemoryAPI
from ..errors import InvalidInput
from ..store import salvage as salvage_file
from ..types import Salvaged, SalvageReport
from ._app import State, app, emit_json, err, exits, fail, get_state, note, out, run
from ._lookup import Missing, missing

__all__: list[str] = []

_CHUNK = 1 << 20
# Below this size reading is instant; a progress bar would only flicker.
_PROGRESS_MIN_BYTES = 1 << 20


def _progress(state: State, size: int) -> Progress:
    console = err()
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
    state = get_state(ctx)
    size = 0 if file == "-" else (Path(file).stat().st_size if Path(file).is_file() else 0)
    with _progress(state, size) as progress:
        try:
            data = _read_source(file, progress)
        except InvalidInput as exc:
            fail(str(exc))
        data = data.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark, as some editors write
        history = _is_history_array(data)

        async def work(mem: MemoryAPI) -> int:
            if history:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise InvalidInput("history", f"is not UTF-8 text (byte {exc.start + 1})"
                                       ) from exc
                return await mem.import_history(session, text)
            return await mem.import_(session, _lines(data, progress))

        count = run(state, work)
    kind = "history array" if history else "jsonl"
    if state.json:
        emit_json({"session": session, "imported": count, "format": kind})
    else:
        out().print(f"imported {count:,} message{'' if count == 1 else 's'} into {session} "
                    f"({kind})")


@app.command()
def export(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="Session id.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", metavar="FILE", dir_okay=False,
                                                help="Write here instead of stdout.")] = None,
) -> None:
    """Write a session as JSONL: its messages, oldest first, then its summary."""
    state = get_state(ctx)

    async def work(mem: MemoryAPI) -> int | Missing:
        gone = await missing(mem, session)
        if gone is not None:
            return gone  # before the output file is created
        count = 0
        sink_cm = (output.open("w", encoding="utf-8") if output is not None
                   else contextlib.nullcontext(sys.stdout))
        with sink_cm as sink:
            async for record in mem.export(session):
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
        return count

    count = run(state, work)
    if isinstance(count, Missing):
        count.fail()
    if count == 0:
        note(f"session {session!r} has nothing to export", session=session)
    if output is not None:
        if state.json:
            emit_json({"session": session, "records": count, "file": str(output)})
        else:
            out().print(f"exported {count} records of {session} to {output}")


@app.command()
def salvage(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(metavar="SRC", show_default=False,
                                          help="The damaged database (only read).")],
    dest: Annotated[str, typer.Argument(metavar="DEST", show_default=False,
                                        help="The new database to write; must not exist.")],
) -> None:
    """Copy every readable message, summary and error record into a new database.

    For a damaged file: reads what SQLite still can, then scans the file's pages for the rows
    it cannot reach, and says what was copied and what could not be read. Every tenant is
    copied; --db and --tenant are not used.
    """
    state = get_state(ctx)
    state.need_local()
    with exits():
        report = asyncio.run(salvage_file(source, dest))
    if state.json:
        emit_json(dataclasses.asdict(report))
    else:
        _print_salvage(out(), report)


def _print_salvage(console: Console, r: SalvageReport) -> None:
    console.print(f"salvaged {r.source} into {r.dest}", soft_wrap=True)
    for name, part in (("messages", r.messages), ("summaries", r.summaries),
                       ("error records", r.error_records)):
        console.print(f"  {name + ':':15}{_salvaged(part)}", soft_wrap=True)
    console.print(f"  {'sessions:':15}{r.sessions:,}")
    console.print(f"  {'embeddings:':15}{r.vectors:,} copied; {r.queued:,} hot messages queued "
                  "for indexing")
    console.print(f"  {'API keys:':15}{r.api_keys:,} copied")
    if r.damage:
        console.print(f"damage found in {r.source}:", soft_wrap=True)
        for problem in r.damage:
            console.print(Text(f"  {problem}"), soft_wrap=True)


def _salvaged(part: Salvaged) -> str:
    text = f"{part.copied:,} copied"
    if part.from_pages:
        text += f" ({part.from_pages:,} found by scanning pages)"
    if part.unreadable:
        about = "" if part.exact else "about "
        text += f", {about}{part.unreadable:,} unreadable"
        if part.unreadable_ids:
            spans = [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in part.unreadable_ids]
            shown = ", ".join(spans[:5]) + (f", … ({len(spans) - 5} more ranges)"
                                             if len(spans) > 5 else "")
            text += f" (ids {shown})"
    return text
