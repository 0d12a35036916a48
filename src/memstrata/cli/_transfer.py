"""``import`` and ``export``: sessions as JSONL (or the Go runtime's history arrays)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
from rich.text import Text

from ..errors import InvalidInput
from ..memory import Memory
from ._app import State, app, emit_json, err, fail, get_state, out, run

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

        count = run(state, work)
    kind = "history array" if history else "jsonl"
    if state.json:
        emit_json({"session": session, "imported": count, "format": kind})
    else:
        out().print(f"imported {count} messages into {session} ({kind})")


@app.command()
def export(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="Session id.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", metavar="FILE", dir_okay=False,
                                                help="Write here instead of stdout.")] = None,
) -> None:
    """Write a session as JSONL: its messages, oldest first, then its summary."""
    state = get_state(ctx)

    async def work(mem: Memory) -> int:
        count = 0
        sink_cm = (output.open("w", encoding="utf-8") if output is not None
                   else contextlib.nullcontext(sys.stdout))
        with sink_cm as sink:
            async for record in mem.export(session):
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
        return count

    count = run(state, work)
    if count == 0:
        err().print(Text(f"note: session {session!r} has nothing to export", style="yellow"))
    if output is not None:
        if state.json:
            emit_json({"session": session, "records": count, "file": str(output)})
        else:
            out().print(f"exported {count} records of {session} to {output}")
