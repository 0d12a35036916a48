"""The HTTP providers against a real server on 127.0.0.1: request shapes, usage, retry rules."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import numpy as np
import pytest
from llm_server import LLMServer, Reply, chat_body

from memstrata.errors import InvalidInput, ProviderError
from memstrata.providers import (
    AnthropicChat,
    OpenAIChat,
    OpenAIEmbedder,
    RetryPolicy,
    make_embedder,
    make_llm,
)
from memstrata.providers._retry import retry_delay

FAST = RetryPolicy(max_retries=3, base_delay=0.001, max_delay=0.01)


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer() as running:
        yield running


def chat(server: LLMServer, *, timeout: float = 10.0, retry: RetryPolicy = FAST) -> OpenAIChat:
    return OpenAIChat("gpt-test", base_url=server.openai_url, api_key="sk-test",
                      timeout=timeout, retry=retry)


# --- request shapes and usage -----------------------------------------------------------------

async def test_openai_chat_sends_the_openai_shape_and_reads_usage(server: LLMServer) -> None:
    server.script(Reply(text="hello there", tokens_in=11, tokens_out=3))
    llm = chat(server)
    reply = await llm.complete([{"role": "user", "content": "hi"}], system="be brief",
                               max_tokens=50, json_mode=True)
    assert (reply.text, reply.tokens_in, reply.tokens_out) == ("hello there", 11, 3)
    assert reply.model == "gpt-test"
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.json == {
        "model": "gpt-test",
        "messages": [{"role": "system", "content": "be brief"},
                     {"role": "user", "content": "hi"}],
        "max_tokens": 50,
        "response_format": {"type": "json_object"},
    }
    assert (server.tokens_in, server.tokens_out) == (11, 3)



async def test_openai_chat_estimates_tokens_when_usage_is_missing(server: LLMServer) -> None:
    server.script(Reply(body=chat_body("x" * 40)))
    reply = await chat(server).complete([{"role": "user", "content": "y" * 80}])
    assert (reply.tokens_in, reply.tokens_out) == (20, 10)
    assert "response_format" not in server.requests[0].json
    assert "max_tokens" not in server.requests[0].json


async def test_anthropic_sends_messages_shape(server: LLMServer) -> None:
    server.script(Reply(text="bonjour", tokens_in=9, tokens_out=2))
    llm = AnthropicChat("claude-test", base_url=server.url, api_key="ak-test", retry=FAST)
    reply = await llm.complete(
        [{"role": "system", "content": "extra rule"}, {"role": "user", "content": "hi"}],
        system="be brief", json_mode=True)
    assert (reply.text, reply.tokens_in, reply.tokens_out) == ("bonjour", 9, 2)
    [request] = server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "ak-test"
    assert request.headers["anthropic-version"] == "2023-06-01"
    body = request.json
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert body["system"].startswith("be brief\n\nextra rule")
    assert "JSON" in body["system"]
    assert body["max_tokens"] > 0



async def test_anthropic_accepts_a_base_url_with_v1(server: LLMServer) -> None:
    llm = make_llm("anthropic:claude-test", base_url=server.openai_url)
    reply = await llm.complete([{"role": "user", "content": "hi"}])
    assert reply.text == "ok"
    assert server.requests[0].path == "/v1/messages"


async def test_openai_embedder_sends_dimensions_and_normalises(server: LLMServer) -> None:
    embedder = make_embedder("openai:text-embedding-3-small", base_url=server.openai_url)
    assert (embedder.model_id, embedder.dim) == ("openai:text-embedding-3-small@256", 256)
    vectors = await embedder.embed(["a", "", "b"])
    assert vectors.shape == (3, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    body = server.requests[0].json
    assert body["dimensions"] == 256 and body["model"] == "text-embedding-3-small"
    assert body["input"] == ["a", " ", "b"]  # the API rejects empty strings


async def test_openai_embedder_dimension_override_and_batches(server: LLMServer) -> None:
    embedder = OpenAIEmbedder(dim=64, base_url=server.openai_url, batch_size=2, retry=FAST)
    vectors = await embedder.embed([f"t{i}" for i in range(5)])
    assert vectors.shape == (5, 64)
    assert [len(b["input"]) for b in server.bodies()] == [2, 2, 1]
    again = await embedder.embed(["t3"])
    assert np.allclose(again[0], vectors[3])


async def test_embeddings_answered_out_of_order_are_put_back_in_order() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        texts = json.loads(request.content)["input"]
        data = [{"index": i, "embedding": [1.0, float(i)]} for i in range(len(texts))]
        return httpx.Response(200, json={"data": data[::-1]})

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    embedder = OpenAIEmbedder("local-model", dim=2, base_url="http://x/v1", client=client)
    vectors = await embedder.embed(["a", "b", "c"])
    assert np.allclose(vectors[:, 1] / vectors[:, 0], [0.0, 1.0, 2.0])
    await client.aclose()


async def test_embedder_rejects_wrong_dimension_from_server(server: LLMServer) -> None:
    embedder = OpenAIEmbedder("nomic-embed-text", dim=16, base_url=server.openai_url)
    with pytest.raises(ProviderError, match=r"shape"):
        await embedder.embed(["a"])  # the server answers 8-d when no dimensions are sent


def test_unknown_openai_embedding_model_needs_a_dimension() -> None:
    with pytest.raises(InvalidInput, match="@<dim>"):
        make_embedder("openai:nomic-embed-text")
    assert make_embedder("openai:nomic-embed-text@768").dim == 768


# --- retries -----------------------------------------------------------------------------------

async def test_500_is_retried_then_succeeds(server: LLMServer) -> None:
    server.script(Reply(status=500), Reply(status=503), Reply(text="fine"))
    reply = await chat(server).complete([{"role": "user", "content": "hi"}])
    assert reply.text == "fine"
    assert len(server.requests) == 3


@pytest.mark.parametrize("status", [408, 409, 429, 502])
async def test_transient_statuses_are_retried(server: LLMServer, status: int) -> None:
    server.script(Reply(status=status), Reply(text="fine"))
    assert (await chat(server).complete([{"role": "user", "content": "x"}])).text == "fine"
    assert len(server.requests) == 2


async def test_429_honours_retry_after(server: LLMServer) -> None:
    server.script(Reply(status=429, headers={"Retry-After": "1"}), Reply(text="late"))
    started = time.monotonic()
    reply = await chat(server).complete([{"role": "user", "content": "hi"}])
    assert reply.text == "late"
    assert time.monotonic() - started >= 0.95


async def test_retry_after_is_capped(server: LLMServer) -> None:
    policy = RetryPolicy(max_retries=1, base_delay=0.001, max_retry_after=0.05)
    server.script(Reply(status=429, headers={"Retry-After": "3600"}), Reply(text="soon"))
    started = time.monotonic()
    assert (await chat(server, retry=policy).complete(
        [{"role": "user", "content": "x"}])).text == "soon"
    assert time.monotonic() - started < 5


def test_backoff_grows_and_is_jittered() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    for attempt, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (5, 8.0)]:
        delays = {retry_delay(policy, attempt) for _ in range(20)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1
    assert retry_delay(policy, 0, retry_after=3.0) == 3.0


async def test_timeout_is_retried_then_raises(server: LLMServer) -> None:
    server.script(*[Reply(delay=2.0)] * 3)
    llm = chat(server, timeout=0.2, retry=RetryPolicy(max_retries=2, base_delay=0.001))
    with pytest.raises(ProviderError, match=r"openai:gpt-test.*Timeout") as caught:
        await llm.complete([{"role": "user", "content": "hi"}])
    assert isinstance(caught.value.__cause__, httpx.TimeoutException)
    assert len(server.requests) == 3


async def test_timeout_then_success(server: LLMServer) -> None:
    server.script(Reply(delay=2.0), Reply(text="back"))
    llm = chat(server, timeout=0.2)
    assert (await llm.complete([{"role": "user", "content": "hi"}])).text == "back"


@pytest.mark.parametrize("status", [400, 401, 404])
async def test_client_errors_are_not_retried(server: LLMServer, status: int) -> None:
    server.script(Reply(status=status, body={"error": {"message": "bad model name"}}))
    with pytest.raises(ProviderError, match=rf"HTTP {status}.*bad model name") as caught:
        await chat(server).complete([{"role": "user", "content": "hi"}])
    assert isinstance(caught.value.__cause__, httpx.HTTPStatusError)
    assert len(server.requests) == 1


async def test_malformed_json_raises_provider_error(server: LLMServer) -> None:
    server.script(Reply(body="<html>gateway</html>"))
    with pytest.raises(ProviderError, match=r"not JSON.*gateway"):
        await chat(server).complete([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 1


async def test_missing_fields_raise_provider_error(server: LLMServer) -> None:
    server.script(Reply(body={"choices": []}), Reply(body={"content": "nope"}))
    with pytest.raises(ProviderError, match="choices"):
        await chat(server).complete([{"role": "user", "content": "hi"}])
    with pytest.raises(ProviderError, match="content"):
        await AnthropicChat("c", base_url=server.url).complete(
            [{"role": "user", "content": "hi"}])


async def test_retries_exhausted_raise_provider_error(server: LLMServer) -> None:
    server.script(*[Reply(status=500, body="overloaded")] * 4)
    with pytest.raises(ProviderError, match=r"HTTP 500.*overloaded.*4 attempts"):
        await chat(server).complete([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 4


async def test_max_retries_zero_means_one_attempt(server: LLMServer) -> None:
    server.script(Reply(status=503))
    llm = make_llm("openai:m", base_url=server.openai_url, max_retries=0)
    with pytest.raises(ProviderError, match="HTTP 503"):
        await llm.complete([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 1


async def test_connection_refused_is_a_provider_error() -> None:
    with LLMServer() as gone:
        url = gone.openai_url
    llm = OpenAIChat("m", base_url=url, retry=RetryPolicy(max_retries=1, base_delay=0.001))
    with pytest.raises(ProviderError, match="ConnectError") as caught:
        await llm.complete([{"role": "user", "content": "hi"}])
    assert isinstance(caught.value.__cause__, httpx.ConnectError)


async def test_bad_url_is_a_provider_error() -> None:
    llm = OpenAIChat("m", base_url="ftp://nowhere/v1", retry=FAST)
    with pytest.raises(ProviderError, match="cannot call"):
        await llm.complete([{"role": "user", "content": "hi"}])


async def test_bad_messages_are_invalid_input(server: LLMServer) -> None:
    with pytest.raises(InvalidInput, match=r"messages\[0\]"):
        await chat(server).complete([{"content": "no role"}])
    assert server.requests == []
