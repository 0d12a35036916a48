"""Per-key request rates and per-tenant quotas of the service, and its import cap.

A key's rate (``rate_per_second``, else the ``key_rate_per_second`` setting) is a token bucket
holding one second's worth of requests (at least one): a request finding it empty is 429 with
``Retry-After``. A tenant's quotas (``messages_per_day`` and ``stored_bytes`` of the key, else
the ``tenant_messages_per_day`` and ``tenant_stored_bytes`` settings) are checked before each
request that adds messages. ``stored_bytes`` is checked against what the tenant holds (read
from the store at most once a second per tenant). ``messages_per_day`` counts the messages the
tenant's requests added since the UTC day began in this process, as each request reports when
it has stored them (``added``); a request under way holds one place until then. Deleting
messages gives no place back: the day's count is of messages added, not of the holding, so
deleting older messages makes no room, and a batch counts in full. All of it is held in the
process: several processes over one PostgreSQL database each apply the limits on
their own.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request

from ..config import Settings
from ._auth import Caller
from ._errors import RateLimited

__all__ = ["Limits"]

_USAGE_TTL_S = 1.0
_DAY_S = 86_400
# Paths whose POST adds messages to a tenant.
_ADDING = ("/messages", "/messages/batch", "/import")


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


@dataclass(slots=True)
class _Usage:
    stored: int
    read_at: float


@dataclass(slots=True)
class _Day:
    day: int
    added: int = 0
    """Messages the tenant's requests stored on UTC day ``day`` (in this process)."""
    pending: int = 0
    """Adding requests let through and not yet reported."""


class Limits:
    """The rate limits and quotas of one service (``app.state.limits``)."""

    def __init__(self, settings: Settings, usage: Callable[[str], Awaitable[tuple[int, int]]],
                 *, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self._settings = settings
        self._usage_of = usage
        self._clock = clock
        self._wall = wall
        self._buckets: dict[str, _Bucket] = {}
        self._usage: dict[str, _Usage] = {}
        self._days: dict[str, _Day] = {}
        self.on_limited: Callable[[str], None] | None = None
        """Called with the kind of limit (``rate``, ``messages_per_day``, ``stored_bytes``)
        each time a request is refused (the metrics count them)."""

    async def admit(self, caller: Caller, request: Request) -> None:
        """Let the request through, or raise ``RateLimited`` (429)."""
        rate = caller.key.rate_per_second or self._settings.key_rate_per_second
        if rate:
            self._take(caller.key.id, rate)
        if request.method == "POST" and str(request.scope.get("path", "")).endswith(_ADDING):
            await self._check_quotas(caller)
            self._today(caller.tenant).pending += 1
            request.state.quota_tenant = caller.tenant

    def added(self, request: Request, count: int) -> None:
        """The adding request ``request`` stored ``count`` messages (its place is given up)."""
        tenant = self._settle(request)
        if tenant is not None:
            self._today(tenant).added += count

    def settle(self, request: Request) -> None:
        """The request is over: an adding request that did not report gives its place up."""
        self._settle(request)

    def _settle(self, request: Request) -> str | None:
        tenant: str | None = getattr(request.state, "quota_tenant", None)
        if tenant is not None:
            request.state.quota_tenant = None
            day = self._today(tenant)
            day.pending = max(0, day.pending - 1)
        return tenant

    def _today(self, tenant: str) -> _Day:
        today = int(self._wall()) // _DAY_S
        day = self._days.get(tenant)
        if day is None or day.day != today:
            day = self._days[tenant] = _Day(today, pending=day.pending if day else 0)
        return day

    def _take(self, key_id: str, rate: float) -> None:
        now = self._clock()
        capacity = max(1.0, rate)
        bucket = self._buckets.get(key_id)
        if bucket is None:
            bucket = self._buckets[key_id] = _Bucket(capacity, now)
        bucket.tokens = min(capacity, bucket.tokens + (now - bucket.at) * rate)
        bucket.at = now
        if bucket.tokens < 1.0:
            self._refuse("rate")
            raise RateLimited(f"this key may make {rate:g} requests per second",
                              math.ceil((1.0 - bucket.tokens) / rate))
        bucket.tokens -= 1.0

    async def _check_quotas(self, caller: Caller) -> None:
        per_day = caller.key.messages_per_day or self._settings.tenant_messages_per_day
        max_bytes = caller.key.stored_bytes or self._settings.tenant_stored_bytes
        if not per_day and not max_bytes:
            return
        if max_bytes:
            usage = await self._current(caller.tenant)
            if usage.stored >= max_bytes:
                self._refuse("stored_bytes")
                raise RateLimited(f"tenant {caller.tenant!r} holds {usage.stored:,} bytes of "
                                  f"messages, its quota is {max_bytes:,}: delete some first",
                                  3600)
        day = self._today(caller.tenant)
        if per_day and day.added + day.pending >= per_day:
            self._refuse("messages_per_day")
            until = _DAY_S - int(self._wall()) % _DAY_S
            raise RateLimited(f"tenant {caller.tenant!r} added its {per_day:,} messages of "
                              "the day (UTC)", until)

    async def _current(self, tenant: str) -> _Usage:
        now = self._clock()
        usage = self._usage.get(tenant)
        if usage is not None and now - usage.read_at < _USAGE_TTL_S:
            return usage
        _, stored = await self._usage_of(tenant)
        usage = self._usage[tenant] = _Usage(stored, now)
        return usage

    def _refuse(self, kind: str) -> None:
        if self.on_limited is not None:
            self.on_limited(kind)
