"""Checking a database file without opening it as a store, and salvaging a damaged one.

:func:`check_file` reads a file read-only (no migration, nothing written) and names what is
damaged. :func:`salvage` copies every message, summary and error record that can still be
read into a new memstrata file: first through SQLite (:mod:`._salvage_read`), then, for the ids
SQLite could not reach, by scanning the pages themselves (:mod:`._pages`). A row is copied only
if it is whole and valid; a row found by the page scan only if its id is one SQLite could not
read and, when another b-tree still lists the table's live ids, one of those (so a message
deleted before the damage does not come back). The new file's session counters, cutoffs and
index queue are rebuilt from what was copied; vectors are kept for hot messages and the hot
messages without one are queued, so ``flush()``, ``reindex`` or ``worker`` embeds them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ...errors import InvalidInput, NotFound, StoreError
from ...types import Salvaged, SalvageReport
from . import _salvage_sql as sql
from ._damage import find_problems
from ._functions import register
from ._pages import scan
from ._salvage_read import Gaps, KeyedRead, Row, RowidReader, live_ids, read_keyed, upper_bound
from ._store import SQLiteStore

__all__ = ["check_file", "salvage"]

_ID = re.compile(r"[A-Za-z0-9._:@-]{1,128}\Z")
_HEX32 = re.compile(r"[0-9a-f]{32}\Z")


async def check_file(path: str) -> list[str]:
    """What is damaged in the database file at ``path`` (empty when healthy), read without
    migrating or writing it. ``NotFound`` when there is no such file."""
    if path == ":memory:":
        return []
    if not os.path.isfile(path):
        raise NotFound(f"no database file at {path!r}; nothing to check")
    return await asyncio.to_thread(_check, path, fts=True)


async def salvage(source: str, dest: str) -> SalvageReport:
    """Copy what can be read of the memstrata file ``source`` into a new file ``dest``.

    ``dest`` must not exist; on failure nothing is left there. ``InvalidInput`` when the source
    is not a memstrata database (or is ``dest``), ``NotFound`` when it does not exist,
    ``StoreError`` when nothing at all could be read.
    """
    for field, path in (("source", source), ("dest", dest)):
        if path == ":memory:" or path.startswith("file::memory:"):
            raise InvalidInput(field, "must be a database file, not ':memory:'")
    if not os.path.isfile(source):
        raise NotFound(f"no database file at {source!r}; nothing to salvage")
    if not os.path.isdir(os.path.dirname(os.path.abspath(dest))):
        raise InvalidInput("dest", f"the folder of {dest!r} does not exist")
    if os.path.lexists(dest):
        raise InvalidInput("dest", f"{dest!r} already exists; salvage writes a new file "
                           "(move it away or choose another name)")
    store = await SQLiteStore.open(dest)  # a new, migrated memstrata file
    await store.close()
    try:
        return await asyncio.to_thread(_salvage, source, dest)
    except BaseException:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                os.remove(dest + suffix)
        raise


def _open_source(path: str, *, writable: bool) -> sqlite3.Connection:
    mode = "?mode=rw" if writable else "?mode=ro"
    if not writable and not _has_wal(path):
        mode += "&immutable=1"  # nothing to recover from a log: leave no -shm file behind
    uri = Path(path).absolute().as_uri() + mode
    c = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                        timeout=30.0)
    register(c)  # the index triggers and FTS5's check derive the indexed text with it
    # Read a file shorter than its header says (truncated) instead of refusing it whole, and
    # check each cell's size, so a damaged page fails rather than yielding garbage.
    c.execute("PRAGMA writable_schema = ON")
    c.execute("PRAGMA cell_size_check = ON")
    return c


def _check(path: str, *, fts: bool) -> list[str]:
    """``fts``: also compare the full-text indexes with their content, which needs the file
    opened for writing (nothing is written: the transaction is rolled back)."""
    problems = _shortfall(path)
    try:
        if not fts:
            raise sqlite3.OperationalError("read-only check")
        c = _open_source(path, writable=True)
        try:  # a read-only file or folder fails here, not when connecting
            c.execute("SELECT 1 FROM sqlite_schema LIMIT 1").fetchall()
        except sqlite3.OperationalError:
            c.close()
            raise
        writable = True
    except sqlite3.Error:
        try:
            c = _open_source(path, writable=False)
        except sqlite3.Error as exc:
            return [*problems, f"the file cannot be opened as a SQLite database: {exc}"]
        writable = False
    try:
        c.execute("BEGIN")
        found = find_problems(c, fts=writable)
        if not found and not _memstrata_tables(c):
            found = ["not a memstrata database: it has no messages table"]
        return problems + found
    finally:
        with contextlib.suppress(sqlite3.Error):
            c.execute("ROLLBACK")
        c.close()


def _has_wal(path: str) -> bool:
    """Whether a write-ahead log beside the file may hold committed pages."""
    try:
        return os.path.getsize(path + "-wal") > 32
    except OSError:
        return False


def _shortfall(path: str) -> list[str]:
    """A problem when the file is shorter than the page count its header records."""
    with open(path, "rb") as f:
        head = f.read(100)
    if len(head) < 100 or head[:16] != b"SQLite format 3\x00" or head[24:28] != head[92:96]:
        return []
    size = int.from_bytes(head[16:18], "big")
    size = 65536 if size == 1 else size
    counted = int.from_bytes(head[28:32], "big")
    have = os.path.getsize(path) // size if size else 0
    if size and counted > have and not _has_wal(path):
        return [f"the file is cut short: it holds {have} of the {counted} pages its header "
                "counts (truncated by a failed copy or a full disk?)"]
    return []


def _memstrata_tables(c: sqlite3.Connection) -> bool:
    try:
        return "messages" in {r[0] for r in c.execute(sql.SOURCE_TABLES)}
    except sqlite3.DatabaseError:
        return True  # unreadable schema: already reported


# -- salvage ---------------------------------------------------------------------------------


class _Table:
    """One rowid table being copied: its gaps, the ids other b-trees list, what was taken."""

    def __init__(self, reader: RowidReader | None, live: tuple[set[int], bool]) -> None:
        self.gaps = reader.gaps if reader is not None else Gaps(tail=1)
        self.bound = reader.bound if reader is not None else 0
        self.live, self.live_complete = live
        self.copied = 0
        self.invalid = 0
        self.from_pages: list[int] = []

    def wants(self, rowid: int) -> bool:
        """Whether a row found by the page scan may be copied."""
        return rowid in self.gaps and (not self.live_complete or rowid in self.live)

    def report(self) -> Salvaged:
        if self.live_complete:
            return Salvaged(copied=self.copied, unreadable=max(len(self.live) - self.copied, 0),
                            from_pages=len(self.from_pages),
                            unreadable_ids=self.gaps.without(self.from_pages))
        lost = self.gaps.size() - len([i for i in self.from_pages if i <= self.bound])
        return Salvaged(copied=self.copied, unreadable=max(lost, 0) + self.invalid, exact=False,
                        from_pages=len(self.from_pages),
                        unreadable_ids=self.gaps.without(self.from_pages))


def _salvage(source: str, dest: str) -> SalvageReport:
    damage = _check(source, fts=False)
    src: sqlite3.Connection | None = None
    try:
        src = _open_source(source, writable=False)
        tables: set[str] | None = {r[0] for r in src.execute(sql.SOURCE_TABLES)}
    except sqlite3.DatabaseError:
        if src is not None:
            src.close()
        src, tables = None, None  # the schema is unreadable: pages only
    if tables is not None and "messages" not in tables:
        raise InvalidInput("source", f"{source!r} is not a memstrata database (it has no "
                           "messages table)")
    out = sqlite3.connect(dest, isolation_level=None)
    register(out)
    try:
        out.execute("BEGIN IMMEDIATE")
        report = _copy(src, tables, source, dest, out, damage)
        if damage and not (report.messages.copied or report.summaries.copied
                           or report.error_records.copied):
            raise StoreError(f"nothing could be read from {source!r}: "
                             + "; ".join(damage or ["unknown damage"]))
        out.execute("COMMIT")
        return report
    except BaseException:
        if out.in_transaction:
            out.execute("ROLLBACK")
        raise
    finally:
        out.close()
        if src is not None:
            src.close()


def _copy(src: sqlite3.Connection | None, tables: set[str] | None, source: str, dest: str,
          out: sqlite3.Connection, damage: list[str]) -> SalvageReport:
    def has(table: str) -> bool:
        """Whether the source has ``table`` (an older schema may not; an unreadable schema
        is read from the pages only)."""
        return tables is None or table in tables

    keys: set[tuple[Any, Any]] = set()
    sessions = (read_keyed(src, sql.READ_SESSIONS, sql.READ_SESSION, ()) if has("sessions")
                else KeyedRead({}, True, set()))
    for row in sessions.rows.values():
        if _valid_session(row):
            out.execute(sql.WRITE_SESSION, (row[0], row[1], row[5], row[8], row[9]))

    live = live_ids(src, sql.LIVE_MESSAGE_IDS)
    bound = upper_bound(src, sql.MESSAGE_BOUNDS, live[0])
    numbered = _has_numbers(src)
    messages = _rowid_table(src, out, sql.READ_MESSAGES if numbered else sql.READ_OLD_MESSAGES,
                            sql.READ_MESSAGE if numbered else sql.READ_OLD_MESSAGE, bound, live,
                            sql.WRITE_MESSAGE, _valid_message, keys)
    errors = _rowid_table(src, out, sql.READ_ERRORS, sql.READ_ERROR,
                          upper_bound(src, sql.ERROR_BOUNDS), live_ids(src, sql.LIVE_ERROR_SEQS),
                          sql.WRITE_ERROR, _valid_error, None, present=has("error_records"))
    vectors = _rowid_table(src, out, sql.READ_VECTORS, sql.READ_VECTOR, bound, (set(), False),
                           sql.WRITE_VECTOR, _valid_vector, None, present=has("vectors"))
    keys.update((r[0], r[1]) for r in sessions.rows.values())
    summaries = (read_keyed(src, sql.READ_SUMMARIES, sql.READ_SUMMARY, sorted(keys))
                 if has("summaries") else KeyedRead({}, True, set()))
    summary_copied = summary_invalid = 0
    for row in summaries.rows.values():
        ok = _valid_summary(row) and out.execute(sql.WRITE_SUMMARY, row).rowcount > 0
        summary_copied += ok
        summary_invalid += not ok
    summaries_from_pages = 0
    if src is None or messages.gaps or errors.gaps or vectors.gaps or not summaries.complete \
            or not sessions.complete:
        summaries_from_pages = _from_pages(source, out, messages, errors, vectors, sessions,
                                           summaries)
    summary_copied += summaries_from_pages

    api_keys = _copy_api_keys(src) if has("api_keys") else []
    for row in api_keys:
        out.execute(sql.WRITE_API_KEY, row)
    out.execute(sql.REBUILD_MESSAGE_INDEX)
    for statement in sql.ADD_MISSING_SESSIONS:
        out.execute(statement)
    out.execute(sql.COUNT_SESSIONS)
    out.execute(sql.DROP_STRAY_VECTORS)
    out.execute(sql.QUEUE_UNEMBEDDED)
    # Ids are never reused: the new counter starts past every id the source knew of.
    top = max(bound, messages.gaps.tail or 0, *messages.from_pages, 0)
    out.execute(sql.KEEP_MESSAGE_COUNTER, (top,))
    out.execute(sql.RAISE_MESSAGE_COUNTER, (top,))
    _number_tenants(src, out, top, numbered and has("tenants"))
    counts = {name: int(out.execute(query).fetchone()[0]) for name, query in sql.COUNT_COPIED}
    summary_lost = len(summaries.failed - set(summaries.rows)) + summary_invalid
    return SalvageReport(
        source=source, dest=dest,
        damage=tuple(damage), messages=messages.report(), error_records=errors.report(),
        summaries=Salvaged(copied=summary_copied, unreadable=summary_lost,
                           exact=summaries.complete, from_pages=summaries_from_pages),
        sessions=counts["sessions"], vectors=counts["vectors"], queued=counts["queued"],
        api_keys=len(api_keys))


def _rowid_table(src: sqlite3.Connection | None, out: sqlite3.Connection, read_range: str,
                 read_one: str, bound: int, live: tuple[set[int], bool], write: str,
                 valid: Callable[[Row], bool], keys: set[tuple[Any, Any]] | None, *,
                 present: bool = True) -> _Table:
    """Copy what SQLite can read of one rowid table (``src`` ``None``: the schema is
    unreadable, every id is a gap for the page scan to fill)."""
    if not present:  # an older schema without this table: nothing to read, nothing missed
        table = _Table(None, (set(), True))
        table.gaps = Gaps()
        return table
    reader = RowidReader(src, read_range, read_one, bound) if src is not None else None
    table = _Table(reader, live)
    for rows in reader.chunks() if reader is not None else ():
        good = [r for r in rows if valid(r)]
        table.invalid += len(rows) - len(good)
        table.copied += max(out.executemany(write, good).rowcount, 0)
        if keys is not None:
            keys.update((r[1], r[2]) for r in good)
    return table


def _has_numbers(src: sqlite3.Connection | None) -> bool:
    """Whether the source's messages carry their tenant numbers (``True`` when the schema
    cannot be read: then the page scan tells by each record's length)."""
    if src is None:
        return True
    try:
        return bool(src.execute(sql.MESSAGE_HAS_SEQ).fetchone()[0])
    except sqlite3.DatabaseError:
        return True


def _number_tenants(src: sqlite3.Connection | None, out: sqlite3.Connection, top: int,
                    counted: bool) -> None:
    """Each tenant's next number in the new file (see ``NUMBER_TENANTS``)."""
    out.execute(sql.NUMBER_TENANTS)
    known: list[Row] | None = None
    if src is not None and counted:
        try:
            known = [tuple(r) for r in src.execute(sql.READ_TENANT_NUMBERS)]
        except sqlite3.DatabaseError:
            known = None
    if known is None:
        out.execute(sql.NUMBER_TENANTS_PAST, (top,))
        return
    out.executemany(sql.KEEP_TENANT_NUMBER,
                    [r for r in known if _is_id(r[0]) and _is_int(r[1]) and int(r[1]) >= 1])


def _copy_api_keys(src: sqlite3.Connection | None) -> list[Row]:
    """The service's API keys, when their table reads whole (a key half-read is no key)."""
    if src is None:
        return []
    for query in (sql.READ_API_KEYS, sql.READ_OLD_API_KEYS):
        try:
            return [tuple(r) for r in src.execute(query)]
        except sqlite3.DatabaseError:
            continue
    return []


def _from_pages(source: str, out: sqlite3.Connection, messages: _Table, errors: _Table,
                vectors: _Table, sessions: KeyedRead, summaries: KeyedRead) -> int:
    """Copy the rows the page scan finds that SQLite could not reach; returns the summaries
    copied (the tables count their own)."""
    summary_count = 0
    for record in scan(source):
        values, rowid = record.values, record.rowid
        if rowid is not None and values and values[0] is None:
            row = (rowid, *values[1:])
            if len(row) == 11:  # a message from before tenant numbers: its id is its number
                row = (*row, rowid)
            if len(row) == 12 and messages.wants(rowid) and _valid_message(row):
                _take(out, sql.WRITE_MESSAGE, row, messages)
            elif len(row) == 16 and errors.wants(rowid) and _valid_error(row):
                _take(out, sql.WRITE_ERROR, row, errors)
            elif len(row) == 6 and _valid_vector(row):
                _take(out, sql.WRITE_VECTOR, row, vectors)
        elif rowid is None and len(values) == 8 and not summaries.complete:
            key = (values[0], values[1])
            if key not in summaries.rows and _valid_summary(values):
                summaries.rows[key] = values
                summary_count += out.execute(sql.WRITE_SUMMARY, values).rowcount
        elif (rowid is None and len(values) in (10, 11) and not sessions.complete
              and (values[0], values[1]) not in sessions.rows and _valid_session(values)):
            out.execute(sql.WRITE_SESSION, (values[0], values[1], values[5], values[8],
                                            values[9]))
    return summary_count


def _take(out: sqlite3.Connection, write: str, row: Row, table: _Table) -> None:
    if out.execute(write, row).rowcount > 0:
        table.copied += 1
        table.from_pages.append(int(row[0]))


# -- what a whole, valid row looks like --------------------------------------------------------


def _is_id(value: object) -> bool:
    return isinstance(value, str) and _ID.match(value) is not None


def _is_int(value: object) -> bool:
    return isinstance(value, int)


def _text_or_none(value: object) -> bool:
    return value is None or isinstance(value, str)


def _json_of(value: object, kind: type) -> bool:
    if not isinstance(value, str):
        return False
    try:
        return isinstance(json.loads(value), kind)
    except ValueError:
        return False


def _valid_message(r: Row) -> bool:
    mid, tenant, session, role, content, sender, at, meta, size, search, key, seq = r
    return (_is_int(mid) and mid > 0 and _is_int(seq) and seq > 0 and _is_id(tenant)
            and _is_id(session)
            and role in ("user", "assistant") and isinstance(content, str)
            and _text_or_none(sender) and _is_int(at) and _is_int(size)
            and size == len(content.encode("utf-8", "surrogatepass"))
            and (meta is None or _json_of(meta, dict)) and _text_or_none(search)
            and _text_or_none(key))


def _valid_error(r: Row) -> bool:
    (seq, tenant, rid, tool, keywords, symptom, cause, action, outcome, created, expires, hits,
     search, embedding, model, dim) = r
    return (_is_int(seq) and _is_id(tenant) and isinstance(rid, str) and bool(_HEX32.match(rid))
            and isinstance(tool, str) and _json_of(keywords, list) and isinstance(symptom, str)
            and _text_or_none(cause) and isinstance(action, str)
            and outcome in ("resolved", "failed", "abandoned") and _is_int(created)
            and _is_int(expires) and _is_int(hits) and isinstance(search, str)
            and (embedding is None or isinstance(embedding, bytes)) and _text_or_none(model)
            and (dim is None or _is_int(dim)))


def _valid_vector(r: Row) -> bool:
    mid, tenant, session, model, dim, vec = r
    return (_is_int(mid) and _is_id(tenant) and _is_id(session) and isinstance(model, str)
            and _is_int(dim) and isinstance(vec, bytes) and len(vec) == 4 * dim)


def _valid_summary(r: Iterable[object]) -> bool:
    tenant, session, kind, body, cursor, created, t_in, t_out = tuple(r)
    return (_is_id(tenant) and _is_id(session) and kind in ("llm", "digest")
            and _json_of(body, dict) and (cursor is None or _is_int(cursor))
            and _is_int(created) and _is_int(t_in) and _is_int(t_out))


def _valid_session(r: Iterable[object]) -> bool:
    values = tuple(r)
    return (_is_id(values[0]) and _is_id(values[1]) and _is_int(values[5])
            and _is_int(values[8]) and _is_int(values[9]))
