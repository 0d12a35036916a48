"""Key management on a server: ``/v1/admin/keys`` with a key that has the ``admin`` scope.

:class:`RemoteKeys` offers what :class:`~memstrata.server.ApiKeys` does on a database file
(make, list, revoke), so ``memstrata keys --server URL`` works as the local commands do.
"""

from __future__ import annotations

import builtins
import re
from datetime import UTC, datetime
from typing import Any

from ..errors import InvalidInput
from ..types import ApiKey
from ._http import Http

__all__ = ["RemoteKeys"]

_PATH = "/v1/admin/keys"
_TIMEOUT_S = 30.0


def _key(data: dict[str, Any]) -> ApiKey:
    return ApiKey(id=data["id"], tenant=data["tenant"], name=data.get("name"),
                  created_at=int(data["created_at"]), revoked_at=data.get("revoked_at"),
                  scopes=tuple(data.get("scopes") or ()), expires_at=data.get("expires_at"),
                  rate_per_second=data.get("rate_per_second"),
                  messages_per_day=data.get("messages_per_day"),
                  stored_bytes=data.get("stored_bytes"))


def _iso(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat()


class RemoteKeys:
    """The API keys of a server, managed with an admin key. ``close()`` when done."""

    def __init__(self, base_url: str, admin_key: str) -> None:
        self._http = Http(base_url.rstrip("/"), admin_key, timeout=_TIMEOUT_S)

    async def close(self) -> None:
        await self._http.close()

    async def create(self, tenant: str, name: str | None = None, *,
                     scopes: tuple[str, ...] | list[str] = ("read", "write"),
                     expires_at: int | None = None, rate_per_second: float | None = None,
                     messages_per_day: int | None = None,
                     stored_bytes: int | None = None) -> tuple[str, ApiKey]:
        """Make a key (within the admin key's tenants): the key, shown once, and its record."""
        body: dict[str, Any] = {"tenant": tenant, "name": name, "scopes": list(scopes),
                                "rate_per_second": rate_per_second,
                                "messages_per_day": messages_per_day,
                                "stored_bytes": stored_bytes}
        if expires_at is not None:
            body["expires_at"] = _iso(expires_at)
        data = await self._http.send_json("POST", _PATH, body)
        return str(data["key"]), _key(data)

    async def list(self, tenant: str | None = None) -> builtins.list[ApiKey]:
        """The keys within the admin key's tenants, oldest first."""
        data = await self._http.get_json(_PATH, {"tenant": tenant} if tenant else None)
        return [_key(k) for k in data["keys"]]

    async def revoke(self, key_id: str) -> ApiKey:
        """Revoke a key by id (``NotFound`` when there is none within reach)."""
        if not re.fullmatch(r"[a-z0-9]{8}", key_id):
            raise InvalidInput("id", f"must be a key id: 8 lower-case letters and digits (as "
                               f"`keys list` shows it), got {key_id!r}")
        return _key(await self._http.send_json("DELETE", f"{_PATH}/{key_id}", None))
