"""Packing the context window and the rolling summary into what is sent to a model (pure)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from .errors import InvalidInput
from .text import check_unicode
from .types import AnthropicMessage, AnthropicPrompt, Message, OpenAIMessage, Summary

__all__ = ["SYSTEM_PROMPT", "Context", "check_new_input", "format_time", "header", "pack"]

SYSTEM_PROMPT = """## Prior Conversation Context
The last user message before the new input carries a "Prior summary" of the earlier \
conversation with this user, written from messages that are no longer shown.
- Treat its `key_decisions` as binding rules ("Do: …" agreed, "Don't: …" rejected) unless the \
user reopens one of them now.
- When the user asks what was decided or what you remember, answer from the summary.
- Otherwise use it as background only: answer the new input, not the summary.
- Never print or quote the raw summary, and never invent facts it does not contain."""

_DIGEST_NOTE = ("Prior summary (automatic digest: the newest text of earlier messages, cut "
                "from the front; not written by a model):")
_SUMMARY_NOTE = "Prior summary (JSON) of the earlier conversation:"


def check_new_input(query: object) -> str | None:
    """The new user input a context is asked for (``None``: none)."""
    if query is None:
        return None
    if not isinstance(query, str):
        raise InvalidInput("query", "must be the new user input as text, or None")
    return check_unicode(query, "query")


def format_time(at_ns: int, tz: ZoneInfo) -> str:
    """``YYYY-MM-DD HH:MM`` of a UTC nanosecond time in ``tz``."""
    return datetime.fromtimestamp(at_ns / 1e9, UTC).astimezone(tz).strftime("%Y-%m-%d %H:%M")


def header(m: Message, tz: ZoneInfo) -> str:
    """The first line of a window message: when it was said and by whom."""
    return f"[{format_time(m.at, tz)} · {m.sender or m.role}]"


@dataclass(frozen=True, kw_only=True)
class Context:
    """What to send before the new user input: window, summary and their wire formats."""

    session: str
    messages: list[Message]
    summary: dict[str, Any] | None
    summary_kind: str | None
    system_prompt: str
    turn_context: dict[str, str] | None
    timezone: str = "UTC"
    unsummarized: int = 0
    """Messages older than the window that the summary does not cover yet (none, when there
    is no summary): the model sees nothing of them. Run ``summarize()`` (or let the
    scheduler or ``memstrata worker`` do it) to bring them into the summary."""

    def window(self) -> list[dict[str, str]]:
        """The window messages as ``{"role", "content"}``, each with its header line."""
        tz = ZoneInfo(self.timezone)
        return [{"role": m.role, "content": f"{header(m, tz)}\n{m.content}"}
                for m in self.messages]

    def _system(self, system: str | None) -> str:
        return "\n\n".join(p for p in (system or "", self.system_prompt) if p)

    def _turns(self) -> list[tuple[str, str]]:
        """``(role, content)`` of the window, then of the turn context."""
        turns = [(m["role"], m["content"]) for m in self.window()]
        if self.turn_context is not None:
            turns.append((self.turn_context["role"], self.turn_context["content"]))
        return turns

    def to_openai(self, system: str | None = None) -> list[OpenAIMessage]:
        """``[system, *window, turn_context]``: append the new user input and send (typed as
        the ``openai`` SDK's ``messages`` parameter)."""
        out: list[OpenAIMessage] = []
        text = self._system(system)
        if text:
            out.append({"role": "system", "content": text})
        for role, content in self._turns():
            out.append({"role": "assistant", "content": content} if role == "assistant"
                       else {"role": "user", "content": content})
        return out

    def to_anthropic(self, system: str | None = None) -> AnthropicPrompt:
        """``{"system": str, "messages": [...]}``: the keyword arguments ``system`` and
        ``messages`` of Anthropic's ``messages.create`` (typed as the ``anthropic`` SDK's)."""
        messages: list[AnthropicMessage] = [
            {"role": "assistant", "content": content} if role == "assistant"
            else {"role": "user", "content": content} for role, content in self._turns()]
        return {"system": self._system(system), "messages": messages}


def turn_message(summary: Summary) -> dict[str, str]:
    """The user message that carries the summary."""
    if summary.kind == "digest":
        text = str(summary.body.get("text", ""))
        return {"role": "user", "content": f"{_DIGEST_NOTE}\n<digest>\n{text}\n</digest>"}
    body = json.dumps(summary.body, ensure_ascii=False, indent=2)
    return {"role": "user", "content": f"{_SUMMARY_NOTE}\n```json\n{body}\n```"}


def pack(session: str, window: Sequence[Message], summary: Summary | None,
         timezone: str, unsummarized: int = 0) -> Context:
    """The Context of a session from its window and stored summary."""
    if summary is None or not summary.body:
        return Context(session=session, messages=list(window), summary=None,
                       summary_kind=None, system_prompt="", turn_context=None,
                       timezone=timezone, unsummarized=unsummarized)
    return Context(session=session, messages=list(window), summary=dict(summary.body),
                   summary_kind=summary.kind, system_prompt=SYSTEM_PROMPT,
                   turn_context=turn_message(summary), timezone=timezone,
                   unsummarized=unsummarized)
