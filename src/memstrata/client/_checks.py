"""The library's own input checks, run by the client before it sends a request.

Each function calls the check ``Memory`` (or its error memory) runs, so a bad argument raises
the same ``InvalidInput``, with the same field and the same words, without a request; the
server runs the same checks again. A rule that depends on the server's settings or clock is
left to the server, which answers with that same check's words: the longest message
(``max_content_chars``), the upper bound of a ``limit`` (``search_limit_max``,
``error_limit_max``) and how far ahead of its clock ``at`` may be. A ``limit`` that is not an
integer at all is refused here, its message naming the client's settings' bound.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any

from .._context import check_new_input
from .._ingest import MAX_AT, MAX_FUTURE_SKEW_NS, check_message_id, check_span, draft, draft_item
from ..config import Settings
from ..errormem import (
    check_error_limit,
    check_error_text,
    check_prefix,
    check_query_text,
    check_tool_name,
    record_fields,
)
from ..search import (
    check_exclude_window,
    check_limit,
    check_min_score,
    check_query,
    match_mode,
    since,
)

__all__ = ["context_query", "error_hint", "error_limit", "error_record", "error_search",
           "error_tool", "items", "message", "message_id", "neighbours", "record_id",
           "search", "search_limit", "time_range"]

# No length bound here (the server's max_content_chars applies), and a clock so late that no
# ``at`` is ahead of it (the server's clock applies).
_ANY_LENGTH = sys.maxsize
_LATEST = MAX_AT - MAX_FUTURE_SKEW_NS


def message(role: object, content: object, *, sender: object, at: object, meta: object,
            key: object) -> None:
    """The checks of ``Memory.add``."""
    draft(role, content, sender=sender, at=at, meta=meta, key=key, now=_LATEST,
          max_chars=_ANY_LENGTH)


def items(given: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The items of ``Memory.add_many``, each checked (the first bad one raises), as the
    dicts to send."""
    out: list[dict[str, Any]] = []
    for i, item in enumerate(given):
        draft_item(i, item, now=_LATEST, max_chars=_ANY_LENGTH)
        out.append(dict(item))
    return out


def message_id(value: object, field: str) -> int:
    return check_message_id(value, field)


def neighbours(before: object, after: object) -> None:
    """``read``'s ``before`` and ``after`` (the defaults are the server's)."""
    check_span(before, 0, "before")
    check_span(after, 0, "after")


def context_query(query: object) -> None:
    check_new_input(query)


def time_range(value: object) -> None:
    since(value, 0)


def search_limit(limit: object, settings: Settings) -> None:
    """A ``limit`` of ``search`` or ``recent`` that is not an integer at all; an integer's
    range is the server's to check."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
        check_limit(limit, settings)


def search(query: object, *, match: object, time_range: object, limit: object,
           exclude_window: object, min_score: object, semantic: bool,
           settings: Settings) -> None:
    """The checks of ``Memory.search``, in its order; ``semantic``: whether the server
    embeds."""
    check_query(query)
    match_mode(match, semantic=semantic)
    search_limit(limit, settings)
    since(time_range, 0)
    check_exclude_window(exclude_window)
    check_min_score(min_score, settings)


def error_record(*, tool_name: object, keywords: object, symptom: object, action: object,
                 cause: object, outcome: object) -> None:
    """The checks of ``mem.errors.write``."""
    record_fields(tool_name=tool_name, keywords=keywords, symptom=symptom, action=action,
                  cause=cause, outcome=outcome, max_chars=_ANY_LENGTH)


def error_tool(tool: object) -> None:
    """The ``tool`` a search or a listing is narrowed to (``None``: every tool)."""
    if tool is not None:
        check_tool_name(tool, field="tool")


def error_limit(limit: object, settings: Settings) -> None:
    """A ``limit`` of ``mem.errors.search`` that is not an integer at all; an integer's
    range is the server's to check."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
        check_error_limit(limit, settings.error_limit, settings.error_limit_max)


def error_search(keyword: object, *, tool: object, limit: object, settings: Settings) -> None:
    check_query_text(keyword)
    error_tool(tool)
    error_limit(limit, settings)


def error_hint(tool_name: object, error_text: object) -> None:
    check_tool_name(tool_name)
    check_error_text(error_text)


def record_id(value: object) -> str:
    """A record id or a unique prefix of one, as the library reads it."""
    return check_prefix(value)
