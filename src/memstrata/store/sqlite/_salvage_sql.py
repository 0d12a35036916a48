"""The SQL of salvage: reading a damaged file piece by piece, and rebuilding the derived rows
(session counters, the index queue) of the new file from what was copied."""

from __future__ import annotations

SOURCE_TABLES = "SELECT name FROM sqlite_schema WHERE type = 'table'"

# -- messages (rowid table, read by id range; AUTOINCREMENT keeps its counter) ---------------
# A message travels with its number within its tenant last (``seq``, the column a later schema
# added); a file from before it has none, and its ids are its numbers.
MESSAGE_COLUMNS = ("id, tenant, session, role, content, sender, at, meta, size, search_text, "
                   "idem_key, seq")
_OLD_MESSAGE_COLUMNS = MESSAGE_COLUMNS.replace(", seq", ", id")
READ_MESSAGES = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id BETWEEN ? AND ? ORDER BY id"
READ_MESSAGE = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?"
READ_OLD_MESSAGES = (f"SELECT {_OLD_MESSAGE_COLUMNS} FROM messages WHERE id BETWEEN ? AND ? "
                     "ORDER BY id")
READ_OLD_MESSAGE = f"SELECT {_OLD_MESSAGE_COLUMNS} FROM messages WHERE id = ?"
MESSAGE_HAS_SEQ = "SELECT count(*) FROM pragma_table_info('messages') WHERE name = 'seq'"
MESSAGE_BOUNDS = ("SELECT seq FROM sqlite_sequence WHERE name = 'messages'",
                  "SELECT max(id) FROM messages")
# The ids of live messages, as two other b-trees hold them (forward, then backward, so a
# damaged page in the middle still leaves both ends).
LIVE_MESSAGE_IDS = (
    ("SELECT id FROM messages INDEXED BY messages_by_seq ORDER BY tenant, seq",
     "SELECT id FROM messages INDEXED BY messages_by_seq ORDER BY tenant DESC, seq DESC"),
    ("SELECT id FROM messages INDEXED BY messages_by_session ORDER BY tenant, session, id",
     "SELECT id FROM messages INDEXED BY messages_by_session "
     "ORDER BY tenant DESC, session DESC, id DESC"),
    ("SELECT id FROM messages_fts_docsize ORDER BY id",
     "SELECT id FROM messages_fts_docsize ORDER BY id DESC"),
)
# The indexed text is derived from the content now: an older file's stored copy is not kept.
WRITE_MESSAGE = f"""
INSERT OR IGNORE INTO messages ({MESSAGE_COLUMNS})
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, NULL, ?11, ?12)"""
KEEP_MESSAGE_COUNTER = """
INSERT INTO sqlite_sequence (name, seq) SELECT 'messages', ?
WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'messages')"""
RAISE_MESSAGE_COUNTER = "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'messages'"

# -- error records (rowid table keyed by seq) ------------------------------------------------
ERROR_COLUMNS = ("seq, tenant, id, tool_name, keywords, symptom, cause, action, outcome, "
                 "created_at, expires_at, hits, search_text, embedding, embed_model, embed_dim")
READ_ERRORS = f"SELECT {ERROR_COLUMNS} FROM error_records WHERE seq BETWEEN ? AND ? ORDER BY seq"
READ_ERROR = f"SELECT {ERROR_COLUMNS} FROM error_records WHERE seq = ?"
ERROR_BOUNDS = ("SELECT max(seq) FROM error_records",)
LIVE_ERROR_SEQS = (
    ("SELECT seq FROM error_records INDEXED BY error_records_by_id ORDER BY tenant, id",
     "SELECT seq FROM error_records INDEXED BY error_records_by_id "
     "ORDER BY tenant DESC, id DESC"),
    ("SELECT id FROM error_records_fts_docsize ORDER BY id",
     "SELECT id FROM error_records_fts_docsize ORDER BY id DESC"),
)
WRITE_ERROR = f"""
INSERT OR IGNORE INTO error_records ({ERROR_COLUMNS})
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""

# -- vectors (rowid table keyed by message id) -----------------------------------------------
VECTOR_COLUMNS = "message_id, tenant, session, model, dim, vec"
READ_VECTORS = (f"SELECT {VECTOR_COLUMNS} FROM vectors WHERE message_id BETWEEN ? AND ? "
                "ORDER BY message_id")
READ_VECTOR = f"SELECT {VECTOR_COLUMNS} FROM vectors WHERE message_id = ?"
WRITE_VECTOR = f"INSERT OR IGNORE INTO vectors ({VECTOR_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"

# -- sessions and summaries (WITHOUT ROWID, keyed by tenant and session) ---------------------
SESSION_COLUMNS = ("tenant, id, message_count, hot_count, hot_bytes, cutoff, first_at, last_at, "
                   "active_at, summary_due")
READ_SESSIONS = (f"SELECT {SESSION_COLUMNS} FROM sessions ORDER BY tenant, id",
                 f"SELECT {SESSION_COLUMNS} FROM sessions ORDER BY tenant DESC, id DESC")
READ_SESSION = f"SELECT {SESSION_COLUMNS} FROM sessions WHERE tenant = ? AND id = ?"
# Counters are recomputed from the messages copied; the cutoff and activity are kept.
WRITE_SESSION = """
INSERT OR IGNORE INTO sessions (tenant, id, cutoff, active_at, summary_due, vector_version)
VALUES (?, ?, ?, ?, ?, abs(random()))"""

SUMMARY_COLUMNS = "tenant, session, kind, body, cursor, created_at, tokens_in, tokens_out"
READ_SUMMARIES = (f"SELECT {SUMMARY_COLUMNS} FROM summaries ORDER BY tenant, session",
                  f"SELECT {SUMMARY_COLUMNS} FROM summaries ORDER BY tenant DESC, session DESC")
READ_SUMMARY = f"SELECT {SUMMARY_COLUMNS} FROM summaries WHERE tenant = ? AND session = ?"
WRITE_SUMMARY = f"""
INSERT OR IGNORE INTO summaries ({SUMMARY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"""

# -- API keys (a small table: read whole, or not at all when its pages are damaged) ---------
API_KEY_COLUMNS = ("id, tenant, name, secret_hash, created_at, revoked_at, scopes, expires_at, "
                   "rate_per_second, messages_per_day, stored_bytes")
READ_API_KEYS = f"SELECT {API_KEY_COLUMNS} FROM api_keys ORDER BY id"
# A file from before scoped keys: its keys could read and write, and never expired.
READ_OLD_API_KEYS = """
SELECT id, tenant, name, secret_hash, created_at, revoked_at, 'read write', NULL, NULL, NULL,
       NULL FROM api_keys ORDER BY id"""
WRITE_API_KEY = (f"INSERT OR IGNORE INTO api_keys ({API_KEY_COLUMNS}) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")

# -- rebuilding what derives from the copied rows --------------------------------------------
ADD_MISSING_SESSIONS = (
    """INSERT OR IGNORE INTO sessions (tenant, id, active_at, vector_version)
       SELECT tenant, session, max(at), abs(random()) FROM messages GROUP BY tenant, session""",
    """INSERT OR IGNORE INTO sessions (tenant, id, active_at, vector_version)
       SELECT tenant, session, created_at, abs(random()) FROM summaries""",
)
_OF_SESSION = "FROM messages m WHERE m.tenant = sessions.tenant AND m.session = sessions.id"
COUNT_SESSIONS = f"""
UPDATE sessions SET
    message_count = (SELECT count(*) {_OF_SESSION}),
    hot_count     = (SELECT count(*) {_OF_SESSION} AND m.seq > sessions.cutoff),
    hot_bytes     = (SELECT coalesce(sum(m.size), 0) {_OF_SESSION} AND m.seq > sessions.cutoff),
    first_at      = (SELECT min(m.at) {_OF_SESSION}),
    last_at       = (SELECT max(m.at) {_OF_SESSION})"""
# Vectors exist only for hot messages that were copied.
DROP_STRAY_VECTORS = """
DELETE FROM vectors WHERE NOT EXISTS (
    SELECT 1 FROM messages m JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
    WHERE m.id = vectors.message_id AND m.tenant = vectors.tenant
      AND m.session = vectors.session AND m.seq > s.cutoff)"""
QUEUE_UNEMBEDDED = """
INSERT OR IGNORE INTO index_queue (message_id, tenant, session)
SELECT m.id, m.tenant, m.session
FROM messages m JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
WHERE m.seq > s.cutoff AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.message_id = m.id)"""
# Each tenant's next number: past every number copied, past what the source's own counter
# said (``KEEP_TENANT_NUMBER``), and, when that counter could not be read, past every id the
# source gave out (a number is never above its message's row id), so none is given twice.
NUMBER_TENANTS = """
INSERT INTO tenants (tenant, next_seq)
SELECT tenant, max(seq) + 1 FROM messages WHERE true GROUP BY tenant
ON CONFLICT (tenant) DO UPDATE SET next_seq = max(next_seq, excluded.next_seq)"""
READ_TENANT_NUMBERS = "SELECT tenant, next_seq FROM tenants"
KEEP_TENANT_NUMBER = """
INSERT INTO tenants (tenant, next_seq) VALUES (?, ?)
ON CONFLICT (tenant) DO UPDATE SET next_seq = max(next_seq, excluded.next_seq)"""
NUMBER_TENANTS_PAST = """
INSERT INTO tenants (tenant, next_seq)
SELECT tenant, ?1 + 1 FROM (SELECT tenant FROM messages UNION SELECT tenant FROM sessions)
WHERE true
ON CONFLICT (tenant) DO UPDATE SET next_seq = max(next_seq, excluded.next_seq)"""
# The full-text index is derived from the messages copied (the store indexes its own inserts).
REBUILD_MESSAGE_INDEX = "INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')"
COUNT_COPIED = (
    ("sessions", "SELECT count(*) FROM sessions"),
    ("vectors", "SELECT count(*) FROM vectors"),
    ("queued", "SELECT count(*) FROM index_queue"),
)
