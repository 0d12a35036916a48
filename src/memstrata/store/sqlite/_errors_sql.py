"""Every SQL statement of the SQLite error-memory store, once, as constants.

Every statement names the tenant in its WHERE clause, and every read skips expired records
(``expires_at <= now``), so an expired record is never returned even before it is swept.
"""

from __future__ import annotations

# Column order read by sqlite_errors._row_record.
ERROR_COLUMNS = ("id, tool_name, keywords, symptom, cause, action, outcome, created_at, "
                 "expires_at, hits")
_E_COLUMNS = ", ".join("e." + c.strip() for c in ERROR_COLUMNS.split(","))

# One statement serves both "all tools" (:tool is NULL) and "one tool".
_TOOL = "(:tool IS NULL OR {p}tool_name = :tool)"

INSERT_ERROR = """
INSERT INTO error_records (tenant, id, tool_name, keywords, symptom, cause, action, outcome,
                           created_at, expires_at, hits, search_text, embedding, embed_model,
                           embed_dim)
VALUES (:tenant, :id, :tool_name, :keywords, :symptom, :cause, :action, :outcome,
        :created_at, :expires_at, :hits, :search_text, :embedding, :embed_model, :embed_dim)"""

# Candidates of the semantic pass: live records embedded by the query's model.
SELECT_ERROR_VECTORS = f"""
SELECT seq, embedding FROM error_records
WHERE tenant = :tenant AND expires_at > :now AND {_TOOL.format(p="")}
  AND embedding IS NOT NULL AND embed_model = :model AND embed_dim = :dim"""

# The newest of a tenant's records holding one term (the match names the tenant's scope token),
# then how many of the tenant's records have a seq from ``?`` on: FTS5 walks the scope token's
# entries. Both cost the tenant's own rows, never another tenant's (see ``_error_keyword``).
SELECT_ERROR_TERM_SEQS = """
SELECT rowid FROM error_records_fts WHERE error_records_fts MATCH ? ORDER BY rowid DESC LIMIT ?"""
# The same oldest first, for a tenant of fewer records than are read (see
# ``_keyword_sql.newest_ids``).
SELECT_ERROR_TERM_SEQS_OLDEST_FIRST = """
SELECT rowid FROM error_records_fts WHERE error_records_fts MATCH ? ORDER BY rowid LIMIT ?"""
COUNT_SCOPE_ERRORS_SINCE = """
SELECT count(*) FROM error_records_fts WHERE error_records_fts MATCH ? AND rowid >= ?"""
COUNT_TENANT_ERRORS = "SELECT count(*) FROM error_records WHERE tenant = ?"

# The live records among the seqs found (a JSON array), with their indexed text. The WHERE
# clause names the tenant, so isolation does not rest on the index alone. ``vectored`` tells
# the caller whether the semantic pass could judge the record.
SELECT_ERROR_TEXTS = f"""
SELECT e.seq, e.search_text,
       (e.embedding IS NOT NULL AND e.embed_model IS :model AND e.embed_dim IS :dim)
FROM error_records e
WHERE e.seq IN (SELECT value FROM json_each(:seqs)) AND e.tenant = :tenant
  AND e.expires_at > :now AND {_TOOL.format(p="e.")}"""

# The index's record of each record's column sizes in words (varints: body, then scope).
SELECT_ERROR_DOC_SIZES = """
SELECT id, sz FROM error_records_fts_docsize WHERE id IN (SELECT value FROM json_each(?))"""

# Substring scan over the fields as written (ASCII case-insensitive, like SQLite's lower()):
# finds what tokenising misses, e.g. part of a word or a one-character CJK query.
SELECT_ERROR_SUBSTRING = f"""
SELECT seq, (embedding IS NOT NULL AND embed_model IS :model AND embed_dim IS :dim)
FROM error_records
WHERE tenant = :tenant AND expires_at > :now AND {_TOOL.format(p="")}
  AND instr(lower(tool_name || char(10) || keywords || char(10) || symptom || char(10) ||
                  coalesce(cause, '') || char(10) || action), :needle) > 0
ORDER BY created_at DESC LIMIT :limit"""

RENEW_ERROR = f"""
-- max(): a hit seen by a clock that went back never shortens the expiry.
UPDATE error_records SET hits = hits + 1, expires_at = max(expires_at, :until)
WHERE tenant = :tenant AND seq = :seq
RETURNING {ERROR_COLUMNS}"""

# The same record without counting the hit: a search on a full disk, which cannot write.
SELECT_ERROR_SEQ = f"""
SELECT {ERROR_COLUMNS} FROM error_records WHERE tenant = :tenant AND seq = :seq"""

# Ids are lower-case hex and the prefix is checked to be hex, so GLOB sees no wildcard but
# the trailing ``*``, and the (tenant, id) index serves it.
SELECT_ERROR_PREFIX = f"""
SELECT {ERROR_COLUMNS} FROM error_records
WHERE tenant = :tenant AND id GLOB :prefix || '*' AND expires_at > :now
ORDER BY id LIMIT :limit"""

SELECT_ERRORS = f"""
SELECT {_E_COLUMNS} FROM error_records e
WHERE e.tenant = :tenant AND e.expires_at > :now AND {_TOOL.format(p="e.")}
ORDER BY e.created_at DESC, e.seq DESC"""

DELETE_ERROR = "DELETE FROM error_records WHERE tenant = :tenant AND id = :id"

SWEEP_ERRORS = "DELETE FROM error_records WHERE tenant = :tenant AND expires_at <= :now"

# Upkeep of the error index (see ``SQLiteErrorStore.sweep``): FTS5's own merge, a few pages per
# step, after asking it to merge segments two at a time.
SELECT_ERROR_FTS_USERMERGE = "SELECT v FROM error_records_fts_config WHERE k = 'usermerge'"
SET_ERROR_FTS_USERMERGE = """
INSERT INTO error_records_fts (error_records_fts, rank) VALUES ('usermerge', 2)"""
MERGE_ERROR_FTS = "INSERT INTO error_records_fts (error_records_fts, rank) VALUES ('merge', ?)"
