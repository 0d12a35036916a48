"""Which file a SQLite store has open, and whether its path still names that file.

SQLite keeps the file descriptor it opened. When the file is deleted, or another file is
renamed over its path (a restore, a careless ``mv``, a sync tool), the connection goes on
reading and writing the old inode: every later write is acknowledged and then lost, since
nothing can open that inode again. So the store remembers the file's ``(st_dev, st_ino)`` when
it opens, and every write transaction compares it with what the path names now (one ``stat``,
about a microsecond), after taking the write lock, and refuses to write when they differ.

The WAL needs care too. SQLite names it after the path (``…-wal``), and a WAL carries nothing
that ties it to one database file: left beside a file that replaced ours, it is replayed onto
that file at its next open, mixing our pages into it. And SQLite does not checkpoint a moved
file at close, so the WAL stays. So closing a store whose file was moved or deleted first
empties its WAL into the file it belongs to (``wal_checkpoint(TRUNCATE)``: a file moved
elsewhere keeps every commit; the WAL left at the path is empty, so replays nothing).
"""

from __future__ import annotations

import os
import sqlite3

from ...errors import StoreError

__all__ = ["FileIdentity", "empty_wal"]


def _is_memory(path: str) -> bool:
    return path == ":memory:" or path.startswith("file::memory:") or "mode=memory" in path


class FileIdentity:
    """The device and inode a database path named when the store opened it."""

    def __init__(self, path: str, device: int, inode: int) -> None:
        self.path = path
        self._id = (device, inode)

    @classmethod
    def of(cls, path: str) -> FileIdentity | None:
        """The identity of the file at ``path`` now; ``None`` for an in-memory database or
        a URI (``file:…``), which this check does not follow."""
        if _is_memory(path) or path.startswith("file:"):
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None  # nothing to compare with; SQLite reports its own open errors
        return cls(path, st.st_dev, st.st_ino)

    def moved(self) -> bool:
        """Whether the path no longer names the file that is open (deleted or replaced)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return True
        return (st.st_dev, st.st_ino) != self._id

    def verify(self) -> None:
        """``StoreError`` when the path no longer names the file that is open."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            raise StoreError(
                f"the database file {self.path!r} was deleted while it was open; a write "
                "now would go to a file nobody can open again, so nothing was written. "
                "Restore the file or open the database again (a new, empty one)") from None
        except OSError as exc:
            raise StoreError(f"cannot check the database file {self.path!r}: {exc}; "
                             "nothing was written") from exc
        if (st.st_dev, st.st_ino) != self._id:
            raise StoreError(
                f"the database file {self.path!r} was replaced by another file while it was "
                "open (renamed or copied over it); this connection still has the old file, "
                "so nothing was written. Open the database again to use the file now at "
                "that path")


def empty_wal(c: sqlite3.Connection) -> None:
    """Checkpoint the whole WAL into the open file and truncate it (run before closing a
    store whose file was moved or deleted; see the module docstring)."""
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
