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

# The scope tokens of a row, as SQL over columns named tenant/session.
SCOPE_SQL = "'t' || hex({p}tenant) || ' s' || hex({p}tenant || char(31) || {p}session)"

_BODY = "coalesce({p}search_text, {p}content)"

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

MIGRATIONS: tuple[str, ...] = (_V1,)
