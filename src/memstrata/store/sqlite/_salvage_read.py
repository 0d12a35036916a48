"""Reading what SQLite can still read of a damaged table, and knowing what it could not.

A rowid table is read by id range; a range that fails is read id by id, so one damaged page
costs only the rows on it, and the ids that fail are kept as *gaps*. A table keyed by text
(``WITHOUT ROWID``) is read forwards until the damage, backwards until the damage, and by the
keys known from elsewhere. Every error here is SQLite saying a page is damaged: it is
recorded, never raised.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Gaps", "KeyedRead", "RowidReader", "live_ids", "read_keyed", "upper_bound"]

Row = tuple[Any, ...]

_CHUNK = 256
# Past the highest id known, reading goes on until this many chunks in a row held nothing.
_TAIL_CHUNKS = 64


@dataclass
class Gaps:
    """Ids that could not be read: closed ranges, and an open end (``tail``) when reading past
    the highest known id failed too."""

    ranges: list[tuple[int, int]] = field(default_factory=list)
    tail: int | None = None

    def add(self, rowid: int) -> None:
        if self.ranges and self.ranges[-1][1] == rowid - 1:
            self.ranges[-1] = (self.ranges[-1][0], rowid)
        else:
            self.ranges.append((rowid, rowid))

    def __contains__(self, rowid: object) -> bool:
        if not isinstance(rowid, int):
            return False
        if self.tail is not None and rowid >= self.tail:
            return True
        i = bisect.bisect_right(self.ranges, (rowid, 1 << 63)) - 1
        return i >= 0 and self.ranges[i][0] <= rowid <= self.ranges[i][1]

    def __bool__(self) -> bool:
        return bool(self.ranges) or self.tail is not None

    def size(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.ranges)

    def without(self, found: Iterable[int]) -> tuple[tuple[int, int], ...]:
        """The closed ranges, less the ids found some other way."""
        out = Gaps()
        taken = set(found)
        for lo, hi in self.ranges:
            for rowid in range(lo, hi + 1):
                if rowid not in taken:
                    out.add(rowid)
        return tuple(out.ranges)


def upper_bound(c: sqlite3.Connection | None, queries: Sequence[str],
                also: Iterable[int] = ()) -> int:
    """The highest id any of ``queries`` (or ``also``) knows of; 0 when none can tell."""
    best = max(also, default=0)
    if c is None:
        return best
    for query in queries:
        try:
            row = c.execute(query).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None and isinstance(row[0], int):
            best = max(best, row[0])
    return best


class RowidReader:
    """Reads a rowid table in chunks of ids from 1 up to ``bound`` and on past it, recording
    the ids it could not read in :attr:`gaps`."""

    def __init__(self, c: sqlite3.Connection, read_range: str, read_one: str,
                 bound: int) -> None:
        self._c = c
        self._range = read_range
        self._one = read_one
        self.bound = bound
        self.gaps = Gaps()
        self.highest = 0

    def chunks(self) -> Iterator[list[Row]]:
        low = 1
        idle = 0
        while low <= self.bound or idle < _TAIL_CHUNKS:
            high = low + _CHUNK - 1
            rows = self._chunk(low, high)
            if rows:
                self.highest = max(self.highest, int(rows[-1][0]))
                yield rows
            idle = 0 if rows or high < self.bound else idle + 1
            low = high + 1

    def _chunk(self, low: int, high: int) -> list[Row]:
        try:
            return list(self._c.execute(self._range, (low, high)))
        except sqlite3.DatabaseError:
            pass
        rows = []
        for rowid in range(low, high + 1):
            try:
                row = self._c.execute(self._one, (rowid,)).fetchone()
            except sqlite3.DatabaseError:
                if rowid <= self.bound:
                    self.gaps.add(rowid)
                elif self.gaps.tail is None:
                    self.gaps.tail = rowid
                continue
            if row is not None:
                rows.append(row)
        return rows


def live_ids(c: sqlite3.Connection | None, sources: Sequence[tuple[str, str]]
             ) -> tuple[set[int], bool]:
    """The ids the other b-trees of a table (an index, the FTS sizes) hold, and whether one of
    them could be read whole (then the set is every live id)."""
    ids: set[int] = set()
    if c is None:
        return ids, False
    for forward, backward in sources:
        got, whole = _both_ends(c, forward, backward)
        ids.update(int(r[0]) for r in got if isinstance(r[0], int))
        if whole:
            return {int(r[0]) for r in got if isinstance(r[0], int)}, True
    return ids, False


@dataclass
class KeyedRead:
    rows: dict[tuple[Any, Any], Row]
    complete: bool
    failed: set[tuple[Any, Any]]


def read_keyed(c: sqlite3.Connection | None, scans: tuple[str, str], read_one: str,
               keys: Iterable[tuple[Any, Any]]) -> KeyedRead:
    """A table keyed by its first two columns: both ends, then each known key not yet read."""
    if c is None:
        return KeyedRead({}, False, set())
    got, complete = _both_ends(c, *scans)
    rows = {(r[0], r[1]): r for r in got}
    failed = set()
    if not complete:
        for key in keys:
            if key in rows:
                continue
            try:
                row = c.execute(read_one, key).fetchone()
            except sqlite3.DatabaseError:
                failed.add(key)
                continue
            if row is not None:
                rows[key] = row
    return KeyedRead(rows, complete, failed)


def _both_ends(c: sqlite3.Connection, forward: str, backward: str) -> tuple[list[Row], bool]:
    """Rows up to the first damaged page, then (if there was one) from the end back to the
    last damaged page; ``True`` when the forward read reached the end."""
    rows: list[Row] = []
    try:
        for row in c.execute(forward):
            rows.append(row)
        return rows, True
    except sqlite3.DatabaseError:
        pass
    try:
        for row in c.execute(backward):
            rows.append(row)
    except sqlite3.DatabaseError:
        pass
    return rows, False
