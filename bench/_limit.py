"""The limit memstrata is measured against: plain ``sqlite3``, one persistent connection.

``RawLimit`` stores the same messages with the same indexes memstrata keeps for them (a
``(session, id)`` index for the recent window; an FTS5 index of the texts memstrata indexes,
CJK runs as 2-character pairs, with memstrata's tokenizer and a per-session scope token so a
search in a session is narrowed by the index itself), in WAL mode with
``synchronous=NORMAL`` (memstrata's default durability) and memstrata's page cache size and
memory map. Every call runs synchronously on the caller's thread on the one connection opened
at the start: no thread hop, no validation, no counters, no objects built from the rows. What
it does is what any store keeping these texts readable and searchable must do, so a ratio to
it says how much memstrata adds.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from memstrata._bigrams import bigram_texts
from memstrata.text import search_text

__all__ = ["RawLimit", "scope_token"]

_DDL = """
CREATE TABLE IF NOT EXISTS docs (id INTEGER PRIMARY KEY, session TEXT NOT NULL,
                                 role TEXT NOT NULL, content TEXT NOT NULL, sender TEXT,
                                 at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS docs_by_session ON docs (session, id);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
    body, scope, content = '', tokenize = 'porter unicode61 remove_diacritics 2');
"""
_INSERT_DOC = ("INSERT INTO docs (session, role, content, sender, at) "
               "VALUES (?, ?, ?, ?, ?) RETURNING id")
_INSERT_DOCS = "INSERT INTO docs (id, session, role, content, sender, at) VALUES (?, ?, ?, ?, ?, ?)"
_INSERT_FTS = "INSERT INTO docs_fts (rowid, body, scope) VALUES (?, ?, ?)"
_RECENT = ("SELECT id, role, content, sender, at FROM docs WHERE session = ? "
           "ORDER BY id DESC LIMIT ?")
_SEARCH = """
SELECT m.id, m.role, m.content, m.sender, m.at FROM docs_fts JOIN docs m ON m.id = docs_fts.rowid
WHERE docs_fts MATCH ? ORDER BY bm25(docs_fts, 1.0, 0.0) LIMIT ?"""


def scope_token(session: str) -> str:
    """One FTS5 token naming a session (hex keeps any session name a single token)."""
    return "s" + session.encode("utf-8").hex()


class RawLimit:
    """The same data and indexes as memstrata, on one ``sqlite3`` connection."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._c = self._connect()
        self._c.executescript(_DDL)
        self._next = int(self._c.execute("SELECT coalesce(max(id), 0) FROM docs").fetchone()[0])

    def _connect(self) -> sqlite3.Connection:
        c = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=NORMAL")
        # memstrata's own page cache and memory map, so neither side reads with an advantage.
        c.execute("PRAGMA cache_size=-32768")
        c.execute("PRAGMA mmap_size=268435456")
        return c

    def reopen(self) -> None:
        """A new connection (an empty page cache), as after a restart."""
        self._c.close()
        self._c = self._connect()

    def load(self, rows: Sequence[tuple[str, str, str, str, int]]) -> float:
        """``(session, role, content, sender, at)`` rows in one transaction, the pair text
        made inside the timed part from the messages as written; returns the seconds."""
        start = time.perf_counter()
        first = self._next + 1
        self._next += len(rows)
        ids = range(first, first + len(rows))
        bodies = bigram_texts([r[2] for r in rows])
        c = self._c
        c.execute("BEGIN")
        c.executemany(_INSERT_DOCS, [(i, *r) for i, r in zip(ids, rows, strict=True)])
        c.executemany(_INSERT_FTS, [(i, b, scope_token(r[0]))
                                    for i, b, r in zip(ids, bodies, rows, strict=True)])
        c.execute("COMMIT")
        return time.perf_counter() - start

    def add(self, session: str, role: str, content: str, sender: str | None, at: int) -> int:
        """One message, one commit."""
        c = self._c
        c.execute("BEGIN")
        new_id = int(c.execute(_INSERT_DOC, (session, role, content, sender, at)).fetchone()[0])
        c.execute(_INSERT_FTS, (new_id, search_text(content) or content, scope_token(session)))
        c.execute("COMMIT")
        self._next = max(self._next, new_id)
        return new_id

    def context(self, session: str, limit: int = 20) -> list[Any]:
        """The last ``limit`` messages of a session, oldest first."""
        rows = self._c.execute(_RECENT, (session, limit)).fetchall()
        rows.reverse()
        return rows

    def search(self, session: str, query: str, limit: int = 10) -> list[Any]:
        """Messages of a session holding any term of ``query``, best BM25 first."""
        terms = (search_text(query) or query).split()
        words = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        if not words:
            return []
        match = f'scope : "{scope_token(session)}" AND body : ({words})'
        return self._c.execute(_SEARCH, (match, limit)).fetchall()

    def close(self) -> None:
        self._c.close()
