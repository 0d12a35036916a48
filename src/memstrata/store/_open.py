"""Choosing a backend from the target a user names."""

from __future__ import annotations

from ..errors import InvalidInput
from ..types import SalvageReport
from ._protocols import Store
from .sqlite import SQLiteStore, check_sqlite_file, salvage_sqlite

__all__ = ["check_file", "check_target", "open_store", "salvage"]

_SUPPORTED = ("a file path, ':memory:', sqlite:///path/to/file.db or "
              "postgresql://user@host/database")
_POSTGRES_SCHEMES = ("postgresql", "postgres")


def check_target(target: object) -> str:
    """``target`` if it names a database a backend can open; ``InvalidInput`` naming the
    supported forms otherwise. No I/O."""
    if not _is_postgres(target):
        _sqlite_path(target)
    assert isinstance(target, str)
    return target


async def open_store(target: str, *, durability: str = "normal") -> Store:
    """Open (creating if needed) the database ``target`` names, on the backend its form
    picks (a path, ``sqlite:///…`` or ``:memory:``: SQLite; ``postgresql://…`` or
    ``postgres://…``: PostgreSQL), with migrations applied."""
    if _is_postgres(target):
        return await _open_postgres(target, durability)
    return await SQLiteStore.open(_sqlite_path(target), durability=durability)


async def _open_postgres(url: str, durability: str) -> Store:
    # Imported here: the backend needs the ``postgres`` extra, which SQLite users lack.
    try:
        from .postgres import PostgresStore
    except ImportError as exc:
        raise InvalidInput("target", "a PostgreSQL URL needs the postgres extra: pip install "
                           "'memstrata[postgres]'") from exc
    return await PostgresStore.open(url, durability=durability)


def _is_postgres(target: object) -> bool:
    return isinstance(target, str) and target.partition("://")[0] in _POSTGRES_SCHEMES


async def check_file(target: str) -> list[str]:
    """What is damaged in the database ``target`` names, one line per damaged table, index or
    full-text index (empty when healthy). Unlike ``Store.integrity_check`` this never opens the
    file as a store: nothing is migrated or written, so it works on a file too damaged to
    open. ``NotFound`` when the file does not exist."""
    _refuse_postgres(target, "check")
    return await check_sqlite_file(_sqlite_path(target))


async def salvage(source: str, dest: str) -> SalvageReport:
    """Copy every message, summary and error record that can still be read from the damaged
    database ``source`` into a new database ``dest`` (which must not exist), and say what was
    copied and what could not be read. The source is only read."""
    _refuse_postgres(source, "salvage")
    _refuse_postgres(dest, "salvage")
    return await salvage_sqlite(_sqlite_path(source), _sqlite_path(dest))


def _refuse_postgres(target: str, what: str) -> None:
    if _is_postgres(target):
        raise InvalidInput("target", f"{what} reads a SQLite database file; a PostgreSQL "
                           "server keeps its own pages consistent (use its tools, e.g. "
                           "amcheck and pg_dump)")


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
