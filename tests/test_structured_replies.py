"""Structured, bounded replies over real HTTP on 127.0.0.1: the JSON Schema each call sends,
the fallback when a server refuses a form, the ``max_tokens`` bound and what a cut reply does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from helpers import Saves
from llm_server import LLMServer, Reply, Request, anthropic_body, chat_body

from memstrata.config import Settings
from memstrata.errors import InvalidInput, InvalidSummary, ProviderError, SummaryFailed
from memstrata.providers import (
    AnthropicChat,
    OpenAIChat,
    ReplySchema,
    RetryPolicy,
    forget_refusals,
)
from memstrata.summary._relevance import select_relevant
from memstrata.summary._run import decide, parse_decision, run_summary
from memstrata.summary._shapes import (
    DECISION_CHARS,
    DESCRIPTION_CHARS,
    DIRECTION_CHARS,
    MAX_PERSPECTIVES,
    PERSPECTIVE_CHARS,
    TOPIC_CHARS,
    decision_schema,
    max_chars,
    relevance_schema,
    summary_schema,
    token_bound,
)
from memstrata.types import Message, Role

FAST = RetryPolicy(max_retries=0, base_delay=0.001, max_delay=0.01)
T0 = 1_714_557_600 * 1_000_000_000
SCHEMA = ReplySchema(name="answer", schema={
    "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
    "additionalProperties": False})
SUMMARY = json.dumps({"key_decisions": ["Do: use PostgreSQL"], "past_discussions": [],
                      "current_discussion": {"topic": "db", "description": "picking a store",
                                             "perspectives": [], "direction": "PostgreSQL"}})
MEMORY = {"key_decisions": ["Do: use PostgreSQL", "Don't: use emojis"],
          "past_discussions": [{"topic": "hosting", "description": "VPS or PaaS",
                                "direction": "VPS", "last_discussed": "2024-05-01 10:00"}],
          "current_discussion": {"topic": "db", "description": "store", "perspectives": [],
                                 "direction": ""}}


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer() as running:
        yield running
    # A later server may get the same port: it must not inherit this one's refusals.
    forget_refusals()


def chat(server: LLMServer) -> OpenAIChat:
    return OpenAIChat("m", base_url=server.openai_url, retry=FAST)


def refuse(message: str, status: int = 400) -> Reply:
    return Reply(status=status, body={"error": {"message": message, "type": "invalid_request"}})


def cut(text: str) -> Reply:
    body = chat_body(text, tokens_in=10, tokens_out=5)
    body["choices"][0]["finish_reason"] = "length"
    return Reply(body=body)


def dialogue(n: int) -> list[Message]:
    roles: tuple[Role, Role] = ("user", "assistant")
    return [Message(id=i, session="s", role=roles[(i + 1) % 2], content=f"message {i}",
                    at=T0 + i * 60 * 10**9) for i in range(1, n + 1)]


def formats(server: LLMServer) -> list[Any]:
    return [(b.get("response_format") or {}).get("type") for b in server.bodies()]


# --- the OpenAI-style provider: forms and fallback --------------------------------------------

async def test_schema_goes_out_as_strict_json_schema(server: LLMServer) -> None:
    await chat(server).complete([{"role": "user", "content": "hi"}], schema=SCHEMA,
                                max_tokens=40)
    [body] = server.bodies()
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "answer", "strict": True, "schema": dict(SCHEMA.schema)}}
    assert body["max_tokens"] == 40


async def test_a_refused_form_falls_back_step_by_step_and_is_remembered(
        server: LLMServer) -> None:
    server.script(refuse("strict mode: 'maxLength' is not permitted in schema"),
                  refuse("response_format type must be one of \"text\" or \"json_object\""),
                  Reply(text='{"ok": true}'))
    llm = chat(server)
    reply = await llm.complete([{"role": "user", "content": "hi"}], schema=SCHEMA)
    assert reply.text == '{"ok": true}'
    assert formats(server) == ["json_schema", "json_schema", "json_object"]
    assert [b["response_format"].get("json_schema", {}).get("strict")
            for b in server.bodies()] == [True, False, None]
    # The next call, even through a new client object, starts where the endpoint accepted.
    await chat(server).complete([{"role": "user", "content": "again"}], schema=SCHEMA)
    assert formats(server)[-1] == "json_object" and len(server.requests) == 4
    assert llm.reply_format == "object"


async def test_a_server_without_response_format_gets_the_schema_in_the_prompt(
        server: LLMServer) -> None:
    server.script(refuse("unknown field response_format"), refuse("unknown field json_schema"),
                  refuse("unknown field response_format"), Reply(text='{"ok": false}'))
    reply = await chat(server).complete([{"role": "user", "content": "hi"}], system="rules",
                                        schema=SCHEMA)
    assert reply.text == '{"ok": false}'
    last = server.bodies()[-1]
    assert "response_format" not in last
    system = last["messages"][0]["content"]
    assert system.startswith("rules\n\n") and '"additionalProperties":false' in system
    # json_mode without a schema on that endpoint: the plain JSON instruction, no field.
    await chat(server).complete([{"role": "user", "content": "x"}], json_mode=True)
    last = server.bodies()[-1]
    assert "response_format" not in last
    assert last["messages"][0]["content"] == "Reply with a single JSON object and nothing else."


async def test_a_client_error_about_something_else_is_not_a_refusal(server: LLMServer) -> None:
    server.script(refuse("this model's maximum context length is 8192 tokens"))
    with pytest.raises(ProviderError, match="maximum context length"):
        await chat(server).complete([{"role": "user", "content": "hi"}], schema=SCHEMA)
    assert len(server.requests) == 1
    await chat(server).complete([{"role": "user", "content": "hi"}], schema=SCHEMA)
    assert formats(server)[-1] == "json_schema"


async def test_finish_reason_length_marks_the_reply_truncated(server: LLMServer) -> None:
    server.script(cut('{"ok": tr'), Reply(text='{"ok": true}'))
    llm = chat(server)
    assert (await llm.complete([{"role": "user", "content": "a"}], schema=SCHEMA)).truncated
    assert not (await llm.complete([{"role": "user", "content": "b"}], schema=SCHEMA)).truncated


# --- the Anthropic provider: a tool with the schema -------------------------------------------

async def test_anthropic_asks_for_a_tool_call_and_returns_its_input(server: LLMServer) -> None:
    body = anthropic_body("", tokens_in=5, tokens_out=3)
    body["content"] = [{"type": "text", "text": "Here you go."},
                       {"type": "tool_use", "id": "t1", "name": "answer",
                        "input": {"ok": True}}]
    cut_body = {**body, "stop_reason": "max_tokens"}
    server.script(Reply(body=body), Reply(body=cut_body))
    llm = AnthropicChat("claude-x", base_url=server.url, retry=FAST)
    reply = await llm.complete([{"role": "user", "content": "hi"}], schema=SCHEMA,
                               max_tokens=64)
    assert json.loads(reply.text) == {"ok": True} and not reply.truncated
    sent = server.bodies()[0]
    assert sent["tools"][0]["name"] == "answer"
    assert sent["tools"][0]["input_schema"] == dict(SCHEMA.schema)
    assert sent["tool_choice"] == {"type": "tool", "name": "answer"}
    assert sent["max_tokens"] == 64
    again = await llm.complete([{"role": "user", "content": "hi"}], schema=SCHEMA)
    assert again.truncated


# --- the summary, decision and relevance calls -----------------------------------------------

def _full_summary(decisions: int, past: int) -> dict[str, Any]:
    """The largest summary the schema allows."""
    entry = {"topic": "t" * TOPIC_CHARS, "description": "d" * DESCRIPTION_CHARS,
             "direction": "r" * DIRECTION_CHARS, "last_discussed": "2024-05-01 10:00"}
    return {"key_decisions": ["D" * DECISION_CHARS] * decisions,
            "past_discussions": [entry] * past,
            "current_discussion": {"topic": "t" * TOPIC_CHARS,
                                   "description": "d" * DESCRIPTION_CHARS,
                                   "perspectives": ["p" * PERSPECTIVE_CHARS] * MAX_PERSPECTIVES,
                                   "direction": "r" * DIRECTION_CHARS}}


def test_the_largest_summary_the_schema_allows_fits_the_token_bound() -> None:
    schema = summary_schema(max_key_decisions=8, max_past_discussions=8)
    full = _full_summary(8, 8)
    jsonschema.validate(full, schema.schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_full_summary(9, 8), schema.schema)
    text = json.dumps(full, separators=(",", ":"))
    assert len(text) <= max_chars(schema.schema)
    # At two characters a token (Chinese runs about 1.5 characters a token) it fits.
    assert len(text) / 2 <= token_bound(schema)
    smaller = summary_schema(max_key_decisions=2, max_past_discussions=1)
    assert token_bound(smaller) < token_bound(schema)


async def test_every_summary_call_sends_its_schema_and_bound(server: LLMServer) -> None:
    server.script(Reply(text=SUMMARY))
    settings = Settings(max_key_decisions=3, max_past_discussions=2)
    await run_summary(chat(server), settings=settings, previous=None, messages=dialogue(4),
                      save=Saves())
    [body] = server.bodies()
    schema = summary_schema(max_key_decisions=3, max_past_discussions=2)
    assert body["response_format"]["json_schema"]["schema"] == dict(schema.schema)
    assert body["max_tokens"] == token_bound(schema)


async def test_summary_max_tokens_overrides_the_bound(server: LLMServer) -> None:
    server.script(Reply(text=SUMMARY))
    await run_summary(chat(server), settings=Settings(summary_max_tokens=123), previous=None,
                      messages=dialogue(2), save=Saves())
    assert server.bodies()[0]["max_tokens"] == 123


async def test_a_reply_cut_at_the_limit_fails_the_chunk_and_saves_nothing(
        server: LLMServer) -> None:
    # Even a cut reply that happens to hold a parsable object is not trusted.
    server.script(cut(SUMMARY + ' {"key_decisions": ["Do: x"'))
    saves = Saves()
    with pytest.raises(SummaryFailed, match="cut at the max_tokens limit") as caught:
        await run_summary(chat(server), settings=Settings(summary_max_tokens=50),
                          previous=None, messages=dialogue(2), save=saves)
    assert isinstance(caught.value.__cause__, InvalidSummary)
    assert "summary_max_tokens" in str(caught.value)
    assert saves.calls == []
    assert (caught.value.result.unsaved_tokens_in, caught.value.result.unsaved_tokens_out) \
        == (10, 5)


async def test_decision_call_sends_its_schema_and_a_cut_reply_keeps_everything(
        server: LLMServer) -> None:
    groups = [dialogue(2)[:2], dialogue(4)[2:]]

    def check(request: Request) -> Reply:
        sent = request.json["response_format"]["json_schema"]["schema"]
        assert sent == dict(decision_schema(conversations=2, decisions=2, past=1).schema)
        return cut('{"conversations": [{"index": 1, "noise": true, "confidence": 0.99}')

    server.script(check)
    settings = Settings(decision_max_tokens=40)
    decision, reply = await decide(chat(server), MEMORY, groups, settings)
    assert server.bodies()[0]["max_tokens"] == 40
    assert reply is not None and reply.truncated
    assert not decision.noise and not decision.overturned_decisions


async def test_relevance_call_sends_its_schema_and_a_cut_reply_keeps_the_whole_summary(
        server: LLMServer) -> None:
    schema = relevance_schema(decisions=2, past=1)
    server.script(cut('{"key_decisions": [1'), Reply(text='{"key_decisions": [1], '
                                                          '"past_discussions": [], '
                                                          '"current_discussion": false}'))
    whole = await select_relevant(MEMORY, "which database?", chat(server))
    assert not whole.filtered and whole.body == MEMORY
    body = server.bodies()[0]
    assert body["response_format"]["json_schema"]["schema"] == dict(schema.schema)
    assert body["max_tokens"] == token_bound(schema)
    picked = await select_relevant(MEMORY, "which database?", chat(server), max_tokens=30)
    assert picked.filtered and picked.body is not None
    assert picked.body["key_decisions"] == MEMORY["key_decisions"]  # the emoji rule is general
    assert server.bodies()[1]["max_tokens"] == 30


@pytest.mark.parametrize("value", [0, -5])
def test_max_tokens_settings_must_be_positive(value: int) -> None:
    with pytest.raises(InvalidInput, match="summary_max_tokens"):
        Settings(summary_max_tokens=value)
    with pytest.raises(InvalidInput, match="decision_max_tokens"):
        Settings(decision_max_tokens=value)


def test_max_tokens_settings_read_from_the_environment() -> None:
    settings = Settings.from_env({"MEMSTRATA_SUMMARY_MAX_TOKENS": "700",
                                  "MEMSTRATA_DECISION_MAX_TOKENS": "none"})
    assert (settings.summary_max_tokens, settings.decision_max_tokens) == (700, None)


def test_a_stored_summary_with_nothing_current_and_an_unknown_time_matches_the_schema() -> None:
    schema = summary_schema(max_key_decisions=8, max_past_discussions=8).schema
    body: dict[str, Any] = {"key_decisions": [], "current_discussion": {},
            "past_discussions": [{"topic": "t", "description": "", "direction": "",
                                  "last_discussed": ""}]}
    jsonschema.validate(body, schema)
    body["current_discussion"] = {"topic": "t"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(body, schema)


def test_a_confidence_off_the_scale_drops_nothing() -> None:
    # A small model once wrote 9 for "very sure": unreadable, so the conversation stays.
    verdict = json.dumps({"conversations": [{"index": 1, "noise": True, "confidence": 9},
                                            {"index": 2, "noise": True, "confidence": 0.8}]})
    decision = parse_decision(verdict, conversations=2, decisions=0, past=0, threshold=0.7)
    assert decision.noise == frozenset({1})
    scale = decision_schema(conversations=2, decisions=0, past=0).schema
    confidence = scale["properties"]["conversations"]["items"]["properties"]["confidence"]
    assert 0.7 in confidence["enum"] and 9 not in confidence["enum"]
