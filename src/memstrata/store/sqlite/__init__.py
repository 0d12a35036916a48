"""The SQLite backend: one file (or ``:memory:``), WAL, FTS5 kept by triggers."""

from ._store import SQLiteStore

__all__ = ["SQLiteStore"]
