"""Moving a whole memstrata database from SQLite to PostgreSQL (``migrate``), backend-neutral:
the order of the tables, batches, resuming, the progress callback and the final check. The SQL
of each side lives in its backend (``sqlite._export_rows``, ``postgres._import_rows``).

Every row keeps its ids, so summary cursors, exported ids and the indexer's queue stay valid.
Each batch is one transaction on the target, and rows the target already holds are skipped
(after checking they are the same), so an interrupted run is resumed by running it again and
a finished one copies nothing the second time. The target's id counters are moved past the
source's highest ids before the first message is copied, so a target used after an
interruption never gives out an id the source still holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import InvalidInput, StoreError
from ..types import MigratedTable, MigrationReport
from ._migrate_tables import TABLES
from ._open import _is_postgres, _sqlite_path
from .sqlite._export_rows import SQLiteRows

if TYPE_CHECKING:  # the postgres extra is imported only when a migration runs
    from .postgres._import_rows import PostgresRows

__all__ = ["Progress", "migrate"]

Progress = Callable[[str, int, int], None]
"""Called as ``progress(table, rows_done, rows_in_table)`` when a table starts and after each
batch; an exception it raises stops the migration there (what is committed stays)."""

_BATCH = 2000


async def migrate(source: str, target: str, progress: Progress | None = None, *,
                  batch: int = _BATCH) -> MigrationReport:
    """Copy every tenant's messages, sessions, summaries, vectors, index queue, error records
    and API keys from the SQLite database ``source`` (a path or ``sqlite:///…``) into the
    PostgreSQL database ``target`` (``postgresql://…``), keeping ids, in batches of
    ``batch`` rows, and compare the counts per table and tenant at the end.

    The source is not changed (except that an older memstrata file is first brought to the
    current schema, as opening it anywhere does). ``StoreError``, before anything is written,
    naming every row that holds NUL in text (PostgreSQL cannot store it); ``StoreError`` when
    the target holds other data under the same ids (nothing of that batch is written); the
    report's ``differences`` name any table whose counts disagree afterwards.
    """
    if _is_postgres(source):
        raise InvalidInput("source", "must be a SQLite database (a file path or "
                           "sqlite:///path); migrate copies SQLite into PostgreSQL")
    if not _is_postgres(target):
        raise InvalidInput("target", "must be a PostgreSQL URL (postgresql://user@host/db)")
    if batch < 1:
        raise InvalidInput("batch", f"must be at least 1, got {batch}")
    reader = await SQLiteRows.open(_sqlite_path(source))
    try:
        await _refuse_nul(reader)
        writer = await _open_target(target)
        try:
            return await _copy(reader, writer, progress, batch)
        finally:
            await writer.close()
    finally:
        await reader.close()


async def _refuse_nul(reader: SQLiteRows) -> None:
    """Before anything is written: every row PostgreSQL could not store, named at once."""
    rows = await reader.nul_rows()
    if rows:
        raise StoreError(
            f"{len(rows):,} row{'s' if len(rows) != 1 else ''} of the source hold a NUL "
            "character (U+0000), which PostgreSQL cannot store in text (memstrata refuses NUL "
            "on every backend; this file holds text written before it did). Nothing was "
            "written to the target: forget or fix them in the source, then run migrate "
            "again:\n" + "\n".join(f"  {r}" for r in rows))


async def _open_target(url: str) -> PostgresRows:
    # Imported here: the backend needs the ``postgres`` extra, which SQLite users lack.
    try:
        from .postgres._import_rows import PostgresRows
    except ImportError as exc:
        raise InvalidInput("target", "a PostgreSQL URL needs the postgres extra: pip install "
                           "'memstrata[postgres]'") from exc
    return await PostgresRows.open(url)


async def _copy(reader: SQLiteRows, writer: PostgresRows, progress: Progress | None,
                batch: int) -> MigrationReport:
    before = await reader.counts()
    tenants = sorted({tenant for per_tenant in before.values() for tenant in per_tenant})
    message_ceiling, error_ceiling = await reader.ceilings()
    await writer.prepare(tenants, message_ceiling)
    await writer.raise_counters(message_ceiling, error_ceiling)
    tables: list[MigratedTable] = []
    for table in TABLES:
        total = sum(before[table.name].values())
        done = copied = 0
        if progress is not None:
            progress(table.name, 0, total)
        async for rows in reader.batches(table, batch):
            copied += await writer.write(table, rows)
            done += len(rows)
            if progress is not None:
                progress(table.name, done, total)
        tables.append(MigratedTable(name=table.name, source=total, copied=copied,
                                    present=done - copied, target=0))
    after = await writer.counts(tenants)
    differences: list[str] = []
    final: list[MigratedTable] = []
    for t in tables:
        have, want = after.get(t.name, {}), before[t.name]
        final.append(MigratedTable(name=t.name, source=t.source, copied=t.copied,
                                   present=t.present, target=sum(have.values())))
        for tenant in sorted(set(have) | set(want)):
            if have.get(tenant, 0) != want.get(tenant, 0):
                differences.append(f"{t.name} of tenant {tenant!r}: {want.get(tenant, 0):,} "
                                   f"in the source, {have.get(tenant, 0):,} in the target")
    return MigrationReport(source=reader.path, target=writer.where, tables=tuple(final),
                           differences=tuple(differences))
