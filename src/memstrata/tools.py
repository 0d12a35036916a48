"""The model-facing tools: JSON-schema definitions and an executor that returns text.

A model's bad arguments come back as error text the model can read and correct; they never
raise. ``limit`` is clamped to what the settings allow.
"""

from __future__ import annotations

import json
import math
from typing import Any, Protocol, cast
from zoneinfo import ZoneInfo

from ._context import format_time
from .config import Settings
from .errormem import ERROR_TOOL_NAMES, ErrorSource, error_tool_definitions, execute_error_tool
from .errors import InvalidInput, NotFound
from .search import TIME_RANGES
from .text import check_unicode
from .types import AnthropicTool, Hit, MatchMode, Message, OpenAITool, TimeRange

__all__ = ["History", "Tools"]


class History(Protocol):
    """What the tools read: a conversation's history and the error memory (``Memory`` and
    ``RemoteMemory`` are two; the tools need nothing else of them)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def errors(self) -> ErrorSource: ...

    def match_modes(self) -> list[str]: ...

    async def search(self, session: str | None, query: str, *, match: MatchMode | None = None,
                     time_range: TimeRange = "all", limit: int | None = None,
                     exclude_window: bool = True) -> list[Hit]: ...

    async def index_backlog(self, session: str | None = None) -> int: ...

    async def recent(self, session: str | None, *, time_range: TimeRange = "all",
                     limit: int | None = None, before_id: int | None = None) -> list[Message]: ...

    async def read(self, message_id: int, *, before: int | None = None,
                   after: int | None = None) -> list[Message]: ...

_CHAT_HISTORY_DESCRIPTION = (
    "Look up this conversation's history beyond the messages you can see. Modes: 'search' "
    "finds messages by keyword (words or phrases, any language; time-ranged); 'list' shows "
    "recent messages, newest first, paged with before_id; 'read' shows one message with the "
    "messages around it, by id. Use it when the user refers to something said earlier that "
    "is not in view.")


def _match_description(match_modes: list[str]) -> str:
    """The ``match`` parameter's description, with the default this memory really uses."""
    if "hybrid" not in match_modes:
        return "search: how to match (default keyword: the words themselves)"
    return ("search: how to match (default hybrid: the words or their meaning; keyword: only "
            "messages containing the words; semantic: by meaning only)")


def _chat_history_schema(limit_max: int, match_modes: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": ["search", "list", "read"],
                     "description": "search by keyword, list recent messages, or read one by id"},
            "keyword": {"type": "string",
                        "description": "search: the words or phrase to look for"},
            "match": {"type": "string", "enum": match_modes,
                      "description": _match_description(match_modes)},
            "time_range": {"type": "string", "enum": list(TIME_RANGES),
                           "description": "search/list: how far back (1m = 30 days)"},
            "limit": {"type": "integer", "minimum": 1, "maximum": limit_max,
                      "description": "search/list: how many messages at most"},
            "id": {"type": "integer", "description": "read: the message id (the #number)"},
            "before_id": {"type": "integer",
                          "description": "list: show messages older than this id (paging)"},
        },
        "required": ["mode"],
        "additionalProperties": False,
    }


class Tools:
    """The tools of one session, in OpenAI and Anthropic formats, and their executor."""

    def __init__(self, memory: History, session: str) -> None:
        self._memory = memory
        self.session = session
        self._tz = ZoneInfo(memory.settings.timezone)

    def _match_modes(self) -> list[str]:
        return self._memory.match_modes()

    def definitions(self) -> list[dict[str, Any]]:
        """Neutral definitions (name, description, JSON-schema parameters) of
        ``chat_history``, ``error_history`` and ``write_error``."""
        settings = self._memory.settings
        return [{
            "name": "chat_history",
            "description": _CHAT_HISTORY_DESCRIPTION,
            "parameters": _chat_history_schema(settings.search_limit_max, self._match_modes()),
        }, *error_tool_definitions(settings.error_limit_max)]

    def openai(self) -> list[OpenAITool]:
        """Function definitions for OpenAI-style ``tools=`` (typed as the ``openai`` SDK's
        ``tools`` parameter)."""
        return [{"type": "function", "function": {
            "name": d["name"], "description": d["description"], "parameters": d["parameters"]}}
            for d in self.definitions()]

    def anthropic(self) -> list[AnthropicTool]:
        """Tool definitions for Anthropic's ``tools=`` (typed as the ``anthropic`` SDK's)."""
        return [{"name": d["name"], "description": d["description"],
                 "input_schema": d["parameters"]} for d in self.definitions()]

    async def execute(self, name: str, arguments: dict[str, Any] | str) -> str:
        """Run a tool call; the returned text is what the model should see."""
        try:
            args = json.loads(arguments) if isinstance(arguments, str) else arguments
        except json.JSONDecodeError as exc:
            return f"Error: arguments are not valid JSON ({exc.msg})."
        if not isinstance(args, dict):
            return "Error: arguments must be a JSON object."
        if name in ERROR_TOOL_NAMES:
            return await execute_error_tool(self._memory.errors, name, args)
        if name != "chat_history":
            known = ", ".join(d["name"] for d in self.definitions())
            return f"Error: unknown tool {name!r}; available: {known}."
        try:
            return await self._chat_history(args)
        except (InvalidInput, NotFound) as exc:
            return f"Error: {exc}"

    def _clamp(self, value: Any) -> int | None:
        if value is None:
            return None
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not math.isfinite(value)):
            raise InvalidInput("limit", "must be an integer")
        return max(1, min(int(value), self._memory.settings.search_limit_max))

    async def _chat_history(self, args: dict[str, Any]) -> str:
        mode = args.get("mode")
        time_range = args.get("time_range") or "all"
        if mode == "search":
            keyword = args.get("keyword")
            if not isinstance(keyword, str) or not keyword.strip():
                return "Error: keyword: search needs a non-empty keyword."
            check_unicode(keyword, "keyword")
            match = args.get("match")
            try:
                hits = await self._memory.search(self.session, keyword, match=match,
                                                 time_range=cast(TimeRange, time_range),
                                                 limit=self._clamp(args.get("limit")))
            except InvalidInput as exc:  # the model named it "keyword" (e.g. only stop words)
                if exc.field != "query":
                    raise
                raise InvalidInput("keyword", exc.reason) from exc
            if not hits:
                return await self._no_match(keyword, match, time_range)
            return "\n".join(self._hit_line(h) for h in hits)
        if mode == "list":
            before = args.get("before_id")
            messages = await self._memory.recent(self.session,
                                                 time_range=cast(TimeRange, time_range),
                                                 limit=self._clamp(args.get("limit")),
                                                 before_id=before)
            if not messages:
                return f"No messages in time range {time_range}."
            lines = [self._line(m) for m in messages]
            return "\n".join(lines) + (f"\n(older: before_id={messages[-1].id})"
                                       if len(messages) == (self._clamp(args.get("limit"))
                                                            or self._memory.settings.search_limit)
                                       else "")
        if mode == "read":
            mid = args.get("id")
            # isdecimal, not isdigit: int() refuses digits such as "²".
            if isinstance(mid, str) and mid.lstrip("#").isdecimal():
                mid = int(mid.lstrip("#"))
            try:
                messages = await self._memory.read(mid)  # type: ignore[arg-type]
            except NotFound:
                messages = []  # the model sees this conversation only: no tenant, no other ids
            if not any(m.session == self.session for m in messages):
                return f"Error: id: message {mid} is not in this conversation."
            return "\n".join(("> " if m.id == mid else "  ") + self._line(m) for m in messages)
        return "Error: mode: must be one of search, list, read."

    async def _no_match(self, keyword: str, match: Any, time_range: str) -> str:
        """What the model reads when nothing matched: that, or that indexing is pending."""
        nothing = f"No messages match {keyword!r} (time range {time_range})."
        semantic = match in ("semantic", "hybrid") or (
            match is None and "hybrid" in self._match_modes())
        pending = await self._memory.index_backlog(self.session) if semantic else 0
        if not pending:
            return nothing
        return (f"No messages match {keyword!r} yet (time range {time_range}): {pending} "
                f"message(s) of this conversation are still waiting to be indexed for "
                f"search by meaning. Try again shortly, or search with match 'keyword'.")

    def _line(self, m: Message) -> str:
        return f"#{m.id} [{format_time(m.at, self._tz)} · {m.sender or m.role}] {m.content}"

    def _hit_line(self, h: Hit) -> str:
        mark = f"(match {h.rank})" if h.matched else "(context)"
        return f"{self._line(h.message)} {mark}"
