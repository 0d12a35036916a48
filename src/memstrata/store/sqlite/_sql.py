"""Every SQL statement of the SQLite store, once, as constants."""

from __future__ import annotations

# A message's id as its tenant sees it is its number within the tenant (``seq``); the row id
# is internal (the full-text index, vectors and the indexer's queue refer to it). Within one
# tenant both grow together, so cutoffs and cursors (tenant numbers) compare with ``seq``.
MESSAGE_COLUMNS = "seq, session, role, content, sender, at, meta"
_M_COLUMNS = "m.seq, m.session, m.role, m.content, m.sender, m.at, m.meta"

CREATE_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER PRIMARY KEY,
    applied_at INTEGER NOT NULL
)"""
SELECT_VERSION = "SELECT max(version) FROM schema_version"
INSERT_VERSION = "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)"
# What a database holds besides SQLite's own objects: empty, memstrata's, or someone else's.
SELECT_SCHEMA_OBJECTS = """
SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"""
SELECT_VERSION_COLUMNS = "SELECT name FROM pragma_table_info('schema_version')"

INSERT_MESSAGE = """
INSERT INTO messages (tenant, session, role, content, sender, at, meta, size, idem_key, seq)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""

# Takes ``?2`` numbers for the tenant ``?1``; returns the number after the last one taken.
TAKE_NUMBERS = """
INSERT INTO tenants (tenant, next_seq) VALUES (?1, 1 + ?2)
ON CONFLICT (tenant) DO UPDATE SET next_seq = next_seq + ?2
RETURNING next_seq"""
SELECT_NEXT_NUMBER = "SELECT next_seq FROM tenants WHERE tenant = ?"

# The store indexes what it inserts (see the schema's note on savepoints); triggers un-index.
INDEX_MESSAGE = "INSERT INTO messages_fts (rowid, body, scope) VALUES (?, ?, ?)"

SELECT_BY_KEY = f"""
SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = ? AND session = ? AND idem_key = ?"""
SELECT_BY_KEYS = f"""
SELECT {MESSAGE_COLUMNS}, idem_key FROM messages
WHERE tenant = ? AND session = ? AND idem_key IN (SELECT value FROM json_each(?))"""

UPSERT_SESSION_COUNTERS = """
INSERT INTO sessions (tenant, id, message_count, hot_count, hot_bytes, first_at, last_at,
                      active_at, vector_version)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, abs(random()))
ON CONFLICT (tenant, id) DO UPDATE SET
    vector_version = abs(random()),
    message_count = message_count + excluded.message_count,
    hot_count     = hot_count + excluded.hot_count,
    hot_bytes     = hot_bytes + excluded.hot_bytes,
    first_at      = min(coalesce(first_at, excluded.first_at), excluded.first_at),
    last_at       = max(coalesce(last_at, excluded.last_at), excluded.last_at),
    active_at     = excluded.active_at
RETURNING hot_count, hot_bytes, cutoff"""

TOUCH_SESSION = """
INSERT INTO sessions (tenant, id, active_at) VALUES (?, ?, ?)
ON CONFLICT (tenant, id) DO UPDATE SET active_at = excluded.active_at"""

SELECT_HOT_ROWS = """
SELECT seq, role, size FROM messages WHERE tenant = ? AND session = ? AND seq > ?
ORDER BY seq"""

UPDATE_CUTOFF = """
UPDATE sessions SET cutoff = ?, hot_count = ?, hot_bytes = ?,
                    summary_due = max(summary_due, ?)
WHERE tenant = ? AND id = ?"""

SELECT_RECENT = f"""
SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = ? AND session = ?
ORDER BY seq DESC LIMIT ?"""

COUNT_BETWEEN = """
SELECT count(*) FROM messages WHERE tenant = ? AND session = ? AND seq > ? AND seq < ?"""

SELECT_MESSAGE = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = ? AND seq = ?"

SELECT_KEYS = """
SELECT seq, idem_key FROM messages
WHERE tenant = ? AND seq IN (SELECT value FROM json_each(?)) AND idem_key IS NOT NULL"""

SELECT_BEFORE = f"""
SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = ? AND session = ? AND seq < ?
ORDER BY seq DESC LIMIT ?"""

SELECT_AFTER = f"""
SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = ? AND session = ? AND seq > ?
ORDER BY seq LIMIT ?"""

SELECT_AFTER_CURSOR = f"""
SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = ? AND session = ? AND seq > ? AND seq <= ?
ORDER BY seq LIMIT ?"""

SELECT_PAGE_SESSION = f"""
SELECT {MESSAGE_COLUMNS} FROM messages
WHERE tenant = ? AND session = ? AND seq < ? AND at >= ? ORDER BY seq DESC LIMIT ?"""

SELECT_PAGE_TENANT = f"""
SELECT {MESSAGE_COLUMNS} FROM messages
WHERE tenant = ? AND seq < ? AND at >= ? ORDER BY seq DESC LIMIT ?"""

# Keyword search (see ``_keyword_sql``): the ids of a scope's messages that hold one term,
# newest first. The MATCH expression names the scope's token (session or tenant) beside the
# term, so FTS5 narrows the match itself; no ``bm25()``, which counts the term's rows over the
# whole table at every query.
SELECT_SCOPE_TERM_IDS = """
SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?"""
# The same, oldest first: FTS5 walks a term's entries forwards by seeking, at a cost that stays
# flat as the file grows, while walking them backwards costs more the longer the term's list
# of entries is over the whole table (``_keyword_sql.newest_ids`` says when it is used).
SELECT_SCOPE_TERM_IDS_OLDEST_FIRST = """
SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid LIMIT ?"""
# How many of a scope's messages have an id from ``?`` on (the N of a span, see
# ``_keyword_sql.CANDIDATES``): FTS5 walks the scope token's entries from there.
COUNT_SCOPE_SINCE = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ? AND rowid >= ?"

# FTS5's record of each message's column sizes in words (varints: body, then scope).
SELECT_DOC_SIZES = """
SELECT id, sz FROM messages_fts_docsize WHERE id IN (SELECT value FROM json_each(?))"""

# How many messages a scope holds (the N of its inverse document frequencies), and its hot
# messages' count and bytes (what its average length is worked out from).
SELECT_SESSION_SIZE = """
SELECT message_count, hot_count, hot_bytes FROM sessions WHERE tenant = ? AND id = ?"""
SELECT_TENANT_SIZE = """
SELECT coalesce(sum(message_count), 0), coalesce(sum(hot_count), 0),
       coalesce(sum(hot_bytes), 0)
FROM sessions WHERE tenant = ?"""

# Upkeep of the full-text index (see ``SQLiteStore.tidy_keyword_index``): FTS5's own merge
# command, told to merge any level of the index that holds two segments or more. Writes keep
# FTS5's automatic merging at eight segments a level (cheap commits); a search in a session
# looks each of its messages up once per segment, so fewer segments is what keeps it flat as
# the file grows.
SELECT_FTS_USERMERGE = "SELECT v FROM messages_fts_config WHERE k = 'usermerge'"
SET_FTS_USERMERGE = "INSERT INTO messages_fts (messages_fts, rank) VALUES ('usermerge', 2)"
MERGE_FTS = "INSERT INTO messages_fts (messages_fts, rank) VALUES ('merge', ?)"

# By row id (what the full-text index holds), each row led by it; ``+tenant``: found by id,
# never by walking the tenant's part of the session index.
SELECT_MESSAGES_BY_IDS = f"""
SELECT id, {MESSAGE_COLUMNS} FROM messages
WHERE id IN (SELECT value FROM json_each(?)) AND +tenant = ? AND at >= ?"""

# The substring scan reads the newest hot messages of the session only (the index on
# (tenant, session, seq) finds them); FTS5 covers the whole archive. It looks for any of the
# query's literals (a JSON array of lower-cased strings, see ``text.query_literals``).
_ANY_LITERAL = ("EXISTS (SELECT 1 FROM json_each({needles}) n "
                "WHERE instr(lower(m.content), n.value) > 0)")
SELECT_HOT_SUBSTRING_SESSION = f"""
SELECT {_M_COLUMNS} FROM messages m
WHERE m.id IN (
    SELECT h.id FROM messages h
    WHERE h.tenant = ?1 AND h.session = ?2
      AND h.seq > (SELECT cutoff FROM sessions WHERE tenant = ?1 AND id = ?2)
    ORDER BY h.seq DESC LIMIT ?3)
  AND m.at >= ?4 AND {_ANY_LITERAL.format(needles="?5")}
ORDER BY m.seq DESC LIMIT ?6"""

# The tenant's newest numbers (from the index on (tenant, seq)), newest first: the span is
# the tenant's own, whatever other tenants write.
SELECT_HOT_SUBSTRING_TENANT = f"""
SELECT {_M_COLUMNS} FROM messages m INDEXED BY messages_by_seq
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
WHERE m.tenant = ? AND m.seq > ? AND m.seq > s.cutoff AND m.at >= ?
  AND {_ANY_LITERAL.format(needles="?")}
ORDER BY m.seq DESC LIMIT ?"""

SELECT_SUMMARY = """
SELECT session, kind, body, cursor, created_at, tokens_in, tokens_out
FROM summaries WHERE tenant = ? AND session = ?"""

UPSERT_SUMMARY = """
INSERT INTO summaries (tenant, session, kind, body, cursor, created_at, tokens_in, tokens_out)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (tenant, session) DO UPDATE SET
    kind = excluded.kind, body = excluded.body, cursor = excluded.cursor,
    created_at = excluded.created_at, tokens_in = excluded.tokens_in,
    tokens_out = excluded.tokens_out"""

DELETE_SUMMARY = "DELETE FROM summaries WHERE tenant = ? AND session = ?"

SELECT_SESSION = """
SELECT id, message_count, hot_count, hot_bytes, cutoff, first_at, last_at, active_at,
       summary_due
FROM sessions WHERE tenant = ? AND id = ?"""

SELECT_SESSIONS = """
SELECT s.id, s.message_count, s.first_at, s.last_at,
       EXISTS (SELECT 1 FROM summaries u WHERE u.tenant = s.tenant AND u.session = s.id)
FROM sessions s
WHERE s.tenant = ? AND (? OR s.id NOT LIKE 'temp-%')
ORDER BY coalesce(s.last_at, s.active_at) DESC, s.id"""

SELECT_IDLE_SESSIONS = """
SELECT tenant, id FROM sessions WHERE id LIKE ? ESCAPE '\\' AND active_at < ?"""

DELETE_SESSION_MESSAGES = "DELETE FROM messages WHERE tenant = ? AND session = ?"

CLEAR_SESSION_COUNTERS = """
UPDATE sessions SET message_count = 0, hot_count = 0, hot_bytes = 0, first_at = NULL,
                    last_at = NULL, summary_due = 0
WHERE tenant = ? AND id = ?"""

DELETE_SESSION = "DELETE FROM sessions WHERE tenant = ? AND id = ?"

SELECT_FOR_FORGET = "SELECT id, session, size FROM messages WHERE tenant = ? AND seq = ?"

DELETE_MESSAGE = "DELETE FROM messages WHERE id = ?"

# The next message's vector was embedded after the forgotten one's text: drop it so the
# indexer embeds it again after its new predecessor (forget must not leave the text behind).
SELECT_NEXT_VECTOR = """
SELECT v.message_id FROM vectors v
WHERE v.message_id = (SELECT id FROM messages WHERE tenant = ? AND session = ? AND seq > ?
                      ORDER BY seq LIMIT 1)"""
DELETE_VECTOR = "DELETE FROM vectors WHERE message_id = ?"

UNCOUNT_MESSAGE = """
UPDATE sessions SET
    message_count = message_count - 1,
    hot_count = hot_count - (? > cutoff),
    hot_bytes = hot_bytes - (CASE WHEN ? > cutoff THEN ? ELSE 0 END)
WHERE tenant = ? AND id = ?"""

# -- semantic recall -------------------------------------------------------------------------

ENQUEUE = "INSERT OR IGNORE INTO index_queue (message_id, tenant, session) VALUES (?, ?, ?)"

# Behind a cutoff (a tenant number ?3): up to the row id of the session's last message there.
_ROW_AT_CUTOFF = """(SELECT id FROM messages WHERE tenant = ?1 AND session = ?2 AND seq <= ?3
                     ORDER BY seq DESC LIMIT 1)"""
DROP_COLD_VECTORS = f"""
DELETE FROM vectors WHERE tenant = ?1 AND session = ?2 AND message_id <= {_ROW_AT_CUTOFF}"""
DROP_COLD_QUEUE = f"""
DELETE FROM index_queue WHERE tenant = ?1 AND session = ?2 AND message_id <= {_ROW_AT_CUTOFF}"""

BUMP_VECTOR_VERSION = """
UPDATE sessions SET vector_version = abs(random()) WHERE tenant = ? AND id = ?"""

# A batch holds one tenant's messages (the tenant asked for, or the one whose message waited
# longest), so the numbers a batch's vectors come back under are unambiguous.
_CLAIMABLE = "(claimed_by IS NULL OR claimed_at < ?5)"
CLAIM_BATCH = f"""
UPDATE index_queue SET claimed_by = ?1, claimed_at = ?2
WHERE message_id IN (
    SELECT message_id FROM index_queue
    WHERE tenant = coalesce(?3, (SELECT tenant FROM index_queue WHERE {_CLAIMABLE}
                                 ORDER BY message_id LIMIT 1))
      AND {_CLAIMABLE}
    ORDER BY message_id LIMIT ?6)
RETURNING message_id"""

# With each claimed message, the message before it in its session: a reply is embedded with
# what it replies to.
SELECT_CLAIMED = f"""
SELECT {_M_COLUMNS}, m.tenant, p.content, p.sender
FROM index_queue q JOIN messages m ON m.id = q.message_id
LEFT JOIN messages p ON p.id = (
    SELECT b.id FROM messages b
    WHERE b.tenant = m.tenant AND b.session = m.session AND b.seq < m.seq
    ORDER BY b.seq DESC LIMIT 1)
WHERE q.claimed_by = ? ORDER BY m.id"""

# A worker's claims by the numbers its batch was handed (one tenant's, see CLAIM_BATCH).
SELECT_CLAIMS_OF = """
SELECT m.seq, q.message_id, q.tenant, q.session
FROM index_queue q JOIN messages m ON m.id = q.message_id WHERE q.claimed_by = ?"""

INSERT_VECTOR = """
INSERT OR REPLACE INTO vectors (message_id, tenant, session, model, dim, vec)
VALUES (?, ?, ?, ?, ?, ?)"""

DEQUEUE = "DELETE FROM index_queue WHERE message_id = ?"

RELEASE_CLAIMS = """
UPDATE index_queue SET claimed_by = NULL, claimed_at = NULL, attempts = attempts + 1
WHERE claimed_by = ?"""
# The same for claims a batch cut short never tried: their attempt counts stay.
RELEASE_UNTRIED = "UPDATE index_queue SET claimed_by = NULL, claimed_at = NULL WHERE claimed_by = ?"

# Who holds claims (the indexer checks whether they are alive), and a dead one's give-back;
# one tenant's through the queue's tenant index, so another tenant's backlog is not scanned.
SELECT_CLAIMANTS_TENANT = """
SELECT DISTINCT claimed_by FROM index_queue
WHERE tenant = ? AND claimed_by IS NOT NULL ORDER BY claimed_by"""
SELECT_CLAIMANTS_ALL = """
SELECT DISTINCT claimed_by FROM index_queue WHERE claimed_by IS NOT NULL ORDER BY claimed_by"""
UNCLAIM_WORKER_TENANT = """
UPDATE index_queue SET claimed_by = NULL, claimed_at = NULL, attempts = attempts + 1
WHERE tenant = ? AND claimed_by = ? AND attempts < ?"""
UNCLAIM_WORKER_ALL = """
UPDATE index_queue SET claimed_by = NULL, claimed_at = NULL, attempts = attempts + 1
WHERE claimed_by = ? AND attempts < ?"""

COUNT_BACKLOG_SESSION = "SELECT count(*) FROM index_queue WHERE tenant = ? AND session = ?"
COUNT_BACKLOG_TENANT = "SELECT count(*) FROM index_queue WHERE tenant = ?"
COUNT_BACKLOG_ALL = "SELECT count(*) FROM index_queue"

SELECT_VECTOR_VERSION = "SELECT vector_version FROM sessions WHERE tenant = ? AND id = ?"
# A database's birth: when its first migration step was applied (nanoseconds).
SELECT_LINEAGE = "SELECT applied_at FROM schema_version WHERE version = 1"
# A read that starts a read transaction's snapshot (so data_version below is its own).
START_SNAPSHOT = "SELECT 1 FROM sessions LIMIT 1"
DATA_VERSION = "PRAGMA data_version"

SELECT_VECTOR_VERSIONS = """
SELECT s.id, s.vector_version FROM sessions s
WHERE s.tenant = ? AND EXISTS (SELECT 1 FROM vectors v WHERE v.tenant = s.tenant
                                                        AND v.session = s.id)"""

SELECT_HOT_FOR_SEARCH = """
SELECT m.seq, m.content, m.sender, m.at, v.vec
FROM messages m
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
LEFT JOIN vectors v ON v.message_id = m.id AND v.model = ? AND v.dim = ?
WHERE m.tenant = ? AND m.session = ? AND m.seq > s.cutoff
ORDER BY m.seq"""

COUNT_OTHER_MODEL_VECTORS = "SELECT count(*) FROM vectors WHERE tenant = ? AND model != ?"

DELETE_TENANT_VECTORS = "DELETE FROM vectors WHERE tenant = ?"
# Batches claimed before a re-index were embedded for the old vectors: their claims lapse, so
# storing them finds no owner and the messages are embedded again.
UNCLAIM_TENANT = "UPDATE index_queue SET claimed_by = NULL, claimed_at = NULL WHERE tenant = ?"
SELECT_TENANT_SESSIONS = "SELECT id FROM sessions WHERE tenant = ?"
REQUEUE_HOT = """
INSERT OR IGNORE INTO index_queue (message_id, tenant, session)
SELECT m.id, m.tenant, m.session FROM messages m
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
WHERE m.tenant = ? AND m.seq > s.cutoff"""

DELETE_SUMMARY_RUN = "DELETE FROM summary_runs WHERE tenant = ? AND session = ?"

# Messages written while no embedder was indexing: hot, no vector, not queued, above the mark.
# The unary + keeps the planner on the id range (the rowid) rather than the tenant's index.
SELECT_INDEX_MARK = """
SELECT coalesce(max(upto), 0), (SELECT coalesce(max(id), 0) FROM messages)
FROM index_marks WHERE tenant IN (?1, '*')"""
QUEUE_UNINDEXED = """
INSERT OR IGNORE INTO index_queue (message_id, tenant, session)
SELECT m.id, m.tenant, m.session FROM messages m
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
WHERE m.id > ?1 AND m.id <= ?2 AND (?3 IS NULL OR +m.tenant = ?3) AND m.seq > s.cutoff
  AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.message_id = m.id)"""
SET_INDEX_MARK = """
INSERT INTO index_marks (tenant, upto) VALUES (?, ?)
ON CONFLICT (tenant) DO UPDATE SET upto = max(upto, excluded.upto)"""

# -- summary runs ----------------------------------------------------------------------------

# A cursor never moves back: a stored cursor ahead of the new one leaves the row as it is (no
# change counted, which is how ``save`` learns its fence held back the write).
SAVE_SUMMARY_ADDING_TOKENS = """
INSERT INTO summaries (tenant, session, kind, body, cursor, created_at, tokens_in, tokens_out)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (tenant, session) DO UPDATE SET
    kind = excluded.kind, body = excluded.body, cursor = excluded.cursor,
    created_at = excluded.created_at,
    tokens_in = tokens_in + excluded.tokens_in,
    tokens_out = tokens_out + excluded.tokens_out
WHERE summaries.cursor IS NULL OR summaries.cursor <= excluded.cursor"""

# The lease holder's renewal once its fenced save went through (the holder is read with
# SELECT_LEASE_OWNER inside the same write transaction).
RENEW_SAVE_LEASE = """
UPDATE summary_runs SET lease_until = ? WHERE tenant = ? AND session = ? AND lease_owner = ?"""

ADD_SUMMARY_TOKENS = """
UPDATE summaries SET tokens_in = tokens_in + ?, tokens_out = tokens_out + ?
WHERE tenant = ? AND session = ?"""

# A lease that ends more than one lease term after the one asked for now was written by a
# clock ahead of ours (or ours went back): not honoured, so a backward jump cannot keep a
# dead worker's lease for as long as the jump. ?5 is now.
TAKE_LEASE = """
INSERT INTO summary_runs (tenant, session, lease_owner, lease_until) VALUES (?, ?, ?, ?)
ON CONFLICT (tenant, session) DO UPDATE SET
    lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
WHERE summary_runs.lease_owner IS NULL OR summary_runs.lease_until < ?5
   OR summary_runs.lease_owner = excluded.lease_owner
   OR summary_runs.lease_until - excluded.lease_until > excluded.lease_until - ?5"""

SELECT_LEASE_OWNER = "SELECT lease_owner FROM summary_runs WHERE tenant = ? AND session = ?"

DROP_LEASE = """
UPDATE summary_runs SET lease_owner = NULL, lease_until = NULL
WHERE tenant = ? AND session = ? AND lease_owner = ?"""

# Whoever holds it: deleting a session's messages ends any summary run in flight (its save is
# fenced on the lease, so it cannot write back a summary of what was just deleted).
END_LEASE = """
UPDATE summary_runs SET lease_owner = NULL, lease_until = NULL
WHERE tenant = ? AND session = ? AND lease_owner IS NOT NULL"""

RECORD_FAILURE = """
INSERT INTO summary_runs (tenant, session, failures, retry_at, last_error) VALUES (?, ?, 1, ?, ?)
ON CONFLICT (tenant, session) DO UPDATE SET
    failures = failures + 1, retry_at = excluded.retry_at, last_error = excluded.last_error
RETURNING failures"""

SET_RETRY_AT = "UPDATE summary_runs SET retry_at = ? WHERE tenant = ? AND session = ?"

RECORD_SUCCESS = """
UPDATE summary_runs SET failures = 0, retry_at = NULL, last_error = NULL
WHERE tenant = ? AND session = ?"""

# A save that reaches the point at which the turns policy asked for a summary clears the ask.
CLEAR_SUMMARY_DUE = """
UPDATE sessions SET summary_due = 0 WHERE tenant = ? AND id = ? AND summary_due BETWEEN 1 AND ?"""

SELECT_RUN_STATE = """
SELECT failures, retry_at, last_error FROM summary_runs WHERE tenant = ? AND session = ?"""

# Sessions with messages after their summary cursor, not backed off, not scratch sessions.
SELECT_DUE_SESSIONS = """
SELECT s.tenant, s.id FROM sessions s
LEFT JOIN summaries u ON u.tenant = s.tenant AND u.session = s.id
LEFT JOIN summary_runs r ON r.tenant = s.tenant AND r.session = s.id
WHERE (? IS NULL OR s.tenant = ?) AND s.id NOT LIKE 'temp-%' AND s.message_count > 0
  AND (r.retry_at IS NULL OR r.retry_at <= ?)
  AND (SELECT max(m.seq) FROM messages m WHERE m.tenant = s.tenant AND m.session = s.id)
      > coalesce(u.cursor, 0)
ORDER BY s.active_at
LIMIT ?"""

# Sessions the turns policy flagged (``summary_due`` is the cutoff it set) that still have
# unsummarised messages up to that point, not backed off, not scratch sessions.
SELECT_FLAGGED_SESSIONS = """
SELECT s.tenant, s.id FROM sessions s
LEFT JOIN summaries u ON u.tenant = s.tenant AND u.session = s.id
LEFT JOIN summary_runs r ON r.tenant = s.tenant AND r.session = s.id
WHERE s.summary_due > 0 AND (?1 IS NULL OR s.tenant = ?1) AND s.id NOT LIKE 'temp-%'
  AND s.summary_due > coalesce(u.cursor, 0)
  AND (r.retry_at IS NULL OR r.retry_at <= ?2)
  AND EXISTS (SELECT 1 FROM messages m WHERE m.tenant = s.tenant AND m.session = s.id
                AND m.seq > coalesce(u.cursor, 0) AND m.seq <= s.summary_due)
ORDER BY s.active_at
LIMIT ?3"""

# -- deltas of the hot tier for search indexes kept in a process ----------------------------

# The sessions named (a JSON array; NULL: every session of the tenant), counted in one
# snapshot: hot messages, and those with a vector (any model: a model change drops every
# vector, so the count still tells a cache that vectors went). The hot count is the session's
# own counter, and only hot messages have vectors (compaction drops a vector with its
# message's place in the queue, and a vector is stored only for a queued message), so neither
# count reads the session's messages (the vectors' own session index is counted, with no
# lookup of each one's message).
SELECT_HOT_MARKS = """
SELECT s.id, s.vector_version, s.cutoff, s.hot_count,
       (SELECT count(*) FROM vectors v WHERE v.tenant = s.tenant AND v.session = s.id)
FROM sessions s
WHERE s.tenant = ?1 AND (?2 IS NULL OR s.id IN (SELECT value FROM json_each(?2)))"""
_HOT_AFTER = """
SELECT m.session, m.seq, m.content, m.sender, m.at, v.vec
FROM messages m
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
LEFT JOIN vectors v ON v.message_id = m.id AND v.model = ?1 AND v.dim = ?2
WHERE m.tenant = ?3 AND m.seq > ?4 AND m.seq > s.cutoff {sessions}
ORDER BY m.session, m.seq"""
# Every session's (the tenant read whole), or the named ones': spelled apart so the second
# reads each session's messages by its index instead of every message above ``?4`` (a
# session's newest id can be far below the tenant's).
SELECT_HOT_AFTER_ALL = _HOT_AFTER.format(sessions="")
SELECT_HOT_AFTER_IN = _HOT_AFTER.format(
    sessions="AND m.session IN (SELECT value FROM json_each(?5))")
SELECT_PENDING_VECTORS = """
SELECT m.seq, v.vec FROM messages m JOIN vectors v ON v.message_id = m.id
WHERE m.tenant = ?2 AND m.seq IN (SELECT value FROM json_each(?1)) AND v.model = ?3
  AND v.dim = ?4"""
SELECT_HOT_IDS = """
SELECT m.seq, v.message_id IS NOT NULL
FROM messages m
JOIN sessions s ON s.tenant = m.tenant AND s.id = m.session
LEFT JOIN vectors v ON v.message_id = m.id AND v.model = ?1 AND v.dim = ?2
WHERE m.tenant = ?3 AND m.session = ?4 AND m.seq > s.cutoff
ORDER BY m.seq"""
