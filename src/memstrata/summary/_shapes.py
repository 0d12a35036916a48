"""The JSON Schemas of the three model replies, and the reply size each one allows (pure).

The schemas go to the model as structured output (a grammar on llama.cpp's server, strict
``json_schema`` on OpenAI, a tool's input schema on Anthropic), so they bound what the model
may write: every list has ``maxItems`` and every string ``maxLength``. :func:`token_bound`
turns those limits into the ``max_tokens`` of the call, so a reply the schema allows always
fits and a model that rambles is stopped instead of running until the client times out.

Strict structured output wants every property required and no others allowed, so each object
lists all of its properties; an empty string stands for "nothing" and the normaliser drops it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from ..providers import ReplySchema
from ._schema import CURRENT, DECISIONS, PAST

__all__ = [
    "CONFIDENCE_SCALE",
    "DECISION_CHARS",
    "DESCRIPTION_CHARS",
    "DIRECTION_CHARS",
    "MAX_PERSPECTIVES",
    "PERSPECTIVE_CHARS",
    "TOPIC_CHARS",
    "decision_schema",
    "max_chars",
    "relevance_schema",
    "summary_schema",
    "token_bound",
]

# Length limits of the summary's text fields, in characters. They are what the schema (and so
# the reply's token budget) is built from; the prompt asks for short entries anyway.
DECISION_CHARS = 160
TOPIC_CHARS = 80
DESCRIPTION_CHARS = 240
DIRECTION_CHARS = 160
PERSPECTIVE_CHARS = 160
MAX_PERSPECTIVES = 4
# "" stands for an unknown time, as the normaliser stores it.
_TIME = r"^([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2})?$"
_NOTHING = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}

# A token holds at least about two characters of the text these replies carry (English runs
# near four, Chinese near one and a half), and JSON punctuation needs a few tokens of slack.
CHARS_PER_TOKEN = 2.0
_SLACK_TOKENS = 32
_NUMBER_CHARS = 8
CONFIDENCE_SCALE = (0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1)
_UNBOUNDED_STRING_CHARS = 200


def _text(limit: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit}


def _object(properties: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties), "required": list(properties),
            "additionalProperties": False}


def _numbers(size: int) -> dict[str, Any]:
    """A list of 1-based entry numbers, at most ``size`` of them."""
    return {"type": "array", "maxItems": size,
            "items": {"type": "integer", "minimum": 1, "maximum": max(size, 1)}}


def summary_schema(*, max_key_decisions: int, max_past_discussions: int) -> ReplySchema:
    """The rolling summary: at most ``max_key_decisions`` decisions and
    ``max_past_discussions`` past discussions, each field within its length limit."""
    past = _object({"topic": _text(TOPIC_CHARS), "description": _text(DESCRIPTION_CHARS),
                    "direction": _text(DIRECTION_CHARS),
                    "last_discussed": {"type": "string", "pattern": _TIME, "maxLength": 16}})
    current = _object({"topic": _text(TOPIC_CHARS), "description": _text(DESCRIPTION_CHARS),
                       "perspectives": {"type": "array", "maxItems": MAX_PERSPECTIVES,
                                        "items": _text(PERSPECTIVE_CHARS)},
                       "direction": _text(DIRECTION_CHARS)})
    schema = _object({
        DECISIONS: {"type": "array", "maxItems": max_key_decisions,
                    "items": _text(DECISION_CHARS)},
        PAST: {"type": "array", "maxItems": max_past_discussions, "items": past},
        # {} when nothing is being discussed, as a stored summary has it.
        CURRENT: {"anyOf": [current, _NOTHING]},
    })
    return ReplySchema(name="conversation_memory", schema=schema,
                       description="The updated memory of the conversation.")


def decision_schema(*, conversations: int, decisions: int, past: int) -> ReplySchema:
    """The decision model's answer for ``conversations`` numbered conversations and a memory
    of ``decisions`` key decisions and ``past`` past discussions."""
    verdict = _object({"index": {"type": "integer", "minimum": 1,
                                 "maximum": max(conversations, 1)},
                       "noise": {"type": "boolean"},
                       # A fixed scale: grammars enforce an enum, not a number's range.
                       "confidence": {"enum": list(CONFIDENCE_SCALE)}})
    schema = _object({
        "conversations": {"type": "array", "maxItems": conversations, "items": verdict},
        "overturned_key_decisions": _numbers(decisions),
        "overturned_past_discussions": _numbers(past),
    })
    return ReplySchema(name="memory_screening", schema=schema,
                       description="Which new conversations are noise and which memory "
                                   "entries they overturn.")


def relevance_schema(*, decisions: int, past: int) -> ReplySchema:
    """The relevance filter's answer for a memory of ``decisions`` key decisions and ``past``
    past discussions."""
    schema = _object({DECISIONS: _numbers(decisions), PAST: _numbers(past),
                      CURRENT: {"type": "boolean"}})
    return ReplySchema(name="memory_relevance", schema=schema,
                       description="The memory entries relevant to the next user input.")


def max_chars(schema: Mapping[str, Any]) -> int:
    """The longest compact JSON text ``schema`` allows, in characters (strings counted at
    their ``maxLength``, lists at their ``maxItems``)."""
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties") or {}
        members = [len(name) + 3 + max_chars(sub) for name, sub in properties.items()]
        return 2 + sum(members) + max(len(members) - 1, 0)
    if kind == "array":
        count = int(schema.get("maxItems", 8))
        return 2 + count * (max_chars(schema.get("items") or {}) + 1)
    if kind == "string":
        return 2 + int(schema.get("maxLength", _UNBOUNDED_STRING_CHARS))
    if kind == "integer":
        return len(str(int(schema.get("maximum", 10**6))))
    if kind == "boolean":
        return 5
    if "anyOf" in schema:
        return max(max_chars(option) for option in schema["anyOf"])
    if "enum" in schema:
        return max(len(json.dumps(value)) for value in schema["enum"])
    return _NUMBER_CHARS


def token_bound(schema: ReplySchema) -> int:
    """``max_tokens`` for a reply to ``schema``: room for the longest reply it allows."""
    return math.ceil(max_chars(schema.schema) / CHARS_PER_TOKEN) + _SLACK_TOKENS
