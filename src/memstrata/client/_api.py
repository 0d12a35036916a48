"""The part of ``Memory``'s surface that works the same in-process and over HTTP.

``Memory`` and :class:`~memstrata.client.RemoteMemory` both satisfy :class:`MemoryAPI`
(structurally: neither names it), so code written against it, such as the command line, runs
on a local database file or on a server without knowing which.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import Any, Protocol

from .._context import Context
from ..config import Settings
from ..tools import Tools
from ..types import (
    ErrorRecord,
    Hit,
    MatchMode,
    Message,
    ResetMode,
    Role,
    SessionInfo,
    SessionStats,
    TimeRange,
)

__all__ = ["ErrorsAPI", "MemoryAPI"]


class ErrorsAPI(Protocol):
    """A tenant's error memory (``mem.errors``)."""

    async def write(self, *, tool_name: str, keywords: Sequence[str], symptom: str,
                    action: str, cause: str | None = None,
                    outcome: str = "resolved") -> ErrorRecord: ...

    async def search(self, keyword: str, *, tool: str | None = None,
                     limit: int | None = None) -> builtins.list[ErrorRecord]: ...

    async def read(self, id_or_prefix: str) -> ErrorRecord | None: ...

    async def delete(self, id_or_prefix: str) -> bool: ...

    async def hint(self, tool_name: str, error_text: str) -> str: ...

    # Last: inside the class body below it, ``list`` names this method.
    async def list(self, *, tool: str | None = None) -> builtins.list[ErrorRecord]: ...


class MemoryAPI(Protocol):
    """One tenant's memory: the calls a client of the memory (not its operator) makes."""

    @property
    def tenant(self) -> str: ...

    @property
    def settings(self) -> Settings:
        """The settings this side applies (remotely: the client's own, of which the
        timezone of ``Context.window()`` is used; the server applies its settings)."""
        ...

    @property
    def embedder(self) -> object | None:
        """Whatever embeds (``None``: keyword search only); remotely, the server's."""
        ...

    @property
    def errors(self) -> ErrorsAPI: ...

    async def add(self, session: str, role: Role, content: str | list[Any], *,
                  sender: str | None = None, at: int | None = None,
                  meta: Mapping[str, Any] | None = None, key: str | None = None
                  ) -> Message: ...

    async def add_many(self, session: str,
                       items: Iterable[Mapping[str, Any]]) -> list[Message]: ...

    async def context(self, session: str, query: str | None = None) -> Context: ...

    async def search(self, session: str | None, query: str, *, match: MatchMode | None = None,
                     time_range: TimeRange = "all", limit: int | None = None,
                     exclude_window: bool = True,
                     min_score: float | None = None) -> list[Hit]: ...

    async def read(self, message_id: int, *, before: int | None = None,
                   after: int | None = None) -> list[Message]: ...

    async def recent(self, session: str | None, *, time_range: TimeRange = "all",
                     limit: int | None = None, before_id: int | None = None
                     ) -> list[Message]: ...

    async def flush(self, timeout: float | None = None) -> None: ...

    async def index_backlog(self, session: str | None = None) -> int: ...

    async def summarize(self, session: str) -> dict[str, Any] | None: ...

    async def sessions(self) -> list[SessionInfo]: ...

    async def stats(self, session: str) -> SessionStats: ...

    async def reset(self, session: str, mode: ResetMode = "summary") -> None: ...

    async def remove(self, session: str) -> bool: ...

    async def forget(self, message_id: int) -> bool: ...

    def export(self, session: str) -> AsyncIterator[dict[str, Any]]: ...

    async def import_(self, session: str, records: Iterable[Any]) -> int: ...

    async def import_history(self, session: str, history: Any) -> int: ...

    def match_modes(self) -> list[str]: ...

    def tools(self, session: str) -> Tools: ...

    async def close(self) -> None:
        """Release what the memory holds; later calls raise ``Closed``."""
        ...
