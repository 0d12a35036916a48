"""Running summaries for the facade: digest or LLM, leases, back-off, the scheduled tick.

``summarise`` holds the pure parts and the per-chunk loop; this module decides which path a
session takes, saves progress through the store (summary and cursor in one transaction), keeps
two workers off the same session with an expiring lease, and backs a failing session off.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from .._background import worker_id
from .._ingest import is_temp
from ..config import Settings
from ..errors import ProviderError, SummaryFailed
from ..providers import LLM
from ..store import Store
from ..types import Summary
from ._digest import digest_body
from ._relevance import select_relevant
from ._run import body_kind, run_summary
from ._scheduler import next_retry

__all__ = ["LEASE_TTL_NS", "SummaryRunner"]

LEASE_TTL_NS = 10 * 60 * 10**9
_LEASE_POLL_S = 0.2


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

    async def relevant(self, tenant: str, summary: Summary, query: str) -> Summary | None:
        """``summary`` cut to the entries relevant to ``query`` by the decision model
        (``None``: nothing is relevant); unchanged without a decision model, for a digest, or
        when the model fails. The call's tokens count in the session's tally."""
        if self.decision_llm is None or summary.kind != "llm":
            return summary
        relevance = await select_relevant(summary.body, query, self.decision_llm)
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
        if is_temp(session):
            return None
        runs = self._store.runs
        while not await runs.lease(tenant, session, self.owner, now=self._clock(),
                                   until=self._clock() + LEASE_TTL_NS):
            if not wait:
                return await self._store.get_summary(tenant, session)
            await asyncio.sleep(_LEASE_POLL_S)
        try:
            if self.llm is None:
                return await self._digest(tenant, session, include_window=include_window)
            return await self._llm_run(tenant, session, self.llm)
        finally:
            await runs.release(tenant, session, self.owner)

    async def tick(self, tenant: str | None) -> int:
        """One scheduled pass: summarise every due session (``None``: every tenant)."""
        done = 0
        for t, session in await self._store.runs.due(tenant, now=self._clock()):
            try:
                await self.summarize(t, session, include_window=False, wait=False)
                done += 1
            except ProviderError:
                continue  # recorded with its back-off; the next tick moves on
        return done

    async def _llm_run(self, tenant: str, session: str, llm: LLM) -> Summary | None:
        current = await self._store.get_summary(tenant, session)
        messages = await self._store.after_cursor(
            tenant, session, current.cursor if current is not None else None)
        if current is None and not messages:
            return None

        async def save(body: dict[str, Any], cursor: int, tokens_in: int,
                       tokens_out: int) -> None:
            now = self._clock()
            await self._store.runs.save(tenant, session, kind=body_kind(body), body=body,
                                        cursor=cursor, now=now, tokens_in=tokens_in,
                                        tokens_out=tokens_out)
            # A long multi-chunk run keeps its lease alive chunk by chunk.
            await self._store.runs.lease(tenant, session, self.owner, now=now,
                                         until=now + LEASE_TTL_NS)

        try:
            await run_summary(llm, settings=self._settings, previous=current,
                              messages=messages, save=save, decision_llm=self.decision_llm)
        except SummaryFailed as exc:
            await self._store.runs.add_tokens(tenant, session, exc.result.unsaved_tokens_in,
                                              exc.result.unsaved_tokens_out)
            await self._store.runs.failed(tenant, session, str(exc), now=self._clock(),
                                          retry_at_for=next_retry)
            raise
        await self._store.runs.succeeded(tenant, session)
        return await self._store.get_summary(tenant, session)

    async def _digest(self, tenant: str, session: str, *,
                      include_window: bool) -> Summary | None:
        """The no-LLM summary: the text between the cursor and the window (or everything
        after the cursor when the messages are about to be reset)."""
        current = await self._store.get_summary(tenant, session)
        window = await self._store.recent(tenant, session, self._settings.window_messages)
        if current is not None and current.cursor is None:
            # An imported summary without a cursor covers everything written so far.
            newest = window[-1].id if window else 0
            await self._store.runs.save(tenant, session, kind=current.kind, body=current.body,
                                        cursor=newest, now=self._clock(), tokens_in=0,
                                        tokens_out=0)
            current = await self._store.get_summary(tenant, session)
            if not include_window:
                return current
        cursor = current.cursor if current is not None else None
        upto = None if include_window or not window else window[0].id - 1
        pending = await self._store.after_cursor(tenant, session, cursor, upto)
        if not pending:
            return current
        previous: dict[str, Any] | None = None
        if current is not None:
            previous = (current.body if current.kind == "digest"
                        else {"text": json.dumps(current.body, ensure_ascii=False)})
        body = digest_body(previous, pending, self._tz, self._settings.max_content_chars)
        await self._store.runs.save(tenant, session, kind="digest", body=body,
                                    cursor=pending[-1].id, now=self._clock(), tokens_in=0,
                                    tokens_out=0)
        return await self._store.get_summary(tenant, session)

