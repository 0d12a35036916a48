"""The model-facing error-memory tools, ``error_history`` and ``write_error``.

Definitions are neutral (``name``, ``description``, JSON-schema ``parameters``) so one list can
be turned into any provider's format. ``execute_error_tool`` returns the text the model should
see: a model's bad arguments come back as ``"Error: <field>: <what is allowed>"`` text it can
correct, never as an exception, and ``limit`` is clamped rather than refused.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from ..config import Settings
from ..errors import InvalidInput
from ..types import OUTCOMES, ErrorRecord
from ._memory import ID_PREFIX_MIN

__all__ = ["ERROR_TOOL_NAMES", "ErrorSource", "error_tool_definitions", "execute_error_tool"]


class ErrorSource(Protocol):
    """What the tools use of an error memory: ``ErrorMemory`` in-process, or a client's
    error memory on a server."""

    @property
    def settings(self) -> Settings: ...

    async def write(self, *, tool_name: str, keywords: Sequence[str], symptom: str,
                    action: str, cause: str | None = None,
                    outcome: str = "resolved") -> ErrorRecord: ...

    async def search(self, keyword: str, *, tool: str | None = None,
                     limit: int | None = None) -> list[ErrorRecord]: ...

    async def read(self, id_or_prefix: str) -> ErrorRecord | None: ...

ERROR_TOOL_NAMES = ("error_history", "write_error")

_ERROR_HISTORY_DESCRIPTION = (
    "Look up how earlier tool errors were handled, across all conversations. Use it when a "
    "tool call fails, before trying a fix of your own. Modes: 'search' finds records by "
    "keyword or by the error message (any language; optionally for one tool); 'read' shows "
    "one record by id (the 8-character id shown by search is enough); 'write' records an "
    "error and what was done about it (same fields as write_error).")

_WRITE_ERROR_DESCRIPTION = (
    "Record a tool error and how it was handled, so that you and other conversations can "
    "find it next time the same failure happens. Write it once the outcome is known: what "
    "went wrong (symptom), why if known (cause), what you did (action) and whether that "
    "resolved it. Describe the failure in words someone would search for.")


def _record_properties() -> dict[str, Any]:
    return {
        "tool_name": {"type": "string", "description": "the tool that failed"},
        "keywords": {"type": "array", "items": {"type": "string"},
                     "description": "a few words to find this by (error codes, subjects)"},
        "symptom": {"type": "string", "description": "what went wrong, e.g. the error message"},
        "cause": {"type": "string", "description": "why it went wrong, if known"},
        "action": {"type": "string", "description": "what was done about it"},
        "outcome": {"type": "string", "enum": list(OUTCOMES),
                    "description": "whether the action worked (default resolved)"},
    }


def error_tool_definitions(limit_max: int) -> list[dict[str, Any]]:
    """The neutral definitions of ``error_history`` and ``write_error``."""
    history = {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": ["search", "read", "write"],
                     "description": "search records, read one by id, or write one"},
            "keyword": {"type": "string",
                        "description": "search: words or the error message to look for"},
            "tool": {"type": "string", "description": "search: only records of this tool"},
            "limit": {"type": "integer", "minimum": 1, "maximum": limit_max,
                      "description": "search: how many records at most"},
            "id": {"type": "string", "description": "read: the record id or its first "
                                                    f"{ID_PREFIX_MIN}+ characters"},
            **_record_properties(),
        },
        "required": ["mode"],
        "additionalProperties": False,
    }
    write = {
        "type": "object",
        "properties": _record_properties(),
        "required": ["tool_name", "keywords", "symptom", "action"],
        "additionalProperties": False,
    }
    return [
        {"name": "error_history", "description": _ERROR_HISTORY_DESCRIPTION,
         "parameters": history},
        {"name": "write_error", "description": _WRITE_ERROR_DESCRIPTION, "parameters": write},
    ]


async def execute_error_tool(errors: ErrorSource, name: str,
                             args: Mapping[str, Any] | str) -> str:
    """Run an error-memory tool call and return the text the model should see."""
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError as exc:
            return f"Error: arguments are not valid JSON ({exc.msg})."
    if not isinstance(args, Mapping):
        return "Error: arguments must be a JSON object."
    try:
        if name == "write_error":
            return await _write(errors, args)
        if name == "error_history":
            return await _history(errors, args)
    except InvalidInput as exc:
        return f"Error: {exc}"
    return f"Error: unknown tool {name!r}; available: {', '.join(ERROR_TOOL_NAMES)}."


async def _history(errors: ErrorSource, args: Mapping[str, Any]) -> str:
    mode = args.get("mode")
    if mode == "search":
        keyword = args.get("keyword")
        if not isinstance(keyword, str) or not keyword.strip():
            return "Error: keyword: search needs a non-empty keyword or error message."
        tool = args.get("tool") or None
        found = await errors.search(keyword, tool=tool,
                                    limit=_clamp(args.get("limit"),
                                                 errors.settings.error_limit_max))
        if not found:
            scope = f" for tool {tool!r}" if tool else ""
            return f"No error records match {keyword!r}{scope}."
        return "\n".join(_summary(r) for r in found)
    if mode == "read":
        ident = args.get("id")
        if isinstance(ident, int) and not isinstance(ident, bool):
            ident = str(ident)  # an all-digit id prefix sent as a number
        record = await errors.read(ident)  # type: ignore[arg-type]  # read() checks the type
        if record is None:
            return f"No error record has id {ident!r} (it may have expired)."
        return _full(record, ZoneInfo(errors.settings.timezone))
    if mode == "write":
        return await _write(errors, args)
    return "Error: mode: must be one of search, read, write."


async def _write(errors: ErrorSource, args: Mapping[str, Any]) -> str:
    keywords = args.get("keywords", [])
    if isinstance(keywords, str):
        # Models sometimes send "a, b" for an array; take it as they meant it.
        keywords = [k for k in keywords.split(",") if k.strip()]
    record = await errors.write(
        tool_name=args.get("tool_name"),  # type: ignore[arg-type]  # write() checks types
        keywords=keywords,
        symptom=args.get("symptom"),  # type: ignore[arg-type]
        action=args.get("action"),  # type: ignore[arg-type]
        cause=args.get("cause"),
        outcome=args.get("outcome") or "resolved")
    return (f"Recorded error {record.id[:ID_PREFIX_MIN]} for tool {record.tool_name} "
            f"(outcome {record.outcome}; full id {record.id}).")


def _clamp(value: Any, top: int) -> int | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not math.isfinite(value)):
        raise InvalidInput("limit", f"must be an integer from 1 to {top}")
    return max(1, min(int(value), top))


def _summary(r: ErrorRecord) -> str:
    lines = [f"[{r.id[:ID_PREFIX_MIN]}] {r.tool_name} · {r.outcome}",
             f"  symptom: {r.symptom}"]
    if r.cause:
        lines.append(f"  cause: {r.cause}")
    lines.append(f"  action: {r.action}")
    return "\n".join(lines)


def _full(r: ErrorRecord, tz: ZoneInfo) -> str:
    def day(ns: int) -> str:
        return datetime.fromtimestamp(ns / 1e9, tz).strftime("%Y-%m-%d %H:%M %Z")

    lines = [f"id: {r.id}", f"tool: {r.tool_name}", f"outcome: {r.outcome}",
             f"keywords: {', '.join(r.keywords) or '(none)'}", f"symptom: {r.symptom}",
             f"cause: {r.cause or '(unknown)'}", f"action: {r.action}",
             f"recorded: {day(r.created_at)}; found {r.hits} time(s); "
             f"kept until {day(r.expires_at)}"]
    return "\n".join(lines)
