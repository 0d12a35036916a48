"""The SQLite schema as append-only migrations, and every SQL statement the store runs.

A shipped migration step is never edited: changes are new steps at the end of ``MIGRATIONS``.
The ``schema_version`` table records how many steps a database has applied.

Full-text search: ``messages.search_text`` holds the text to index when it differs from the
content (CJK runs split into 2-character pairs); the view ``messages_search`` supplies the
indexed body and a *scope* column with one token for the tenant and one for the session, so a
query is narrowed to a session or tenant inside FTS5 itself. Triggers keep ``messages_fts``
in step with every writer.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCOPE_SQL"]

# The scope tokens of a row, as SQL over columns named tenant/session: one for the tenant and
# one for the session. A session's keyword search names the session's token, a tenant-wide one
# the tenant's (``_keyword_sql``).
SCOPE_SQL = "'t' || hex({p}tenant) || ' s' || hex({p}tenant || char(31) || {p}session)"

_BODY = "coalesce({p}search_text, {p}content)"
_DERIVED_BODY = "memstrata_fts_body({p}content)"

_V1 = f"""
CREATE TABLE sessions (
    tenant        TEXT    NOT NULL,
    id            TEXT    NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0,
    hot_count     INTEGER NOT NULL DEFAULT 0,
    hot_bytes     INTEGER NOT NULL DEFAULT 0,
    cutoff        INTEGER NOT NULL DEFAULT 0,
    first_at      INTEGER,
    last_at       INTEGER,
    active_at     INTEGER NOT NULL,
    summary_due   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, id)
) WITHOUT ROWID;

CREATE TABLE messages (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant      TEXT    NOT NULL,
    session     TEXT    NOT NULL,
    role        TEXT    NOT NULL CHECK (role IN ('user', 'assistant')),
    content     TEXT    NOT NULL,
    sender      TEXT,
    at          INTEGER NOT NULL,
    meta        TEXT,
    size        INTEGER NOT NULL,
    search_text TEXT,
    idem_key    TEXT
);
CREATE INDEX messages_by_session ON messages (tenant, session, id);
CREATE UNIQUE INDEX messages_by_key ON messages (tenant, session, idem_key)
    WHERE idem_key IS NOT NULL;

CREATE VIEW messages_search AS
    SELECT id, {_BODY.format(p="")} AS body, {SCOPE_SQL.format(p="")} AS scope FROM messages;

CREATE VIRTUAL TABLE messages_fts USING fts5(
    body, scope,
    content = 'messages_search', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, body, scope)
    VALUES (new.id, {_BODY.format(p="new.")}, {SCOPE_SQL.format(p="new.")});
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, body, scope)
    VALUES ('delete', old.id, {_BODY.format(p="old.")}, {SCOPE_SQL.format(p="old.")});
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, search_text ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, body, scope)
    VALUES ('delete', old.id, {_BODY.format(p="old.")}, {SCOPE_SQL.format(p="old.")});
    INSERT INTO messages_fts (rowid, body, scope)
    VALUES (new.id, {_BODY.format(p="new.")}, {SCOPE_SQL.format(p="new.")});
END;

CREATE TABLE summaries (
    tenant     TEXT    NOT NULL,
    session    TEXT    NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('llm', 'digest')),
    body       TEXT    NOT NULL,
    cursor     INTEGER,
    created_at INTEGER NOT NULL,
    tokens_in  INTEGER NOT NULL DEFAULT 0,
    tokens_out INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, session)
) WITHOUT ROWID;
"""

# Error memory (tenant-wide, not tied to a session). ``seq`` is the stable integer rowid the
# external-content FTS index needs; ``id`` is the public 32-hex id. The search text (tool name,
# keywords, symptom, cause, action; CJK bigrammed) is written by the store in Python, the
# triggers copy it into ``error_records_fts``. The embedding is kept with its model id and
# dimension so a record is compared only with queries embedded by the same model.
_ERROR_SCOPE = "'e' || hex({p}tenant)"

_V2_ERRORS = f"""
CREATE TABLE error_records (
    seq         INTEGER PRIMARY KEY,
    tenant      TEXT    NOT NULL,
    id          TEXT    NOT NULL CHECK (length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*'),
    tool_name   TEXT    NOT NULL,
    keywords    TEXT    NOT NULL DEFAULT '[]',
    symptom     TEXT    NOT NULL,
    cause       TEXT,
    action      TEXT    NOT NULL,
    outcome     TEXT    NOT NULL DEFAULT 'resolved'
                        CHECK (outcome IN ('resolved', 'failed', 'abandoned')),
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    hits        INTEGER NOT NULL DEFAULT 0,
    search_text TEXT    NOT NULL,
    embedding   BLOB,
    embed_model TEXT,
    embed_dim   INTEGER
);
CREATE UNIQUE INDEX error_records_by_id ON error_records (tenant, id);
CREATE INDEX error_records_by_tool ON error_records (tenant, tool_name);
CREATE INDEX error_records_by_expiry ON error_records (tenant, expires_at);

CREATE VIEW error_records_search AS
    SELECT seq, search_text AS body, {_ERROR_SCOPE.format(p="")} AS scope FROM error_records;

CREATE VIRTUAL TABLE error_records_fts USING fts5(
    body, scope,
    content = 'error_records_search', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER error_records_fts_insert AFTER INSERT ON error_records BEGIN
    INSERT INTO error_records_fts (rowid, body, scope)
    VALUES (new.seq, new.search_text, {_ERROR_SCOPE.format(p="new.")});
END;
CREATE TRIGGER error_records_fts_delete AFTER DELETE ON error_records BEGIN
    INSERT INTO error_records_fts (error_records_fts, rowid, body, scope)
    VALUES ('delete', old.seq, old.search_text, {_ERROR_SCOPE.format(p="old.")});
END;
CREATE TRIGGER error_records_fts_update AFTER UPDATE OF search_text, tenant ON error_records
BEGIN
    INSERT INTO error_records_fts (error_records_fts, rowid, body, scope)
    VALUES ('delete', old.seq, old.search_text, {_ERROR_SCOPE.format(p="old.")});
    INSERT INTO error_records_fts (rowid, body, scope)
    VALUES (new.seq, new.search_text, {_ERROR_SCOPE.format(p="new.")});
END;
"""

# Semantic recall. ``vectors`` holds one embedding per hot message (with the model id and
# dimension that made it); ``index_queue`` is the indexer's backlog, claimed in batches so two
# indexers never embed the same message. ``sessions.vector_version`` changes (to a random value,
# so a removed and re-created session cannot match an old cache entry) in the same transaction
# as any change to the session's vectors; in-process caches are validated against it.
_V3_VECTORS = """
CREATE TABLE vectors (
    message_id INTEGER PRIMARY KEY,
    tenant     TEXT    NOT NULL,
    session    TEXT    NOT NULL,
    model      TEXT    NOT NULL,
    dim        INTEGER NOT NULL,
    vec        BLOB    NOT NULL
);
CREATE INDEX vectors_by_session ON vectors (tenant, session, message_id);

CREATE TABLE index_queue (
    message_id INTEGER PRIMARY KEY,
    tenant     TEXT    NOT NULL,
    session    TEXT    NOT NULL,
    claimed_by TEXT,
    claimed_at INTEGER,
    attempts   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX index_queue_by_session ON index_queue (tenant, session);

ALTER TABLE sessions ADD COLUMN vector_version INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER messages_vectors_delete AFTER DELETE ON messages BEGIN
    DELETE FROM vectors WHERE message_id = old.id;
    DELETE FROM index_queue WHERE message_id = old.id;
END;
"""

# Summary runs: a lease per session (so two workers never summarise it at once; it expires, so
# a crashed worker frees it) and the failure back-off with the last error.
_V4_SUMMARY_RUNS = """
CREATE TABLE summary_runs (
    tenant      TEXT    NOT NULL,
    session     TEXT    NOT NULL,
    lease_owner TEXT,
    lease_until INTEGER,
    failures    INTEGER NOT NULL DEFAULT 0,
    retry_at    INTEGER,
    last_error  TEXT,
    PRIMARY KEY (tenant, session)
) WITHOUT ROWID;
"""

# Background work that the write path does not announce. ``index_marks``: per tenant (``*``:
# every tenant at once), the message id up to which every hot message has a vector or a place
# in the queue; the indexer queues what lies above it (messages written while no embedder was
# configured), so ``add`` never pays for it. ``sessions.summary_due`` holds the cutoff at which
# the turns policy asked for a summary (0: none); the partial index lets the trigger find the
# few flagged sessions without touching the index on any append.
_V5_BACKGROUND = """
CREATE TABLE index_marks (
    tenant TEXT    PRIMARY KEY,
    upto   INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX sessions_summary_due ON sessions (tenant, id) WHERE summary_due > 0;
"""

# API keys of the HTTP service. ``id`` is the public part of a key (``ms_<id>_<secret>``);
# only the SHA-256 of the secret is kept, so the file never holds a usable key.
_V6_API_KEYS = """
CREATE TABLE api_keys (
    id          TEXT    PRIMARY KEY CHECK (length(id) = 8),
    tenant      TEXT    NOT NULL,
    name        TEXT,
    secret_hash BLOB    NOT NULL,
    created_at  INTEGER NOT NULL,
    revoked_at  INTEGER
) WITHOUT ROWID;
CREATE INDEX api_keys_by_tenant ON api_keys (tenant, created_at);
"""

# The indexed text is derived, not stored: ``memstrata_fts_body(content)`` (a function every
# connection of the store registers, see ``_functions``) prepares it when a row is un-indexed
# or rebuilt, so a Chinese message no longer keeps a second, pair-split copy of itself (that
# copy was most of the file's growth over the raw text). New rows are indexed by the store in
# the same transaction as their insert, not by a trigger: SQLite 3.40's FTS5 writes its pending
# index out at every statement savepoint, and a trigger gives every inserted row one, so a batch
# became one index segment per row and the merging of those segments cost more than half of
# the write path. Deletes and updates stay with triggers. The index is rebuilt once from the
# messages; ``search_text`` stays as an always-NULL column so older files and salvage read the
# same columns.
_V7_DERIVED_SEARCH_TEXT = f"""
DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP VIEW messages_search;
UPDATE messages SET search_text = NULL WHERE search_text IS NOT NULL;

CREATE VIEW messages_search AS
    SELECT id, {_DERIVED_BODY.format(p="")} AS body, {SCOPE_SQL.format(p="")} AS scope
    FROM messages;

CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, body, scope)
    VALUES ('delete', old.id, {_DERIVED_BODY.format(p="old.")}, {SCOPE_SQL.format(p="old.")});
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, tenant, session ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, body, scope)
    VALUES ('delete', old.id, {_DERIVED_BODY.format(p="old.")}, {SCOPE_SQL.format(p="old.")});
    INSERT INTO messages_fts (rowid, body, scope)
    VALUES (new.id, {_DERIVED_BODY.format(p="new.")}, {SCOPE_SQL.format(p="new.")});
END;

INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
"""

# Every commit writes the new index entries as one small segment, and FTS5 merges segments as
# they pile up: by default whenever four of one size exist. Merging at eight instead takes
# about a fifth off the index's cost per written message (measured: flush and commit ~17.5 →
# ~14 µs per message over 100,000 messages in 1,000 sessions) for a few per cent on searches
# (p50/p95 within a session +3 %/+4 %, across the tenant +4 %/+5 %). Sixteen saved a little more
# on writes but cost searches within a session about a third. The setting is stored in the
# index's own configuration table, so it holds for every connection.
_V8_FTS_MERGE = """
INSERT INTO messages_fts (messages_fts, rank) VALUES ('automerge', 8);
"""

# Scoped keys: what a key may do (space-separated scopes), when it stops working, and its
# limits (NULL: the service's default). Keys made before keep what they could do then: read
# and write, never admin.
_V9_KEY_SCOPES = """
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'read write';
ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
ALTER TABLE api_keys ADD COLUMN rate_per_second REAL;
ALTER TABLE api_keys ADD COLUMN messages_per_day INTEGER;
ALTER TABLE api_keys ADD COLUMN stored_bytes INTEGER;
"""

# Message numbers per tenant: ``messages.seq`` is the id a tenant sees (its first message is 1,
# and another tenant's writes leave no gap in its numbers); ``tenants.next_seq`` is the number
# its next message gets, and never goes down, so a number is never given out twice. The row id
# stays the internal key (full-text index, vectors, the indexer's queue). Within a tenant both
# grow together, so sessions' cutoffs and summary cursors, which are numbers a tenant sees,
# compare with ``seq``. Existing messages keep their ids as their numbers (a client that kept
# an id still names the same message), and every tenant already known continues past the
# highest id the file ever gave out.
_V10_TENANT_NUMBERS = """
CREATE TABLE tenants (
    tenant   TEXT    PRIMARY KEY,
    next_seq INTEGER NOT NULL CHECK (next_seq >= 1)
) WITHOUT ROWID;

ALTER TABLE messages ADD COLUMN seq INTEGER;
UPDATE messages SET seq = id;

INSERT INTO tenants (tenant, next_seq)
SELECT tenant,
       1 + max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0),
               coalesce((SELECT max(id) FROM messages), 0))
FROM (SELECT tenant FROM messages UNION SELECT tenant FROM sessions
      UNION SELECT tenant FROM api_keys);

DROP INDEX messages_by_session;
CREATE INDEX messages_by_session ON messages (tenant, session, seq);
CREATE UNIQUE INDEX messages_by_seq ON messages (tenant, seq);
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2_ERRORS, _V3_VECTORS, _V4_SUMMARY_RUNS, _V5_BACKGROUND,
                               _V6_API_KEYS, _V7_DERIVED_SEARCH_TEXT, _V8_FTS_MERGE,
                               _V9_KEY_SCOPES, _V10_TENANT_NUMBERS)
