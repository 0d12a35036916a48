"""``RemoteErrors``: a tenant's error memory on the server, with ``ErrorMemory``'s methods."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from ..config import Settings
from ..errors import NotFound
from ..types import ErrorRecord
from . import _checks as checks
from . import _wire as wire
from ._http import Http

__all__ = ["RemoteErrors"]


class RemoteErrors:
    """``mem.errors`` of a :class:`~memstrata.client.RemoteMemory`."""

    def __init__(self, http: Http, settings: Settings | None = None) -> None:
        self._http = http
        self.settings = settings if settings is not None else Settings()
        """The client's settings (the model-facing tools read their limits and timezone);
        the server applies its own."""

    async def write(self, *, tool_name: str, keywords: Sequence[str], symptom: str,
                    action: str, cause: str | None = None,
                    outcome: str = "resolved") -> ErrorRecord:
        """Remember a tool error and what was done about it."""
        checks.error_record(tool_name=tool_name, keywords=keywords, symptom=symptom,
                            action=action, cause=cause, outcome=outcome)
        body = {"tool_name": tool_name, "keywords": list(keywords), "symptom": symptom,
                "cause": cause, "action": action, "outcome": outcome}
        return wire.error_record(await self._http.send_json("POST", "/v1/errors", body))

    async def search(self, keyword: str, *, tool: str | None = None,
                     limit: int | None = None) -> builtins.list[ErrorRecord]:
        """Records related to ``keyword``, best first (each one returned is renewed)."""
        checks.error_search(keyword, tool=tool, limit=limit, settings=self.settings)
        params: dict[str, str | int | float] = {"q": keyword}
        if tool is not None:
            params["tool"] = tool
        if limit is not None:
            params["limit"] = limit
        data = await self._http.get_json("/v1/errors/search", params)
        return [wire.error_record(r) for r in data["errors"]]

    async def read(self, id_or_prefix: str) -> ErrorRecord | None:
        """The record with this id or unique prefix, or ``None``."""
        try:
            data = await self._http.get_json(_record_path(id_or_prefix))
        except NotFound:
            return None
        return wire.error_record(data)

    async def delete(self, id_or_prefix: str) -> bool:
        """Delete a record; ``False`` when none matches."""
        return await self._http.delete(_record_path(id_or_prefix))

    async def hint(self, tool_name: str, error_text: str) -> str:
        """What past records say about this failure (``""`` when nothing relates)."""
        checks.error_hint(tool_name, error_text)
        data = await self._http.get_json("/v1/errors/hint",
                                         {"tool": tool_name, "error": error_text})
        return str(data.get("hint") or "")

    # Last: inside the class body below it, ``list`` names this method.
    async def list(self, *, tool: str | None = None) -> builtins.list[ErrorRecord]:
        """Every live record of the tenant (optionally of one tool), newest first."""
        checks.error_tool(tool)
        data = await self._http.get_json("/v1/errors", {"tool": tool} if tool else None)
        return [wire.error_record(r) for r in data["errors"]]


def _record_path(id_or_prefix: str) -> str:
    # Hex characters only: nothing in the path needs quoting.
    return f"/v1/errors/{checks.record_id(id_or_prefix)}"
