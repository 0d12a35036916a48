"""Routes of whole sessions: listing, stats, the summary, reset and removal, and moving a
session in and out as JSONL. A session another tenant holds answers exactly as a missing one."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, cast

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import StreamingResponse

from ..errors import InvalidInput, NotFound
from ..memory import Memory
from ..types import ResetMode
from ._auth import memory_for, report_added
from ._import_body import BodyLines, open_body
from ._media import json_body
from ._schemas import (
    AUTHED,
    BODY,
    JSON_BODY,
    KEYED,
    MAX_CONTENT,
    PROVIDER,
    TEXT,
    ImportOut,
    RemovedOut,
    ResetIn,
    ResetOut,
    SessionId,
    SessionListOut,
    StatsOut,
    SummarizeOut,
    SummaryOut,
    TenantStatsOut,
    errors,
    json_errors,
    session_out,
)

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["sessions"])

Mem = Annotated[Memory, Depends(memory_for)]
NDJSON = "application/x-ndjson"


class NDJSONResponse(StreamingResponse):
    media_type = NDJSON


@router.get("/sessions", response_model=SessionListOut, responses=errors(*AUTHED),
            summary="The tenant's sessions, newest activity first")
async def list_sessions(mem: Mem) -> SessionListOut:
    return SessionListOut(sessions=[session_out(s) for s in await mem.sessions()])


@router.get("/stats", response_model=TenantStatsOut, responses=errors(*AUTHED),
            summary="How much the tenant holds, and what waits to be indexed")
async def tenant_stats(mem: Mem) -> TenantStatsOut:
    sessions = await mem.sessions()
    return TenantStatsOut(tenant=mem.tenant, sessions=len(sessions),
                          messages=sum(s.messages for s in sessions),
                          index_backlog=await mem.index_backlog())


@router.get("/sessions/{session}", response_model=StatsOut, responses=errors(*AUTHED, 404),
            summary="Counts, hot tier, cursor and summary cost of one session")
async def session_stats(session: SessionId, mem: Mem) -> StatsOut:
    stats = await mem.stats(session)
    return StatsOut(session=stats.session, messages=stats.messages,
                    hot_messages=stats.hot_messages, hot_bytes=stats.hot_bytes,
                    cutoff=stats.cutoff, cursor=stats.cursor, index_backlog=stats.index_backlog,
                    summary_kind=stats.summary_kind, summary_tokens_in=stats.summary_tokens_in,
                    summary_tokens_out=stats.summary_tokens_out, last_error=stats.last_error,
                    extra=stats.extra, tenant_backlog=stats.tenant_backlog)


@router.get("/sessions/{session}/summary", response_model=SummaryOut,
            responses=errors(*AUTHED, 404), summary="The stored summary, as it is")
async def get_summary(session: SessionId, mem: Mem) -> SummaryOut:
    summary = await mem.summary(session)
    if summary is None:
        await mem.stats(session)  # NotFound for a session that does not exist
        return SummaryOut(summary=None, kind=None, cursor=None, tokens_in=0, tokens_out=0,
                          created_at=None)
    return SummaryOut(summary=summary.body, kind=summary.kind, cursor=summary.cursor,
                      tokens_in=summary.tokens_in, tokens_out=summary.tokens_out,
                      created_at=summary.created_at)


@router.post("/sessions/{session}/summarize", response_model=SummarizeOut,
             responses=errors(*AUTHED, 404, *PROVIDER), summary="Bring the summary up to date")
async def summarize(session: SessionId, mem: Mem) -> SummarizeOut:
    """With a summary model every message after the cursor is merged (502 when the model
    fails; chunks before the failure stay saved); without one, a digest."""
    await mem.stats(session)
    return SummarizeOut(summary=await mem.summarize(session))


@router.post("/sessions/{session}/reset", response_model=ResetOut,
             responses=errors(*AUTHED, 404, *JSON_BODY, *PROVIDER),
             dependencies=[Depends(json_body)],
             summary="Delete the messages (keeping the summary unless mode is all)")
async def reset(session: SessionId, mem: Mem,
                body: Annotated[ResetIn | None, Body()] = None) -> ResetOut:
    """``summary`` summarises everything first (a failure aborts, nothing is deleted) and
    keeps the summary; ``all`` deletes the summary too."""
    mode = body.mode if body is not None else "summary"
    await mem.stats(session)
    await mem.reset(session, mode=cast("ResetMode", mode))
    return ResetOut(reset=True)


@router.delete("/sessions/{session}", response_model=RemovedOut,
               responses=errors(*AUTHED, 404), summary="Delete a session from every stratum")
async def remove(session: SessionId, mem: Mem) -> RemovedOut:
    if not await mem.remove(session):
        raise NotFound(f"no session {session!r} in this tenant")
    return RemovedOut(removed=True)


@router.get("/sessions/{session}/export", response_class=NDJSONResponse,
            responses={200: {"content": {NDJSON: {"schema": {"type": "string"}}},
                             "description": "One JSON record a line: the messages, oldest "
                                            "first, then the summary."},
                       **json_errors(*AUTHED, 404)},
            summary="The session as JSONL")
async def export(session: SessionId, mem: Mem) -> NDJSONResponse:
    await mem.stats(session)  # 404 before the stream starts

    async def lines() -> AsyncIterator[bytes]:
        async for record in mem.export(session):
            yield (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    return NDJSONResponse(lines())


# One record of the body; the body is such records, one a line (or a history array).
_IMPORT_RECORD = {
    "type": "object", "required": ["type", "role", "content"], "additionalProperties": False,
    "description": "One line of the body: a message record as the export writes it (a "
                   "summary record, or a history array instead of lines, is also taken).",
    "properties": {
        "type": {"type": "string", "enum": ["message"]},
        "role": {"type": "string", "enum": ["user", "assistant"]},
        "content": {"type": "string", "pattern": TEXT, "maxLength": MAX_CONTENT},
        "sender": {"type": "string", "pattern": TEXT, "maxLength": 256},
        "key": {"type": "string", "minLength": 1, "maxLength": 256,
                "pattern": "^[^\\x00]*$"}}}
_IMPORT_BODY = {"required": True, "content": {NDJSON: {"schema": _IMPORT_RECORD}}}


@router.post("/sessions/{session}/import", response_model=ImportOut,
             responses=errors(*AUTHED, *BODY, *KEYED), summary="Import JSONL (all or nothing)",
             openapi_extra={"requestBody": _IMPORT_BODY})
async def import_(session: SessionId, request: Request, mem: Mem) -> ImportOut:
    """Records as ``export`` writes them (or a ``[{role, content, sendAt, sender}]`` history
    array); a bad record is named by its line and nothing is stored. Up to 64 MiB."""
    chunks = request.stream()
    head, is_history = await open_body(chunks)
    if not head.strip():
        raise InvalidInput("body", "is required: JSONL records, one a line, or a history "
                           "array")
    if is_history:
        data = head + b"".join([chunk async for chunk in chunks])
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput("history", f"is not UTF-8 text (byte {exc.start + 1})") from exc
        imported = await mem.import_history(session, text)
    else:
        imported = await mem.import_(session, BodyLines(head, chunks,
                                                        asyncio.get_running_loop()))
    report_added(request, imported)
    return ImportOut(imported=imported)
