"""What both backends do the same way with API key rows (pure: no SQL, no connection): a
stored row read back as an :class:`ApiKey`, and a key's values for an insert."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..types import ApiKey

__all__ = ["key_params", "row_key"]


def row_key(row: Sequence[Any]) -> ApiKey:
    """A key from its row, columns in the order of each backend's ``KEY_COLUMNS``."""
    return ApiKey(id=row[0], tenant=row[1], name=row[2], created_at=int(row[3]),
                  revoked_at=None if row[4] is None else int(row[4]),
                  scopes=tuple(str(row[5]).split()),
                  expires_at=None if row[6] is None else int(row[6]),
                  rate_per_second=None if row[7] is None else float(row[7]),
                  messages_per_day=None if row[8] is None else int(row[8]),
                  stored_bytes=None if row[9] is None else int(row[9]))


def key_params(key: ApiKey, secret_hash: bytes) -> dict[str, Any]:
    """The named parameters of a key's insert."""
    return {"id": key.id, "tenant": key.tenant, "name": key.name, "secret_hash": secret_hash,
            "created_at": key.created_at, "scopes": " ".join(key.scopes),
            "expires_at": key.expires_at, "rate_per_second": key.rate_per_second,
            "messages_per_day": key.messages_per_day, "stored_bytes": key.stored_bytes}
