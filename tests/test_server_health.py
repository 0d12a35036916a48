"""Health checks that tell the truth: ``/readyz`` reads the database, ``HEAD`` works."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
from server_helpers import running_server


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
