"""MCP messages screened before the SDK parses them: every malformed one gets an answer.

The SDK's readers drop, unanswered, any line they cannot decode into a JSON-RPC message (not
JSON, truncated, a batch array, ``params`` as a list, a wrong ``jsonrpc`` version …), and the
client then waits forever. Some text also breaks a parser outright: arrays nested a thousand
deep exhaust Python's recursion. So each incoming message is checked here first, cheapest
check first, and answered here when it is not a message the SDK can take:

* larger than :data:`MAX_MESSAGE_BYTES`, or nested deeper than :data:`MAX_DEPTH` (both
  measured on the raw bytes, before any parsing): ``-32600`` invalid request;
* not JSON: ``-32700`` parse error;
* not one JSON-RPC 2.0 object (a batch, a scalar, a wrong or missing ``jsonrpc``, a
  ``method`` that is not text, an ``id`` that is not a string or an integer): ``-32600``;
* ``params`` that is not an object: ``-32602`` invalid params;
* text that is not valid Unicode (JSON can spell a lone surrogate, ``"\\ud800"``, and some
  clients send one): a ``tools/call`` gets a tool error naming the argument, any other
  request ``-32602``, as memstrata answers bad input everywhere.

Each answer carries the request's id when it has a usable one, ``null`` otherwise; a
malformed notification (no id) is dropped, as JSON-RPC says. Responses and notifications the
client sends pass through untouched.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    TextContent,
    jsonrpc_message_adapter,
)

from ..errors import InvalidInput
from ..text import check_unicode

__all__ = ["MAX_DEPTH", "MAX_MESSAGE_BYTES", "is_protocol_error", "refusal", "too_long"]

MAX_MESSAGE_BYTES = 4 << 20
"""The largest message accepted on stdio (over HTTP the service's body limit applies)."""

MAX_DEPTH = 64
"""How deeply arrays and objects may nest in one message; far more than any tool takes."""

# A JSON string, escapes included: what to skip when counting brackets.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
# The escape of a surrogate code point; without one no JSON text decodes to a lone surrogate.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


_JSON_KINDS: dict[type, str] = {str: "a string", bool: "true or false", type(None): "null"}
# A string or a bracket, for finding the top-level id of a message too deep to parse.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_ID_VALUE = re.compile(rb'\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def _error(ident: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def is_protocol_error(answer: dict[str, Any]) -> bool:
    """Whether ``answer`` refuses the message as a whole (HTTP says 400 for these), rather
    than answering a request that was understood."""
    error = answer.get("error")
    return isinstance(error, dict) and error.get("code") in (PARSE_ERROR, INVALID_REQUEST)


def too_long() -> dict[str, Any]:
    """The answer to a message over :data:`MAX_MESSAGE_BYTES` (its id is never read)."""
    return _error(None, INVALID_REQUEST,
                  f"the message is larger than {MAX_MESSAGE_BYTES:,} bytes")


def _depth(raw: bytes) -> int:
    """How deeply arrays and objects nest in ``raw``, brackets inside strings not counted."""
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(accumulate(_STEP[b] for b in brackets), default=0)


def _shallow_id(raw: bytes) -> int | str | None:
    """The id of a message too deep to parse, read from its top level without parsing the
    rest; ``None`` when it has no usable one."""
    depth = 0
    for token in _TOKEN.finditer(raw):
        text = token.group()
        if text in (b"[", b"{"):
            depth += 1
        elif text in (b"]", b"}"):
            depth -= 1
        elif depth == 1 and text == b'"id"':
            value = _ID_VALUE.match(raw, token.end())
            if value is None:
                return None
            try:
                ident = json.loads(value.group(1))
            except ValueError:
                return None
            return ident if _usable_id(ident) else None
    return None


def _usable_id(value: Any) -> bool:
    return (isinstance(value, str) and _first_invalid(value, "id") is None) or (
        isinstance(value, int) and not isinstance(value, bool))


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


def _envelope_problem(message: Any) -> dict[str, Any] | None:
    """The answer to a decoded message that is not one JSON-RPC 2.0 request, notification
    or response; ``None`` when its envelope is sound."""
    if not isinstance(message, dict):
        kind = "a batch (array)" if isinstance(message, list) else _JSON_KINDS.get(
            type(message), "a number")
        return _error(None, INVALID_REQUEST,
                      f"a message must be one JSON-RPC object, not {kind}")
    ident = message.get("id")
    has_id = "id" in message
    if not has_id and "method" in message:
        # A notification: a malformed one is dropped, a sound one goes on to the SDK.
        sound = message.get("jsonrpc") == "2.0" and isinstance(message["method"], str) and (
            isinstance(message.get("params", {}), dict))
        return None if sound else {}
    answer_id = ident if has_id and _usable_id(ident) else None
    if message.get("jsonrpc") != "2.0":
        return _error(answer_id, INVALID_REQUEST, 'jsonrpc: must be "2.0"')
    if has_id and not _usable_id(ident):
        return _error(None, INVALID_REQUEST, "id: must be a string or an integer")
    if "method" not in message:
        if has_id and ("result" in message or "error" in message):
            return None  # the client's response to a request of ours
        return _error(answer_id, INVALID_REQUEST, "method: is required")
    method = message["method"]
    if not isinstance(method, str) or _first_invalid(method, "method") is not None:
        return _error(answer_id, INVALID_REQUEST, "method: must be text")
    if "params" in message and not isinstance(message["params"], dict):
        return _error(answer_id, INVALID_PARAMS, "params: must be an object")
    return None


def _unicode_problem(message: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to a request with text that is not valid Unicode in its params."""
    params = message.get("params")
    problem = _first_invalid(params, "") if isinstance(params, dict) else None
    if problem is None:
        return None
    text = _readable(str(problem))
    answer: dict[str, Any] = {"jsonrpc": "2.0", "id": message.get("id")}
    if message["method"] == "tools/call":
        result = CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        answer["result"] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    else:
        answer["error"] = {"code": INVALID_PARAMS, "message": text}
    return answer


def _screened(raw: bytes) -> dict[str, Any] | None:
    if len(raw) > MAX_MESSAGE_BYTES:
        return too_long()
    if _depth(raw) > MAX_DEPTH:
        return _error(_shallow_id(raw), INVALID_REQUEST,
                      f"the message nests arrays and objects more than {MAX_DEPTH} deep")
    try:
        message = json.loads(raw)  # Python's parser keeps lone surrogates; they are seen here
    except (ValueError, RecursionError):
        return _error(None, PARSE_ERROR, "the message is not valid JSON")
    problem = _envelope_problem(message)
    if problem is not None or "method" not in message or "id" not in message:
        return problem  # responses and sound notifications go on to the SDK
    if _SURROGATE_ESCAPE.search(raw):
        problem = _unicode_problem(message)
        if problem is not None:
            return problem
    try:
        jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValueError:
        return _error(message["id"], INVALID_REQUEST, "the message is not a JSON-RPC request")
    return None


def refusal(raw: bytes) -> dict[str, Any] | None:
    """The JSON-RPC answer to a message the SDK must not see, ``None`` for one it handles.
    An empty answer (``{}``) means: drop the message unanswered (a malformed notification,
    which JSON-RPC says no one answers)."""
    return _screened(raw)
