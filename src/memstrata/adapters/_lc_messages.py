"""LangChain messages to memstrata messages and back (pure; needs langchain-core).

memstrata keeps a conversation: ``user`` and ``assistant`` messages with non-empty text. So a
``HumanMessage`` is a ``user`` message and an ``AIMessage`` an ``assistant`` one, the
message's ``name`` is the ``sender``, and everything else a LangChain message carries rides in
``meta["langchain"]`` (only what differs from its defaults), so that reading it back gives an
equal message:

- ``SystemMessage`` is stored as ``user`` (it is the application speaking to the model), and
  ``ToolMessage`` and ``FunctionMessage`` as ``assistant`` (the result of a call the model
  made, part of its turn); ``ChatMessage`` by its role (``user``/``human`` or
  ``assistant``/``ai``, anything else as ``user``). Their LangChain type is in the meta.
- A message with no text (an AI message that only calls tools) is stored with a short
  description as its text (``called get_weather({"city": "Paris"})``), so search can find it;
  its real content comes back from the meta. So does content given as a list of blocks, which
  is stored as its text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, messages_from_dict

__all__ = ["from_record", "to_item"]

_ROLE_OF_TYPE = {"human": "user", "ai": "assistant", "system": "user", "tool": "assistant",
                 "function": "assistant"}
_ROLE_OF_CHAT_ROLE = {"user": "user", "human": "user", "assistant": "assistant",
                      "ai": "assistant"}
# Fields that are never meta: content has its own column, name is the sender.
_OWN_COLUMNS = frozenset({"content", "name", "type"})
META_KEY = "langchain"


def to_item(message: BaseMessage) -> dict[str, Any]:
    """The ``add_many`` item (role, content, sender, meta) that stores ``message``."""
    if not isinstance(message, BaseMessage):
        raise TypeError(f"expected a LangChain BaseMessage, got {type(message).__name__}")
    kind = message.type
    if kind == "chat":
        role = _ROLE_OF_CHAT_ROLE.get(str(getattr(message, "role", "")).lower(), "user")
    else:
        role = _ROLE_OF_TYPE.get(kind, "user")
    text = _text(message.content)
    extra = {k: v for k, v in message.model_dump().items()
             if k not in _OWN_COLUMNS and not _is_default(v)}
    if not text.strip() or not isinstance(message.content, str):
        extra["content"] = message.content  # the stored text stands in for it
    if not text.strip():
        text = _describe(message)
    name = message.name
    sender = name if isinstance(name, str) and name.strip() and len(name) <= 256 else None
    if name is not None and sender is None:
        extra["name"] = name  # not usable as a sender; keep it as it was
    item: dict[str, Any] = {"role": role, "content": text}
    if sender is not None:
        item["sender"] = sender
    if extra or kind not in ("human", "ai"):
        item["meta"] = {META_KEY: {"type": kind, **extra}}
    return item


def from_record(record: Mapping[str, Any]) -> BaseMessage:
    """The LangChain message of an exported message record (``Memory.export``)."""
    meta = record.get("meta") or {}
    saved = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    data: dict[str, Any] = {"content": record["content"]}
    if record.get("sender") is not None:
        data["name"] = record["sender"]
    if isinstance(saved, Mapping):
        fields = dict(saved)
        kind = fields.pop("type", None) or _type_of_role(record["role"])
        data.update(fields)
        return messages_from_dict([{"type": kind, "data": data}])[0]
    if record["role"] == "assistant":
        return AIMessage(**data)
    return HumanMessage(**data)


def _text(content: str | list[str | dict[Any, Any]]) -> str:
    """The text of a message's content: itself, or its text blocks joined (images and other
    blocks have no text to keep)."""
    if isinstance(content, str):
        return content
    return "".join(b if isinstance(b, str) else str(b.get("text", ""))
                   for b in content if isinstance(b, str) or b.get("type") == "text")


def _type_of_role(role: str) -> str:
    return "ai" if role == "assistant" else "human"


def _is_default(value: Any) -> bool:
    """Empty values are what a message has when the field was not given."""
    return value is None or value is False or value == {} or value == [] or value == ""


def _describe(message: BaseMessage) -> str:
    """Text for a message that has none, so the archive can still show and find it."""
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        return "; ".join(f"called {c.get('name')}({json.dumps(c.get('args'), default=str)})"
                         for c in calls)
    return f"(empty {message.type} message)"
