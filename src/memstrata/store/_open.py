"""Choosing a backend from the target a user names."""

from __future__ import annotations

from ..errors import InvalidInput
from ._protocols import Store
from .sqlite import SQLiteStore

__all__ = ["check_target", "open_store"]

_SUPPORTED = "a file path, ':memory:' or sqlite:///path/to/file.db"


def check_target(target: object) -> str:
    """``target`` if it names a database a backend can open; ``InvalidInput`` naming the
    supported forms otherwise. No I/O."""
    _sqlite_path(target)
    assert isinstance(target, str)
    return target


async def open_store(target: str, *, durability: str = "normal") -> Store:
    """Open (creating if needed) the database ``target`` names, on the backend its form
    picks (a path, ``sqlite:///…`` or ``:memory:``: SQLite), with migrations applied."""
    return await SQLiteStore.open(_sqlite_path(target), durability=durability)


def _sqlite_path(target: object) -> str:
    if not isinstance(target, str) or not target:
        raise InvalidInput("target", f"must be {_SUPPORTED}")
    if target == ":memory:" or "://" not in target:
        return target
    scheme, _, rest = target.partition("://")
    if scheme != "sqlite":
        raise InvalidInput("target", f"unsupported database URL scheme {scheme!r}; use "
                           f"{_SUPPORTED}")
    path = rest[1:] if rest.startswith("/") else rest  # sqlite:////abs -> /abs
    if not path:
        raise InvalidInput("target", "the sqlite URL names no file")
    return path
