"""Every SQL statement of the SQLite API-key store, once, as constants."""

from __future__ import annotations

# Column order read by ``_keys._row_key``.
KEY_COLUMNS = ("id, tenant, name, created_at, revoked_at, scopes, expires_at, rate_per_second, "
               "messages_per_day, stored_bytes")

INSERT_KEY = """
INSERT INTO api_keys (id, tenant, name, secret_hash, created_at, scopes, expires_at,
                      rate_per_second, messages_per_day, stored_bytes)
VALUES (:id, :tenant, :name, :secret_hash, :created_at, :scopes, :expires_at,
        :rate_per_second, :messages_per_day, :stored_bytes)"""

SELECT_KEY = f"SELECT {KEY_COLUMNS}, secret_hash FROM api_keys WHERE id = ?"

# ``:tenant`` NULL lists every tenant's keys.
SELECT_KEYS = f"""
SELECT {KEY_COLUMNS} FROM api_keys WHERE (:tenant IS NULL OR tenant = :tenant)
ORDER BY created_at, id"""

# A key revoked before keeps its first revocation time.
REVOKE_KEY = f"""
UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?
RETURNING {KEY_COLUMNS}"""

COUNT_ACTIVE_KEYS = "SELECT count(*) FROM api_keys WHERE revoked_at IS NULL"

# The cheapest read of the database, for the service's readiness check.
PING = "SELECT 1 FROM api_keys LIMIT 1"

# What a tenant holds, for the service's quotas: its messages and their stored size.
TENANT_USAGE = "SELECT count(*), coalesce(sum(size), 0) FROM messages WHERE tenant = ?"
