"""The service's metrics at ``GET /metrics``, in Prometheus's text format.

Requests and their latency by route (the route's template, never the raw path), method and
status; requests refused by a limit, by kind; summary runs with an LLM and their failures;
and each open tenant's indexer backlog (read when scraped). ``/metrics`` needs a key with the
``admin`` scope, and shows the backlog of the tenants within that key's only.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI, Request, Response
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._keys import within
from ..errors import MemstrataError
from ..summary import TALLY
from ._auth import admit, tenants_of

__all__ = ["Metrics", "RequestMetrics", "add_metrics_route"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_BACKLOG_TIMEOUT_S = 2.0


class _SummaryRuns(Collector):
    def collect(self) -> Iterator[CounterMetricFamily]:
        yield CounterMetricFamily("memstrata_summary_runs", "Summary runs with an LLM.",
                                  value=TALLY.runs)
        yield CounterMetricFamily("memstrata_summary_failures",
                                  "Summary runs with an LLM that failed.",
                                  value=TALLY.failures)


class Metrics:
    """The metrics of one service (``app.state.metrics``), in a registry of its own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter("memstrata_requests", "HTTP requests answered.",
                                ("route", "method", "status"), registry=self.registry)
        self.latency = Histogram("memstrata_request_seconds", "Time to answer a request.",
                                 ("route", "method", "status"), registry=self.registry,
                                 buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1,
                                          2.5, 5, 10, 30))
        self.limited = Counter("memstrata_rate_limited", "Requests refused by a limit.",
                               ("limit",), registry=self.registry)
        self.registry.register(_SummaryRuns())
        # The children of each label set, looked up once (``labels()`` costs a lock and more).
        self._children: dict[tuple[str, str, str], tuple[Any, Any]] = {}

    def answered(self, route: str, method: str, status: str, seconds: float) -> None:
        """Count one answer and its time."""
        key = (route, method, status)
        children = self._children.get(key)
        if children is None:
            children = self._children[key] = (self.requests.labels(*key),
                                              self.latency.labels(*key))
        children[0].inc()
        children[1].observe(seconds)

    def refused(self, kind: str) -> None:
        self.limited.labels(kind).inc()


def _route_of(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str):
        return path
    raw = str(scope.get("path", ""))
    # Anything else by its mount, so unknown paths cannot grow the series without bound.
    return "/mcp" if raw.startswith("/mcp") else "other"


class RequestMetrics:
    """ASGI middleware: counts and times every HTTP request."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            self.metrics.answered(_route_of(scope), str(scope.get("method", "")), str(status),
                                  time.perf_counter() - started)


def add_metrics_route(app: FastAPI, metrics: Metrics) -> None:
    """``GET /metrics`` (admin keys only)."""

    @app.get("/metrics", include_in_schema=False)
    async def metrics_text(request: Request) -> Response:
        caller = await admit(request, "admin")
        tenants = tenants_of(request)
        backlog = CollectorRegistry()
        gauge = Gauge("memstrata_index_backlog", "Messages waiting for their embedding, per "
                      "open tenant.", ("tenant",), registry=backlog)
        for tenant in tenants.tenants:
            memory = tenants.peek(tenant)  # a scrape is no use: it keeps no tenant open
            if memory is None or not within(caller.key.tenant, tenant):
                continue
            try:
                count = await asyncio.wait_for(memory.index_backlog(), _BACKLOG_TIMEOUT_S)
            except (TimeoutError, MemstrataError):  # a database that does not answer, or
                continue                            # a tenant closed meanwhile
            gauge.labels(tenant).set(count)
        body = generate_latest(metrics.registry) + generate_latest(backlog)
        return Response(body, media_type=CONTENT_TYPE)
