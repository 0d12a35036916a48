"""The PostgreSQL schema as append-only migrations.

A shipped step is never edited: changes are new steps at the end of ``MIGRATIONS``, and the
``schema_version`` table records how many steps a database has applied. A step is one script
(PostgreSQL runs DDL inside the migration's transaction); ``{vector_type}``, ``{gin_lead}`` and
``{gin_lead_session}`` are filled in from what the server offered at the first migration (see
``_migrate``).

How it maps onto the SQLite schema: the same tables and columns, with these differences.
Message ids come from an identity column (a sequence: never reused, like ``AUTOINCREMENT``).
Full-text search is a ``tsvector`` column written with the message (from the same prepared
text as SQLite's index, see ``_text``) under a GIN index, with the ``memstrata_text``
configuration: English snowball stemming and no stop words, like FTS5's ``porter`` tokenizer.
Vectors and queue entries go with their message by foreign keys (``ON DELETE CASCADE``)
instead of triggers. Every table and index leads with the tenant; the exceptions are
``api_keys`` (a key is what names a tenant) and the indexer's claim index (a claim token names
one batch, which may span tenants). Keys and ids use the "C" collation, so they compare and
sort byte by byte as in SQLite. ``sessions.vector_version`` takes values from a sequence, so a
removed and re-created session never repeats a version.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS"]

_V1 = """
CREATE TEXT SEARCH DICTIONARY memstrata_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION memstrata_text (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION memstrata_text
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
    WITH memstrata_stem;

CREATE SEQUENCE vector_versions;

CREATE TABLE sessions (
    tenant         text COLLATE "C" NOT NULL,
    id             text COLLATE "C" NOT NULL,
    message_count  bigint NOT NULL DEFAULT 0,
    hot_count      bigint NOT NULL DEFAULT 0,
    hot_bytes      bigint NOT NULL DEFAULT 0,
    cutoff         bigint NOT NULL DEFAULT 0,
    first_at       bigint,
    last_at        bigint,
    active_at      bigint NOT NULL,
    summary_due    bigint NOT NULL DEFAULT 0,
    vector_version bigint NOT NULL DEFAULT nextval('vector_versions'),
    PRIMARY KEY (tenant, id)
);
CREATE INDEX sessions_summary_due ON sessions (tenant, id) WHERE summary_due > 0;

CREATE TABLE messages (
    tenant   text COLLATE "C" NOT NULL,
    id       bigint GENERATED ALWAYS AS IDENTITY,
    session  text COLLATE "C" NOT NULL,
    role     text NOT NULL CHECK (role IN ('user', 'assistant')),
    content  text NOT NULL,
    sender   text,
    at       bigint NOT NULL,
    meta     json,
    size     bigint NOT NULL,
    idem_key text COLLATE "C",
    fts      tsvector NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX messages_by_session ON messages (tenant, session, id);
CREATE UNIQUE INDEX messages_by_key ON messages (tenant, session, idem_key)
    WHERE idem_key IS NOT NULL;
CREATE INDEX messages_fts ON messages USING gin ({gin_lead_session}fts);

CREATE TABLE summaries (
    tenant     text COLLATE "C" NOT NULL,
    session    text COLLATE "C" NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('llm', 'digest')),
    body       json NOT NULL,
    cursor     bigint,
    created_at bigint NOT NULL,
    tokens_in  bigint NOT NULL DEFAULT 0,
    tokens_out bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, session)
);

CREATE TABLE vectors (
    tenant     text COLLATE "C" NOT NULL,
    message_id bigint NOT NULL,
    session    text COLLATE "C" NOT NULL,
    model      text NOT NULL,
    dim        integer NOT NULL,
    vec        {vector_type} NOT NULL,
    PRIMARY KEY (tenant, message_id),
    FOREIGN KEY (tenant, message_id) REFERENCES messages (tenant, id) ON DELETE CASCADE
);
CREATE INDEX vectors_by_session ON vectors (tenant, session, message_id);

CREATE TABLE index_queue (
    tenant     text COLLATE "C" NOT NULL,
    message_id bigint NOT NULL,
    session    text COLLATE "C" NOT NULL,
    claimed_by text COLLATE "C",
    claimed_at bigint,
    attempts   integer NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, message_id),
    FOREIGN KEY (tenant, message_id) REFERENCES messages (tenant, id) ON DELETE CASCADE
);
CREATE INDEX index_queue_by_session ON index_queue (tenant, session);
CREATE INDEX index_queue_by_claim ON index_queue (claimed_by, tenant, message_id)
    WHERE claimed_by IS NOT NULL;

CREATE TABLE index_marks (
    tenant text COLLATE "C" PRIMARY KEY,
    upto   bigint NOT NULL
);

CREATE TABLE summary_runs (
    tenant      text COLLATE "C" NOT NULL,
    session     text COLLATE "C" NOT NULL,
    lease_owner text COLLATE "C",
    lease_until bigint,
    failures    integer NOT NULL DEFAULT 0,
    retry_at    bigint,
    last_error  text,
    PRIMARY KEY (tenant, session)
);

CREATE TABLE error_records (
    tenant      text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL CHECK (id ~ '^[0-9a-f]{{32}}$'),
    seq         bigint GENERATED ALWAYS AS IDENTITY,
    tool_name   text COLLATE "C" NOT NULL,
    keywords    json NOT NULL,
    symptom     text NOT NULL,
    cause       text,
    action      text NOT NULL,
    outcome     text NOT NULL DEFAULT 'resolved'
                CHECK (outcome IN ('resolved', 'failed', 'abandoned')),
    created_at  bigint NOT NULL,
    expires_at  bigint NOT NULL,
    hits        integer NOT NULL DEFAULT 0,
    search_text text NOT NULL,
    fts         tsvector NOT NULL,
    embedding   bytea,
    embed_model text,
    embed_dim   integer,
    PRIMARY KEY (tenant, id)
);
CREATE UNIQUE INDEX error_records_by_seq ON error_records (tenant, seq);
CREATE INDEX error_records_by_tool ON error_records (tenant, tool_name);
CREATE INDEX error_records_by_expiry ON error_records (tenant, expires_at);
CREATE INDEX error_records_fts ON error_records USING gin ({gin_lead}fts);

CREATE TABLE api_keys (
    id          text COLLATE "C" PRIMARY KEY CHECK (length(id) = 8),
    tenant      text COLLATE "C" NOT NULL,
    name        text,
    secret_hash bytea NOT NULL,
    created_at  bigint NOT NULL,
    revoked_at  bigint
);
CREATE INDEX api_keys_by_tenant ON api_keys (tenant, created_at);
"""

# The bulk append copies rows straight into ``messages`` (``COPY`` computes no expression):
# each carries its prepared text in ``search``, from which this trigger computes ``fts`` as the
# row arrives (so the server's work overlaps the client's sending) and then clears it; the
# check holds it to that, so the text is never stored twice. Rows inserted with ``fts`` and no
# ``search`` (every other writer) do not fire it.
_V2 = """
ALTER TABLE messages ADD COLUMN search text CONSTRAINT messages_search_transient
    CHECK (search IS NULL);
CREATE FUNCTION memstrata_fts_from_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.fts := to_tsvector('memstrata_text', NEW.search);
    NEW.search := NULL;
    RETURN NEW;
END
$$;
CREATE TRIGGER messages_fts_from_search BEFORE INSERT ON messages FOR EACH ROW
    WHEN (NEW.search IS NOT NULL) EXECUTE FUNCTION memstrata_fts_from_search();
"""

# Scoped keys: what a key may do (space-separated scopes), when it stops working, and its
# limits (NULL: the service's default). Keys made before keep what they could do then: read
# and write, never admin.
_V3_KEY_SCOPES = """
ALTER TABLE api_keys ADD COLUMN scopes text NOT NULL DEFAULT 'read write',
    ADD COLUMN expires_at bigint, ADD COLUMN rate_per_second double precision,
    ADD COLUMN messages_per_day bigint, ADD COLUMN stored_bytes bigint;
"""

# Message numbers per tenant, as in SQLite: ``messages.seq`` is the id a tenant sees (its
# first message is 1; other tenants' writes leave no gap in it), taken from the tenant's row
# in ``tenants`` inside the append's transaction (the row stays locked until commit, so a
# tenant's numbers commit in order and none is lost or given twice). The row id stays the
# internal key (vectors, the queue). Existing messages keep their ids as their numbers, and
# every tenant already known continues past every id the sequence gave out.
_V4_TENANT_NUMBERS = """
CREATE TABLE tenants (
    tenant   text COLLATE "C" PRIMARY KEY,
    next_seq bigint NOT NULL CHECK (next_seq >= 1)
);

ALTER TABLE messages ADD COLUMN seq bigint;
UPDATE messages SET seq = id;
ALTER TABLE messages ALTER COLUMN seq SET NOT NULL;

INSERT INTO tenants (tenant, next_seq)
SELECT t.tenant,
       1 + greatest(coalesce(pg_sequence_last_value(
                                 pg_get_serial_sequence('messages', 'id')::regclass), 0),
                    coalesce((SELECT max(id) FROM messages), 0))
FROM (SELECT tenant FROM messages UNION SELECT tenant FROM sessions
      UNION SELECT tenant FROM api_keys) t;

DROP INDEX messages_by_session;
CREATE INDEX messages_by_session ON messages (tenant, session, seq);
CREATE UNIQUE INDEX messages_by_seq ON messages (tenant, seq);
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3_KEY_SCOPES, _V4_TENANT_NUMBERS)
