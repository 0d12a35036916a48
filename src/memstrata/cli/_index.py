"""Indexing from the command line: catching up the backlog with a progress bar.

One-shot commands open the database without the background indexer, so messages added by the
CLI wait in the index queue until a semantic search, ``reindex`` or ``worker`` embeds them.
Progress is read from the public ``stats()`` of each session while ``flush()`` runs.
"""

from __future__ import annotations

import asyncio

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..client import MemoryAPI
from ..errors import NotFound, ProviderError
from ._app import err, one_line, warn

__all__ = ["catch_up", "index_all", "tenant_backlog"]

_POLL_S = 0.25
# Below this many queued messages indexing takes well under a second: no bar.
_BAR_MIN = 200


async def tenant_backlog(mem: MemoryAPI) -> int:
    """Messages of the tenant's listed sessions still waiting to be embedded."""
    total = 0
    for info in await mem.sessions():
        try:
            total += (await mem.stats(info.id)).index_backlog
        except NotFound:
            continue  # removed while we were counting
    return total


def _progress(quiet: bool) -> Progress:
    console = err()
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=True,
                    disable=quiet or not console.is_terminal)


async def index_all(mem: MemoryAPI, total: int, *, quiet: bool) -> None:
    """Run ``flush()`` until the backlog is empty, showing ``total - backlog`` as progress.

    Raises what ``flush`` raises (``ProviderError`` when the embedder fails).
    """
    flushing = asyncio.create_task(mem.flush())
    with _progress(quiet or total < _BAR_MIN) as progress:
        bar = progress.add_task("indexing", total=total)
        while True:
            done, _ = await asyncio.wait({flushing}, timeout=_POLL_S)
            if done:
                break
            left = await tenant_backlog(mem)
            progress.update(bar, completed=max(0, total - left))
        flushing.result()
        progress.update(bar, completed=total)


async def catch_up(mem: MemoryAPI, *, quiet: bool, strict: bool) -> None:
    """Index what is queued before a semantic or hybrid search.

    When the embedder fails, a hybrid search still answers by keyword (``strict=False``: warn
    and go on); a semantic one cannot (``strict=True``: the error propagates).
    """
    # ``sessions()`` hides temp- sessions, so flush even when the count says nothing is queued
    # (an empty queue costs one query and never loads the model).
    try:
        await index_all(mem, await tenant_backlog(mem), quiet=quiet)
    except ProviderError as exc:
        if strict:
            raise
        warn(f"indexing failed, searching by keyword only: {one_line(exc)}")
