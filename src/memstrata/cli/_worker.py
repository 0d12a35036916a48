"""``reindex`` and ``worker``: the commands that embed and summarise in bulk.

``worker`` is the long-running process that does the background work the one-shot commands
skip: it opens the database with ``background=True`` (indexer and sweepers), runs the summary
schedule itself so it can say which sessions it summarised, and stops on SIGINT or SIGTERM.
``worker --once`` does one pass and exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any

import typer
from rich.text import Text

from .._background import pause
from ..config import Settings
from ..errors import InvalidInput, MemstrataError, NotFound, ProviderError
from ..memory import Memory
from ..summary import CronRunner
from ._app import State, app, emit_json, err, fail, get_state, one_line, out, run_local
from ._index import index_all, tenant_backlog

__all__: list[str] = []

# How long one flush may run inside the worker's loop before it checks for a stop.
_FLUSH_SLICE_S = 1.0


@app.command()
def reindex(ctx: typer.Context) -> None:
    """Embed every hot message again (after changing the embedding model).

    Drops the tenant's vectors, queues the hot messages and indexes them with a progress bar.
    """
    state = get_state(ctx)

    async def work(mem: Memory) -> tuple[int, float]:
        queued = await mem.reindex()
        started = time.perf_counter()
        await index_all(mem, queued, quiet=state.json)
        return queued, time.perf_counter() - started

    count, seconds = run_local(state, work)
    if state.json:
        emit_json({"reindexed": count, "seconds": round(seconds, 3)})
    else:
        out().print(f"re-indexed {count} messages in {seconds:.1f} s")


# -- the worker ----------------------------------------------------------------------------


@dataclass
class _Pass:
    """What one pass (or one scheduled tick) did."""

    indexed: int = 0
    index_error: str | None = None
    summarized: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    temp_purged: list[str] = field(default_factory=list)
    errors_swept: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"indexed": self.indexed, "index_error": self.index_error,
                "summarized": self.summarized,
                "failed": [{"session": s, "error": e} for s, e in self.failed.items()],
                "temp_purged": self.temp_purged, "errors_swept": self.errors_swept}


_Snapshot = dict[str, tuple[int | None, int, str | None]]


async def _snapshot(mem: Memory) -> _Snapshot:
    """Each session's summary cursor, failure count and last error (from public stats)."""
    seen: _Snapshot = {}
    for info in await mem.sessions():
        with contextlib.suppress(NotFound):
            st = await mem.stats(info.id)
            seen[info.id] = (st.cursor, int(st.extra.get("summary_failures", 0)), st.last_error)
    return seen


async def _summarize_due(mem: Memory, result: _Pass) -> None:
    """One scheduler pass, reporting which sessions moved and which failed."""
    before = await _snapshot(mem)
    await mem.summarize_due()
    for session, (cursor, failures, error) in (await _snapshot(mem)).items():
        old = before.get(session, (None, 0, None))
        if failures > old[1] and error:
            result.failed[session] = error
        elif cursor != old[0]:
            result.summarized.append(session)


async def _index(mem: Memory, result: _Pass, *, timeout: float | None) -> None:
    before = await tenant_backlog(mem)
    try:
        await mem.flush(timeout)
    except ProviderError as exc:
        result.index_error = one_line(exc)
    except TimeoutError:
        pass  # the next slice goes on
    result.indexed = max(0, before - await tenant_backlog(mem))


async def _one_pass(mem: Memory) -> _Pass:
    result = _Pass()
    if mem.embedder is not None:
        await _index(mem, result, timeout=None)
    await _summarize_due(mem, result)
    result.temp_purged = await mem.sweep()
    result.errors_swept = await mem.errors.sweep()
    return result


class _Reporter:
    """Prints the worker's events: a timestamped line each, or JSON lines with ``--json``."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def event(self, kind: str, text: str, *, error: bool = False, **data: Any) -> None:
        if self.as_json:
            typer.echo(json.dumps({"event": kind, **data}, ensure_ascii=False))
            return
        stamp = datetime.now().strftime("%H:%M:%S")
        console = err() if error else out()
        console.print(Text(f"{stamp} {text}", style="red" if error else ""), soft_wrap=True)

    def tick(self, result: _Pass) -> None:
        if result.indexed or result.index_error:
            self.event("indexed", f"indexed {result.indexed} message(s)",
                       count=result.indexed)
        if result.index_error:
            self.event("index_error", f"indexing failed: {result.index_error}", error=True,
                       error_text=result.index_error)
        for session in result.summarized:
            self.event("summarized", f"summarised {session}", session=session)
        for session, error in result.failed.items():
            self.event("summary_error", f"summary of {session} failed: {error}", error=True,
                       session=session, error_text=error)
        if result.temp_purged or result.errors_swept:
            self.event("swept", f"purged {len(result.temp_purged)} temp session(s), "
                       f"{result.errors_swept} expired error record(s)",
                       temp_sessions=result.temp_purged, error_records=result.errors_swept)


def _describe(settings: Settings, embedder: str | None) -> str:
    summary = settings.summary_model or "digest (no summary model)"
    schedule = settings.summary_cron or "off"
    return (f"embedder {embedder or 'none'}, summaries by {summary}, schedule {schedule}")


async def _serve(state: State, report: _Reporter) -> None:
    settings = state.settings()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # not on Windows' event loop
            loop.add_signal_handler(sig, stop.set)
    # The worker runs the schedule itself (not inside Memory) so it can report each tick.
    async with Memory.open(state.target(), settings=settings.replace(summary_cron=None),
                           tenant=state.tenant, background=True) as mem:
        model = mem.embedder.model_id if mem.embedder is not None else None
        report.event("started", f"worker started on {state.target()} (tenant "
                     f"{state.tenant}): {_describe(settings, model)}",
                     db=state.target(), tenant=state.tenant, embedder=model,
                     summary_model=settings.summary_model, schedule=settings.summary_cron)

        async def tick() -> None:
            result = _Pass()
            await _summarize_due(mem, result)
            result.temp_purged = await mem.sweep()
            report.tick(result)

        cron = (CronRunner(settings.summary_cron, tick, timezone=settings.timezone,
                           on_error=lambda e: report.event(
                               "tick_error", f"scheduled run failed: {one_line(e)}",
                               error=True, error_text=one_line(e)))
                if settings.summary_cron else None)
        if cron is not None:
            cron.start()
        last_error: str | None = None
        while not stop.is_set():
            result = _Pass()
            if mem.embedder is not None:
                await _index(mem, result, timeout=_FLUSH_SLICE_S)
            if result.index_error == last_error:
                result.index_error = None  # said once is enough
            else:
                last_error = result.index_error
            report.tick(result)
            await pause(stop, _FLUSH_SLICE_S)
        if cron is not None:
            await cron.stop()
    report.event("stopped", "worker stopped")


@app.command()
def worker(
    ctx: typer.Context,
    once: Annotated[bool, typer.Option(
        "--once", help="Do one pass (index the backlog, summarise due sessions, sweep) and "
                       "exit; exit code 1 if any of it failed.")] = False,
) -> None:
    """Run the background work until stopped (Ctrl-C or SIGTERM).

    Indexes new messages, summarises sessions on the summary_cron schedule (with the configured
    summary model, or digests), purges idle temp- sessions and expired error records, and
    prints what it did.
    """
    state = get_state(ctx)
    if once:
        result = run_local(state, _one_pass)
        if state.json:
            emit_json(result.as_json())
        else:
            _Reporter(False).tick(result)
            out().print("pass done")
        if result.index_error or result.failed:
            raise typer.Exit(1)
        return
    try:
        asyncio.run(_serve(state, _Reporter(state.json)))
    except InvalidInput as exc:
        fail(one_line(exc))
    except MemstrataError as exc:
        fail(f"{type(exc).__name__}: {one_line(exc)}", code=1)
