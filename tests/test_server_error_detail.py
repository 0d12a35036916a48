"""Errors for clients, details for operators: an answer says what the client sent wrong or
which kind of failure the service had, never a path, a host or SQL; the log has the detail
under the request id that the answer carries in ``X-Request-Id``. NUL in a filter is invalid
input (422) on both backends."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from server_helpers import auth, make_key, running_server

from memstrata.errors import DatabaseCorrupt, DatabaseUnavailable, DiskFull, StoreError
from memstrata.server import create_app

SECRET_PATH = "/srv/private/tenants.db"
SECRET_HOST = "db.internal:5432/memstrata"


@pytest.mark.parametrize(("exc", "status"), [
    (DiskFull(f"the disk holding {SECRET_PATH} is full"), 507),
    (DatabaseCorrupt(f"{SECRET_PATH} is damaged: page 7"), 500),
    (StoreError(f"could not reach {SECRET_HOST}: SELECT id FROM messages"), 500),
    (DatabaseUnavailable(f"no connection to PostgreSQL at {SECRET_HOST}"), 503),
])
def test_a_failure_names_its_kind_and_request_id_and_logs_the_detail(
        exc: Exception, status: int, caplog: pytest.LogCaptureFixture) -> None:
    app = create_app(":memory:")

    async def fails() -> None:
        raise exc

    app.add_api_route("/v1/fails", fails)
    app.router.routes.insert(0, app.router.routes.pop())  # before the inspector's catch-all
    with TestClient(app, raise_server_exceptions=False) as client, \
            caplog.at_level(logging.ERROR, "memstrata.server"):
        answer = client.get("/v1/fails", headers={"X-Request-Id": "client-chose:42"})
        generated = client.get("/v1/fails", headers={"X-Request-Id": "bad id; <script>"})
    assert answer.status_code == status
    assert answer.headers["x-request-id"] == "client-chose:42"
    text = answer.text
    assert "/srv" not in text and "db.internal" not in text and "SELECT" not in text
    assert "client-chose:42" in answer.json()["error"]["message"]
    logged = [r.getMessage() for r in caplog.records]
    assert any("client-chose:42" in line and str(exc) in line for line in logged), logged
    fresh = generated.headers["x-request-id"]
    assert fresh != "bad id" and len(fresh) == 32 and fresh in generated.text


def test_every_answer_carries_a_request_id(tmp_path: Path) -> None:
    with TestClient(create_app(str(tmp_path / "m.db"))) as client:
        ok = client.get("/healthz")
        refused = client.get("/v1/sessions")
    assert len(ok.headers["x-request-id"]) == 32
    assert refused.status_code == 401 and refused.headers["x-request-id"] != \
        ok.headers["x-request-id"]


@pytest.fixture(params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    target = str(tmp_path / "m.db") if request.param == "sqlite" else \
        request.getfixturevalue("pg_url")
    key = make_key(target, "nul-" + request.param)
    with running_server(target) as url:
        yield url, key


def test_nul_in_any_filter_is_invalid_input(served: tuple[str, str]) -> None:
    url, key = served
    with httpx.Client(base_url=url, headers=auth(key), timeout=30) as client:
        assert client.post("/v1/errors", json={
            "tool_name": "fetch", "keywords": ["timeout"], "symptom": "timed out",
            "action": "retry"}).status_code == 201
        for path, params in [("/v1/errors", {"tool": "t\x00"}),
                             ("/v1/errors/search", {"q": "timeout", "tool": "t\x00"}),
                             ("/v1/errors/hint", {"tool": "t\x00", "error": "timed out"})]:
            answer = client.get(path, params=params)
            assert answer.status_code == 422, (path, answer.text)
            assert answer.json()["error"]["field"] in ("tool", "tool_name"), answer.text
        for path, params in [("/v1/errors/search", {"q": "time\x00out"}),
                             ("/v1/errors/hint", {"tool": "fetch", "error": "x\x00"}),
                             ("/v1/search", {"q": "a\x00b"})]:
            answer = client.get(path, params=params)
            assert answer.status_code < 500, (path, answer.text)
