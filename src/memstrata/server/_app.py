"""The HTTP service as one FastAPI app: routes, errors, limits, lifespan and static files.

:func:`create_app` builds the app without I/O. Its lifespan opens the database and the
models once (:class:`Tenants`), starts every tenant's background work, and on shutdown stops
it and closes the database; every write the service acknowledged is committed before its
answer leaves, so a graceful stop loses nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles

from .._opening import UNSET, Unset
from ..config import Settings
from ..memory import Clock
from ..providers import LLM, Embedder
from ..store import check_target
from . import _routes_errors, _routes_messages, _routes_sessions
from ._auth import tenants_of
from ._errors import install_handlers
from ._http_methods import HttpMethods
from ._limits import DEFAULT_BODY_LIMIT, IMPORT_BODY_LIMIT, BodyLimit
from ._request_id import RequestId
from ._schemas import StatusOut, errors
from ._tenants import Tenants

__all__ = ["STATIC_DIR", "LifespanHook", "create_app"]

STATIC_DIR = Path(__file__).parent / "static"
"""The web inspector's files, served at ``/`` when the directory exists."""

LifespanHook = Callable[[FastAPI], AbstractAsyncContextManager[None]]
"""Extra work that lives as long as the service (entered after the tenants open, left before
they close): ``app.state.lifespan_hooks.append(hook)``."""


def create_app(target: str, *, settings: Settings | None = None,
               embedder: Embedder | Unset | None = UNSET, llm: LLM | Unset | None = UNSET,
               decision_llm: LLM | Unset | None = UNSET, background: bool = True,
               clock: Clock | None = None, body_limit: int = DEFAULT_BODY_LIMIT,
               import_limit: int = IMPORT_BODY_LIMIT) -> FastAPI:
    """The memstrata HTTP service over the database ``target`` names.

    ``settings``, ``embedder``, ``llm`` and ``decision_llm`` are as for ``Memory.open`` and
    shared by every tenant. Nothing is opened until the app starts (its lifespan).
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
    install_handlers(app)
    # HEAD and OPTIONS for every route, those added below too (the list is read per request).
    app.add_middleware(HttpMethods, routes=app.router.routes, streams=("/mcp",))
    app.add_middleware(BodyLimit, default=body_limit, imports=import_limit)
    app.add_middleware(RequestId)  # outermost: every answer, a refused body's too
    _health_routes(app)
    app.include_router(_routes_messages.router)
    app.include_router(_routes_sessions.router)
    app.include_router(_routes_errors.router)

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
             summary="The database is open and requests are served (no key needed)")
    async def readyz(request: Request) -> StatusOut:
        tenants_of(request)  # NotReady (503) while starting or stopping
        return StatusOut(status="ready")


def _version() -> str:
    try:
        return version("memstrata")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"
