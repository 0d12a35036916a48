"""Storage backends. All SQL of memstrata lives in this package."""

from .base import KeywordRow, SessionRow, Store
from .sqlite import SQLiteStore

__all__ = ["KeywordRow", "SQLiteStore", "SessionRow", "Store"]
