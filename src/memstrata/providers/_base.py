"""The two seams to models: the ``Embedder`` and ``LLM`` protocols and what they return.

Everything else in memstrata talks to models only through these two protocols; the concrete
clients live in sibling modules and are found by name through ``registry``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..errors import InvalidInput
from ..types import Vectors

__all__ = ["LLM", "Completion", "Embedder", "ReplySchema", "Vectors", "check_messages",
           "estimate_tokens"]

@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors.

    ``model_id`` is stored beside every vector so vectors from different models are never
    compared; it must change whenever the vectors would (model, dimension, variant).
    """

    model_id: str
    dim: int

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Return a float32 array of shape ``(len(texts), dim)`` with L2-normalised rows."""
        ...


@dataclass(frozen=True, kw_only=True)
class Completion:
    """One reply of an LLM, with the token counts the provider reported (or estimated)."""

    text: str
    tokens_in: int
    tokens_out: int
    model: str
    truncated: bool = False
    """The reply stopped at ``max_tokens`` (finish reason ``length`` / ``max_tokens``), so it
    is probably incomplete."""


@dataclass(frozen=True, kw_only=True)
class ReplySchema:
    """The JSON Schema a reply must match, with a name (``[A-Za-z0-9_-]``, as the APIs want).

    Providers send it the strongest way the server accepts: OpenAI-style ``response_format``
    ``json_schema``, an Anthropic tool whose input schema it is, or, failing those, as text in
    the system prompt.
    """

    name: str
    schema: Mapping[str, Any] = field(repr=False)
    description: str = ""


@runtime_checkable
class LLM(Protocol):
    """Turns chat messages (``{"role": ..., "content": ...}``) into a reply."""

    model_id: str

    async def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        system: str | None = None,
        max_tokens: int | None = None,
        json_mode: bool = False,
        schema: ReplySchema | None = None,
    ) -> Completion:
        """Send ``messages`` (oldest first) and return the model's reply.

        ``json_mode`` asks for a single JSON object; providers without such a switch are told so
        in the system prompt. ``schema`` (which implies ``json_mode``) asks for an object that
        matches it, through structured output where the server has it. A reply cut at
        ``max_tokens`` comes back with ``truncated`` set. Failures surface as ``ProviderError``.
        """
        ...


def estimate_tokens(text: str) -> int:
    """A provider-neutral token estimate (about four characters per token), used when a
    provider reports no usage."""
    return (len(text) + 3) // 4


def check_messages(messages: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """Plain ``{"role", "content"}`` dicts, or ``InvalidInput`` naming the first bad message."""
    if isinstance(messages, str | Mapping):
        raise InvalidInput("messages", "must be a list of {'role': ..., 'content': ...} mappings")
    checked: list[dict[str, str]] = []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, Mapping) else None
        content = message.get("content") if isinstance(message, Mapping) else None
        if not isinstance(role, str) or not role or not isinstance(content, str):
            raise InvalidInput(f"messages[{i}]", "must be a mapping with string 'role' and "
                               "'content'")
        checked.append({"role": role, "content": content})
    return checked
