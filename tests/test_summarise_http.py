"""The summary run against a real OpenAI-compatible HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from helpers import Saves
from llm_server import LLMServer, Reply, Request

from memstrata.config import Settings
from memstrata.errors import InvalidSummary, ProviderError, SummaryFailed
from memstrata.providers import make_llm
from memstrata.providers._base import LLM
from memstrata.summary._run import run_summary
from memstrata.summary._shapes import summary_schema, token_bound
from memstrata.types import Message, Role, Summary

T0 = 1_714_557_600 * 1_000_000_000


def msg(i: int, role: Role, content: str) -> Message:
    return Message(id=i, session="s", role=role, content=content, at=T0 + i * 60 * 10**9)


def dialogue(n: int) -> list[Message]:
    return [msg(i, "user" if i % 2 else "assistant", f"message-{i:02d} " + "x" * 10)
            for i in range(1, n + 1)]


def summary_text(tag: str) -> str:
    return json.dumps({"key_decisions": [f"Do: {tag}"], "past_discussions": [],
                       "current_discussion": {"topic": tag, "description": tag}})


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer() as running:
        yield running


def llm(server: LLMServer, *, retries: int = 0, timeout: float = 10.0) -> LLM:
    return make_llm("openai:summary-test", base_url=server.openai_url, api_key="k",
                    max_retries=retries, timeout=timeout)


def sent_text(request: Request) -> str:
    return json.dumps(request.json, ensure_ascii=False)


# 20 chars per message and a 50-char limit: chunks of two messages (user + reply).
SMALL = Settings(summary_chunk_chars=50, reply_lang="zh-TW")


async def test_multi_chunk_run_over_http(server: LLMServer) -> None:
    server.script(*(Reply(text=summary_text(t), tokens_in=100, tokens_out=20)
                    for t in ("a", "b", "c")))
    saves = Saves()
    result = await run_summary(llm(server), settings=SMALL, previous=None,
                               messages=dialogue(6), save=saves)
    assert [c[1] for c in saves.calls] == [2, 4, 6]
    assert (result.tokens_in, result.tokens_out) == (300, 60)
    assert [(c[2], c[3]) for c in saves.calls] == [(100, 20)] * 3
    first = server.requests[0].json
    sent = first["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["strict"] is True
    assert sent["json_schema"]["schema"]["properties"]["key_decisions"]["maxItems"] == 8
    assert first["max_tokens"] == token_bound(summary_schema(max_key_decisions=8,
                                                             max_past_discussions=8))
    system = first["messages"][0]
    assert system["role"] == "system" and "Traditional Chinese" in system["content"]
    assert "zh-TW" in system["content"]
    assert '"Do: a"' in server.requests[1].json["messages"][0]["content"]


async def test_failure_in_the_middle_stops_before_later_chunks_reach_the_server(
        server: LLMServer) -> None:
    server.script(Reply(text=summary_text("a")), Reply(status=500), Reply(text=summary_text("c")))
    saves = Saves()
    messages = dialogue(6)
    with pytest.raises(ProviderError) as caught:
        await run_summary(llm(server), settings=SMALL, previous=None, messages=messages,
                          save=saves)
    assert isinstance(caught.value, SummaryFailed)
    assert [c[1] for c in saves.calls] == [2]
    assert len(server.requests) == 2
    assert not any("message-05" in sent_text(r) for r in server.requests)
    assert server.pending == 1

    # The next run starts after the saved cursor and reaches the server with chunks 2 and 3.
    body, cursor, _, _ = saves.calls[-1]
    previous = Summary(session="s", kind="llm", body=body, cursor=cursor, created_at=0)
    server.script(Reply(text=summary_text("c2")))
    await run_summary(llm(server), settings=SMALL, previous=previous,
                      messages=[m for m in messages if m.id > cursor], save=saves)
    resumed = [sent_text(r) for r in server.requests[2:]]
    assert "message-03" in resumed[0] and "message-01" not in resumed[0]
    assert "message-05" in resumed[1]
    assert [c[1] for c in saves.calls] == [2, 4, 6]


async def test_429_with_retry_after_is_retried_and_the_run_succeeds(server: LLMServer) -> None:
    server.script(Reply(status=429, headers={"Retry-After": "0"}),
                  Reply(text=summary_text("ok")))
    saves = Saves()
    await run_summary(llm(server, retries=2), settings=SMALL, previous=None,
                      messages=dialogue(2), save=saves)
    assert len(server.requests) == 2 and [c[1] for c in saves.calls] == [2]


async def test_timeout_fails_the_chunk(server: LLMServer) -> None:
    server.script(Reply(text=summary_text("late"), delay=2.0))
    saves = Saves()
    with pytest.raises(SummaryFailed) as caught:
        await run_summary(llm(server, timeout=0.2), settings=SMALL, previous=None,
                          messages=dialogue(2), save=saves)
    assert saves.calls == []
    assert "Timeout" in str(caught.value)


async def test_a_malformed_server_response_fails_the_chunk(server: LLMServer) -> None:
    server.script(Reply(body="this is not json"))
    with pytest.raises(SummaryFailed) as caught:
        await run_summary(llm(server), settings=SMALL, previous=None, messages=dialogue(2),
                          save=Saves())
    assert not isinstance(caught.value.__cause__, InvalidSummary)


async def test_a_reply_that_is_not_a_summary_fails_the_chunk(server: LLMServer) -> None:
    server.script(Reply(text='{"answer": "I summarised it"}'), Reply(text=summary_text("x")))
    saves = Saves()
    with pytest.raises(SummaryFailed) as caught:
        await run_summary(llm(server), settings=SMALL, previous=None, messages=dialogue(4),
                          save=saves)
    assert isinstance(caught.value.__cause__, InvalidSummary)
    assert saves.calls == [] and len(server.requests) == 1


async def test_decision_model_over_http_drops_noise_and_counts_its_tokens(
        server: LLMServer) -> None:
    verdict = {"conversations": [{"index": 1, "noise": True, "confidence": 0.9}],
               "overturned_key_decisions": [], "overturned_past_discussions": []}
    server.script(Reply(text=json.dumps(verdict), tokens_in=40, tokens_out=10),
                  Reply(text=summary_text("kept"), tokens_in=100, tokens_out=20))
    saves = Saves()
    decision = make_llm("openai:decision-test", base_url=server.openai_url, max_retries=0,
                        field="decision_model")
    result = await run_summary(llm(server), decision_llm=decision, settings=Settings(),
                               previous=None, messages=dialogue(4), save=saves)
    assert server.requests[0].json["model"] == "decision-test"
    summary_request = sent_text(server.requests[1])
    assert "message-01" not in summary_request and "message-03" in summary_request
    assert (result.tokens_in, result.tokens_out) == (140, 30)
    assert [(c[1], c[2], c[3]) for c in saves.calls] == [(4, 140, 30)]
