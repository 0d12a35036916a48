"""``/openapi.json`` declares the 5xx answers the service really gives: 500 (the database or
the service failed) on every route, and 507 (the disk is full) on every route that reads or
writes the database, which is every ``/v1`` route; each with the one error body, which is
what the error handlers send for those failures."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from memstrata.errors import DatabaseCorrupt, DiskFull, MemstrataError, StoreError
from memstrata.server import create_app
from memstrata.server._errors import answer_for
from memstrata.server._schemas import ErrorBody

ERROR_REF = "#/components/schemas/ErrorBody"


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    spec = create_app(":memory:").openapi()  # building the app does no I/O
    return [(path, method, op) for path, item in spec["paths"].items()
            for method, op in item.items()]


def _error_ref(op: dict[str, Any], status: str) -> str:
    return str(op["responses"][status]["content"]["application/json"]["schema"]["$ref"])


def test_every_route_declares_500_and_every_database_route_507() -> None:
    operations = _operations()
    database_routes = [(p, m, op) for p, m, op in operations if p.startswith("/v1/")]
    assert len(database_routes) >= 23
    for path, method, op in operations:
        assert _error_ref(op, "500") == ERROR_REF, (method, path)
    for path, method, op in database_routes:
        assert _error_ref(op, "507") == ERROR_REF, (method, path)
        assert "full" in op["responses"]["507"]["description"], (method, path)
    print(f"\nopenapi 5xx: routes={len(operations)} with_500={len(operations)} "
          f"with_507={len(database_routes)}")


@pytest.mark.parametrize(("exc", "status", "kind"), [
    (DiskFull("the disk holding the database is full"), 507, "disk_full"),
    (StoreError("SQLite error: disk I/O error"), 500, "store_error"),
    (DatabaseCorrupt("the database file is damaged"), 500, "store_error"),
])
def test_the_declared_body_is_what_a_5xx_answer_sends(exc: MemstrataError, status: int,
                                                     kind: str) -> None:
    answer = answer_for(exc)
    assert answer.status_code == status
    body = ErrorBody.model_validate(json.loads(bytes(answer.body)))
    assert body.error.type == kind and body.error.message


def test_an_unexpected_failure_answers_500_in_the_declared_body() -> None:
    """Not one of memstrata's errors (a bug): still the one JSON body, and no internals."""
    app = create_app(":memory:")

    async def fails() -> None:
        raise RuntimeError("secret internals")

    app.add_api_route("/v1/fails", fails)
    app.router.routes.insert(0, app.router.routes.pop())  # before the inspector's catch-all
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/v1/fails")
    assert answer.status_code == 500
    assert answer.headers["content-type"] == "application/json"
    body = ErrorBody.model_validate(answer.json())
    assert body.error.type == "internal_error" and "secret" not in body.error.message
