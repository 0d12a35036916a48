"""The short way through FastAPI for add, context and search in a session answers every
request exactly as the full way does.

A request the short way declines goes through FastAPI; a query parameter no route reads
(``zz``) makes it decline whatever else the request holds, while FastAPI ignores it. So the
same request with and without ``zz`` must get the same answer: with it, FastAPI's own
answer; without it, the short way's whenever its reader takes the request.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_helpers import auth, make_key, running_server
from starlette.datastructures import QueryParams

from memstrata.server._quick import Sent
from memstrata.server._routes_messages import _add_args, _context_args, _search_args

_SESSION = "chat-1"
_LINES = ["My sister Ana was born in 1990.", "Noted.", "We ship releases every Tuesday.",
          "I am allergic to peanuts.", "Our cat is called Mochi.", "了解。",
          "The deployment goes out on Tuesdays after the review.", "ok"]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    db = str(tmp_path_factory.mktemp("quick") / "m.db")
    key = make_key(db, "acme")
    with running_server(db) as url, httpx.Client(base_url=url, headers=auth(key),
                                                 timeout=30) as client:
        for i, line in enumerate(_LINES):
            role = "user" if i % 2 == 0 else "assistant"
            r = client.post(f"/v1/sessions/{_SESSION}/messages",
                            json={"role": role, "content": line})
            assert r.status_code == 201, r.text
        yield client


def _both_ways(api: httpx.Client, method: str, path: str, query: list[tuple[str, str]],
               **kwargs: Any) -> tuple[httpx.Response, httpx.Response]:
    sent: list[tuple[str, str | int | float | bool | None]] = list(query)
    short = api.request(method, path, params=sent, **kwargs)
    full = api.request(method, path, params=[*sent, ("zz", "1")], **kwargs)
    return short, full


def _same(short: httpx.Response, full: httpx.Response) -> None:
    assert short.status_code == full.status_code, (short.text, full.text)
    assert short.headers["content-type"] == full.headers["content-type"]
    assert short.json() == full.json()


# Plain values and the spellings FastAPI reads differently or refuses.
_VALUES = ["", "5", "05", "+5", " 5", "0", "32", "33", "-1", "0.25", "1e-2", "nan", "-0.5",
           "true", "false", "True", "1", "yes", "off", "all", "1d", "7d", "x", "hybrid",
           "keyword", "semantic", "openai", "anthropic", "plain", "Mochi", "sister",
           "when do we ship", "花生"]
_SEARCH = ["q", "match", "time_range", "limit", "min_score", "exclude_window"]
_CONTEXT = ["query", "format"]


def _queries(names: list[str]) -> st.SearchStrategy[list[tuple[str, str]]]:
    pair = st.tuples(st.sampled_from(names), st.sampled_from(_VALUES))
    return st.lists(pair, max_size=5)


@settings(max_examples=120, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(query=_queries(_SEARCH))
def test_search_in_a_session_answers_as_fastapi_does(api: httpx.Client,
                                                     query: list[tuple[str, str]]) -> None:
    _same(*_both_ways(api, "GET", f"/v1/sessions/{_SESSION}/search", query))


@settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(query=_queries(_CONTEXT))
def test_context_answers_as_fastapi_does(api: httpx.Client,
                                         query: list[tuple[str, str]]) -> None:
    _same(*_both_ways(api, "GET", f"/v1/sessions/{_SESSION}/context", query))


@pytest.mark.parametrize("body, content_type", [
    (b'{"role": "user", "content": "hello"}', "text/plain"),
    (b'{"role": "user", "content": "hello"', "application/json"),
    (b'{"role": "robot", "content": "hello"}', "application/json"),
    (b'{"role": "user", "content": "hello", "colour": "red"}', "application/json"),
    (b'{"role": "user"}', "application/json"),
    (b'[]', "application/json"),
    (b'', "application/json"),
    (b'{"role": "user", "content": "\xff"}', "application/json"),
    (b'{"role": "user", "content": ""}', "application/json"),
    (b'{"role": "user", "content": "hi", "at": "yesterday"}', "application/json"),
])
def test_a_refused_add_answers_as_fastapi_does_and_stores_nothing(
        api: httpx.Client, body: bytes, content_type: str) -> None:
    before = api.get(f"/v1/sessions/{_SESSION}").json()["messages"]
    short, full = _both_ways(api, "POST", f"/v1/sessions/{_SESSION}/messages", [],
                             content=body, headers={"Content-Type": content_type})
    _same(short, full)
    assert short.status_code in (415, 422)
    assert api.get(f"/v1/sessions/{_SESSION}").json()["messages"] == before


def test_an_add_the_short_way_takes_stores_one_message_as_fastapi_does(
        api: httpx.Client) -> None:
    body = {"role": "user", "content": "I moved to Porto in May.", "sender": "ana",
            "meta": {"k": 1}, "at_ns": "1777716000123456789"}
    before = api.get(f"/v1/sessions/{_SESSION}").json()["messages"]
    short, full = _both_ways(api, "POST", f"/v1/sessions/{_SESSION}/messages", [],
                             json=body)
    assert short.status_code == full.status_code == 201
    one, two = short.json(), full.json()
    assert two["id"] > one["id"]
    for field in ("role", "content", "sender", "meta", "at", "at_iso", "at_ns", "session"):
        assert one[field] == two[field], field
    assert api.get(f"/v1/sessions/{_SESSION}").json()["messages"] == before + 2


def test_each_reader_takes_a_plain_request_and_declines_an_unusual_one() -> None:
    path = {"session": "s"}

    def sent(query: str, body: bytes = b"") -> Sent:
        return Sent(QueryParams(query), path, body)

    assert _search_args(sent("q=Mochi&limit=5&min_score=-0.5&exclude_window=false")) == {
        "session": "s", "q": "Mochi", "limit": 5, "min_score": -0.5, "exclude_window": False}
    assert _search_args(sent("q=Mochi&match=keyword&time_range=7d")) == {
        "session": "s", "q": "Mochi", "match": "keyword", "time_range": "7d"}
    for odd in ("limit=5", "q=a&q=b", "q=a&limit=05", "q=a&limit=+5", "q=a&min_score=1e-2",
                "q=a&exclude_window=yes", "q=a&other=1"):
        assert _search_args(sent(odd)) is None, odd
    assert _context_args(sent("")) == {"session": "s"}
    assert _context_args(sent("format=openai&query=hi")) == {"session": "s", "format": "openai",
                                                              "query": "hi"}
    for odd in ("format=xml", "format=plain&format=openai", "zz=1"):
        assert _context_args(sent(odd)) is None, odd
    taken = _add_args(sent("", b'{"role": "user", "content": "hi"}'))
    assert taken is not None and taken["body"].content == "hi"
    for body in (b"{", b'{"role": "user"}', b'{"role": "user", "content": "hi", "x": 1}'):
        assert _add_args(sent("", body)) is None, body
    assert _add_args(sent("zz=1", b'{"role": "user", "content": "hi"}')) is None
