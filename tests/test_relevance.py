"""The relevance filter: trimming the summary to what matters for the new input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llm_server import LLMServer, Reply

from memstrata.errors import ProviderError
from memstrata.providers import FakeLLM, make_llm
from memstrata.summary._relevance import select_relevant

SUMMARY: dict[str, Any] = {
    "key_decisions": ["Do: answer in Traditional Chinese", "Do: use PostgreSQL",
                      "Don't: deploy on Fridays"],
    "past_discussions": [
        {"topic": "database", "description": "PostgreSQL chosen", "direction": "done",
         "last_discussed": "2024-05-01 10:00"},
        {"topic": "holiday", "description": "trip to Tainan", "direction": "",
         "last_discussed": "2024-05-02 10:00"}],
    "current_discussion": {"topic": "release", "description": "next release date",
                           "perspectives": [], "direction": "open"},
}


def verdict(decisions: list[Any], past: list[Any], current: object) -> str:
    return json.dumps({"key_decisions": decisions, "past_discussions": past,
                       "current_discussion": current})


async def test_only_relevant_entries_are_kept() -> None:
    llm = FakeLLM([verdict([1, 2], [1], False)])
    result = await select_relevant(SUMMARY, "which database index should I add?", llm)
    assert result.filtered and result.tokens_in > 0
    assert result.body == {"key_decisions": SUMMARY["key_decisions"][:2],
                           "past_discussions": [SUMMARY["past_discussions"][0]],
                           "current_discussion": {}}
    [call] = llm.calls
    assert call.json_mode
    prompt = call.messages[0]["content"]
    assert "which database index" in prompt and "2. Do: use PostgreSQL" in prompt
    assert "language, format" in (call.system or "")


async def test_nothing_relevant_means_no_block() -> None:
    # The language rule is always relevant, so only the topic entries go...
    rule = await select_relevant(SUMMARY, "what's 2+2?", FakeLLM([verdict([], [], False)]))
    assert rule.body == {"key_decisions": ["Do: answer in Traditional Chinese"],
                         "past_discussions": [], "current_discussion": {}}
    # ...and without a general rule, nothing relevant means no block at all.
    topics = {**SUMMARY, "key_decisions": SUMMARY["key_decisions"][1:]}
    nothing = await select_relevant(topics, "what's 2+2?", FakeLLM([verdict([], [], False)]))
    assert nothing.body is None


@pytest.mark.parametrize("reply", [ProviderError("down"), "not json",
                                   '{"key_decisions": "all"}', verdict([1], [], "yes")])
async def test_failure_keeps_everything(reply: str | ProviderError) -> None:
    assert (await select_relevant(SUMMARY, "hi", FakeLLM([reply]))).body == SUMMARY


async def test_no_model_no_query_or_nothing_to_choose_means_no_call() -> None:
    assert (await select_relevant(SUMMARY, "hi", None)).body == SUMMARY
    llm = FakeLLM()
    assert (await select_relevant(SUMMARY, "  ", llm)).body == SUMMARY
    digest = {"text": "earlier"}
    assert (await select_relevant(digest, "hi", llm)).body == digest
    assert (await select_relevant(None, "hi", llm)).body is None
    assert llm.calls == []


async def test_out_of_range_numbers_are_ignored() -> None:
    body = (await select_relevant(SUMMARY, "q",
                                  FakeLLM([verdict([3, 9, "2", True], [0], True)]))).body
    assert body is not None
    # 3 and "2" count, 9 and True do not; the language rule (1) is kept regardless.
    assert body["key_decisions"] == SUMMARY["key_decisions"]
    assert body["past_discussions"] == []
    assert body["current_discussion"] == SUMMARY["current_discussion"]


async def test_relevance_over_http() -> None:
    with LLMServer() as server:
        server.script(Reply(text=verdict([1], [], True), tokens_in=30, tokens_out=5))
        llm = make_llm("openai:decision-test", base_url=server.openai_url, max_retries=0,
                       field="decision_model")
        result = await select_relevant(SUMMARY, "when is the release?", llm)
        assert (result.tokens_in, result.tokens_out) == (30, 5)
        assert result.body is not None
        assert result.body["key_decisions"] == ["Do: answer in Traditional Chinese"]
        assert "when is the release?" in json.dumps(server.requests[0].json)
