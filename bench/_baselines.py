"""What memstrata is compared with: the raw FTS5 insert limit and two existing designs.

* ``RawPrepared``: plain ``sqlite3`` storing the same messages and indexing the same texts
  memstrata indexes (CJK runs as 2-character pairs) in a contentless FTS5 table, WAL, one
  transaction where memstrata commits one (each ``add_many`` call): what SQLite itself needs
  for these texts at this durability. With ``prepare_in_load`` it makes the pair text from
  the messages as written inside its timed load, with memstrata's batch function: the raw
  load of the same texts, which the write-path target is set against. Without it the pair
  text is handed over ready-made (made before the clock): SQLite's floor, reported beside.
* ``raw_fts5_load``: the message text as written (a CJK run is then one unsearchable token),
  10,000 rows per transaction: the plain physical limit, reported beside it.
* ``SeedStore``: the aiosqlite conversation store of seed 003, reimplemented as written there:
  its table, CHECK constraints and ``(session_id, created_at DESC)`` index, a new connection
  per call, ``load_context`` returning ``Turn`` objects oldest first.
* ``LangChainStore``: langchain-community's ``SQLChatMessageHistory`` on a SQLite file, used
  through its public methods; only the bulk load writes its table directly.
"""

from __future__ import annotations

import json
import sqlite3
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import aiosqlite
from _corpus import Row

from memstrata._bigrams import bigram_texts
from memstrata.text import search_text

__all__ = ["LangChainStore", "RawPrepared", "SeedStore", "Turn", "raw_fts5_load",
           "raw_fts5_prepared_load"]

_RAW_TX_ROWS = 10_000
_BULK_TX_ROWS = 50_000


def _raw_database(path: str) -> sqlite3.Connection:
    """A new file in WAL mode with ``synchronous=NORMAL`` (memstrata's durability) holding the
    plain message table both raw baselines write."""
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA synchronous=NORMAL")
    c.execute("""
        CREATE TABLE docs (id INTEGER PRIMARY KEY, session TEXT NOT NULL, role TEXT NOT NULL,
                           content TEXT NOT NULL, at INTEGER NOT NULL)""")
    return c


def raw_fts5_load(path: str, rows: Sequence[Row], session_ids: Sequence[str]) -> float:
    """Insert ``rows`` with an FTS5 index kept by a trigger; returns seconds spent inserting.

    The tokenizer is memstrata's (``porter unicode61 remove_diacritics 2``) and the message
    text is indexed as written, 10,000 rows per transaction: the plain physical limit.
    """
    c = _raw_database(path)
    try:
        c.executescript("""
            CREATE VIRTUAL TABLE docs_fts USING fts5(
                content, content = 'docs', content_rowid = 'id',
                tokenize = 'porter unicode61 remove_diacritics 2');
            CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN
                INSERT INTO docs_fts (rowid, content) VALUES (new.id, new.content);
            END;
        """)
        params = [(session_ids[r.session], r.role, r.content, r.at) for r in rows]
        start = time.perf_counter()
        for i in range(0, len(params), _RAW_TX_ROWS):
            c.execute("BEGIN")
            c.executemany("INSERT INTO docs (session, role, content, at) VALUES (?, ?, ?, ?)",
                          params[i:i + _RAW_TX_ROWS])
            c.execute("COMMIT")
        return time.perf_counter() - start
    finally:
        c.close()


class RawPrepared:
    """The same texts as memstrata indexes them, committed where memstrata commits.

    Each message is stored once in a plain table and its prepared text (CJK runs as
    2-character pairs, computed before any clock starts) goes into a contentless FTS5 index,
    one transaction per ``(lo, hi)`` slice of ``rows`` (one per ``add_many`` call). No
    session index, no counters, no trigger, no Python per row: the least SQLite can do to
    keep these texts searchable with the same durability points.

    :meth:`load` writes some of the slices and returns the seconds it took, so a benchmark
    can interleave these writes with memstrata's own and both meet the same machine load.
    """

    def __init__(self, path: str, rows: Sequence[Row], session_ids: Sequence[str], *,
                 prepare_in_load: bool = False) -> None:
        self._c = _raw_database(path)
        self._c.executescript("""
            CREATE VIRTUAL TABLE docs_fts USING fts5(
                body, content = '', tokenize = 'porter unicode61 remove_diacritics 2');
        """)
        self._docs = [(i + 1, session_ids[r.session], r.role, r.content, r.at)
                      for i, r in enumerate(rows)]
        # With ``prepare_in_load`` the pair text is made inside the timed load, from the
        # messages as written, as any store indexing these texts must; otherwise it is made
        # here, before any clock starts, and the load only inserts.
        self._prepare = prepare_in_load
        self._bodies = [] if prepare_in_load else [
            (i + 1, search_text(r.content) or r.content) for i, r in enumerate(rows)]

    def load(self, commits: Sequence[tuple[int, int]]) -> float:
        c, docs = self._c, self._docs
        start = time.perf_counter()
        for lo, hi in commits:
            bodies = (list(zip(range(lo + 1, hi + 1),
                               bigram_texts([d[3] for d in docs[lo:hi]]), strict=True))
                      if self._prepare else self._bodies[lo:hi])
            c.execute("BEGIN")
            c.executemany("INSERT INTO docs (id, session, role, content, at) "
                          "VALUES (?, ?, ?, ?, ?)", docs[lo:hi])
            c.executemany("INSERT INTO docs_fts (rowid, body) VALUES (?, ?)", bodies)
            c.execute("COMMIT")
        return time.perf_counter() - start

    def close(self) -> None:
        self._c.close()


def raw_fts5_prepared_load(path: str, rows: Sequence[Row], session_ids: Sequence[str],
                           commits: Sequence[tuple[int, int]]) -> float:
    """:class:`RawPrepared` over every slice of ``commits`` in one go; returns the seconds."""
    raw = RawPrepared(path, rows, session_ids)
    try:
        return raw.load(commits)
    finally:
        raw.close()


# -- seed 003 ------------------------------------------------------------------------------

_SEED_DDL = """
CREATE TABLE IF NOT EXISTS conversations (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT    NOT NULL,
    role        TEXT    NOT NULL CHECK(role IN ('user', 'assistant', 'summary')),
    content     TEXT    NOT NULL CHECK(length(content) <= 10000),
    created_at  TEXT    NOT NULL DEFAULT (datetime('now', 'utc')),
    is_summary  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS idx_session_created
    ON conversations(session_id, created_at DESC);
"""

_SEED_LOAD = """
SELECT id, session_id, role, content, created_at, is_summary
FROM   conversations
WHERE  session_id = ?
ORDER  BY created_at DESC, id DESC
LIMIT  ?
"""


@dataclass(frozen=True, slots=True)
class Turn:
    id: int
    session_id: str
    role: str
    content: str
    created_at: datetime
    is_summary: bool


def _seed_time(at_ns: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(at_ns // 10**9))


class SeedStore:
    """Seed 003's design: every call opens its own aiosqlite connection (default journal)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def bulk_load(self, rows: Sequence[Row], session_ids: Sequence[str]) -> None:
        c = sqlite3.connect(self.path, isolation_level=None)
        try:
            c.executescript(_SEED_DDL)
            params = [(session_ids[r.session], r.role, r.content, _seed_time(r.at))
                      for r in rows]
            for i in range(0, len(params), _BULK_TX_ROWS):
                c.execute("BEGIN")
                c.executemany("INSERT INTO conversations (session_id, role, content, created_at)"
                              " VALUES (?, ?, ?, ?)", params[i:i + _BULK_TX_ROWS])
                c.execute("COMMIT")
            c.execute("ANALYZE")
        finally:
            c.close()

    async def save_turn(self, session_id: str, role: str, content: str) -> None:
        async with aiosqlite.connect(self.path) as db:
            await db.execute("INSERT INTO conversations (session_id, role, content) "
                             "VALUES (?, ?, ?)", (session_id, role, content))
            await db.commit()

    async def load_context(self, session_id: str, limit: int = 20) -> list[Turn]:
        async with aiosqlite.connect(self.path) as db:
            db.row_factory = aiosqlite.Row
            async with db.execute(_SEED_LOAD, (session_id, limit)) as cursor:
                rows = list(await cursor.fetchall())
        return [Turn(id=row["id"], session_id=row["session_id"], role=row["role"],
                     content=row["content"],
                     created_at=datetime.fromisoformat(row["created_at"]),
                     is_summary=bool(row["is_summary"]))
                for row in reversed(rows)]


# -- LangChain -----------------------------------------------------------------------------


def _import_langchain() -> tuple[Any, Any, Any, Any, Any]:
    """The LangChain pieces, imported with the package's sunset DeprecationWarning muted."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.chat_message_histories import SQLChatMessageHistory
        from langchain_core.messages import AIMessage, HumanMessage, message_to_dict
        from sqlalchemy import create_engine
    return SQLChatMessageHistory, AIMessage, HumanMessage, message_to_dict, create_engine


def langchain_available() -> str | None:
    """``None`` when the LangChain baseline can run, else why not."""
    try:
        _import_langchain()
    except ImportError as exc:
        return str(exc).splitlines()[0]
    return None


class LangChainStore:
    """``SQLChatMessageHistory`` (table ``message_store``) on one shared SQLAlchemy engine."""

    def __init__(self, path: str) -> None:
        (self._history_cls, self._ai, self._human, self._to_dict,
         create_engine) = _import_langchain()
        self.engine = create_engine(f"sqlite:///{path}")

    def history(self, session_id: str) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return self._history_cls(session_id=session_id, connection=self.engine)

    def message(self, role: str, content: str) -> Any:
        return (self._human if role == "user" else self._ai)(content=content)

    def bulk_load(self, rows: Sequence[Row], session_ids: Sequence[str]) -> None:
        self.history(session_ids[0])  # creates the table exactly as the library does
        # The stored text is json.dumps(message_to_dict(message)); build it from a template
        # per role so a million rows do not each go through a pydantic model.
        templates = {role: self._to_dict(self.message(role, "")) for role in
                     ("user", "assistant")}
        raw = self.engine.raw_connection()
        try:
            cur = raw.cursor()
            params = []
            for r in rows:
                t = templates[r.role]
                params.append((session_ids[r.session],
                               json.dumps({"type": t["type"],
                                           "data": {**t["data"], "content": r.content}})))
            for i in range(0, len(params), _BULK_TX_ROWS):
                cur.executemany("INSERT INTO message_store (session_id, message) VALUES (?, ?)",
                                params[i:i + _BULK_TX_ROWS])
                raw.commit()
        finally:
            raw.close()

    def close(self) -> None:
        self.engine.dispose()
