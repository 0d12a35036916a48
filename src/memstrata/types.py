"""Public value types: frozen, keyword-only dataclasses with no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Draft",
    "Hit",
    "HitSource",
    "Message",
    "Role",
    "SessionInfo",
    "SessionStats",
    "Summary",
    "SummaryKind",
]

Role = Literal["user", "assistant"]
HitSource = Literal["archive", "recent", "semantic", "hybrid"]
SummaryKind = Literal["llm", "digest"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Message:
    """One stored message. ``id`` increases in commit order and is never reused."""

    id: int
    session: str
    role: Role
    content: str
    at: int
    """UTC Unix time in nanoseconds."""
    sender: str | None = None
    meta: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Summary:
    """The rolling summary of one session."""

    session: str
    kind: SummaryKind
    body: dict[str, Any]
    cursor: int | None
    """Id of the last message the summary absorbed (``None``: not known yet)."""
    created_at: int
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class Hit:
    """A search result. Expansion neighbours have ``matched=False`` and ``rank=None``."""

    message: Message
    score: float
    rank: int | None
    source: HitSource
    matched: bool = True


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionInfo:
    """One line of ``Memory.sessions()``."""

    id: str
    messages: int
    first_at: int | None
    last_at: int | None
    has_summary: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionStats:
    """What ``Memory.stats(session)`` reports about one session."""

    session: str
    messages: int
    hot_messages: int
    hot_bytes: int
    cutoff: int
    """Messages with ``id > cutoff`` are hot."""
    cursor: int | None
    index_backlog: int
    summary_kind: SummaryKind | None
    summary_tokens_in: int
    summary_tokens_out: int
    last_error: str | None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True, slots=True)
class Draft:
    """A validated message on its way to the store (what ``ingest`` produces)."""

    role: Role
    content: str
    at: int
    sender: str | None = None
    meta_json: str | None = None
    key: str | None = None
    search_text: str | None = None
    """The text to index when it differs from ``content`` (CJK runs split into pairs)."""
    size: int = 0
    """UTF-8 bytes of ``content``: what the bytes policy counts."""
