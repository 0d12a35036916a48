"""The columns of the full-text index, derived from a message: in Python for the store's
inserts, and as SQL functions registered on every connection the store opens.

``memstrata_fts_body(content)`` is the text the index holds for a message: the content with
each CJK run split into overlapping 2-character pairs (see ``text.search_text``). The delete
and update triggers and FTS5's rebuild call it, so the prepared text is never stored beside
the message; a connection without it cannot delete or change messages (SQLite reports the
missing function), which keeps the index from drifting away from the rows.
"""

from __future__ import annotations

import sqlite3

from ...text import bigram_text

__all__ = ["FTS_BODY", "fts_body", "register", "scope_token", "scope_tokens", "tenant_token"]

FTS_BODY = "memstrata_fts_body"


def fts_body(content: str | None) -> str | None:
    """The indexed text of ``content`` (the content column is TEXT NOT NULL; ``None`` passes)."""
    return None if content is None else bigram_text(content)


def scope_token(tenant: str, session: str) -> str:
    """The session's token in the index's scope column, as a session query names it."""
    return "s" + (tenant + "\x1f" + session).encode().hex().upper()


def tenant_token(tenant: str) -> str:
    """The tenant's token in the index's scope column, as a tenant-wide query names it."""
    return "t" + tenant.encode().hex().upper()


def scope_tokens(tenant: str, session: str) -> str:
    """The scope column of a row (``_schema.SCOPE_SQL`` in Python): tenant and session."""
    return tenant_token(tenant) + " " + scope_token(tenant, session)


def register(c: sqlite3.Connection) -> None:
    """Make the schema's functions available on ``c``."""
    c.create_function(FTS_BODY, 1, fts_body, deterministic=True)
