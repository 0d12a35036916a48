"""The HTTP service as one FastAPI app: routes, errors, limits, lifespan and static files.

:func:`create_app` builds the app without I/O. Its lifespan opens the database and the
models once (:class:`Tenants`), starts every tenant's background work, and on shutdown stops
it and closes the database; every write the service acknowledged is committed before its
answer leaves, so a graceful stop loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles

from .._opening import UNSET, Unset
from ..config import Settings
from ..errors import MemstrataError
from ..memory import Clock
from ..providers import LLM, Embedder
from ..store import check_target
from . import _routes_admin, _routes_errors, _routes_messages, _routes_sessions
from ._auth import HeldUntilAnswered, tenants_of
from ._errors import NotReady, install_handlers
from ._gates import DEFAULT_BODY_TIMEOUT_S, DEFAULT_MAX_IMPORTS, Gates
from ._http_methods import HttpMethods
from ._limits import DEFAULT_BODY_LIMIT, IMPORT_BODY_LIMIT, BodyLimit
from ._metrics import Metrics, RequestMetrics, add_metrics_route
from ._quotas import Limits
from ._request_id import RequestId
from ._schemas import StatusOut, errors
from ._tenants import Tenants

__all__ = ["STATIC_DIR", "LifespanHook", "create_app"]

log = logging.getLogger("memstrata.server")

# How long /readyz waits for the database's answer before saying it is not ready.
_READY_TIMEOUT_S = 2.0

STATIC_DIR = Path(__file__).parent / "static"
"""The web inspector's files, served at ``/`` when the directory exists."""

LifespanHook = Callable[[FastAPI], AbstractAsyncContextManager[None]]
"""Extra work that lives as long as the service (entered after the tenants open, left before
they close): ``app.state.lifespan_hooks.append(hook)``."""


def create_app(target: str, *, settings: Settings | None = None,
               embedder: Embedder | Unset | None = UNSET, llm: LLM | Unset | None = UNSET,
               decision_llm: LLM | Unset | None = UNSET, background: bool = True,
               clock: Clock | None = None, body_limit: int = DEFAULT_BODY_LIMIT,
               import_limit: int = IMPORT_BODY_LIMIT,
               body_timeout: float = DEFAULT_BODY_TIMEOUT_S,
               max_imports: int = DEFAULT_MAX_IMPORTS) -> FastAPI:
    """The memstrata HTTP service over the database ``target`` names.

    ``settings``, ``embedder``, ``llm`` and ``decision_llm`` are as for ``Memory.open`` and
    shared by every tenant. Nothing is opened until the app starts (its lifespan). Rate
    limits and quotas come from the keys and ``settings``; ``body_timeout`` bounds the wait
    for a request body and ``max_imports`` the imports running at once.
    """
    target = check_target(str(target))

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        tenants = await Tenants.open(target, settings=settings, embedder=embedder, llm=llm,
                                     decision_llm=decision_llm, background=background,
                                     clock=clock)
        try:
            async with contextlib.AsyncExitStack() as stack:
                for hook in app.state.lifespan_hooks:
                    await stack.enter_async_context(hook(app))
                app.state.tenants = tenants
                yield
        finally:
            await tenants.close()

    # No /docs or /redoc: their pages load scripts from a CDN, and the service works offline.
    app = FastAPI(title="memstrata", version=_version(), lifespan=lifespan,
                  docs_url=None, redoc_url=None,
                  summary="Layered long-term conversation memory for LLM agents.",
                  description="Every /v1 route takes `Authorization: Bearer <key>`; the key "
                              "names the tenant. Errors read `{\"error\": {\"type\", "
                              "\"message\", \"field\"}}`.")
    app.state.lifespan_hooks = []
    app.state.tenants = None

    async def usage(tenant: str) -> tuple[int, int]:
        return await tenants_of_app(app).store.api_keys.usage(tenant)

    metrics = Metrics()
    app.state.metrics = metrics
    app.state.limits = Limits(settings if settings is not None else Settings(), usage)
    app.state.limits.on_limited = metrics.refused
    install_handlers(app)
    # HEAD and OPTIONS for every route, those added below too (the list is read per request).
    app.add_middleware(HeldUntilAnswered)  # innermost: lets a route's lease go once answered
    app.add_middleware(HttpMethods, routes=app.router.routes, streams=("/mcp",))
    app.add_middleware(BodyLimit, default=body_limit, imports=import_limit)
    app.add_middleware(Gates, body_timeout=body_timeout, max_imports=max_imports,
                       on_limited=metrics.refused)
    app.add_middleware(RequestMetrics, metrics=metrics)  # sees every answer but the id's
    app.add_middleware(RequestId)  # outermost: every answer, a refused body's too
    _health_routes(app)
    add_metrics_route(app, metrics)
    app.include_router(_routes_messages.router)
    app.include_router(_routes_sessions.router)
    app.include_router(_routes_errors.router)
    app.include_router(_routes_admin.router)

    # -- MCP ------------------------------------------------------------------------------
    # The MCP server (server/_mcp.py) mounts at /mcp here: after the API routes, before the
    # static files, which take every path nothing above matched.
    from ._mcp_http import mount_mcp

    mount_mcp(app)

    if STATIC_DIR.is_dir():
        app.mount("/", StaticFiles(directory=STATIC_DIR, html=True), name="inspector")
    return app


def _health_routes(app: FastAPI) -> None:
    @app.get("/healthz", response_model=StatusOut, responses=errors(500), tags=["health"],
             summary="The process is up (no key needed)")
    async def healthz() -> StatusOut:
        return StatusOut(status="ok")

    @app.get("/readyz", response_model=StatusOut, responses=errors(500, 503), tags=["health"],
             summary="The database answers a read and requests are served (no key needed)")
    async def readyz(request: Request) -> StatusOut:
        tenants = tenants_of(request)  # NotReady (503) while starting or stopping
        try:
            await asyncio.wait_for(tenants.store.api_keys.ping(), _READY_TIMEOUT_S)
        except (TimeoutError, MemstrataError, OSError) as exc:
            log.warning("not ready: the database did not answer a read: %s",
                        type(exc).__name__)
            raise NotReady("the database does not answer") from exc
        return StatusOut(status="ready")

    # HEAD answers as GET does, without a body (load balancers probe with it).
    for path, probe in (("/healthz", healthz), ("/readyz", readyz)):
        app.add_api_route(path, probe, methods=["HEAD"], include_in_schema=False)


def tenants_of_app(app: FastAPI) -> Tenants:
    tenants: Tenants | None = app.state.tenants
    if tenants is None:
        raise NotReady("the service is not ready")
    return tenants


def _version() -> str:
    try:
        return version("memstrata")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"
