"""The service keeps its own OpenAPI contract: schemathesis generates requests for every
route from ``/openapi.json`` (valid and invalid ones, with a fixed seed) and checks that no
answer is a 5xx and that each status, content type and body is one the schema declares."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)
from server_helpers import auth, make_key, running_server

from memstrata import Settings
from memstrata.server import create_app

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    db = str(tmp_path_factory.mktemp("schema") / "memory.db")
    key = make_key(db, "acme")
    with running_server(db, settings=Settings(summary_cron=None, window_messages=4)) as url:
        headers = auth(key)
        for i in range(6):  # some data, so reads of existing things are exercised too
            httpx.post(f"{url}/v1/sessions/s1/messages", headers=headers,
                       json={"role": "user" if i % 2 == 0 else "assistant",
                             "content": f"message {i}"}).raise_for_status()
        yield url, key


@schemathesis.serializer("application/x-ndjson")
def ndjson(_context: Any, value: Any) -> bytes:
    """An import body: the schema describes one record, sent as one JSON line (a generated
    string, in the negative phase, is sent as it is)."""
    return value.encode() if isinstance(value, str) else (json.dumps(value) + "\n").encode()

# The schema the service publishes (building the app does no I/O); the requests go over
# real HTTP to the server of the ``service`` fixture.
schema = schemathesis.openapi.from_dict(create_app(":memory:").openapi())


@schema.parametrize()
@settings(max_examples=15, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate])
def test_every_route_keeps_the_contract(case: Any, service: tuple[str, str]) -> None:
    case.call_and_validate(base_url=service[0], headers=auth(service[1]), checks=CHECKS)


# The same schema, generating only data it calls valid: each such request must be accepted
# (2xx, or 404 for a thing that does not exist), so every rule the service enforces is in it.
def _times_in_the_past(spec: dict[str, Any]) -> dict[str, Any]:
    """The document with every ``at`` bounded by a time long past and no ``at_ns``: the rule
    that a time be at most five minutes ahead of the server's clock moves with the clock, and
    ``at_ns`` must equal ``at`` when both are given (a rule across two fields), so the served
    schema states both in words only, and generated requests must not cross them."""
    for body in spec["components"]["schemas"].values():
        properties = body.get("properties", {})
        if "at" in properties:
            properties.pop("at_ns", None)
        at = properties.get("at")
        if at is not None:
            for option in at.get("anyOf", []):
                if option.get("type") == "integer":
                    option["maximum"] = 1_700_000_000_000_000_000
    return spec


positive = schemathesis.openapi.from_dict(_times_in_the_past(create_app(":memory:").openapi()))
positive.config.generation.update(modes=[GenerationMode.POSITIVE])


@positive.parametrize()
@settings(max_examples=15, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate])
def test_valid_data_by_the_schema_is_accepted(case: Any, service: tuple[str, str]) -> None:
    case.call_and_validate(base_url=service[0], headers=auth(service[1]),
                           checks=[*CHECKS, positive_data_acceptance])


def test_every_route_declares_its_errors(service: tuple[str, str]) -> None:
    spec = httpx.get(f"{service[0]}/openapi.json").json()
    error_ref = "#/components/schemas/ErrorBody"
    operations = [(path, method, op) for path, item in spec["paths"].items()
                  for method, op in item.items()]
    assert len(operations) >= 25
    for path, method, op in operations:
        declared = op["responses"]
        if path.startswith("/v1/"):
            for status in ("401", "422", "503"):
                schema_ref = declared[status]["content"]["application/json"]["schema"]["$ref"]
                assert schema_ref == error_ref, (method, path, status)
            assert op.get("security"), (method, path)
        assert not any(s.startswith("5") and s not in ("500", "502", "503", "507")
                       for s in declared)
    assert "ApiKey" in spec["components"]["securitySchemes"]
