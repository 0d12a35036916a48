"""The data the web inspector's tests and screenshots show, written through the HTTP API of a
real server: two sessions of one tenant (one with a summary), two error records, and a session
of another tenant that the page must never show."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
from server_helpers import auth, make_key, running_server

from memstrata.providers import FakeLLM

MINUTE_NS = 60 * 10**9

SUMMARY = {
    "key_decisions": ["Do: take the train to Hualien, not a flight",
                      "Don't: book the 6 a.m. departure",
                      "Do: answer Mei in Traditional Chinese"],
    "past_discussions": [{"topic": "dates", "description": "April 14 to 16 suits everyone",
                          "direction": "settled", "last_discussed": "2026-03-02 19:40"}],
    "current_discussion": {"topic": "tickets", "description": "which train and which seats",
                           "perspectives": ["Mei: window seats on the sea side",
                                            "Atlas: the Puyuma express is 40 minutes faster"],
                           "direction": "book the 9:10 Puyuma"},
}
INJECTED = '<img src=x onerror="document.title=\'pwned\'"> is just text'
TRIP = [
    ("Mei", "user", "We want a long weekend in Hualien in April. Ideas?"),
    ("Atlas", "assistant", "Taroko Gorge, the Qixingtan coast and the night market."),
    ("Mei", "user", "My sister wants to see Taroko Gorge."),
    ("Atlas", "assistant", "Then stay two nights in Hualien city; the gorge is a day trip."),
    ("Mei", "user", "Should we fly from Taipei?"),
    ("Atlas", "assistant", "The train is simpler: about two hours and no airport transfers."),
    ("Mei", "user", "OK, the train to Hualien it is. No flight."),
    ("Atlas", "assistant", "Noted: train, not a flight. Which dates?"),
    ("Mei", "user", "April 14 to 16."),
    ("Atlas", "assistant", "April 14 to 16 works; it is before the holiday crowds."),
    ("Mei", "user", "我妹妹想去花蓮看太魯閣。"),
    ("Atlas", "assistant", "好的，太魯閣一日遊可以安排在 4 月 15 日。"),
    ("Mei", "user", INJECTED),
    ("Atlas", "assistant", "Understood, I will show it as text."),
]
TRIP += [(("Mei", "user") if i % 2 == 0 else ("Atlas", "assistant"))
         + (f"Ticket detail {i}: seat row {i + 3}, car {i % 5 + 1}.",) for i in range(16)]
SUMMARISED = 24
COOKING = [("Lin", "user", "How long should beef noodle soup simmer?"),
           ("Atlas", "assistant", "Two to three hours on a low heat."),
           ("Lin", "user", "And the noodles go in at the end.")]
ERRORS = [
    {"tool_name": "web_fetch", "keywords": ["timeout", "ReadTimeout"],
     "symptom": "GET https://example.org/timetable timed out after 10 s",
     "cause": "the railway site is slow in the evening",
     "action": "retry once with a 30 s timeout", "outcome": "resolved"},
    {"tool_name": "shell", "keywords": ["permission"], "symptom": "Permission denied: /etc/hosts",
     "action": "write to the working directory instead", "outcome": "failed"},
]


@dataclass(frozen=True)
class Served:
    base_url: str
    key: str
    db_path: str
    trip_start: int

    def get(self, path: str) -> Any:
        response = httpx.get(self.base_url + path, headers=auth(self.key), timeout=30)
        assert response.status_code == 200, response.text
        return response.json()


def post(base_url: str, key: str, path: str, body: Any) -> Any:
    response = httpx.post(base_url + path, headers=auth(key), json=body, timeout=30)
    assert response.status_code in (200, 201), response.text
    return response.json()


def batch(rows: list[tuple[str, str, str]], start: int, first: int = 0) -> dict[str, Any]:
    """``rows[first:]``, 7 minutes apart from ``start`` (row 0's time)."""
    return {"items": [{"sender": s, "role": r, "content": c, "at": start + i * 7 * MINUTE_NS}
                      for i, (s, r, c) in enumerate(rows) if i >= first]}


def wait_indexed(base_url: str, key: str, session: str) -> None:
    """Wait (not a timed assertion: the deadline only stops a hang) until every message of
    ``session`` has its embedding, so hybrid search sees them all."""
    deadline = time.monotonic() + 60
    while True:
        stats = httpx.get(f"{base_url}/v1/sessions/{session}", headers=auth(key)).json()
        if stats["index_backlog"] == 0:
            return
        assert time.monotonic() < deadline, f"indexing did not finish: {stats}"
        time.sleep(0.05)


def seed(base_url: str, db_path: str) -> Served:
    """Two sessions, a summary and two error records for one tenant (and a session of
    another tenant, which the page must never show)."""
    key = make_key(db_path, "acme", "inspector")
    now = time.time_ns()
    trip_start = now - 3 * 86400 * 10**9
    # The summary covers the first SUMMARISED messages; the rest came after it.
    post(base_url, key, "/v1/sessions/trip/messages/batch",
          batch(TRIP[:SUMMARISED], trip_start))
    summary = post(base_url, key, "/v1/sessions/trip/summarize", None)["summary"]
    assert summary["key_decisions"] == SUMMARY["key_decisions"]
    post(base_url, key, "/v1/sessions/trip/messages/batch",
          batch(TRIP, trip_start, first=SUMMARISED))
    post(base_url, key, "/v1/sessions/cooking/messages/batch",
          batch(COOKING, now - 3600 * 10**9))
    for record in ERRORS:
        post(base_url, key, "/v1/errors", record)
    other = make_key(db_path, "globex")
    post(base_url, other, "/v1/sessions/secret-plans/messages",
          {"role": "user", "content": "globex only"})
    wait_indexed(base_url, key, "trip")
    return Served(base_url, key, db_path, trip_start)


@contextlib.contextmanager
def seeded_server(db_path: str) -> Iterator[Served]:
    """A server on ``db_path`` whose summaries come from a FakeLLM answering SUMMARY, seeded."""
    with running_server(db_path, llm=FakeLLM(default=json.dumps(SUMMARY))) as base_url:
        yield seed(base_url, db_path)
