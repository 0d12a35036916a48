"""Checks of a database after a crash, the same on a SQLite file and a PostgreSQL URL.

What a crash (``kill -9`` of a writer, indexer, summariser or server; a damaged file; a full
disk) must leave behind, as the product promises it:

* the storage itself is sound: SQLite's ``PRAGMA integrity_check`` and FTS5's own
  ``integrity-check`` of every full-text index; on PostgreSQL, ``amcheck`` over every b-tree
  (and GIN, where the installed ``amcheck`` has it) index of memstrata's tables;
* it opens through ``Memory.open`` and ``Memory.check()`` finds nothing;
* it is consistent: each session's counters (messages, hot messages, hot bytes) agree with its
  rows, no vector or indexing-queue entry belongs to a missing message or to one in another
  session, no vector belongs to a cold message (at or below its session's cutoff), no summary
  cursor lies past its session's newest message (or past what the summary model was shown,
  when the caller knows that), and the id counter is at least the largest id (ids are never
  reused);
* every acknowledged write is there exactly once (by id and content, by content alone, or by
  idempotency key), and the ids each writer was given grew in the order it was told of them.

Typical use, after the crash::

    acked = Acknowledged.read(ack_file)        # JSON lines a client wrote after each return
    verdict = await verify(target, acked)
    assert verdict.problems == [], verdict.problems
    print(verdict.lost, verdict.duplicated)

The checks read the tables directly (``sqlite3`` / ``psycopg``) in the test process: they
must see what is stored, not what the library chooses to show.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memstrata import Memory, Settings
from memstrata.store.sqlite import register_functions

__all__ = ["Ack", "Acknowledged", "Snapshot", "Verdict", "ack_problems", "consistency_problems",
           "is_postgres", "open_problems", "snapshot", "storage_problems", "verify"]

SessionKey = tuple[str, str]
"""(tenant, session)."""


def is_postgres(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))


# -- what the clients were told ----------------------------------------------------------------


@dataclass(frozen=True)
class Ack:
    """One write a client was told succeeded. ``id`` is ``None`` when the client was not told
    it; ``key`` is the idempotency key it wrote with, if any; ``writer`` names the client whose
    acknowledgements must carry growing ids."""

    session: str
    content: str
    id: int | None = None
    key: str | None = None
    tenant: str = "default"
    writer: str = ""

    def line(self) -> str:
        """The JSON line a client appends to its acknowledgement file."""
        return json.dumps({"session": self.session, "content": self.content, "id": self.id,
                           "key": self.key, "tenant": self.tenant, "writer": self.writer},
                          ensure_ascii=False) + "\n"


@dataclass
class Acknowledged:
    """Every acknowledged write, in the order each was acknowledged."""

    acks: list[Ack] = field(default_factory=list)

    @classmethod
    def read(cls, *paths: Path | str) -> Acknowledged:
        """The acknowledgements in JSON-line files; a last line cut by the kill (no newline,
        so its write was never completed) was not acknowledged and is skipped."""
        out = cls()
        for path in paths:
            p = Path(path)
            if p.exists():
                out.extend_lines(p.read_text(encoding="utf-8"))
        return out

    def extend_lines(self, text: str) -> None:
        for line in text.splitlines(keepends=True):
            if line.endswith("\n") and line.strip():
                self.acks.append(Ack(**json.loads(line)))

    def add(self, ack: Ack) -> None:
        self.acks.append(ack)

    def __len__(self) -> int:
        return len(self.acks)


# -- what is stored ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    id: int
    tenant: str
    session: str
    content: str
    key: str | None
    size: int


@dataclass(frozen=True)
class Counters:
    messages: int
    hot: int
    hot_bytes: int
    cutoff: int


@dataclass
class Snapshot:
    """The rows the checks need, read in one transaction."""

    messages: list[Row]
    sessions: dict[SessionKey, Counters]
    vectors: list[tuple[int, str, str]]  # message_id, tenant, session
    queue: list[tuple[int, str, str]]
    cursors: dict[SessionKey, int | None]
    counters: dict[str, int]
    """Per tenant, the highest message number it has given out."""

    @property
    def id_counter(self) -> int:
        """The highest number any tenant has given out (the tenant's own, with one tenant)."""
        return max(self.counters.values(), default=0)

    def by_id(self) -> dict[tuple[str, int], Row]:
        """Messages by (tenant, id): ids are numbers within a tenant."""
        return {(r.tenant, r.id): r for r in self.messages}

    def hot_ids(self) -> set[int]:
        """Ids of the messages above their session's cutoff (of one tenant's store)."""
        return {i for _, i in self.hot_keys()}

    def hot_keys(self) -> set[tuple[str, int]]:
        """(tenant, id) of the messages above their session's cutoff."""
        return {(r.tenant, r.id) for r in self.messages
                if r.id > self.sessions.get((r.tenant, r.session), _NO_SESSION).cutoff}


_NO_SESSION = Counters(0, 0, 0, 0)

# A message's id is its number within its tenant (``seq``); vectors and queue entries name
# the internal row id, read here as the number of the message they belong to (the negated row
# id when no message has it, so the check names it).
_MESSAGES = """
SELECT seq, tenant, session, content, idem_key, size FROM messages ORDER BY tenant, seq"""
_SESSIONS = "SELECT tenant, id, message_count, hot_count, hot_bytes, cutoff FROM sessions"
_OF_MESSAGE = """
SELECT coalesce(m.seq, -x.message_id), x.tenant, x.session FROM {} x
LEFT JOIN messages m ON m.tenant = x.tenant AND m.id = x.message_id ORDER BY x.message_id"""
_VECTORS = _OF_MESSAGE.format("vectors")
_QUEUE = _OF_MESSAGE.format("index_queue")
_CURSORS = "SELECT tenant, session, cursor FROM summaries"
_COUNTERS = "SELECT tenant, next_seq - 1 FROM tenants"


def _assemble(rows: list[list[tuple[Any, ...]]]) -> Snapshot:
    messages, sessions, vectors, queue, cursors, counters = rows
    return Snapshot(
        messages=[Row(int(i), str(t), str(s), str(c), k, int(n)) for i, t, s, c, k, n in messages],
        sessions={(str(t), str(s)): Counters(int(a), int(b), int(c), int(d))
                  for t, s, a, b, c, d in sessions},
        vectors=[(int(m), str(t), str(s)) for m, t, s in vectors],
        queue=[(int(m), str(t), str(s)) for m, t, s in queue],
        cursors={(str(t), str(s)): None if c is None else int(c) for t, s, c in cursors},
        counters={str(t): int(n) for t, n in counters})


def snapshot(target: str) -> Snapshot:
    """Read the rows of ``target`` (a SQLite path or a PostgreSQL URL) in one transaction."""
    queries = (_MESSAGES, _SESSIONS, _VECTORS, _QUEUE, _CURSORS, _COUNTERS)
    if is_postgres(target):
        import psycopg

        with psycopg.connect(target) as conn:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            rows = [conn.execute(q).fetchall() for q in queries]
        return _assemble(rows)
    with _sqlite(target) as c:
        c.execute("BEGIN")
        rows = [c.execute(q).fetchall() for q in queries]
        c.execute("COMMIT")
    return _assemble(rows)


def _sqlite(path: str) -> contextlib.closing[sqlite3.Connection]:
    """A plain ``sqlite3`` connection with the store's SQL functions, closed on exit."""
    c = sqlite3.connect(path, isolation_level=None, timeout=30)
    register_functions(c)
    return contextlib.closing(c)


# -- the checks --------------------------------------------------------------------------------


def storage_problems(target: str) -> list[str]:
    """What the engine itself finds wrong (empty when sound)."""
    if is_postgres(target):
        return _pg_storage_problems(target)
    with _sqlite(target) as c:
        try:
            lines = [str(r[0]) for r in c.execute("PRAGMA integrity_check")]
            tables = [str(r[0]) for r in c.execute(
                "SELECT name FROM sqlite_schema WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'")]
        except sqlite3.DatabaseError as exc:
            return [f"integrity_check could not run: {exc}"]
        problems = [] if lines == ["ok"] else [f"integrity_check: {x}" for x in lines[:10]]
        for name in tables:
            try:
                # rank = 1: also compare the index with its external content table.
                c.execute(f"INSERT INTO \"{name}\" (\"{name}\", rank) "
                          "VALUES ('integrity-check', 1)")
            except sqlite3.DatabaseError as exc:
                problems.append(f"full-text index {name}: {exc}")
    return problems


_PG_INDEXES = """
SELECT c.oid::regclass::text, am.amname FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
JOIN pg_class t ON t.oid = i.indrelid
WHERE t.relnamespace = current_schema()::regnamespace AND am.amname IN ('btree', 'gin')
ORDER BY 1"""


def _pg_storage_problems(url: str) -> list[str]:
    """``amcheck`` over every b-tree index (with ``heapallindexed``: every row is in it) and
    every GIN index when the extension has ``gin_index_check``; nothing when the server has no
    ``amcheck`` at all (the consistency checks still run)."""
    import psycopg

    problems: list[str] = []
    with psycopg.connect(url, autocommit=True) as conn:
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
        except psycopg.Error:
            return []
        has_gin = conn.execute("SELECT to_regproc('gin_index_check') IS NOT NULL"
                               ).fetchone() == (True,)
        for name, method in conn.execute(_PG_INDEXES).fetchall():
            if method == "gin" and not has_gin:
                continue
            check = ("SELECT bt_index_check(%s::regclass, true)" if method == "btree"
                     else "SELECT gin_index_check(%s::regclass)")
            try:
                conn.execute(check, (name,))
            except psycopg.Error as exc:
                problems.append(f"index {name}: {exc}")
    return problems


def consistency_problems(snap: Snapshot, *,
                         covered: Mapping[SessionKey, int] | None = None) -> list[str]:
    """What disagrees between the tables (empty when consistent).

    ``covered``: per session, the largest message id a summary model was ever shown; a cursor
    past it would mean a summary claims messages it never saw.
    """
    problems: list[str] = []
    per_session: dict[SessionKey, list[Row]] = {}
    for r in snap.messages:
        per_session.setdefault((r.tenant, r.session), []).append(r)
    for key, counters in snap.sessions.items():
        rows = per_session.get(key, [])
        hot = [r for r in rows if r.id > counters.cutoff]
        actual = Counters(len(rows), len(hot), sum(r.size for r in hot), counters.cutoff)
        if actual != counters:
            problems.append(f"session {key}: counters {counters} but rows say {actual}")
    problems += [f"messages of session {k} but no session row" for k in per_session
                 if k not in snap.sessions]
    rows_by_id = snap.by_id()
    hot_keys = snap.hot_keys()
    for what, entries in (("vector", snap.vectors), ("queue entry", snap.queue)):
        for mid, tenant, session in entries:
            row = rows_by_id.get((tenant, mid))
            if row is None:
                problems.append(f"{what} of message {mid}, which does not exist")
            elif (row.tenant, row.session) != (tenant, session):
                problems.append(f"{what} of message {mid} filed under {(tenant, session)}, "
                                f"but the message is in {(row.tenant, row.session)}")
            elif what == "vector" and (tenant, mid) not in hot_keys:
                problems.append(f"vector of cold message {mid} (session cutoff "
                                f"{snap.sessions[(tenant, session)].cutoff})")
    for key, cursor in snap.cursors.items():
        if cursor is None:
            continue
        rows = per_session.get(key, [])
        newest = rows[-1].id if rows else snap.counters.get(key[0], 0)
        if cursor > newest:
            problems.append(f"summary cursor of {key} is {cursor}, past the newest message "
                            f"{newest}")
        if covered is not None and cursor > covered.get(key, 0):
            problems.append(f"summary cursor of {key} is {cursor}, but the model was shown "
                            f"messages up to {covered.get(key, 0)} only")
    largest: dict[str, int] = {}
    for r in snap.messages:
        largest[r.tenant] = max(largest.get(r.tenant, 0), r.id)
    for tenant, top in largest.items():
        if snap.counters.get(tenant, 0) < top:
            problems.append(f"tenant {tenant!r}'s id counter {snap.counters.get(tenant, 0)} is "
                            f"below its largest id {top}: ids could be reused")
    return problems


def ack_problems(snap: Snapshot, acked: Acknowledged) -> tuple[list[str], int, int]:
    """Whether every acknowledged write is stored exactly once: ``(problems, lost,
    duplicated)``. An ack with an id must find that id holding its content; with a key, one
    row of its session under that key; otherwise its content in its session. Each writer's
    ids must grow in the order it acknowledged them (commit order)."""
    problems: list[str] = []
    rows_by_id = snap.by_id()
    texts = Counter((r.tenant, r.session, r.content) for r in snap.messages)
    keys = Counter((r.tenant, r.session, r.key) for r in snap.messages if r.key is not None)
    lost = duplicated = 0
    for a in acked.acks:
        if a.key is not None:
            found = keys[(a.tenant, a.session, a.key)]
        else:
            found = texts[(a.tenant, a.session, a.content)]
        if a.id is not None:
            row = rows_by_id.get((a.tenant, a.id))
            if row is None or (row.tenant, row.session, row.content) != (a.tenant, a.session,
                                                                          a.content):
                found = 0
        if found == 0:
            lost += 1
            if lost <= 5:
                problems.append(f"acknowledged write lost: {a}")
        elif found > 1:
            duplicated += 1
            if duplicated <= 5:
                problems.append(f"acknowledged write stored {found} times: {a}")
    problems += _order_problems(acked.acks)
    return problems, lost, duplicated


def _order_problems(acks: Iterable[Ack]) -> list[str]:
    last: dict[str, int] = {}
    problems: list[str] = []
    for a in acks:
        if a.id is None or not a.writer:
            continue
        before = last.get(a.writer)
        # A keyed retry may return the first message again (same id, not a new write).
        if before is not None and a.id < before and a.key is None:
            problems.append(f"writer {a.writer} was given id {a.id} after {before}")
        last[a.writer] = max(a.id, before or 0)
    return problems[:5]


async def open_problems(target: str, tenant: str = "default") -> list[str]:
    """Open ``target`` as a user would (no models, no background work) and ask it to check
    itself; what fails, as text."""
    settings = Settings(embedder=None, summary_cron=None)
    try:
        async with Memory.open(target, settings=settings, tenant=tenant,
                               background=False) as mem:
            return [f"Memory.check(): {p}" for p in await mem.check()]
    except Exception as exc:  # any failure to open is the finding itself
        return [f"Memory.open failed: {type(exc).__name__}: {exc}"]


@dataclass
class Verdict:
    """What ``verify`` found: ``problems`` is empty when every check passed."""

    problems: list[str]
    lost: int
    duplicated: int
    acknowledged: int
    snapshot: Snapshot


async def verify(target: str, acked: Acknowledged | None = None, *, tenant: str = "default",
                 covered: Mapping[SessionKey, int] | None = None) -> Verdict:
    """Every check above, in the order a user meets them: the engine's check of the file as
    the crash left it, opening it, then the tables and the acknowledgements."""
    problems = storage_problems(target)
    problems += await open_problems(target, tenant)
    try:
        snap = snapshot(target)
    except Exception as exc:  # a file too damaged to read is a finding, not a crash here
        problems.append(f"the tables cannot be read: {type(exc).__name__}: {exc}")
        # Nothing acknowledged can be shown to be there: count it all as lost.
        return Verdict(problems, len(acked or ()), 0, len(acked or ()),
                       Snapshot([], {}, [], [], {}, {}))
    problems += consistency_problems(snap, covered=covered)
    lost = duplicated = 0
    if acked is not None:
        found, lost, duplicated = ack_problems(snap, acked)
        problems += found
    return Verdict(problems, lost, duplicated, len(acked or ()), snap)
