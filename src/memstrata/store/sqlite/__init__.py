"""The SQLite backend: one file (or ``:memory:``), WAL, FTS5 kept by triggers."""

from ._salvage import check_file as check_sqlite_file
from ._salvage import salvage as salvage_sqlite
from ._store import SQLiteStore

__all__ = ["SQLiteStore", "check_sqlite_file", "salvage_sqlite"]
