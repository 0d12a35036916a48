"""The no-LLM summary: a digest of the newest text of older messages (pure).

Without a summary model, memstrata still carries older conversation into the context: the text
of the messages between the summary cursor and the window is appended to the previous digest,
and the result is cut from the front to a size limit, so the newest text survives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

from .._context import header
from ..types import Message

__all__ = ["digest_body", "digest_text"]


def digest_text(previous: str, messages: Sequence[Message], tz: ZoneInfo,
                max_chars: int) -> str:
    """``previous`` plus one line per message, keeping the last ``max_chars`` characters."""
    lines = [f"{header(m, tz)} {m.content}" for m in messages]
    text = "\n".join(p for p in (previous, *lines) if p)
    if len(text) <= max_chars:
        return text
    cut = text[-max_chars:]
    # Start at a line boundary when one is near, so the first line is not a fragment.
    newline = cut.find("\n")
    if 0 <= newline < max_chars // 4:
        cut = cut[newline + 1 :]
    return "…" + cut


def digest_body(previous: dict[str, Any] | None, messages: Sequence[Message], tz: ZoneInfo,
                max_chars: int) -> dict[str, Any]:
    """The stored body of a digest summary: ``{"text": …}``."""
    before = str(previous.get("text", "")) if previous else ""
    return {"text": digest_text(before, messages, tz, max_chars)}
