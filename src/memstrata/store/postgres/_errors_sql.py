"""Every SQL statement of the PostgreSQL error-memory store, once, as constants.

Every statement names the tenant in its WHERE clause, and every read skips expired records
(``expires_at <= now``), so an expired record is never returned even before it is swept.
"""

from __future__ import annotations

from ._sql import ANY_TERM, ASCII_LOWER

# Column order read by ``_errors._row_record``.
ERROR_COLUMNS = ("id, tool_name, keywords, symptom, cause, action, outcome, created_at, "
                 "expires_at, hits")

# One statement serves both "all tools" (tool NULL) and "one tool".
_TOOL = "(%(tool)s::text IS NULL OR tool_name = %(tool)s)"
# Whether the semantic pass could judge a record: it has a vector of the query's model.
_VECTORED = ("(embedding IS NOT NULL AND embed_model IS NOT DISTINCT FROM %(model)s::text "
             "AND embed_dim IS NOT DISTINCT FROM %(dim)s::integer)")

INSERT_ERROR = """
INSERT INTO error_records (tenant, id, tool_name, keywords, symptom, cause, action, outcome,
                           created_at, expires_at, hits, search_text, fts, embedding,
                           embed_model, embed_dim)
VALUES (%(tenant)s, %(id)s, %(tool_name)s, %(keywords)s::json, %(symptom)s, %(cause)s,
        %(action)s, %(outcome)s, %(created_at)s, %(expires_at)s, %(hits)s, %(search_text)s,
        to_tsvector('memstrata_text', %(fts_text)s), %(embedding)s, %(embed_model)s,
        %(embed_dim)s)"""

# Candidates of the semantic pass: live records embedded by the query's model.
SELECT_ERROR_VECTORS = f"""
SELECT seq, embedding FROM error_records
WHERE tenant = %(tenant)s AND expires_at > %(now)s AND {_TOOL}
  AND embedding IS NOT NULL AND embed_model = %(model)s AND embed_dim = %(dim)s"""

# The keyword pass looks at the tenant's newest records only, read by the (tenant, seq) key:
# the GIN index would find every tenant's records holding a word before the tenant filter, so
# a search grew slower the more often other tenants used its words. ts_rank scores a record by
# its own text, so the order within the tenant is unchanged.
KEYWORD_SPAN = 10_000
SELECT_ERROR_FTS = f"""
SELECT e.seq, ts_rank(e.fts, q.q, 1) AS score, {_VECTORED}
FROM (SELECT {ANY_TERM} AS q) q
JOIN (SELECT seq, fts, tool_name, embedding, embed_model, embed_dim FROM error_records
      WHERE tenant = %(tenant)s AND expires_at > %(now)s AND {_TOOL}
      ORDER BY seq DESC LIMIT {KEYWORD_SPAN}) e ON e.fts @@ q.q
ORDER BY score DESC, e.seq DESC LIMIT %(limit)s"""

# Substring scan over the fields as written (ASCII case-insensitive): finds what tokenising
# misses, e.g. part of a word or a one-character CJK query.
_FIELDS = ("tool_name || chr(10) || keywords::text || chr(10) || symptom || chr(10) || "
           "coalesce(cause, '') || chr(10) || action")
SELECT_ERROR_SUBSTRING = f"""
SELECT seq, {_VECTORED}
FROM error_records
WHERE tenant = %(tenant)s AND expires_at > %(now)s AND {_TOOL}
  AND strpos({ASCII_LOWER.format(_FIELDS)}, %(needle)s) > 0
ORDER BY created_at DESC, seq DESC LIMIT %(limit)s"""

RENEW_ERROR = f"""
-- GREATEST: a hit seen by a clock that went back never shortens the expiry.
UPDATE error_records SET hits = hits + 1, expires_at = GREATEST(expires_at, %(until)s)
WHERE tenant = %(tenant)s AND seq = %(seq)s
RETURNING {ERROR_COLUMNS}"""

# Ids are lower-case hex in the "C" collation and the prefix is checked to be hex, so the
# range is exactly the ids that start with it and the (tenant, id) key serves it.
SELECT_ERROR_PREFIX = f"""
SELECT {ERROR_COLUMNS} FROM error_records
WHERE tenant = %(tenant)s AND id >= %(prefix)s AND id < %(prefix)s || 'g'
  AND expires_at > %(now)s
ORDER BY id LIMIT %(limit)s"""

SELECT_ERRORS = f"""
SELECT {ERROR_COLUMNS} FROM error_records
WHERE tenant = %(tenant)s AND expires_at > %(now)s AND {_TOOL}
ORDER BY created_at DESC, seq DESC"""

DELETE_ERROR = "DELETE FROM error_records WHERE tenant = %(tenant)s AND id = %(id)s"

SWEEP_ERRORS = "DELETE FROM error_records WHERE tenant = %(tenant)s AND expires_at <= %(now)s"
