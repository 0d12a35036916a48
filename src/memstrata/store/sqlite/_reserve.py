"""Room kept back for deletes: a file of zeros beside the database (``<file>-reserve``).

On a full disk SQLite cannot even delete: the delete is written to the WAL first, and the WAL
can only start over once its pages are copied into the database file, which may need to grow.
So a database file on disk keeps :data:`RESERVE_BYTES` in reserve, made while there is plenty
of room; a delete that meets a full disk gives the reserve back to the file system, and is
tried again. The reserve is made again once the disk has room (never on a nearly full one).
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["RESERVE_BYTES", "release", "replenish", "reserve_path"]

RESERVE_BYTES = 4 << 20
# The reserve is made only while the disk has this many times its size free.
_ROOM_FACTOR = 4


def reserve_path(db_path: str) -> str:
    return db_path + "-reserve"


def replenish(db_path: str) -> None:
    """Make the reserve if it is missing and the disk has ample room; best effort."""
    path = reserve_path(db_path)
    if os.path.exists(path):
        return
    with contextlib.suppress(OSError):
        st = os.statvfs(os.path.dirname(os.path.abspath(db_path)))
        if st.f_bavail * st.f_frsize < _ROOM_FACTOR * RESERVE_BYTES:
            return
        with open(path + ".tmp", "wb") as out:
            out.write(b"\0" * RESERVE_BYTES)  # blocks written, not a sparse file
        os.replace(path + ".tmp", path)


def release(db_path: str) -> bool:
    """Give the reserve back to the file system; whether there was one."""
    try:
        os.unlink(reserve_path(db_path))
    except OSError:
        return False
    return True
