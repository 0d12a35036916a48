"""``GET /metrics``: Prometheus text with requests, latency, limits, summary runs and the
indexer backlog, from a real server over a real SQLite file."""

from __future__ import annotations

from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families
from server_helpers import auth, make_key, running_server

from memstrata.providers import FakeLLM

MSG = {"role": "user", "content": "the ferry leaves at nine"}


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def _value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str,
           **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_requests_limits_summaries_and_backlog(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    admin = make_key(db, "*", scopes=["admin"])
    key = make_key(db, "acme", rate_per_second=1)
    with running_server(db, llm=FakeLLM(), background=False) as url, \
            httpx.Client(base_url=url) as http:
        before = _samples(http.get("/metrics", headers=auth(admin)).text)
        assert http.post("/v1/sessions/s/messages", headers=auth(key), json=MSG
                         ).status_code == 201
        assert http.get("/v1/sessions", headers=auth(key)).status_code == 429
        assert http.get("/v1/sessions/s/summary", headers=auth(admin)).status_code == 403
        fresh = make_key(db, "acme")
        summarized = http.post("/v1/sessions/s/summarize", headers=auth(fresh))
        assert summarized.status_code >= 400  # the model fails: no reply scripted
        scraped = http.get("/metrics", headers=auth(admin))
        assert scraped.status_code == 200
        assert scraped.headers["content-type"].startswith("text/plain")
        after = _samples(scraped.text)
        added = {"route": "/v1/sessions/{session}/messages", "method": "POST", "status": "201"}
        assert _value(after, "memstrata_requests_total", **added) == 1
        assert _value(after, "memstrata_request_seconds_count", **added) == 1
        assert _value(after, "memstrata_requests_total", route="/v1/sessions",
                      method="GET", status="429") == 1
        assert _value(after, "memstrata_rate_limited_total", limit="rate") == 1
        assert _value(after, "memstrata_summary_runs_total") > _value(
            before, "memstrata_summary_runs_total")
        assert _value(after, "memstrata_summary_failures_total") > _value(
            before, "memstrata_summary_failures_total")
        # No background indexer here: the message waits for its embedding.
        assert _value(after, "memstrata_index_backlog", tenant="acme") == 1
        # Only admin keys read the metrics.
        assert http.get("/metrics", headers=auth(fresh)).status_code == 403
        assert http.get("/metrics").status_code == 401
