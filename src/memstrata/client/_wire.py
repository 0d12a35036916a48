"""The HTTP API's JSON, read back into memstrata's values and exceptions.

Replies become the same frozen dataclasses ``Memory`` returns; error bodies
(``{"error": {"type", "message", "field"}}``) become the same ``memstrata.errors`` exceptions a
local call would raise, so a caller (the command line) cannot tell the two apart.
"""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
import json
import math
from collections.abc import Mapping
from typing import Any, NoReturn

import httpx

from ..errors import (
    DiskFull,
    InvalidInput,
    KeyConflict,
    MemstrataError,
    NotFound,
    ProviderError,
    StoreError,
)
from ..types import ErrorRecord, Hit, Message, SessionInfo, SessionStats

__all__ = ["Forbidden", "RateLimited", "ServerError", "Unauthorized", "Unavailable",
           "Unreachable", "error_record", "hit", "jsonl_line", "message", "raise_for",
           "session_info", "session_stats"]


class ServerError(MemstrataError):
    """The server answered with an error that has no local counterpart (a refused key or
    request, a rate limit, a 5xx), or with something that is not memstrata's API.

    ``status`` is the HTTP status (``None``: no answer), ``kind`` the service's kind of error
    (``forbidden``, ``rate_limited``, ``internal_error`` …; ``None`` when the reply was not in
    the service's error shape), ``retry_after`` the seconds the server asked to wait
    (``Retry-After``) and ``request_id`` its ``X-Request-Id``, under which the service's log
    tells the operator more.
    """

    def __init__(self, message: str, *, status: int | None = None, kind: str | None = None,
                 retry_after: float | None = None, request_id: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.retry_after = retry_after
        self.request_id = request_id


class Unauthorized(ServerError):
    """The server refused the API key (missing, unknown, expired or revoked): 401."""


class Forbidden(ServerError):
    """The key is valid but may not do this: a scope it lacks, or a tenant outside its own
    (403). Nothing was changed."""


class RateLimited(ServerError):
    """The key's request rate, the tenant's quota or the server's import cap is used up
    (429); ``retry_after`` says how many seconds to wait. Nothing was changed."""


class Unavailable(ServerError):
    """The server is starting, stopping or at its connection cap (503); try again shortly
    (``retry_after`` when it said)."""


class Unreachable(ServerError):
    """No answer from the server: refused connection, name not resolved, timeout."""


def _ns(data: Mapping[str, Any], name: str) -> int | None:
    """The nanosecond time ``name``: from its exact ``…_ns`` string when the server sends one
    (the number may have passed through a float on the way), else the number."""
    text = data.get(f"{name}_ns")
    if isinstance(text, str):
        return int(text)
    value = data.get(name)
    return None if value is None else int(value)


def message(data: Mapping[str, Any]) -> Message:
    at = _ns(data, "at")
    if at is None:
        raise KeyError("at")
    return Message(id=int(data["id"]), session=str(data["session"]), role=data["role"],
                   content=str(data["content"]), at=at,
                   sender=data.get("sender"), meta=data.get("meta"))


def hit(data: Mapping[str, Any]) -> Hit:
    rank = data.get("rank")
    return Hit(message=message(data["message"]), score=float(data["score"]),
               rank=None if rank is None else int(rank), source=data["source"],
               matched=bool(data.get("matched", True)))


def session_info(data: Mapping[str, Any]) -> SessionInfo:
    return SessionInfo(id=str(data["id"]), messages=int(data["messages"]),
                       first_at=_ns(data, "first_at"), last_at=_ns(data, "last_at"),
                       has_summary=bool(data["has_summary"]))


# How the server words a provider failure; the exception's own text is what follows.
_PROVIDER_PREFIX = "the model provider failed: "

_STATS_FIELDS = tuple(f.name for f in dataclasses.fields(SessionStats))
_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(ErrorRecord))


def session_stats(data: Mapping[str, Any]) -> SessionStats:
    # Fields the server adds beyond SessionStats (none today) are not this client's business.
    known = {name: data[name] for name in _STATS_FIELDS if name in data}
    known.setdefault("extra", {})
    return SessionStats(**known)


def error_record(data: Mapping[str, Any]) -> ErrorRecord:
    known = {name: data[name] for name in _RECORD_FIELDS if name in data}
    known["keywords"] = tuple(known.get("keywords") or ())
    return ErrorRecord(**known)


def _error_body(response: httpx.Response) -> tuple[str, str, str | None]:
    """``(type, message, field)`` of an error reply, whatever shape it came in."""
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return (str(error.get("type") or ""), str(error.get("message") or ""),
                error.get("field") if isinstance(error.get("field"), str) else None)
    if isinstance(body, dict) and "detail" in body:  # a framework reply, not memstrata's
        return "", str(body["detail"]), None
    text = " ".join(response.text.split())[:300]
    return "", text or response.reason_phrase, None


def raise_for(response: httpx.Response) -> None:
    """Nothing for a 2xx reply; otherwise the exception a local call would have raised, or
    the :class:`ServerError` of what only a server can fail with."""
    if response.is_success:
        return
    kind, text, field = _error_body(response)
    reply = _Reply(status=response.status_code, kind=kind or None,
                   retry_after=retry_after(response.headers.get("Retry-After")),
                   request_id=response.headers.get("X-Request-Id") or None)
    _raise(reply, text, field, str(response.request.url.path))


@dataclasses.dataclass(frozen=True, slots=True)
class _Reply:
    """What an error reply says beside its text."""

    status: int
    kind: str | None
    retry_after: float | None
    request_id: str | None

    def server_error(self, cls: type[ServerError], message: str) -> ServerError:
        ref = f" (request id {self.request_id})" if self.request_id and \
            self.request_id not in message else ""
        return cls(f"{message}{ref}", status=self.status, kind=self.kind,
                   retry_after=self.retry_after, request_id=self.request_id)


def retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (a number of seconds or an HTTP date);
    ``None`` when there is none or it cannot be read."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.UTC)
        seconds = (when - datetime.datetime.now(datetime.UTC)).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _raise(reply: _Reply, text: str, field: str | None, path: str) -> NoReturn:
    status, kind = reply.status, reply.kind
    if status == 409 or kind == "conflict":
        raise KeyConflict(field or "key", text)
    if status in (413, 422) or kind in ("invalid_input", "too_large"):
        name = field or "request"
        # The reason alone, as ``InvalidInput.reason`` holds it locally.
        raise InvalidInput(name, text.removeprefix(f"{name}: ").removeprefix(f"{name} "))
    if status == 404:
        raise NotFound(text or f"nothing at {path}")
    if status == 401 or kind == "unauthorized":
        raise reply.server_error(Unauthorized, f"the server refused the key: {text}")
    if status == 403 or kind == "forbidden":
        raise reply.server_error(Forbidden, f"the server refused the request: {text}")
    if status == 429 or kind == "rate_limited":
        raise reply.server_error(RateLimited, f"the server asks to slow down: {text}")
    if status == 502 or kind == "provider_error":
        raise ProviderError(text.removeprefix(_PROVIDER_PREFIX))
    if status == 503 or kind == "unavailable":
        raise reply.server_error(Unavailable, "the server is not taking requests now "
                                 f"(starting, stopping or at its connection cap): {text}")
    if status == 507 or kind == "disk_full":
        raise DiskFull(text)  # the server's text names the request id
    if kind == "store_error":
        raise StoreError(text)
    raise reply.server_error(ServerError, f"server replied {status}"
                             f"{f' ({kind})' if kind else ''}: {text}")


def jsonl_line(record: Any) -> str:
    """One import record as a JSONL line: text as it is, a mapping as JSON.

    Text is sent unparsed so the server reports a malformed line exactly as a local import
    would (by its number); only an embedded line break is escaped, as it would split the line.
    """
    if isinstance(record, bytes):
        record = record.decode("utf-8")
    if isinstance(record, str):
        return record.replace("\r", "").replace("\n", " ")
    return json.dumps(record, ensure_ascii=False)
