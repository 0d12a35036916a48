"""Finding what is damaged in a SQLite file, by name: which tables, indexes and full-text
indexes cannot be read or disagree with each other.

``PRAGMA integrity_check`` names b-trees by their root page ("Tree 6 page 40 …") and, when a
table's rows cannot be read at all, stops with "database disk image is malformed" instead of
listing anything. So when it does not say ``ok``, every table and index is read on its own to
name the damaged ones, and its lines are translated to object names.
"""

from __future__ import annotations

import re
import sqlite3

__all__ = ["describe", "find_problems"]

SELECT_OBJECTS = """
SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema
WHERE rootpage > 0 ORDER BY rootpage"""
SELECT_FTS_TABLES = """
SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'"""
# Reading every column of every row (overflow pages included) of a table.
SCAN_TABLE = 'SELECT * FROM "{name}" NOT INDEXED'
# Walking every page of an index (a partial index needs its own WHERE to be usable). It counts
# a column of the index: for ``count(*)`` SQLite reads the table's smallest index whatever
# INDEXED BY names, so a damaged larger index would pass unread.
COUNT_INDEX = 'SELECT count({column}) FROM "{table}" INDEXED BY "{name}"{where}'
SELECT_FIRST_INDEX_COLUMN = "SELECT name FROM pragma_index_info(?) ORDER BY seqno LIMIT 1"
# With rank = 1 FTS5 also rebuilds each row's entries from the content and compares them with
# the index: without it, an external-content index that lacks a message's entries passes.
# It costs about four times as long (some 1.6 s per 100,000 messages); this is an explicit check.
FTS_INTEGRITY = """INSERT INTO "{name}" ("{name}", rank) VALUES ('integrity-check', 1)"""

_HOLDS = {
    "messages": "the message archive",
    "sessions": "session counters and cutoffs",
    "summaries": "the rolling summaries",
    "error_records": "the error memory",
    "vectors": "embeddings of hot messages",
    "index_queue": "messages waiting to be embedded",
    "summary_runs": "summary leases and back-off",
    "schema_version": "the schema version",
    "sqlite_sequence": "the message id counter",
    "tenants": "each tenant's next message number",
}
_FTS_SHADOWS = ("_data", "_idx", "_docsize", "_config", "_content")
_TREE = re.compile(r"\b(?:Tree|Page|tree page) (\d+)\b")
_ORPHAN = re.compile(r"Page \d+ is never used$")
_INDEX_NAME = re.compile(r"\bindex (\w+)")
_LINES_PER_OBJECT = 3


def find_problems(c: sqlite3.Connection, *, fts: bool = True) -> list[str]:
    """What is wrong with the database, one line per damaged object (empty when healthy).

    ``fts``: also run FTS5's own check of each full-text index against its content, which is
    spelled as an INSERT and so needs a writable connection (it changes nothing).
    """
    try:
        objects = c.execute(SELECT_OBJECTS).fetchall()
        fts_tables = [str(r[0]) for r in c.execute(SELECT_FTS_TABLES)]
    except sqlite3.DatabaseError as exc:
        return [f"the schema (sqlite_schema, from page 1) cannot be read: {exc}; the file is "
                "not a SQLite database or its first pages are damaged"]
    try:
        lines = [line for (row,) in c.execute("PRAGMA integrity_check")
                 for line in str(row).splitlines()]
        failed: str | None = None
    except sqlite3.DatabaseError as exc:
        lines, failed = [], str(exc)
    problems: list[str] = []
    if failed is not None or lines != ["ok"]:
        unreadable = _unreadable(c, objects, fts_tables)
        problems += [f"{what}: cannot be read ({error})" for what, error in unreadable.items()]
        roots = {int(r[3]): describe(str(r[0]), str(r[1]), str(r[2]), fts_tables)
                 for r in objects}
        grouped: dict[str, list[str]] = {}
        orphans = 0
        for line in lines:
            if line == "ok" or line.startswith("*** in database"):
                continue
            if _ORPHAN.match(line):
                orphans += 1
                continue
            grouped.setdefault(_owner(line, roots, objects, fts_tables), []).append(line)
        for owner, items in grouped.items():
            if owner in unreadable:
                continue  # already named; its page-by-page detail would only repeat that
            prefix = f"{owner}: " if owner else ""
            problems += [prefix + item for item in items[:_LINES_PER_OBJECT]]
            if len(items) > _LINES_PER_OBJECT:
                problems.append(f"{prefix}and {len(items) - _LINES_PER_OBJECT} more problems "
                                "like these")
        if orphans:
            problems.append(f"{orphans} page(s) belong to no table or index (cut off by the "
                            "damage, or lost free space)")
        if failed is not None and not problems:
            problems.append(f"the integrity check stopped: {failed}")
    if fts and not problems:
        for name in fts_tables:
            try:
                c.execute(FTS_INTEGRITY.format(name=name))
            except sqlite3.DatabaseError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    continue  # a writer in the way is no damage; the other checks stand
                problems.append(f"full-text index {name}: does not match its content ({exc})")
    return list(dict.fromkeys(problems))


def describe(kind: str, name: str, table: str, fts_tables: list[str]) -> str:
    """A schema object as a user should read it: what it is and what it holds."""
    for fts in fts_tables:
        if name == fts or (name.startswith(fts) and name[len(fts):] in _FTS_SHADOWS):
            return f"full-text index {fts} (keyword search of {fts.removesuffix('_fts')})"
    if kind == "index":
        return f"index {name} on {table}"
    holds = _HOLDS.get(name)
    return f"table {name}" + (f" ({holds})" if holds else "")


def _unreadable(c: sqlite3.Connection, objects: list[tuple[object, ...]],
                fts_tables: list[str]) -> dict[str, str]:
    """The tables and indexes that cannot be read from end to end, described, with the first
    error each gave."""
    out: dict[str, str] = {}
    for kind, name, table, _root, sql in objects:
        try:
            if kind == "table":
                for _ in c.execute(SCAN_TABLE.format(name=name)):
                    pass
            elif kind == "index":
                where = re.split(r"\bWHERE\b", str(sql), flags=re.I)[1:] if sql else []
                first = c.execute(SELECT_FIRST_INDEX_COLUMN, (name,)).fetchone()
                column = f'"{first[0]}"' if first is not None and first[0] else "*"
                c.execute(COUNT_INDEX.format(table=table, name=name, column=column,
                                             where=f" WHERE {where[-1]}" if where else ""))
        except sqlite3.DatabaseError as exc:
            out.setdefault(describe(str(kind), str(name), str(table), fts_tables), str(exc))
    return out


def _owner(line: str, roots: dict[int, str], objects: list[tuple[object, ...]],
           fts_tables: list[str]) -> str:
    """The object an integrity-check line is about, described ("" when it names none)."""
    tree = _TREE.search(line)
    if tree is not None and int(tree.group(1)) in roots:
        return roots[int(tree.group(1))]
    index = _INDEX_NAME.search(line)
    if index is not None:
        for kind, name, table, _root, _sql in objects:
            if name == index.group(1):
                return describe(str(kind), str(name), str(table), fts_tables)
    return ""
