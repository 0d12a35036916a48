"""Every SQL statement of the PostgreSQL store's vector side (the indexer's queue, the hot
tier's vectors, their versions), once, as constants."""

from __future__ import annotations

from ._sql import M_COLUMNS

ENQUEUE = """
INSERT INTO index_queue (tenant, message_id, session) VALUES (%s, %s, %s)
ON CONFLICT DO NOTHING"""

# Behind a cutoff (a tenant number): up to the row id of the session's last message there.
_ROW_AT_CUTOFF = """(SELECT id FROM messages
     WHERE tenant = %(tenant)s AND session = %(session)s AND seq <= %(cutoff)s
     ORDER BY seq DESC LIMIT 1)"""
DROP_COLD_VECTORS = f"""
DELETE FROM vectors WHERE tenant = %(tenant)s AND session = %(session)s
  AND message_id <= {_ROW_AT_CUTOFF}"""
DROP_COLD_QUEUE = f"""
DELETE FROM index_queue WHERE tenant = %(tenant)s AND session = %(session)s
  AND message_id <= {_ROW_AT_CUTOFF}"""

BUMP_VECTOR_VERSION = """
UPDATE sessions SET vector_version = nextval('vector_versions') WHERE tenant = %s AND id = %s"""

# Claim the oldest unclaimed (or stale) entries, skipping rows another claim has locked, and
# return each message with the text and sender of the one before it in its session. A batch
# holds one tenant's messages (the tenant asked for, or the one whose message waited longest),
# so the numbers its vectors come back under are unambiguous.
CLAIM_BATCH = f"""
WITH picked AS (
    SELECT tenant, message_id FROM index_queue
    WHERE tenant = coalesce(%(tenant)s::text, (
            SELECT tenant FROM index_queue
            WHERE claimed_by IS NULL OR claimed_at < %(stale)s
            ORDER BY message_id LIMIT 1 FOR UPDATE SKIP LOCKED))
      AND (claimed_by IS NULL OR claimed_at < %(stale)s)
    ORDER BY message_id LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED),
claimed AS (
    UPDATE index_queue q SET claimed_by = %(worker)s, claimed_at = %(now)s
    FROM picked p WHERE q.tenant = p.tenant AND q.message_id = p.message_id
    RETURNING q.tenant, q.message_id)
SELECT {M_COLUMNS}, m.tenant, p.content, p.sender
FROM claimed c JOIN messages m ON m.tenant = c.tenant AND m.id = c.message_id
LEFT JOIN LATERAL (
    SELECT b.content, b.sender FROM messages b
    WHERE b.tenant = m.tenant AND b.session = m.session AND b.seq < m.seq
    ORDER BY b.seq DESC LIMIT 1) p ON true
ORDER BY m.id"""

# The row ids of the worker's claims, by the numbers its batch was handed (one tenant's).
CLAIMED_ROWS = """
SELECT m.seq, q.message_id FROM index_queue q
JOIN messages m ON m.tenant = q.tenant AND m.id = q.message_id
WHERE q.claimed_by = %s AND m.seq = ANY(%s::bigint[])"""

# The sessions of the worker's claims among the given ids (read first, so their rows can be
# locked before the queue's: every writer takes a session's row before its queue entries).
SELECT_CLAIM_SESSIONS = """
SELECT DISTINCT tenant, session FROM index_queue
WHERE claimed_by = %s AND message_id = ANY(%s::bigint[])
ORDER BY tenant, session"""

TAKE_CLAIMED = """
DELETE FROM index_queue WHERE claimed_by = %s AND message_id = ANY(%s::bigint[])
RETURNING tenant, session, message_id"""

INSERT_VECTOR = """
INSERT INTO vectors (tenant, message_id, session, model, dim, vec) VALUES (%s, %s, %s, %s, %s, %s)
ON CONFLICT (tenant, message_id) DO UPDATE SET
    session = excluded.session, model = excluded.model, dim = excluded.dim, vec = excluded.vec"""

RELEASE_CLAIMS = """
UPDATE index_queue SET claimed_by = NULL, claimed_at = NULL, attempts = attempts + 1
WHERE claimed_by = %s"""
# The same for claims a batch cut short never tried: their attempt counts stay.
RELEASE_UNTRIED = """
UPDATE index_queue SET claimed_by = NULL, claimed_at = NULL WHERE claimed_by = %s"""

# Who holds claims (the indexer checks whether they are alive), and a dead one's give-back.
SELECT_CLAIMANTS = """
SELECT DISTINCT claimed_by FROM index_queue
WHERE claimed_by IS NOT NULL AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s)
ORDER BY claimed_by"""
UNCLAIM_WORKER = """
UPDATE index_queue SET claimed_by = NULL, claimed_at = NULL, attempts = attempts + 1
WHERE claimed_by = %(worker)s AND (%(tenant)s::text IS NULL OR tenant = %(tenant)s)
  AND attempts < %(below)s"""

COUNT_BACKLOG_SESSION = "SELECT count(*) FROM index_queue WHERE tenant = %s AND session = %s"
COUNT_BACKLOG_TENANT = "SELECT count(*) FROM index_queue WHERE tenant = %s"
COUNT_BACKLOG_ALL = "SELECT count(*) FROM index_queue"

SELECT_VECTOR_VERSION = "SELECT vector_version FROM sessions WHERE tenant = %s AND id = %s"
# A database's birth: when its first migration step was applied (nanoseconds).
SELECT_LINEAGE = "SELECT applied_at FROM schema_version WHERE version = 1"
SELECT_VECTOR_VERSIONS = """
SELECT s.id, s.vector_version FROM sessions s
WHERE s.tenant = %s AND EXISTS (SELECT 1 FROM vectors v WHERE v.tenant = s.tenant
                                                         AND v.session = s.id)"""

SELECT_HOT_FOR_SEARCH = """
SELECT m.seq, m.content, m.sender, m.at, v.vec
FROM messages m
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
LEFT JOIN vectors v ON v.tenant = m.tenant AND v.message_id = m.id AND v.model = %s
                   AND v.dim = %s
WHERE m.tenant = %s AND m.session = %s AND m.seq > s.cutoff
ORDER BY m.seq"""

COUNT_OTHER_MODEL_VECTORS = "SELECT count(*) FROM vectors WHERE tenant = %s AND model <> %s"

LOCK_TENANT_SESSIONS = "SELECT id FROM sessions WHERE tenant = %s ORDER BY id FOR UPDATE"
DELETE_TENANT_VECTORS = "DELETE FROM vectors WHERE tenant = %s"
# Batches claimed before a re-index were embedded for the old vectors: their claims lapse.
UNCLAIM_TENANT = """
UPDATE index_queue SET claimed_by = NULL, claimed_at = NULL
WHERE tenant = %s AND claimed_by IS NOT NULL"""
BUMP_TENANT_VERSIONS = """
UPDATE sessions SET vector_version = nextval('vector_versions') WHERE tenant = %s"""
REQUEUE_HOT = """
INSERT INTO index_queue (tenant, message_id, session)
SELECT m.tenant, m.id, m.session FROM messages m
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
WHERE m.tenant = %s AND m.seq > s.cutoff
ON CONFLICT DO NOTHING"""

# -- messages written with no embedder ------------------------------------------------------

SELECT_INDEX_MARK = """
SELECT coalesce(max(upto), 0) FROM index_marks WHERE tenant = %s OR tenant = '*'"""
# The newest id of one tenant (its part of the primary key), or of every tenant: the identity
# sequence's last value, which is never below a committed id.
SELECT_TENANT_TOP = "SELECT coalesce(max(id), 0) FROM messages WHERE tenant = %s"
SELECT_ALL_TOP = """
SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('messages', 'id')::regclass), 0)"""

LOCK_OUT_APPENDS = "SELECT pg_advisory_xact_lock(%s)"

_UNINDEXED = """
INSERT INTO index_queue (tenant, message_id, session)
SELECT m.tenant, m.id, m.session FROM messages m
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
WHERE {tenant} m.id > %(low)s AND m.id <= %(high)s AND m.seq > s.cutoff
  AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.tenant = m.tenant AND v.message_id = m.id)
ON CONFLICT DO NOTHING"""
QUEUE_UNINDEXED_TENANT = _UNINDEXED.format(tenant="m.tenant = %(tenant)s AND")
QUEUE_UNINDEXED_ALL = _UNINDEXED.format(tenant="")

SET_INDEX_MARK = """
INSERT INTO index_marks (tenant, upto) VALUES (%s, %s)
ON CONFLICT (tenant) DO UPDATE SET upto = greatest(index_marks.upto, excluded.upto)"""

# The next message's vector was embedded after the forgotten one's text: drop it so the
# indexer embeds it again after its new predecessor.
SELECT_NEXT_VECTOR = """
SELECT v.message_id FROM vectors v
WHERE v.tenant = %(tenant)s AND v.message_id = (
    SELECT id FROM messages
    WHERE tenant = %(tenant)s AND session = %(session)s AND seq > %(seq)s
    ORDER BY seq LIMIT 1)"""
DELETE_VECTOR = "DELETE FROM vectors WHERE tenant = %s AND message_id = %s"

# -- deltas of the hot tier for search indexes kept in a process ----------------------------

# The sessions named (NULL: every session of the tenant), counted in one snapshot: hot
# messages, and those with a vector (any model: a model change drops every vector, so the
# count still tells a cache that vectors went). The hot count is the session's own counter,
# and only hot messages have vectors (compaction drops a vector with its message's place in
# the queue, and a vector is stored only for a queued message), so neither count reads the
# session's messages (the vectors' own session index is counted, with no lookup of each
# one's message).
SELECT_HOT_MARKS = """
SELECT s.id, s.vector_version, s.cutoff, s.hot_count,
       (SELECT count(*) FROM vectors v WHERE v.tenant = s.tenant AND v.session = s.id)
FROM sessions s
WHERE s.tenant = %(tenant)s AND (%(sessions)s::text[] IS NULL OR s.id = ANY(%(sessions)s))"""
_HOT_AFTER = """
SELECT m.session, m.seq, m.content, m.sender, m.at, v.vec
FROM messages m
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
LEFT JOIN vectors v ON v.tenant = m.tenant AND v.message_id = m.id AND v.model = %(model)s
                   AND v.dim = %(dim)s
WHERE m.tenant = %(tenant)s AND m.seq > %(after)s AND m.seq > s.cutoff {sessions}
ORDER BY m.session, m.seq"""
# Every session's, or the named ones' (spelled apart, so a prepared plan of the second reads
# the sessions' messages by session, not every message above ``after``).
SELECT_HOT_AFTER_ALL = _HOT_AFTER.format(sessions="")
SELECT_HOT_AFTER_IN = _HOT_AFTER.format(sessions="AND m.session = ANY(%(sessions)s)")
SELECT_PENDING_VECTORS = """
SELECT m.seq, v.vec FROM messages m
JOIN vectors v ON v.tenant = m.tenant AND v.message_id = m.id
WHERE m.tenant = %(tenant)s AND m.seq = ANY(%(ids)s) AND v.model = %(model)s
  AND v.dim = %(dim)s"""
SELECT_HOT_IDS = """
SELECT m.seq, v.message_id IS NOT NULL
FROM messages m
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
LEFT JOIN vectors v ON v.tenant = m.tenant AND v.message_id = m.id AND v.model = %(model)s
                   AND v.dim = %(dim)s
WHERE m.tenant = %(tenant)s AND m.session = %(session)s AND m.seq > s.cutoff
ORDER BY m.seq"""
