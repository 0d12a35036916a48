"""The SQLite backend: one file (or ``:memory:``), WAL, FTS5 kept by triggers.

Another program that changes messages through its own ``sqlite3`` connection must first call
``register_functions(connection)``: the index triggers derive the indexed text with it.
"""

from ._functions import register as register_functions
from ._salvage import check_file as check_sqlite_file
from ._salvage import salvage as salvage_sqlite
from ._store import SQLiteStore

__all__ = ["SQLiteStore", "check_sqlite_file", "register_functions", "salvage_sqlite"]
