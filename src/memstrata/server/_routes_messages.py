"""Routes of the conversation itself: writing messages, reading them back, the context
window and search (one session or the whole tenant). Each route is one ``Memory`` call."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from .._ingest import text_of, too_long
from ..errors import InvalidInput, NotFound
from ..memory import Memory
from ..types import MatchMode, Message, Role
from ..types import TimeRange as TimeRangeValue
from ._auth import memory_for, report_added
from ._errors import TooLarge
from ._media import json_body
from ._quick import QuickRoute, Sent, as_bool, as_float, as_int, model_of, plain_query, quick
from ._schemas import (
    AUTHED,
    JSON_BODY,
    KEYED,
    MAX_ID,
    PROVIDER,
    SEARCH_LIMIT,
    TEXT,
    BatchIn,
    ContextOut,
    MessageIn,
    MessageListOut,
    MessageOut,
    MessagePageOut,
    ReadOut,
    SearchOut,
    SessionId,
    WireMessage,
    answer,
    errors,
    hit_out,
    message_out,
)

__all__ = ["router"]

JSON_IN = [Depends(json_body)]

router = APIRouter(prefix="/v1", tags=["messages"], route_class=QuickRoute)

Mem = Annotated[Memory, Depends(memory_for)]
MessageId = Annotated[int, Path(ge=1, le=MAX_ID, description="A message id.")]
Limit = Annotated[int | None, Query(description="How many (default and maximum: the "
                                                "server's search settings).",
                                    json_schema_extra=SEARCH_LIMIT)]
TimeRange = Annotated[str, Query(description="How far back: 1d, 7d, 1m (30 days), 1y or "
                                             "all.",
                                 json_schema_extra={"enum": ["1d", "7d", "1m", "1y", "all"]})]


_BATCH_ON_LOOP = 256


def _check_size(mem: Memory, item: MessageIn, prefix: str = "") -> None:
    """A message longer than the server takes is 413 naming the field (not 422: the request
    is well-formed, only too big)."""
    try:
        text = text_of(item.content, prefix + "content")
    except InvalidInput:
        return  # the Memory names what is wrong with it
    top = mem.settings.max_content_chars
    if len(text) > top:
        raise TooLarge(prefix + "content", f"{prefix}content {too_long(len(text), top)}")


def _add_args(sent: Sent) -> dict[str, Any] | None:
    body = model_of(MessageIn, sent.body)
    if body is None or len(sent.query):
        return None
    return {"session": sent.path["session"], "body": body}


@router.post("/sessions/{session}/messages", status_code=201, response_model=MessageOut,
             responses=errors(*AUTHED, *JSON_BODY, *KEYED),
             dependencies=JSON_IN, summary="Add a message")
@quick(_add_args, body=True)
async def add_message(session: SessionId, body: MessageIn, mem: Mem,
                      request: Request) -> Response:
    """Store one message; when the answer arrives it is committed."""
    _check_size(mem, body)
    m = await mem.add(session, cast("Role", body.role), body.content, sender=body.sender,
                      at=body.moment(), meta=body.meta, key=body.key)
    report_added(request, 1)
    return answer(message_out(m), 201)


@router.post("/sessions/{session}/messages/batch", status_code=201,
             response_model=MessageListOut, responses=errors(*AUTHED, *JSON_BODY, *KEYED),
             dependencies=JSON_IN,
             summary="Add several messages atomically")
async def add_messages(session: SessionId, body: BatchIn, mem: Mem,
                       request: Request) -> Response:
    """Store every item, or none when one is invalid (the error names it: ``items[3].role``)."""
    def checked() -> list[dict[str, Any]]:
        for i, item in enumerate(body.items):
            _check_size(mem, item, f"items[{i}].")
        return [item.item(f"items[{i}].") for i, item in enumerate(body.items)]

    def written(stored: list[Message]) -> Response:
        return answer(MessageListOut(messages=[message_out(m) for m in stored]), 201)

    # A large batch is checked and answered off the event loop, which serves everyone.
    large = len(body.items) > _BATCH_ON_LOOP
    items = await asyncio.to_thread(checked) if large else checked()
    stored = await mem.add_many(session, items)
    report_added(request, len(stored))
    return await asyncio.to_thread(written, stored) if large else written(stored)


@router.get("/sessions/{session}/messages", response_model=MessagePageOut,
            responses=errors(*AUTHED), summary="List a session's messages, newest first")
async def list_messages(session: SessionId, mem: Mem,
                        before_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
                        limit: Limit = None, time_range: TimeRange = "all") -> Response:
    """A page of messages older than ``before_id``; an unknown session has none."""
    page = await mem.recent(session, time_range=cast("TimeRangeValue", time_range), limit=limit,
                            before_id=before_id)
    full = len(page) == (limit if limit is not None else mem.settings.search_limit)
    return answer(MessagePageOut(messages=[message_out(m) for m in page],
                                 next_before_id=page[-1].id if page and full else None))


_FORMATS = frozenset({"plain", "openai", "anthropic"})


def _context_args(sent: Sent) -> dict[str, Any] | None:
    # What was not sent keeps the endpoint's own default.
    if not plain_query(sent.query, ("query", "format")) or \
            sent.query.get("format", "plain") not in _FORMATS:
        return None
    return {"session": sent.path["session"], **sent.query}


@router.get("/sessions/{session}/context", response_model=ContextOut,
            responses=errors(*AUTHED, *PROVIDER), summary="The context window and summary")
@quick(_context_args)
async def context(session: SessionId, mem: Mem,
                  query: Annotated[str | None, Query(description="The new user input: the "
                                                     "parts of the summary relevant to it are "
                                                     "picked (with a decision model).")] = None,
                  format: Annotated[Literal["plain", "openai", "anthropic"],  # noqa: A002
                                    Query()] = "plain") -> Response:
    """What to send before the new user input: ``plain`` gives the stored messages,
    ``openai`` and ``anthropic`` the wire messages (each with its time header)."""
    ctx = await mem.context(session, query=query)
    turn = ctx.turn_context["content"] if ctx.turn_context else None
    messages: list[MessageOut] | list[WireMessage]
    system: str | None = ctx.system_prompt or None
    if format == "openai":
        messages = [WireMessage(**m) for m in ctx.to_openai()]
    elif format == "anthropic":
        wire = ctx.to_anthropic()
        messages = [WireMessage(**m) for m in wire["messages"]]
        system = wire["system"] or None
    else:
        messages = [message_out(m) for m in ctx.messages]
    return answer(ContextOut(session=session, format=format, messages=messages,
                             summary=ctx.summary, summary_kind=ctx.summary_kind,
                             system_prompt=system, turn_context=turn,
                             unsummarized=ctx.unsummarized))


async def _search(mem: Memory, session: str | None, q: str, match: str | None,
                  time_range: str, limit: int | None, min_score: float | None,
                  exclude_window: bool) -> Response:
    try:
        hits = await mem.search(session, q, match=cast("MatchMode | None", match),
                                time_range=cast("TimeRangeValue", time_range), limit=limit,
                                exclude_window=exclude_window, min_score=min_score)
    except InvalidInput as exc:
        if exc.field != "query":
            raise
        raise InvalidInput("q", exc.reason) from exc  # the parameter's name on this route
    status: Literal["ok", "no_match", "indexing_pending"] = "ok"
    if not hits:
        semantic = mem.embedder is not None and match != "keyword"
        pending = semantic and await mem.index_backlog(session) > 0
        status = "indexing_pending" if pending else "no_match"
    return answer(SearchOut(hits=[hit_out(h) for h in hits], status=status))


_SEARCH_DOC = """Hits oldest first, with their neighbours (``matched: false``). ``status`` is
``no_match`` when nothing qualifies, ``indexing_pending`` when nothing did while messages still
wait for their embeddings (ask again shortly)."""

Q = Annotated[str, Query(description="What to look for (words, a phrase, any language).",
                         json_schema_extra={"pattern": TEXT, "maxLength": 2000})]
Match = Annotated[str | None, Query(description="keyword, semantic or hybrid (default: "
                                                "hybrid with an embedder, else keyword).",
                                    json_schema_extra={"enum": ["keyword", "semantic",
                                                                "hybrid"]})]
MinScore = Annotated[float | None, Query(description="Score floor of every semantic or "
                                                     "hybrid hit (-1: none). Unset, the best "
                                                     "hit needs the default floor and the "
                                                     "others a share of its score.",
                                         json_schema_extra={"minimum": -1, "maximum": 1})]
Exclude = Annotated[bool, Query(description="Leave out what the context window shows.")]


_SEARCH_PARAMS = ("q", "match", "time_range", "limit", "min_score", "exclude_window")


def _search_args(sent: Sent) -> dict[str, Any] | None:
    if "q" not in sent.query or not plain_query(sent.query, _SEARCH_PARAMS):
        return None
    # What was not sent keeps the endpoint's own default; what was, in its plain spelling.
    args: dict[str, Any] = {"session": sent.path["session"], **sent.query}
    for name, read in (("limit", as_int), ("min_score", as_float),
                       ("exclude_window", as_bool)):
        if name in args:
            args[name] = read(args[name])
            if args[name] is None:
                return None
    return args


@router.get("/sessions/{session}/search", response_model=SearchOut,
            responses=errors(*AUTHED, *PROVIDER), summary="Search one session",
            description=_SEARCH_DOC)
@quick(_search_args)
async def search_session(session: SessionId, q: Q, mem: Mem, match: Match = None,
                         time_range: TimeRange = "all", limit: Limit = None,
                         min_score: MinScore = None, exclude_window: Exclude = True) -> Response:
    return await _search(mem, session, q, match, time_range, limit, min_score, exclude_window)


@router.get("/search", response_model=SearchOut, responses=errors(*AUTHED, *PROVIDER),
            summary="Search every session of the tenant", description=_SEARCH_DOC)
async def search_tenant(q: Q, mem: Mem, match: Match = None, time_range: TimeRange = "all",
                        limit: Limit = None, min_score: MinScore = None,
                        exclude_window: Exclude = True) -> Response:
    return await _search(mem, None, q, match, time_range, limit, min_score, exclude_window)


_SPAN: dict[str, Any] = {"minimum": 0, "maximum": 50}


@router.get("/messages/{message_id}", response_model=ReadOut,
            responses=errors(*AUTHED, 404), summary="A message with its neighbours")
async def read_message(message_id: MessageId, mem: Mem,
                       before: Annotated[int | None, Query(description="Earlier neighbours "
                                                                       "(0-50).",
                                                           json_schema_extra=_SPAN)] = None,
                       after: Annotated[int | None, Query(description="Later neighbours "
                                                                      "(0-50).",
                                                          json_schema_extra=_SPAN)] = None
                       ) -> ReadOut:
    run = await mem.read(message_id, before=before, after=after)
    found: dict[str, Any] = {"message": None, "before": [], "after": []}
    for m in run:
        if m.id == message_id:
            found["message"] = message_out(m)
        else:
            found["before" if m.id < message_id else "after"].append(message_out(m))
    if found["message"] is None:  # pragma: no cover - read() raises NotFound first
        raise NotFound(f"no message with id {message_id}")
    return ReadOut(**found)


@router.delete("/messages/{message_id}", status_code=204, response_class=Response,
               responses=errors(*AUTHED, 404), summary="Forget one message everywhere")
async def forget_message(message_id: MessageId, mem: Mem) -> Response:
    """Remove the message from every stratum (a summary that absorbed it is kept)."""
    if not await mem.forget(message_id):
        raise NotFound(f"no message with id {message_id} in this tenant")
    return Response(status_code=204)
