"""memstrata's errors as HTTP answers: one status per kind and one JSON body for all.

Every error the service gives reads ``{"error": {"type", "message", "field"}}``: ``type`` is
snake_case (``invalid_input``, ``not_found``, ``unauthorized``, ``too_large``,
``provider_error``, ``unavailable`` …), ``field`` names the offending field or parameter
(``null`` when none). The map from the :mod:`memstrata.errors` tree:

==================================  ======  =================
KeyConflict (a reused key)          409     conflict
InvalidInput                        422     invalid_input
NotFound                            404     not_found
TooLarge (a body or a message)      413     too_large
Unauthorized                        401     unauthorized
Forbidden                           403     forbidden
RateLimited                         429     rate_limited
ProviderError (and its subclasses)  502     provider_error
Closed, NotReady, FlushTimeout      503     unavailable
DatabaseUnavailable                 503     unavailable
DiskFull                            507     disk_full
StoreError (DatabaseCorrupt too)    500     store_error
==================================  ======  =================

FastAPI's own request validation and Starlette's HTTP errors are answered in the same shape,
and so is any other exception (a bug): 500 ``internal_error``, its text left to the log.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import (
    Closed,
    DatabaseCorrupt,
    DatabaseUnavailable,
    DiskFull,
    FlushTimeout,
    InvalidInput,
    KeyConflict,
    MemstrataError,
    NotFound,
    ProviderError,
    StoreError,
)
from ._request_id import HEADER, current_request_id

__all__ = ["Forbidden", "NotReady", "RateLimited", "TooLarge", "Unauthorized", "error_body",
           "install_handlers"]

log = logging.getLogger("memstrata.server")


class Unauthorized(MemstrataError):
    """No API key, or one that is malformed, unknown or revoked (HTTP 401)."""


class Forbidden(MemstrataError):
    """A valid key asked for what its scopes or tenants do not allow (HTTP 403)."""


class RateLimited(MemstrataError):
    """A key's request rate or a tenant's quota is used up (HTTP 429, ``Retry-After``)."""

    def __init__(self, message: str, retry_after: int) -> None:
        self.retry_after = max(1, int(retry_after))
        super().__init__(message)


class NotReady(Closed):
    """The service is starting or shutting down and takes no requests (HTTP 503)."""


class TooLarge(MemstrataError):
    """A request body, or a field in it, is larger than the service accepts (HTTP 413)."""

    def __init__(self, field: str | None, message: str) -> None:
        self.field = field
        super().__init__(message)


def error_body(kind: str, message: str, field: str | None = None) -> dict[str, Any]:
    """The one shape of every error answer."""
    return {"error": {"type": kind, "message": message, "field": field}}


def _answer(status: int, kind: str, message: str, field: str | None = None,
            headers: dict[str, str] | None = None) -> JSONResponse:
    ident = current_request_id()
    if ident is not None:
        headers = {**(headers or {}), HEADER: ident}
    return JSONResponse(error_body(kind, " ".join(message.split()), field), status_code=status,
                        headers=headers)


def _logged(what: str, exc: BaseException, *, trace: bool = True) -> str:
    """Log the detail of a failure for the operator (paths, hosts, the driver's words), under
    the request's id; the client's answer names the id only. ``trace=False``: one line, for a
    failure whose cause the message says (a database that cannot be reached fails every
    request while it lasts)."""
    ident = current_request_id()
    log.error("request %s: %s: %s", ident or "-", what, exc,
              exc_info=exc if trace and exc.__cause__ is not None else None)
    return f" (request id {ident})" if ident else ""


def answer_for(exc: MemstrataError) -> JSONResponse:
    """The HTTP answer to one of memstrata's errors. A client's answer says what it sent
    wrong, or which kind of failure the service had; never a path, a host or SQL, which go
    to the log."""
    if isinstance(exc, KeyConflict):
        return _answer(409, "conflict", exc.reason, exc.field)
    if isinstance(exc, InvalidInput):
        return _answer(422, "invalid_input", exc.reason, exc.field)
    if isinstance(exc, NotFound):
        return _answer(404, "not_found", str(exc))
    if isinstance(exc, TooLarge):
        return _answer(413, "too_large", str(exc), exc.field)
    if isinstance(exc, Unauthorized):
        return _answer(401, "unauthorized", str(exc), headers={"WWW-Authenticate": "Bearer"})
    if isinstance(exc, Forbidden):
        return _answer(403, "forbidden", str(exc))
    if isinstance(exc, RateLimited):
        return _answer(429, "rate_limited", str(exc),
                       headers={"Retry-After": str(exc.retry_after)})
    if isinstance(exc, ProviderError):
        ref = _logged("model provider failed", exc)
        return _answer(502, "provider_error", f"the model provider failed{ref}; the "
                       "service's log has the details")
    if isinstance(exc, Closed | FlushTimeout):
        return _answer(503, "unavailable", str(exc) or "the service is not ready",
                       headers={"Retry-After": "1"})
    if isinstance(exc, DiskFull):
        # Nothing of the request was stored; the same request succeeds once space is freed.
        ref = _logged("disk full", exc)
        return _answer(507, "disk_full", "the disk holding the database is full; nothing of "
                       f"this request was stored{ref}", headers={"Retry-After": "60"})
    if isinstance(exc, DatabaseUnavailable):
        # PostgreSQL is down or restarting: the same request can succeed shortly.
        ref = _logged("database unreachable", exc, trace=False)
        return _answer(503, "unavailable", f"the database cannot be reached for now{ref}; "
                       "try again shortly", headers={"Retry-After": "1"})
    if isinstance(exc, DatabaseCorrupt):
        ref = _logged("database damaged", exc)
        return _answer(500, "store_error", f"the database is damaged{ref}; the service's log "
                       "has the details")
    if isinstance(exc, StoreError):
        ref = _logged("database error", exc)
        return _answer(500, "store_error", f"the database failed{ref}; the service's log "
                       "has the details")
    ref = _logged("unexpected error", exc)
    return _answer(500, "internal_error", f"the service failed unexpectedly{ref}; its log "
                   "has the details")


# What pydantic puts in an error's location for the member of a union type that failed.
_UNION_TAGS = frozenset({"str", "int", "float", "bool", "dict", "list", "none"})


def field_of(loc: Sequence[Any]) -> str | None:
    """A pydantic error location as a field name: ``("body", "items", 3, "content")`` is
    ``items[3].content``, ``("query", "limit")`` is ``limit``."""
    parts = list(loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc)
    out = ""
    for part in parts:
        if isinstance(part, str) and (part in _UNION_TAGS or "[" in part):
            continue  # which member of a union failed (``content.str``): not a field
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or None


_STATUS_KINDS = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                 405: "method_not_allowed", 408: "timeout", 409: "conflict",
                 413: "too_large", 415: "unsupported_media_type", 422: "invalid_input",
                 429: "rate_limited", 503: "unavailable"}


def install_handlers(app: FastAPI) -> None:
    """Answer every error in the one shape."""

    async def memstrata_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, MemstrataError)
        return answer_for(exc)

    async def validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = exc.errors()
        first = errors[0] if errors else {}
        field = field_of(first.get("loc", ()))
        message = str(first.get("msg", "is not valid"))
        if first.get("type") == "json_invalid":
            field, message = "body", "is not valid JSON"
        elif field is not None and first.get("type") == "missing":
            message = "is required"
        return _answer(422, "invalid_input", message, field)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 400:
            # FastAPI's answer to a body it could not decode (bytes that are not UTF-8):
            # invalid input like any other bad body.
            return _answer(422, "invalid_input", "is not valid JSON text (UTF-8)", "body")
        kind = _STATUS_KINDS.get(exc.status_code, "http_error")
        return _answer(exc.status_code, kind, str(exc.detail),
                       headers=dict(exc.headers) if exc.headers else None)

    async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        # A bug rather than a kind of failure: the one body all the same, without the
        # exception's text (it may show internals); the server logs the traceback.
        ident = current_request_id()
        log.error("request %s: unexpected error", ident or "-", exc_info=exc)
        ref = f" (request id {ident})" if ident else ""
        return _answer(500, "internal_error", f"the service failed unexpectedly{ref}; its "
                       "log has the details")

    app.add_exception_handler(MemstrataError, memstrata_error)
    app.add_exception_handler(Exception, unexpected_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
