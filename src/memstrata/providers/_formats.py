"""How a structured reply is asked for, and which forms each endpoint has refused.

OpenAI-compatible servers differ: OpenAI and llama.cpp's server take a JSON Schema in
``response_format`` (llama.cpp turns it into a grammar, so even a tiny model cannot leave it),
some take only ``{"type": "json_object"}``, and some refuse the field altogether. The forms are
tried strongest first; a refusal moves the endpoint one step down for the life of the process,
so a server that cannot do a form is not asked for it on every call.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Literal

import httpx

from ..errors import ProviderError
from ._base import ReplySchema

__all__ = [
    "JSON_INSTRUCTION",
    "LADDER",
    "ReplyFormat",
    "accepted_format",
    "forget_refusals",
    "format_field",
    "is_refusal",
    "refused",
    "schema_instruction",
    "weaker_of",
]

ReplyFormat = Literal["strict", "loose", "object", "prompt", "text"]
"""``strict``/``loose``: ``json_schema`` with ``strict`` true/false; ``object``:
``json_object``; ``prompt``: no ``response_format``, the schema in the system prompt; ``text``:
no JSON asked for at all."""

JSON_INSTRUCTION = "Reply with a single JSON object and nothing else."
LADDER: tuple[ReplyFormat, ...] = ("strict", "loose", "object", "prompt")
# A 400/422 is a refusal of the format only when the server's message is about it; any other
# client error (a prompt too long, a bad model name) must surface, not lower the format.
_REFUSAL_STATUS = frozenset({400, 422})
_REFUSAL_WORDS = ("response_format", "json_schema", "json_object", "schema", "strict",
                  "structured")

_accepted: dict[tuple[str, str], ReplyFormat] = {}
_lock = threading.Lock()


def accepted_format(url: str, model: str) -> ReplyFormat:
    """The strongest form ``url`` has not refused for ``model`` in this process."""
    with _lock:
        return _accepted.get((url, model), LADDER[0])


def refused(url: str, model: str, form: ReplyFormat) -> ReplyFormat:
    """Record that ``url`` refused ``form`` for ``model``; returns the next form to try."""
    step = LADDER.index(form) + 1 if form in LADDER else len(LADDER) - 1
    weaker = LADDER[min(step, len(LADDER) - 1)]
    with _lock:
        current = _accepted.get((url, model), LADDER[0])
        if LADDER.index(weaker) > LADDER.index(current):
            _accepted[(url, model)] = weaker
        return _accepted.get((url, model), weaker)


def forget_refusals() -> None:
    """Forget every refusal seen, so each endpoint is asked with the strongest form again
    (e.g. after a server was upgraded)."""
    with _lock:
        _accepted.clear()


def weaker_of(wanted: ReplyFormat, accepted: ReplyFormat) -> ReplyFormat:
    """What to send when ``wanted`` is asked for and the endpoint takes at most ``accepted``."""
    if wanted == "text":
        return "text"
    return LADDER[max(LADDER.index(wanted), LADDER.index(accepted))]


def format_field(form: ReplyFormat, schema: ReplySchema | None) -> dict[str, Any] | None:
    """The ``response_format`` value of ``form`` (``None``: leave the field out)."""
    if form in ("strict", "loose") and schema is not None:
        spec: dict[str, Any] = {"name": schema.name, "strict": form == "strict",
                                "schema": dict(schema.schema)}
        if schema.description:
            spec["description"] = schema.description
        return {"type": "json_schema", "json_schema": spec}
    if form in ("strict", "loose", "object"):
        return {"type": "json_object"}
    return None


def schema_instruction(schema: ReplySchema) -> str:
    """The schema as text, for a server that takes it no other way."""
    return ("Reply with one JSON object and nothing else. It must match this JSON Schema:\n"
            + json.dumps(dict(schema.schema), ensure_ascii=False, separators=(",", ":")))


def is_refusal(exc: ProviderError) -> bool:
    """Whether ``exc`` is the server saying it cannot do the requested ``response_format``."""
    cause = exc.__cause__
    if not isinstance(cause, httpx.HTTPStatusError):
        return False
    if cause.response.status_code not in _REFUSAL_STATUS:
        return False
    text = cause.response.text.lower()
    return any(word in text for word in _REFUSAL_WORDS)
