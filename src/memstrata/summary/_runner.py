"""Running summaries for the facade: digest or LLM, leases, back-off, the scheduled tick.

``summarise`` holds the pure parts and the per-chunk loop; this module decides which path a
session takes, saves progress through the store (summary and cursor in one transaction), keeps
two workers off the same session with an expiring lease (taken over at once when its holder
provably died on this machine), and backs a failing session off.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import logging
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from .._background import pause, worker_id
from .._ingest import is_temp
from .._liveness import is_dead
from ..config import Settings
from ..errors import ProviderError, SummaryFailed
from ..providers import LLM
from ..store import Store
from ..types import Summary
from ._digest import digest_body
from ._relevance import select_relevant
from ._run import body_kind, run_summary
from ._scheduler import next_retry

__all__ = ["LEASE_TTL_NS", "TALLY", "RunTally", "SummaryRunner"]

LEASE_TTL_NS = 10 * 60 * 10**9
_LEASE_POLL_S = 0.2
_FLAGGED_POLL_S = 1.0
"""How often the background looks for sessions the turns policy flagged for a summary."""

log = logging.getLogger("memstrata")


class _Overtaken(Exception):
    """Another worker took the session's lease or saved its summary during this run (a wall
    clock that jumped forward expires a live lease early): this run stops unsaved."""


@dataclasses.dataclass(slots=True)
class RunTally:
    """Summary runs with an LLM in this process since it started, and how many failed (what
    the service's metrics report)."""

    runs: int = 0
    failures: int = 0


TALLY = RunTally()
"""The process's tally of summary runs."""


class SummaryRunner:
    """Summarises sessions of one database for any tenant."""

    def __init__(self, store: Store, settings: Settings, *, llm: LLM | None,
                 decision_llm: LLM | None, clock: Callable[[], int]) -> None:
        self._store = store
        self._settings = settings
        self.llm = llm
        self.decision_llm = decision_llm
        self._clock = clock
        self._tz = ZoneInfo(settings.timezone)
        self.owner = worker_id()
        # Each run leases under its own token (the worker's name and a run number), so two
        # runs of one process on one session keep each other out as two processes do.
        self._run_numbers = itertools.count(1)

    async def relevant(self, tenant: str, summary: Summary, query: str) -> Summary | None:
        """``summary`` cut to the entries relevant to ``query`` by the decision model
        (``None``: nothing is relevant); unchanged without a decision model, for a digest, or
        when the model fails. The call's tokens count in the session's tally."""
        if self.decision_llm is None or summary.kind != "llm":
            return summary
        relevance = await select_relevant(summary.body, query, self.decision_llm,
                                          max_tokens=self._settings.decision_max_tokens)
        await self._store.runs.add_tokens(tenant, summary.session, relevance.tokens_in,
                                          relevance.tokens_out)
        if relevance.body is None:
            return None
        return dataclasses.replace(summary, body=relevance.body)

    async def summarize(self, tenant: str, session: str, *, include_window: bool,
                        wait: bool = True) -> Summary | None:
        """Bring the summary up to date under the session's lease.

        ``wait=False`` returns the stored summary at once when another worker holds the lease
        (what the scheduler wants); otherwise this waits for the lease, which always expires.
        """
        summary, _ = await self._run(tenant, session, include_window=include_window, wait=wait)
        return summary

    async def _lease(self, tenant: str, session: str, owner: str) -> bool:
        """Take the session's lease. When another owner holds it and that owner is provably
        a process of this machine that no longer runs (``is_dead``), drop its lease, only
        while it still holds it, and try once more instead of waiting out its expiry."""
        runs = self._store.runs
        if await runs.lease(tenant, session, owner, now=self._clock(),
                            until=self._clock() + LEASE_TTL_NS):
            return True
        holder = await runs.lease_holder(tenant, session)
        if holder is None or holder == owner or not is_dead(holder):
            return False
        log.info("summary of %s/%s: took over the lease of %s, which is no longer running",
                 tenant, session, holder)
        await runs.release(tenant, session, holder)
        return await runs.lease(tenant, session, owner, now=self._clock(),
                                until=self._clock() + LEASE_TTL_NS)

    async def _run(self, tenant: str, session: str, *, include_window: bool,
                   wait: bool) -> tuple[Summary | None, bool]:
        """``summarize``, also saying whether this call saved a summary (``False`` when
        another worker held the lease or there was nothing new to summarise)."""
        if is_temp(session):
            return None, False
        runs = self._store.runs
        owner = f"{self.owner}#run{next(self._run_numbers)}"
        while True:
            while not await self._lease(tenant, session, owner):
                if not wait:
                    return await self._store.get_summary(tenant, session), False
                await asyncio.sleep(_LEASE_POLL_S)
            try:
                if self.llm is None:
                    return await self._digest(tenant, session, owner,
                                              include_window=include_window)
                return await self._llm_run(tenant, session, owner, self.llm)
            except _Overtaken:
                log.info("summary of %s/%s: another worker took over; this run stopped",
                         tenant, session)
                if not wait:
                    return await self._store.get_summary(tenant, session), False
                # A caller who waits (summarize(), reset()) gets an up-to-date summary:
                # take the lease again and go on from the other worker's cursor.
            finally:
                await runs.release(tenant, session, owner)

    async def _fenced_save(self, tenant: str, session: str, owner: str, *, kind: str,
                           body: dict[str, Any], cursor: int, tokens_in: int,
                           tokens_out: int) -> None:
        """Save only while this run (``owner``) still holds the lease (renewing it) and the stored
        cursor is not ahead of ``cursor``, checked by the store in the save's own
        transaction, so a worker whose lease was taken over never writes over the newer
        summary or moves the cursor back; raises ``_Overtaken`` otherwise."""
        now = self._clock()
        if not await self._store.runs.save(tenant, session, kind=kind, body=body,
                                           cursor=cursor, now=now, tokens_in=tokens_in,
                                           tokens_out=tokens_out, owner=owner,
                                           lease_until=now + LEASE_TTL_NS):
            raise _Overtaken

    async def tick(self, tenant: str | None) -> int:
        """One scheduled pass: summarise every due session (``None``: every tenant). Returns
        how many this worker summarised: not those another worker held, failed ones or ones
        with nothing to add."""
        return await self._pass(await self._store.runs.due(tenant, now=self._clock()))

    async def tick_flagged(self, tenant: str | None, stop: asyncio.Event | None = None) -> int:
        """Summarise the sessions the turns policy flagged when it moved their cutoff (as seed
        003 queues a run at that point), without waiting for the schedule; returns how many
        this worker summarised. A save that reaches the flagged point clears the flag. Once
        ``stop`` is set, no further session is started."""
        return await self._pass(await self._store.runs.flagged(tenant, now=self._clock()), stop)

    async def run_flagged(self, tenant: str | None, stop: asyncio.Event) -> None:
        """The background loop behind the turns policy: summarise flagged sessions seconds
        after the flag is set (with or without a cron schedule) until ``stop`` is set."""
        while not stop.is_set():
            try:
                await self.tick_flagged(tenant, stop)
            except Exception as exc:  # a failed pass must not end the loop; the next tries
                log.warning("summarising sessions flagged by the turns policy failed: %s: %s",
                            type(exc).__name__, exc)
            await pause(stop, _FLAGGED_POLL_S)

    async def _pass(self, sessions: list[tuple[str, str]],
                    stop: asyncio.Event | None = None) -> int:
        done = 0
        for t, session in sessions:
            if stop is not None and stop.is_set():
                break
            try:
                _, saved = await self._run(t, session, include_window=False, wait=False)
            except ProviderError:
                continue  # recorded with its back-off; the next tick moves on
            done += saved
        return done

    async def _llm_run(self, tenant: str, session: str, owner: str,
                       llm: LLM) -> tuple[Summary | None, bool]:
        current = await self._store.get_summary(tenant, session)
        messages = await self._store.after_cursor(
            tenant, session, current.cursor if current is not None else None)
        if current is None and not messages:
            return None, False

        async def save(body: dict[str, Any], cursor: int, tokens_in: int,
                       tokens_out: int) -> None:
            # Renewing the lease at every chunk keeps a long run's lease alive.
            await self._fenced_save(tenant, session, owner, kind=body_kind(body), body=body,
                                    cursor=cursor, tokens_in=tokens_in, tokens_out=tokens_out)

        TALLY.runs += 1
        try:
            result = await run_summary(llm, settings=self._settings, previous=current,
                                       messages=messages, save=save,
                                       decision_llm=self.decision_llm)
        except SummaryFailed as exc:
            TALLY.failures += 1
            await self._store.runs.add_tokens(tenant, session, exc.result.unsaved_tokens_in,
                                              exc.result.unsaved_tokens_out)
            await self._store.runs.failed(tenant, session, str(exc), now=self._clock(),
                                          retry_at_for=next_retry)
            raise
        await self._store.runs.succeeded(tenant, session)
        return await self._store.get_summary(tenant, session), result.saved

    async def _digest(self, tenant: str, session: str, owner: str, *,
                      include_window: bool) -> tuple[Summary | None, bool]:
        """The no-LLM summary: the text between the cursor and the window (or everything
        after the cursor when the messages are about to be reset)."""
        current = await self._store.get_summary(tenant, session)
        window = await self._store.recent(tenant, session, self._settings.window_messages)
        fixed = False
        if current is not None and current.cursor is None:
            # An imported summary without a cursor covers everything written so far.
            newest = window[-1].id if window else 0
            await self._fenced_save(tenant, session, owner, kind=current.kind,
                                    body=current.body, cursor=newest, tokens_in=0,
                                    tokens_out=0)
            current = await self._store.get_summary(tenant, session)
            fixed = True
            if not include_window:
                return current, True
        cursor = current.cursor if current is not None else None
        upto = None if include_window or not window else window[0].id - 1
        pending = await self._store.after_cursor(tenant, session, cursor, upto)
        if not pending:
            return current, fixed
        previous: dict[str, Any] | None = None
        if current is not None:
            previous = (current.body if current.kind == "digest"
                        else {"text": json.dumps(current.body, ensure_ascii=False)})
        body = digest_body(previous, pending, self._tz, self._settings.max_content_chars)
        await self._fenced_save(tenant, session, owner, kind="digest", body=body,
                                cursor=pending[-1].id, tokens_in=0, tokens_out=0)
        return await self._store.get_summary(tenant, session), True

