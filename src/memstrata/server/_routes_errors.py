"""Routes of the error memory: tool errors and how they were handled, shared by every session
of the tenant (``mem.errors``). Ids may be given whole or as a unique prefix of 8+ characters."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Response

from ..errors import NotFound
from ..memory import Memory
from ._auth import memory_for
from ._media import json_body
from ._schemas import (
    AUTHED,
    ERROR_LIMIT,
    JSON_BODY,
    RECORD_ID,
    TEXT,
    TOOL_NAME,
    ErrorIn,
    ErrorListOut,
    ErrorRecordOut,
    HintOut,
    errors,
    record_out,
)

__all__ = ["router"]

JSON_IN = [Depends(json_body)]

router = APIRouter(prefix="/v1/errors", tags=["error memory"])

Mem = Annotated[Memory, Depends(memory_for)]
Tool = Annotated[str | None, Query(description="Only records of this tool.",
                                   json_schema_extra=TOOL_NAME)]
RecordId = Annotated[str, Path(description="A record id, or a unique prefix of 8+ of its "
                                           "hex characters.", json_schema_extra=RECORD_ID)]
_MAX_LIST = 1000


@router.post("", status_code=201, response_model=ErrorRecordOut,
             responses=errors(*AUTHED, *JSON_BODY), dependencies=JSON_IN,
             summary="Remember a tool error and its fix")
async def write_error(body: ErrorIn, mem: Mem) -> ErrorRecordOut:
    record = await mem.errors.write(tool_name=body.tool_name, keywords=body.keywords,
                                    symptom=body.symptom, action=body.action, cause=body.cause,
                                    outcome=body.outcome)
    return record_out(record)


@router.get("", response_model=ErrorListOut, responses=errors(*AUTHED),
            summary="The tenant's records, newest first (not counted as hits)")
async def list_errors(mem: Mem, tool: Tool = None,
                      limit: Annotated[int, Query(ge=1, le=_MAX_LIST)] = 100) -> ErrorListOut:
    records = await mem.errors.list(tool=tool)
    return ErrorListOut(errors=[record_out(r) for r in records[:limit]])


@router.get("/search", response_model=ErrorListOut, responses=errors(*AUTHED),
            summary="Records related to a failure, best first (each counts as a hit)")
async def search_errors(q: Annotated[str, Query(description="Words, a phrase or an error "
                                                            "message.",
                                                json_schema_extra={"pattern": TEXT,
                                                                   "maxLength": 2000})],
                        mem: Mem, tool: Tool = None,
                        limit: Annotated[int | None, Query(json_schema_extra=ERROR_LIMIT)
                                         ] = None) -> ErrorListOut:
    records = await mem.errors.search(q, tool=tool, limit=limit)
    return ErrorListOut(errors=[record_out(r) for r in records])


@router.get("/hint", response_model=HintOut, responses=errors(*AUTHED),
            summary="What past records say about a failure of a tool")
async def hint(tool: Annotated[str, Query(description="The tool that failed.",
                                          json_schema_extra=TOOL_NAME)],
               error: Annotated[str, Query(description="Its error text.")],
               mem: Mem) -> HintOut:
    """Text ready for a model to read after the failed call; ``null`` when nothing relates."""
    return HintOut(hint=await mem.errors.hint(tool, error) or None)


@router.get("/{record_id}", response_model=ErrorRecordOut, responses=errors(*AUTHED, 404),
            summary="One record by id or unique prefix")
async def read_error(record_id: RecordId, mem: Mem) -> ErrorRecordOut:
    record = await mem.errors.read(record_id)
    if record is None:
        raise NotFound(f"no error record {record_id!r} in this tenant")
    return record_out(record)


@router.delete("/{record_id}", status_code=204, response_class=Response,
               responses=errors(*AUTHED, 404), summary="Delete one record")
async def delete_error(record_id: RecordId, mem: Mem) -> Response:
    if not await mem.errors.delete(record_id):
        raise NotFound(f"no error record {record_id!r} in this tenant")
    return Response(status_code=204)
