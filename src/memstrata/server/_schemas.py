"""The JSON of the HTTP API: a pydantic model for every request and response body, the
conversions from memstrata's values, and the error answers each kind of route declares (so
``/openapi.json`` lists every status a route gives)."""

from __future__ import annotations

import dataclasses
import time
from typing import Annotated, Any, Literal

from fastapi import Path
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, JsonValue, computed_field

from ..config import Settings
from ..errors import InvalidInput
from ..types import ErrorRecord, Hit, Message, SessionInfo

__all__ = [
    "AUTHED",
    "BODY",
    "ERROR_LIMIT",
    "JSON_BODY",
    "KEYED",
    "MAX_CONTENT",
    "MAX_ID",
    "PROVIDER",
    "RECORD_ID",
    "SEARCH_LIMIT",
    "SESSION_PATTERN",
    "STORE",
    "TEXT",
    "TOOL_NAME",
    "BatchIn",
    "ContextOut",
    "ErrorBody",
    "ErrorIn",
    "ErrorListOut",
    "ErrorRecordOut",
    "HintOut",
    "HitOut",
    "ImportOut",
    "MessageIn",
    "MessageListOut",
    "MessageOut",
    "MessagePageOut",
    "ReadOut",
    "RemovedOut",
    "ResetIn",
    "ResetOut",
    "SearchOut",
    "SessionId",
    "SessionListOut",
    "SessionOut",
    "StatsOut",
    "StatusOut",
    "SummarizeOut",
    "SummaryOut",
    "TenantStatsOut",
    "WireMessage",
    "errors",
    "hit_out",
    "iso",
    "json_errors",
    "message_out",
    "record_out",
    "session_out",
]

MAX_ID = 2**63 - 1
"""The largest message id (SQLite's integer)."""


def iso(ns: int) -> str:
    """UTC nanoseconds as ISO 8601 with microseconds (none when they are 0, as
    ``datetime.isoformat`` writes it) and a ``Z``. Written out by hand: a context answer
    writes one per message, and this takes about two thirds of the time ``datetime`` does."""
    seconds, rest = divmod(ns, 10**9)
    t = time.gmtime(seconds)
    day = f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}"
    clock = f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
    micro = rest // 1000
    return f"{day}T{clock}.{micro:06d}Z" if micro else f"{day}T{clock}Z"


def answer(model: BaseModel, status: int = 200) -> Response:
    """``model`` as the JSON answer, serialised once: returned as a model, FastAPI would
    validate it against the route's response model again before writing it (the route
    still names that model, for the OpenAPI document)."""
    return Response(model.model_dump_json().encode(), status_code=status,
                    media_type="application/json")


# Nanosecond times pass 2^53, where JavaScript's JSON.parse rounds a number silently: every
# one the service gives also comes as a decimal string (``at`` and ``at_ns``), and a caller
# may send the string instead of the number.
NS_PATTERN = "^[0-9]{1,19}$"
_NS_DOC = ("UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: "
           "read the _ns string there.")


def _ns_text(ns: int | None) -> str | None:
    """A nanosecond time as its decimal string (``None`` stays ``None``)."""
    return None if ns is None else str(ns)


_NS_SCHEMA: dict[str, Any] = {"pattern": NS_PATTERN}


def _ns_doc(of: str) -> str:
    return f"{of} as a decimal string: exact in every language."


# -- errors --------------------------------------------------------------------------------


class ErrorDetail(BaseModel):
    type: str = Field(description="snake_case kind: invalid_input, not_found, unauthorized, "
                                  "too_large, provider_error, unavailable, disk_full, "
                                  "store_error, internal_error, …")
    message: str
    field: str | None = Field(description="The offending field or parameter, if one is.")


class ErrorBody(BaseModel):
    """Every error answer."""

    error: ErrorDetail


_DESCRIPTIONS = {401: "No valid API key",
                 403: "The key's scopes or tenants do not allow this request",
                 429: "The key's request rate or the tenant's quota is used up: wait "
                      "Retry-After seconds",
                 404: "No such session, message or record in "
                 "this tenant", 413: "The body or a field of it is too large",
                 409: "An idempotency key already names a different message",
                 415: "The body is not declared as JSON (Content-Type: application/json)",
                 422: "Invalid input (the field is named)",
                 500: "The database failed (store_error) or the service did (internal_error)",
                 502: "The model provider failed", 503: "Not ready, or shutting down",
                 507: "The disk holding the database is full (disk_full): nothing of the "
                      "request was stored; the same request works once space is freed"}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` entry declaring these error answers."""
    return {s: {"model": ErrorBody, "description": _DESCRIPTIONS[s]} for s in statuses}


def json_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``errors()`` for a route whose own answers are not JSON (FastAPI would give the
    errors the route's media type): the body schema named by reference, as JSON."""
    content = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    return {s: {"description": _DESCRIPTIONS[s], "content": content} for s in statuses}


STORE = (500, 507)
"""What a route that reads or writes the database may answer: it failed, or its disk is full
(PostgreSQL may need disk even for a read: a large sort spills to a temporary file)."""
AUTHED = (401, 403, 422, 429, 503, *STORE)
"""What every ``/v1`` route may answer: no key, a key that may not, invalid input, a limit
reached, not ready, and, since each one reads or writes the database, ``STORE``."""
BODY = (413,)
JSON_BODY = (413, 415)
KEYED = (409,)
"""What a route that stores messages under idempotency keys may answer besides."""
"""What a route that reads a JSON body may answer besides ``AUTHED``."""
PROVIDER = (502,)

# The rules the library enforces, with their own words, published in the schema (for the
# default settings: search_limit_max 32, error_limit_max 16, max_content_chars 10,000).
_DEFAULTS = Settings()
TEXT = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"  # something besides white space; no NUL
MAX_CONTENT = _DEFAULTS.max_content_chars
SEARCH_LIMIT: dict[str, JsonValue] = {"minimum": 1, "maximum": _DEFAULTS.search_limit_max}
ERROR_LIMIT: dict[str, JsonValue] = {"minimum": 1, "maximum": _DEFAULTS.error_limit_max}
_LINE = "[^\\x00-\\x1f\\x7f]"  # a character of one line, no control characters
TOOL_NAME: dict[str, JsonValue] = {"pattern": f"^{_LINE}*[^\\s\\x00-\\x1f\\x7f]{_LINE}*$",
                                   "maxLength": 128}
RECORD_ID: dict[str, JsonValue] = {"pattern": "^[0-9a-f]{8,32}$"}

# The session id rule (enforced by the library, with its own words) as a schema pattern:
# 1-128 of these characters, and not "." or ".." (a URL cannot carry those). JSON Schema
# patterns have no lookahead everywhere, so the dots are spelled out.
_ID_CHAR, _NOT_DOT = "[A-Za-z0-9._:@-]", "[A-Za-z0-9_:@-]"
SESSION_PATTERN = (f"^({_NOT_DOT}{_ID_CHAR}{{0,127}}|\\.{_NOT_DOT}{_ID_CHAR}{{0,126}}"
                   f"|\\.\\.{_ID_CHAR}{{1,126}})$")
SessionId = Annotated[str, Path(
    description="A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'.",
    json_schema_extra={"pattern": SESSION_PATTERN, "minLength": 1, "maxLength": 128})]


# -- messages ------------------------------------------------------------------------------


class MessageOut(BaseModel):
    id: int
    session: str
    role: Literal["user", "assistant"]
    content: str
    at: int = Field(description=_NS_DOC)
    at_iso: str = Field(description="at in ISO 8601 (UTC, microseconds).")
    sender: str | None
    meta: dict[str, Any] | None

    @computed_field(  # type: ignore[prop-decorator]
        description=_ns_doc("at"), json_schema_extra=_NS_SCHEMA)
    @property
    def at_ns(self) -> str:
        return str(self.at)


def message_out(m: Message) -> MessageOut:
    return MessageOut(id=m.id, session=m.session, role=m.role, content=m.content, at=m.at,
                      at_iso=iso(m.at), sender=m.sender, meta=m.meta)


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: str = Field(description="user or assistant",
                      json_schema_extra={"enum": ["user", "assistant"]})
    content: str | list[Any] = Field(description="Text, or content parts whose text parts "
                                                 "are kept.",
                                     json_schema_extra={"anyOf": [
                                         {"type": "string", "pattern": TEXT, "minLength": 1,
                                          "maxLength": MAX_CONTENT},
                                         {"type": "array", "minItems": 1, "maxItems": 64,
                                          "items": {"anyOf": [
                                              {"type": "string", "pattern": TEXT,
                                               "maxLength": 1000},
                                              {"type": "object", "required": ["text"],
                                               "properties": {"text": {
                                                   "type": "string", "pattern": TEXT,
                                                   "maxLength": 1000}}}]}}]})
    sender: str | None = Field(None, json_schema_extra={"anyOf": [
        {"type": "string", "pattern": TEXT, "maxLength": 256}, {"type": "null"}]})
    at: int | None = Field(None, description="UTC Unix time in nanoseconds (default: now); "
                                             "at most 5 minutes ahead of the server's clock. "
                                             "Above 2^53: JavaScript cannot hold it as a "
                                             "number; send at_ns.",
                           json_schema_extra={"anyOf": [
                               {"type": "integer", "minimum": 0, "maximum": MAX_ID},
                               {"type": "null"}]})
    at_ns: str | None = Field(None, description="at as a string of decimal digits (either "
                                                "or both; both must agree).",
                              json_schema_extra={"pattern": NS_PATTERN})
    meta: dict[str, Any] | None = None
    key: str | None = Field(None, description="Idempotency key: a message stored under it "
                                              "before is returned instead of stored again "
                                              "(409 when it named another message).",
                            json_schema_extra={"anyOf": [
                                {"type": "string", "minLength": 1, "maxLength": 256,
                                 "pattern": "^[^\\x00]*$"},
                                {"type": "null"}]})

    def moment(self, prefix: str = "") -> int | None:
        """The time given, from ``at`` or ``at_ns`` (``None``: now); ``InvalidInput`` names
        ``at_ns`` when it is not decimal digits of 0..2^63-1 or disagrees with ``at``."""
        if self.at_ns is None:
            return self.at
        text = self.at_ns
        if not (text.isascii() and text.isdigit()) or int(text) > MAX_ID:
            raise InvalidInput(prefix + "at_ns", "must be a string of decimal digits, UTC "
                               f"Unix nanoseconds 0..2^63-1 (e.g. \"{_EXAMPLE_NS}\"), got "
                               f"{text[:40]!r}")
        ns = int(text)
        if self.at is not None and self.at != ns:
            raise InvalidInput(prefix + "at_ns", f"disagrees with {prefix}at ({text} != "
                               f"{self.at}); give one of at and at_ns, or both equal")
        return ns

    def item(self, prefix: str = "") -> dict[str, Any]:
        """The fields as ``Memory.add_many`` takes an item (``at_ns`` folded into ``at``)."""
        out = self.model_dump(exclude_none=True, exclude={"at_ns"})
        at = self.moment(prefix)
        if at is not None:
            out["at"] = at
        return out


_EXAMPLE_NS = 1_765_000_000_123_456_789


class BatchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[MessageIn]


class MessageListOut(BaseModel):
    messages: list[MessageOut]


class MessagePageOut(BaseModel):
    messages: list[MessageOut] = Field(description="Newest first.")
    next_before_id: int | None = Field(description="Pass as before_id for the next page; "
                                                   "null on the last one.")


class ReadOut(BaseModel):
    message: MessageOut
    before: list[MessageOut]
    after: list[MessageOut]


class WireMessage(BaseModel):
    role: str
    content: str


class ContextOut(BaseModel):
    session: str
    format: Literal["plain", "openai", "anthropic"]
    messages: list[MessageOut] | list[WireMessage] = Field(
        description="plain: the window's messages; openai/anthropic: ready to send.")
    summary: dict[str, Any] | None
    summary_kind: str | None
    system_prompt: str | None
    turn_context: str | None
    unsummarized: int = Field(
        0, description="Messages older than the window that the summary does not cover yet; "
                       "summarise the session to bring them in.")


class HitOut(BaseModel):
    message: MessageOut
    score: float
    rank: int | None
    source: Literal["archive", "recent", "semantic", "hybrid"]
    matched: bool


def hit_out(h: Hit) -> HitOut:
    return HitOut(message=message_out(h.message), score=h.score, rank=h.rank, source=h.source,
                  matched=h.matched)


class SearchOut(BaseModel):
    hits: list[HitOut]
    status: Literal["ok", "no_match", "indexing_pending"]


# -- sessions ------------------------------------------------------------------------------


class SessionOut(BaseModel):
    id: str
    messages: int
    first_at: int | None = Field(description=_NS_DOC)
    last_at: int | None = Field(description=_NS_DOC)
    has_summary: bool

    @computed_field(  # type: ignore[prop-decorator]
        description=_ns_doc("first_at"), json_schema_extra=_NS_SCHEMA)
    @property
    def first_at_ns(self) -> str | None:
        return _ns_text(self.first_at)

    @computed_field(  # type: ignore[prop-decorator]
        description=_ns_doc("last_at"), json_schema_extra=_NS_SCHEMA)
    @property
    def last_at_ns(self) -> str | None:
        return _ns_text(self.last_at)


def session_out(s: SessionInfo) -> SessionOut:
    return SessionOut(**dataclasses.asdict(s))


class SessionListOut(BaseModel):
    sessions: list[SessionOut]


class StatsOut(BaseModel):
    session: str
    messages: int
    hot_messages: int
    hot_bytes: int
    cutoff: int
    cursor: int | None
    index_backlog: int
    summary_kind: str | None
    summary_tokens_in: int
    summary_tokens_out: int
    last_error: str | None
    extra: dict[str, Any]
    tenant_backlog: int = Field(description="The whole tenant's messages still waiting to be "
                                            "embedded (this session's included).")


class TenantStatsOut(BaseModel):
    tenant: str
    sessions: int
    messages: int
    index_backlog: int = Field(description="Messages still waiting to be embedded for "
                                           "semantic search (0 without an embedder).")


class SummaryOut(BaseModel):
    summary: dict[str, Any] | None
    kind: str | None
    cursor: int | None
    tokens_in: int
    tokens_out: int
    created_at: int | None = Field(description=_NS_DOC)

    @computed_field(  # type: ignore[prop-decorator]
        description=_ns_doc("created_at"), json_schema_extra=_NS_SCHEMA)
    @property
    def created_at_ns(self) -> str | None:
        return _ns_text(self.created_at)


class SummarizeOut(BaseModel):
    summary: dict[str, Any] | None


class ResetIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: str = Field("summary", description="summary (keep the summary) or all",
                      json_schema_extra={"enum": ["summary", "all"]})


class ResetOut(BaseModel):
    reset: bool


class RemovedOut(BaseModel):
    removed: bool


class ImportOut(BaseModel):
    imported: int


class StatusOut(BaseModel):
    status: str


# -- error memory --------------------------------------------------------------------------


class ErrorIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool_name: str = Field(json_schema_extra=TOOL_NAME)
    keywords: list[str] = Field(default_factory=list, json_schema_extra={
        "maxItems": 32, "items": {"type": "string", "maxLength": 64}})
    symptom: str = Field(json_schema_extra={"pattern": TEXT, "maxLength": MAX_CONTENT})
    cause: str | None = Field(None, json_schema_extra={"anyOf": [
        {"type": "string", "maxLength": MAX_CONTENT}, {"type": "null"}]})
    action: str = Field(json_schema_extra={"pattern": TEXT, "maxLength": MAX_CONTENT})
    outcome: str = Field("resolved", description="resolved, failed or abandoned",
                         json_schema_extra={"enum": ["resolved", "failed", "abandoned"]})


class ErrorRecordOut(BaseModel):
    id: str
    tool_name: str
    keywords: list[str]
    symptom: str
    cause: str | None
    action: str
    outcome: str
    created_at: int = Field(description=_NS_DOC)
    expires_at: int = Field(description=_NS_DOC)
    hits: int
    created_at_iso: str
    expires_at_iso: str

    @computed_field(  # type: ignore[prop-decorator]
        description=_ns_doc("created_at"), json_schema_extra=_NS_SCHEMA)
    @property
    def created_at_ns(self) -> str:
        return str(self.created_at)

    @computed_field(  # type: ignore[prop-decorator]
        description=_ns_doc("expires_at"), json_schema_extra=_NS_SCHEMA)
    @property
    def expires_at_ns(self) -> str:
        return str(self.expires_at)


def record_out(r: ErrorRecord) -> ErrorRecordOut:
    return ErrorRecordOut(id=r.id, tool_name=r.tool_name, keywords=list(r.keywords),
                          symptom=r.symptom, cause=r.cause, action=r.action, outcome=r.outcome,
                          created_at=r.created_at, expires_at=r.expires_at, hits=r.hits,
                          created_at_iso=iso(r.created_at), expires_at_iso=iso(r.expires_at))


class ErrorListOut(BaseModel):
    errors: list[ErrorRecordOut]


class HintOut(BaseModel):
    hint: str | None
