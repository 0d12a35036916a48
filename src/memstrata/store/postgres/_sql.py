"""Every SQL statement of the PostgreSQL store's messages, sessions, summaries and summary
runs, once, as constants (the vector side is in ``_vectors_sql``)."""

from __future__ import annotations

# A message's id as its tenant sees it is its number within the tenant (``seq``); the row id
# is internal (vectors and the indexer's queue refer to it). Within one tenant both grow
# together, so cutoffs and cursors (tenant numbers) compare with ``seq``.
MESSAGE_COLUMNS = "seq, session, role, content, sender, at, meta"
M_COLUMNS = "m.seq, m.session, m.role, m.content, m.sender, m.at, m.meta"

# -- migrations ------------------------------------------------------------------------------

# One migration at a time per database (any constant key would do; this one spells "mstr").
LOCK_MIGRATIONS = "SELECT pg_advisory_xact_lock(1836282994)"
CREATE_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version    integer PRIMARY KEY,
    applied_at bigint NOT NULL
)"""
SELECT_VERSION = "SELECT max(version) FROM schema_version"
INSERT_VERSION = "INSERT INTO schema_version (version, applied_at) VALUES (%s, %s)"
SELECT_SCHEMA_TABLES = """
SELECT c.relname FROM pg_class c
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')
ORDER BY c.relname"""
SELECT_VERSION_COLUMNS = """
SELECT a.attname FROM pg_attribute a
WHERE a.attrelid = to_regclass('schema_version') AND a.attnum > 0 AND NOT a.attisdropped"""
SELECT_VECTOR_COLUMN_TYPE = """
SELECT t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
WHERE a.attrelid = to_regclass('vectors') AND a.attname = 'vec'"""
SELECT_AVAILABLE_EXTENSION = """
SELECT installed_version FROM pg_available_extensions WHERE name = %s"""
SELECT_EXTENSIONS = "SELECT extname FROM pg_extension"
CREATE_EXTENSION = {
    "vector": "CREATE EXTENSION IF NOT EXISTS vector",
    "btree_gin": "CREATE EXTENSION IF NOT EXISTS btree_gin",
}

# -- appending -------------------------------------------------------------------------------

# Every append holds this advisory lock shared, ``queue_unindexed`` exclusive: while it looks
# for messages written without the queue, no append is in flight, so no id below the newest
# can still commit behind its mark.
APPEND_LOCK_KEY = 1836282995

# The first statement of an append: the shared lock above, then the session's row, created if
# new and locked either way. Appends to one session thus commit in the order of their ids.
LOCK_SESSION = """
INSERT INTO sessions (tenant, id, active_at)
SELECT %(tenant)s, %(session)s, %(now)s FROM (SELECT pg_advisory_xact_lock_shared(%(key)s)) l
ON CONFLICT (tenant, id) DO UPDATE SET active_at = sessions.active_at"""

INSERT_MESSAGE = """
INSERT INTO messages (tenant, session, role, content, sender, at, meta, size, idem_key, fts,
                      seq)
VALUES (%s, %s, %s, %s, %s, %s, %s::json, %s, %s, to_tsvector('memstrata_text', %s), %s)
RETURNING id"""

# Takes %(n)s numbers for the tenant; returns the number after the last one taken. The row
# stays locked until the append commits: a tenant's numbers commit in the order taken.
TAKE_NUMBERS = """
INSERT INTO tenants (tenant, next_seq) VALUES (%(tenant)s, 1 + %(n)s)
ON CONFLICT (tenant) DO UPDATE SET next_seq = tenants.next_seq + %(n)s
RETURNING next_seq"""

# The bulk path of an append (``_bulk``): ids are taken from the identity's sequence first (in
# increasing order, after the session's row is locked, so they keep the commit order that
# LOCK_SESSION gives), then the rows are copied straight into ``messages`` with their prepared
# text in ``search``, from which the trigger of migration 2 computes ``fts`` as each row
# arrives.
RESERVE_IDS = """
SELECT nextval(pg_get_serial_sequence('messages', 'id')) AS id FROM generate_series(1, %s)
ORDER BY id"""
COPY_MESSAGES = """
COPY messages (tenant, id, session, role, content, sender, at, meta, size, idem_key, search,
               seq)
FROM STDIN (FORMAT BINARY)"""
# ``meta`` goes as its JSON text: in binary COPY a json value is its text, and psycopg's json
# dumper would encode a str once more.
COPY_TYPES = ("text", "int8", "text", "text", "text", "text", "int8", "text", "int8", "text",
              "text", "int8")
ENQUEUE_MANY = """
INSERT INTO index_queue (tenant, message_id, session)
SELECT %s, unnest(%s::bigint[]), %s
ON CONFLICT DO NOTHING"""

SELECT_BY_KEYS = f"""
SELECT {MESSAGE_COLUMNS}, idem_key FROM messages
WHERE tenant = %s AND session = %s AND idem_key = ANY(%s::text[])"""

ADD_SESSION_COUNTERS = """
UPDATE sessions SET
    vector_version = nextval('vector_versions'),
    message_count = message_count + %(n)s,
    hot_count     = hot_count + %(n)s,
    hot_bytes     = hot_bytes + %(bytes)s,
    first_at      = least(first_at, %(first)s),
    last_at       = greatest(last_at, %(last)s),
    active_at     = %(now)s
WHERE tenant = %(tenant)s AND id = %(session)s
RETURNING hot_count, hot_bytes, cutoff"""

TOUCH_SESSION = """
INSERT INTO sessions (tenant, id, active_at) VALUES (%s, %s, %s)
ON CONFLICT (tenant, id) DO UPDATE SET active_at = excluded.active_at"""

SELECT_HOT_ROWS = """
SELECT seq, role, size FROM messages WHERE tenant = %s AND session = %s AND seq > %s
ORDER BY seq"""

UPDATE_CUTOFF = """
UPDATE sessions SET cutoff = %s, hot_count = %s, hot_bytes = %s,
                    summary_due = greatest(summary_due, %s)
WHERE tenant = %s AND id = %s"""

# -- reading ---------------------------------------------------------------------------------

SELECT_RECENT = f"""
SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = %s AND session = %s
ORDER BY seq DESC LIMIT %s"""

# What context() needs in one statement (one snapshot, no BEGIN/COMMIT): the newest messages,
# each with the summary's columns (NULL when there is none); one row of NULL message columns
# when the session has no messages.
SELECT_WINDOW_AND_SUMMARY = f"""
SELECT {M_COLUMNS}, u.session, u.kind, u.body::text, u.cursor, u.created_at, u.tokens_in,
       u.tokens_out
FROM (SELECT 1) one
LEFT JOIN LATERAL (SELECT {MESSAGE_COLUMNS} FROM messages
                   WHERE tenant = %(tenant)s AND session = %(session)s
                   ORDER BY seq DESC LIMIT %(n)s) m ON true
LEFT JOIN summaries u ON u.tenant = %(tenant)s AND u.session = %(session)s"""

SELECT_MESSAGE = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = %s AND seq = %s"

SELECT_KEYS = """
SELECT seq, idem_key FROM messages
WHERE tenant = %s AND seq = ANY(%s::bigint[]) AND idem_key IS NOT NULL"""

SELECT_BEFORE = f"""
SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = %s AND session = %s AND seq < %s
ORDER BY seq DESC LIMIT %s"""

SELECT_AFTER = f"""
SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = %s AND session = %s AND seq > %s
ORDER BY seq LIMIT %s"""

SELECT_AFTER_CURSOR = f"""
SELECT {MESSAGE_COLUMNS} FROM messages
WHERE tenant = %s AND session = %s AND seq > %s AND seq <= %s
ORDER BY seq LIMIT %s"""

SELECT_PAGE_SESSION = f"""
SELECT {MESSAGE_COLUMNS} FROM messages
WHERE tenant = %s AND session = %s AND seq < %s AND at >= %s ORDER BY seq DESC LIMIT %s"""

SELECT_PAGE_TENANT = f"""
SELECT {MESSAGE_COLUMNS} FROM messages
WHERE tenant = %s AND seq < %s AND at >= %s ORDER BY seq DESC LIMIT %s"""

# -- keyword search --------------------------------------------------------------------------

# Any of the terms (each a phrase, as FTS5 reads a quoted term); NULL when no term has a
# lexeme, which matches nothing.
ANY_TERM = """(SELECT string_agg('(' || x.q::text || ')', ' | ')::tsquery
     FROM (SELECT phraseto_tsquery('memstrata_text', t) AS q
           FROM unnest(%(terms)s::text[]) AS t) x
     WHERE numnode(x.q) > 0)"""
# Rank: ts_rank with its length normalisation (rank / (1 + log(length))), the nearest of
# PostgreSQL's built-ins to BM25's preference for short matching messages. Ties: newer first.
SELECT_FTS_SESSION = f"""
SELECT {M_COLUMNS}, ts_rank(m.fts, q.q, 1) AS score
FROM (SELECT {ANY_TERM} AS q) q JOIN messages m ON m.fts @@ q.q
WHERE m.tenant = %(tenant)s AND m.session = %(session)s AND m.at >= %(low)s
ORDER BY score DESC, m.seq DESC LIMIT %(limit)s"""

SELECT_FTS_TENANT = f"""
SELECT {M_COLUMNS}, ts_rank(m.fts, q.q, 1) AS score
FROM (SELECT {ANY_TERM} AS q) q JOIN messages m ON m.fts @@ q.q
WHERE m.tenant = %(tenant)s AND m.seq > %(lo)s AND m.seq <= %(hi)s AND m.at >= %(low)s
ORDER BY score DESC, m.seq DESC LIMIT %(limit)s"""

# The newest span of a tenant's numbers, read through the (tenant, seq) index (a subquery
# with its own LIMIT, which the planner cannot merge), each row tested against the query: the
# cost is the span's, however many matches the word has in the whole tenant. Through the GIN
# index, a common word at 1,000,000 messages fetched every one of its matches and dropped those
# outside the span. (The span holds at most ``hi - lo`` numbers, so the LIMIT never cuts it.)
SELECT_FTS_TENANT_NEWEST = f"""
SELECT {M_COLUMNS}, ts_rank(m.fts, q.q, 1) AS score
FROM (SELECT {ANY_TERM} AS q) q,
     (SELECT {MESSAGE_COLUMNS}, fts FROM messages
      WHERE tenant = %(tenant)s AND seq > %(lo)s AND seq <= %(hi)s
      ORDER BY seq DESC LIMIT %(hi)s - %(lo)s) m
WHERE m.fts @@ q.q AND m.at >= %(low)s
ORDER BY score DESC, m.seq DESC LIMIT %(limit)s"""

SELECT_TENANT_MAX_ID = "SELECT coalesce(max(seq), 0) FROM messages WHERE tenant = %s"

# Case-insensitive for ASCII only, as SQLite's lower() and the Python side's ascii_lower:
# under the "C" collation lower() maps A-Z and nothing else, at a byte per step (a translate()
# of the 26 letters did the same some 25 times slower, on every row a substring scan reads).
ASCII_LOWER = 'lower(({}) COLLATE "C")'

# Any of the query's literals (lower-cased strings, see ``text.query_literals``) in a message.
ANY_LITERAL = (f"EXISTS (SELECT 1 FROM unnest(%(needles)s::text[]) n "
               f"WHERE strpos({ASCII_LOWER.format('m.content')}, n) > 0)")

# The substring scan reads the newest hot messages of the session only; the tsvector index
# covers the whole archive. The span is read in a subquery with its own LIMIT, which the
# planner cannot merge into the outer query: it always walks the session's index for at most
# ``span`` rows. (Written as ``m.id IN (…)``, the planner could instead walk the whole tenant
# newest first, betting on an early match: a second per call for a needle found nowhere, at
# 1,000,000 messages.)
SELECT_HOT_SUBSTRING_SESSION = f"""
SELECT {M_COLUMNS} FROM (
    SELECT {MESSAGE_COLUMNS} FROM messages
    WHERE tenant = %(tenant)s AND session = %(session)s
      AND seq > (SELECT cutoff FROM sessions WHERE tenant = %(tenant)s AND id = %(session)s)
    ORDER BY seq DESC LIMIT %(span)s) m
WHERE m.at >= %(low)s AND {ANY_LITERAL}
ORDER BY m.seq DESC LIMIT %(limit)s"""

SELECT_HOT_SUBSTRING_TENANT = f"""
SELECT {M_COLUMNS} FROM messages m JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
WHERE m.tenant = %(tenant)s AND m.seq > %(lo)s AND m.seq > s.cutoff AND m.at >= %(low)s
  AND {ANY_LITERAL}
ORDER BY m.seq DESC LIMIT %(limit)s"""

# -- summaries and sessions ------------------------------------------------------------------

COUNT_BETWEEN = """
SELECT count(*) FROM messages WHERE tenant = %s AND session = %s AND seq > %s AND seq < %s"""

SELECT_SUMMARY = """
SELECT session, kind, body::text, cursor, created_at, tokens_in, tokens_out
FROM summaries WHERE tenant = %s AND session = %s"""

UPSERT_SUMMARY = """
INSERT INTO summaries (tenant, session, kind, body, cursor, created_at, tokens_in, tokens_out)
VALUES (%s, %s, %s, %s::json, %s, %s, %s, %s)
ON CONFLICT (tenant, session) DO UPDATE SET
    kind = excluded.kind, body = excluded.body, cursor = excluded.cursor,
    created_at = excluded.created_at, tokens_in = excluded.tokens_in,
    tokens_out = excluded.tokens_out"""

DELETE_SUMMARY = "DELETE FROM summaries WHERE tenant = %s AND session = %s"

SELECT_SESSION = """
SELECT id, message_count, hot_count, hot_bytes, cutoff, first_at, last_at, active_at,
       summary_due
FROM sessions WHERE tenant = %s AND id = %s"""

SELECT_SESSIONS = """
SELECT s.id, s.message_count, s.first_at, s.last_at,
       EXISTS (SELECT 1 FROM summaries u WHERE u.tenant = s.tenant AND u.session = s.id)
FROM sessions s
WHERE s.tenant = %s AND (%s OR NOT starts_with(s.id, 'temp-'))
ORDER BY coalesce(s.last_at, s.active_at) DESC, s.id"""

SELECT_IDLE_SESSIONS = """
SELECT tenant, id FROM sessions WHERE starts_with(id, %s) AND active_at < %s
ORDER BY tenant, id"""

# Locks the session's row, as an append does, before its messages change.
LOCK_EXISTING_SESSION = "SELECT 1 FROM sessions WHERE tenant = %s AND id = %s FOR UPDATE"

DELETE_SESSION_MESSAGES = "DELETE FROM messages WHERE tenant = %s AND session = %s"

CLEAR_SESSION_COUNTERS = """
UPDATE sessions SET message_count = 0, hot_count = 0, hot_bytes = 0, first_at = NULL,
                    last_at = NULL, summary_due = 0
WHERE tenant = %s AND id = %s"""

DELETE_SESSION = "DELETE FROM sessions WHERE tenant = %s AND id = %s"
DELETE_SUMMARY_RUN = "DELETE FROM summary_runs WHERE tenant = %s AND session = %s"

SELECT_FOR_FORGET = "SELECT session, id FROM messages WHERE tenant = %s AND seq = %s"
DELETE_MESSAGE = "DELETE FROM messages WHERE tenant = %s AND id = %s RETURNING size"

UNCOUNT_MESSAGE = """
UPDATE sessions SET
    message_count = message_count - 1,
    hot_count = hot_count - (CASE WHEN %(id)s > cutoff THEN 1 ELSE 0 END),
    hot_bytes = hot_bytes - (CASE WHEN %(id)s > cutoff THEN %(size)s ELSE 0 END)
WHERE tenant = %(tenant)s AND id = %(session)s"""

# Sessions whose counters disagree with their messages (what ``integrity_check`` reports).
SELECT_COUNTER_MISMATCHES = """
SELECT s.tenant, s.id, s.message_count, count(m.id)
FROM sessions s LEFT JOIN messages m ON m.tenant = s.tenant AND m.session = s.id
GROUP BY s.tenant, s.id, s.message_count
HAVING s.message_count <> count(m.id)
ORDER BY s.tenant, s.id LIMIT 20"""

# -- summary runs ----------------------------------------------------------------------------

# A fenced save in one statement (one round trip): the summary is written only when
# %(owner)s holds the session's lease (NULL: no lease involved) and the stored cursor is not
# ahead of the new one; then, and only then, the holder's lease is renewed and the turns
# policy's flag cleared if the cursor reached it. The lease row is locked first, so a worker
# taking the lease over waits for this save or makes it write nothing. Returns one row when
# the summary was written.
SAVE_SUMMARY_FENCED = """
WITH held AS (
    SELECT 1 FROM summary_runs
    WHERE tenant = %(tenant)s AND session = %(session)s AND lease_owner = %(owner)s
    FOR UPDATE
), saved AS (
    INSERT INTO summaries (tenant, session, kind, body, cursor, created_at, tokens_in,
                           tokens_out)
    SELECT %(tenant)s, %(session)s, %(kind)s, %(body)s::json, %(cursor)s, %(now)s,
           %(tokens_in)s, %(tokens_out)s
    WHERE %(owner)s::text IS NULL OR EXISTS (SELECT 1 FROM held)
    ON CONFLICT (tenant, session) DO UPDATE SET
        kind = excluded.kind, body = excluded.body, cursor = excluded.cursor,
        created_at = excluded.created_at,
        tokens_in = summaries.tokens_in + excluded.tokens_in,
        tokens_out = summaries.tokens_out + excluded.tokens_out
    WHERE summaries.cursor IS NULL OR summaries.cursor <= excluded.cursor
    RETURNING 1
), renewed AS (
    UPDATE summary_runs SET lease_until = %(until)s
    WHERE tenant = %(tenant)s AND session = %(session)s AND lease_owner = %(owner)s
      AND %(until)s::bigint IS NOT NULL AND EXISTS (SELECT 1 FROM saved)
), cleared AS (
    UPDATE sessions SET summary_due = 0
    WHERE tenant = %(tenant)s AND id = %(session)s AND summary_due BETWEEN 1 AND %(cursor)s
      AND EXISTS (SELECT 1 FROM saved)
)
SELECT 1 FROM saved"""

ADD_SUMMARY_TOKENS = """
UPDATE summaries SET tokens_in = tokens_in + %s, tokens_out = tokens_out + %s
WHERE tenant = %s AND session = %s"""

# The lease goes to the caller when nobody holds it, it has expired, or the caller holds it;
# RETURNING yields a row exactly then. Concurrent callers queue on the row (or the key), so
# one wins.
TAKE_LEASE = """
INSERT INTO summary_runs (tenant, session, lease_owner, lease_until)
VALUES (%(tenant)s, %(session)s, %(owner)s, %(until)s)
ON CONFLICT (tenant, session) DO UPDATE SET
    lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
WHERE summary_runs.lease_owner IS NULL OR summary_runs.lease_until < %(now)s
   OR summary_runs.lease_owner = excluded.lease_owner
   -- Ends more than a lease term after the one asked for: written by a clock ahead of ours
   -- (or ours went back); not honoured, so a backward jump cannot keep a dead lease.
   OR summary_runs.lease_until - excluded.lease_until > excluded.lease_until - %(now)s
RETURNING lease_owner"""

DROP_LEASE = """
UPDATE summary_runs SET lease_owner = NULL, lease_until = NULL
WHERE tenant = %s AND session = %s AND lease_owner = %s"""

# Whoever holds it: deleting a session's messages ends any summary run in flight (its save is
# fenced on the lease, so it cannot write back a summary of what was just deleted).
END_LEASE = """
UPDATE summary_runs SET lease_owner = NULL, lease_until = NULL
WHERE tenant = %s AND session = %s AND lease_owner IS NOT NULL"""

SELECT_LEASE_HOLDER = "SELECT lease_owner FROM summary_runs WHERE tenant = %s AND session = %s"

RECORD_FAILURE = """
INSERT INTO summary_runs (tenant, session, failures, retry_at, last_error)
VALUES (%s, %s, 1, %s, %s)
ON CONFLICT (tenant, session) DO UPDATE SET
    failures = summary_runs.failures + 1, retry_at = excluded.retry_at,
    last_error = excluded.last_error
RETURNING failures"""

SET_RETRY_AT = "UPDATE summary_runs SET retry_at = %s WHERE tenant = %s AND session = %s"

RECORD_SUCCESS = """
UPDATE summary_runs SET failures = 0, retry_at = NULL, last_error = NULL
WHERE tenant = %s AND session = %s"""

SELECT_RUN_STATE = """
SELECT failures, retry_at, last_error FROM summary_runs WHERE tenant = %s AND session = %s"""

SELECT_DUE_SESSIONS = """
SELECT s.tenant, s.id FROM sessions s
LEFT JOIN summaries u ON u.tenant = s.tenant AND u.session = s.id
LEFT JOIN summary_runs r ON r.tenant = s.tenant AND r.session = s.id
WHERE (%(tenant)s::text IS NULL OR s.tenant = %(tenant)s) AND NOT starts_with(s.id, 'temp-')
  AND s.message_count > 0 AND (r.retry_at IS NULL OR r.retry_at <= %(now)s)
  AND (SELECT max(m.seq) FROM messages m WHERE m.tenant = s.tenant AND m.session = s.id)
      > coalesce(u.cursor, 0)
ORDER BY s.active_at, s.tenant, s.id
LIMIT %(limit)s"""

SELECT_FLAGGED_SESSIONS = """
SELECT s.tenant, s.id FROM sessions s
LEFT JOIN summaries u ON u.tenant = s.tenant AND u.session = s.id
LEFT JOIN summary_runs r ON r.tenant = s.tenant AND r.session = s.id
WHERE s.summary_due > 0 AND (%(tenant)s::text IS NULL OR s.tenant = %(tenant)s)
  AND NOT starts_with(s.id, 'temp-') AND s.summary_due > coalesce(u.cursor, 0)
  AND (r.retry_at IS NULL OR r.retry_at <= %(now)s)
  AND EXISTS (SELECT 1 FROM messages m WHERE m.tenant = s.tenant AND m.session = s.id
                AND m.seq > coalesce(u.cursor, 0) AND m.seq <= s.summary_due)
ORDER BY s.active_at, s.tenant, s.id
LIMIT %(limit)s"""
