"""Every SQL statement of a migration into a PostgreSQL store, once, as constants: reading
back what the target holds under a batch's keys, inserting rows with their ids, counting per
tenant, and moving the identity sequences."""

from __future__ import annotations

from .._migrate_tables import TABLES

# The target's rows under a batch's keys, in the column order of ``_migrate_tables`` (json
# columns come back parsed, vectors as stored). Each lookup leads with the tenant, so it uses
# the primary key.
SELECT_EXISTING = {
    "sessions": """
SELECT tenant, id, message_count, hot_count, hot_bytes, cutoff, first_at, last_at, active_at,
       summary_due
FROM sessions WHERE (tenant, id) IN (SELECT * FROM unnest(%s::text[], %s::text[]))""",
    "messages": """
SELECT id, tenant, session, role, content, sender, at, meta, size, idem_key, seq
FROM messages WHERE tenant = ANY(%s::text[]) AND id = ANY(%s::bigint[])""",
    "tenants": "SELECT tenant, next_seq FROM tenants WHERE tenant = ANY(%s::text[])",
    "summaries": """
SELECT tenant, session, kind, body, cursor, created_at, tokens_in, tokens_out
FROM summaries WHERE (tenant, session) IN (SELECT * FROM unnest(%s::text[], %s::text[]))""",
    "vectors": """
SELECT message_id, tenant, session, model, dim, vec
FROM vectors WHERE tenant = ANY(%s::text[]) AND message_id = ANY(%s::bigint[])""",
    "index_queue": """
SELECT message_id, tenant, session
FROM index_queue WHERE tenant = ANY(%s::text[]) AND message_id = ANY(%s::bigint[])""",
    "index_marks": "SELECT tenant, upto FROM index_marks WHERE tenant = ANY(%s::text[])",
    "error_records": """
SELECT seq, tenant, id, tool_name, keywords, symptom, cause, action, outcome, created_at,
       expires_at, hits, search_text, embedding, embed_model, embed_dim
FROM error_records
WHERE tenant = ANY(%s::text[]) AND (seq = ANY(%s::bigint[]) OR id = ANY(%s::text[]))""",
    "api_keys": """
SELECT id, tenant, name, secret_hash, created_at, revoked_at, scopes, expires_at,
       rate_per_second, messages_per_day, stored_bytes
FROM api_keys WHERE id = ANY(%s::text[])""",
}

# Messages of other tenants whose ids a migration could collide with.
SELECT_FOREIGN_MESSAGE_IDS = """
SELECT id FROM messages WHERE tenant <> ALL(%s::text[]) AND id <= %s"""

# Rows copied with their ids. Claims in the queue belonged to the old database's workers, so
# entries arrive unclaimed; a session's vector version comes from this database's sequence.
INSERT = {
    "sessions": """
INSERT INTO sessions (tenant, id, message_count, hot_count, hot_bytes, cutoff, first_at,
                      last_at, active_at, summary_due)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (tenant, id) DO NOTHING""",
    "messages": """
INSERT INTO messages (id, tenant, session, role, content, sender, at, meta, size, idem_key, seq,
                      fts)
OVERRIDING SYSTEM VALUE
VALUES (%s, %s, %s, %s, %s, %s, %s, %s::json, %s, %s, %s, to_tsvector('memstrata_text', %s))
ON CONFLICT (tenant, id) DO NOTHING""",
    "tenants": """
INSERT INTO tenants (tenant, next_seq) VALUES (%s, %s)
ON CONFLICT (tenant) DO UPDATE SET next_seq = greatest(tenants.next_seq, excluded.next_seq)""",
    "summaries": """
INSERT INTO summaries (tenant, session, kind, body, cursor, created_at, tokens_in, tokens_out)
VALUES (%s, %s, %s, %s::json, %s, %s, %s, %s)
ON CONFLICT (tenant, session) DO NOTHING""",
    "vectors": """
INSERT INTO vectors (message_id, tenant, session, model, dim, vec) VALUES (%s, %s, %s, %s, %s, %s)
ON CONFLICT (tenant, message_id) DO NOTHING""",
    "index_queue": """
INSERT INTO index_queue (message_id, tenant, session) VALUES (%s, %s, %s)
ON CONFLICT (tenant, message_id) DO NOTHING""",
    "index_marks": """
INSERT INTO index_marks (tenant, upto) VALUES (%s, %s)
ON CONFLICT (tenant) DO UPDATE SET upto = greatest(index_marks.upto, excluded.upto)""",
    "error_records": """
INSERT INTO error_records (seq, tenant, id, tool_name, keywords, symptom, cause, action,
                           outcome, created_at, expires_at, hits, search_text, embedding,
                           embed_model, embed_dim, fts)
OVERRIDING SYSTEM VALUE
VALUES (%s, %s, %s, %s, %s::json, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,
        to_tsvector('memstrata_text', %s))
ON CONFLICT (tenant, id) DO NOTHING""",
    "api_keys": """
INSERT INTO api_keys (id, tenant, name, secret_hash, created_at, revoked_at, scopes,
                      expires_at, rate_per_second, messages_per_day, stored_bytes)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (id) DO NOTHING""",
}

COUNT_BY_TENANT = {
    t.name: f"SELECT tenant, count(*) FROM {t.name} WHERE tenant = ANY(%s::text[]) GROUP BY tenant"
    for t in TABLES
}

# The next id handed out follows the highest the source ever gave (never lowered).
_RAISE = """
SELECT setval(pg_get_serial_sequence('{table}', '{column}'),
              greatest(%s, coalesce(pg_sequence_last_value(
                  pg_get_serial_sequence('{table}', '{column}')::regclass), 0)))"""
RAISE_MESSAGE_IDS = _RAISE.format(table="messages", column="id")
RAISE_ERROR_SEQS = _RAISE.format(table="error_records", column="seq")
