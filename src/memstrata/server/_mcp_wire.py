"""MCP messages that carry text which is not valid Unicode, answered before the SDK parses them.

JSON can spell a lone surrogate (``"\\ud800"``), and some clients send one (a model's output
cut in the middle of an emoji, serialised by ``JSON.stringify``). The MCP SDK's parser refuses
such a message outright: over stdio it drops the line and the client waits for an answer that
never comes; over HTTP it answers a parse error without the request's id. memstrata refuses
this text wherever it enters, so these messages are answered here, as memstrata answers bad
input: a ``tools/call`` gets a tool error naming the argument, any other request an
invalid-params error, each with the request's id.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp_types import INVALID_PARAMS, CallToolResult, TextContent

from ..errors import InvalidInput
from ..text import check_unicode

__all__ = ["refusal"]

# The escape of a surrogate code point; without one no JSON text decodes to a lone surrogate.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def _first_invalid(value: Any, path: str) -> InvalidInput | None:
    """The error for the first string (key or value) in ``value`` that is not valid
    Unicode, named by its path (``arguments.content``)."""
    if isinstance(value, str):
        try:
            check_unicode(value, path or "message")
        except InvalidInput as exc:
            return exc
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            found = _first_invalid(key, where) or _first_invalid(item, where)
            if found is not None:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_invalid(item, f"{path}[{i}]")
            if found is not None:
                return found
    return None


def _readable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def refusal(raw: bytes) -> dict[str, Any] | None:
    """The JSON-RPC answer to a request whose text is not valid Unicode; ``None`` for any
    other message (the SDK handles those, malformed ones included)."""
    if not _SURROGATE_ESCAPE.search(raw):
        return None
    try:
        message = json.loads(raw)  # Python's parser keeps lone surrogates; that is the point
    except ValueError:
        return None
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None  # a response, or not JSON-RPC at all
    ident = message.get("id")
    if not isinstance(ident, int | str) or _first_invalid(ident, "id") is not None:
        return None  # a notification, or an id no answer could carry: nobody to answer
    if _first_invalid(message["method"], "method") is not None:
        return None
    params = message.get("params")
    problem = _first_invalid(params, "")
    if problem is None or not isinstance(params, dict):
        return None
    text = _readable(str(problem))
    answer: dict[str, Any] = {"jsonrpc": "2.0", "id": ident}
    if message["method"] == "tools/call":
        result = CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        answer["result"] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    else:
        answer["error"] = {"code": INVALID_PARAMS, "message": text}
    return answer
