"""The summary run with FakeLLM: chunking, prompts, saves, failures, the decision model."""

from __future__ import annotations

import json

import pytest
from helpers import Saves

from memstrata.config import Settings
from memstrata.errors import InvalidSummary, ProviderError, SummaryFailed
from memstrata.providers import FakeLLM
from memstrata.summary._run import (
    _batches,
    body_kind,
    chunk_messages,
    conversations,
    run_summary,
)
from memstrata.types import Message, Role, Summary, SummaryResult

T0 = 1_714_557_600 * 1_000_000_000  # 2024-05-01 10:00 UTC
MINUTE = 60 * 1_000_000_000


def msg(i: int, role: Role, content: str, sender: str | None = None) -> Message:
    return Message(id=i, session="s", role=role, content=content, at=T0 + i * MINUTE,
                   sender=sender)


def dialogue(n: int, size: int = 10) -> list[Message]:
    """n messages alternating user/assistant, each ``size`` characters."""
    return [msg(i, "user" if i % 2 else "assistant", chr(96 + i % 26) * size)
            for i in range(1, n + 1)]


def summary_reply(tag: str) -> str:
    return json.dumps({"key_decisions": [f"Do: {tag}"], "past_discussions": [],
                       "current_discussion": {"topic": tag, "description": tag}})


# --- chunking --------------------------------------------------------------------------------

def test_chunks_respect_the_limit_and_keep_at_least_one_message() -> None:
    ms = dialogue(6, size=10)
    assert [[m.id for m in c] for c in chunk_messages(ms, 20)] == [[1, 2], [3, 4], [5, 6]]
    assert [[m.id for m in c] for c in chunk_messages(ms, 1000)] == [[1, 2, 3, 4, 5, 6]]
    huge = [msg(1, "assistant", "x" * 500), msg(2, "user", "q"), msg(3, "assistant", "a")]
    assert [[m.id for m in c] for c in chunk_messages(huge, 100)] == [[1], [2, 3]]
    assert chunk_messages([], 100) == []


def test_a_chunk_never_ends_on_a_user_message_while_more_follow() -> None:
    ms = [msg(1, "assistant", "a" * 10), msg(2, "user", "b" * 10), msg(3, "user", "c" * 10),
          msg(4, "assistant", "d" * 10), msg(5, "user", "e" * 10)]
    chunks = chunk_messages(ms, 15)
    assert [[m.id for m in c] for c in chunks] == [[1], [2, 3, 4], [5]]
    for chunk in chunks[:-1]:
        assert chunk[-1].role != "user"
    # A single huge user message followed by a reply: the reply joins it past the limit.
    ms = [msg(1, "user", "q" * 1000), msg(2, "assistant", "r" * 1000)]
    assert [[m.id for m in c] for c in chunk_messages(ms, 10)] == [[1, 2]]
    # A long run of user messages with no reply still splits (at most twice the limit more).
    run = [msg(i, "user", "x" * 10) for i in range(1, 11)]
    assert [len(c) for c in chunk_messages(run, 20)] == [6, 4]


def test_the_decision_model_is_asked_in_batches_within_the_chunk_size() -> None:
    groups = [[msg(1, "user", "a" * 10)], [msg(2, "user", "b" * 15)], [msg(3, "user", "c" * 5)]]
    assert [(start, len(b)) for start, b in _batches(groups, 20)] == [(0, 1), (1, 2)]
    assert [(start, len(b)) for start, b in _batches(groups, 1000)] == [(0, 3)]


def test_conversations_group_a_user_message_with_its_replies() -> None:
    ms = [msg(1, "assistant", "hi"), msg(2, "user", "q"), msg(3, "assistant", "a"),
          msg(4, "assistant", "more"), msg(5, "user", "q2")]
    assert [[m.id for m in g] for g in conversations(ms)] == [[1], [2, 3, 4], [5]]


# --- the run ---------------------------------------------------------------------------------

async def test_multi_chunk_run_saves_after_each_chunk_and_carries_the_summary() -> None:
    llm = FakeLLM([summary_reply("one"), summary_reply("two"), summary_reply("three")])
    saves = Saves()
    settings = Settings(summary_chunk_chars=20, reply_lang="ja")
    result = await run_summary(llm, settings=settings, previous=None, messages=dialogue(6),
                               save=saves)
    assert saves.cursors == [2, 4, 6]
    assert result.cursor == 6 and result.chunks == 3 and result.calls == 3
    assert result.body is not None and result.body["key_decisions"] == ["Do: three"]
    # The second chunk's system prompt carries the first chunk's summary.
    assert '"Do: one"' in (llm.calls[1].system or "")
    assert all(c.json_mode for c in llm.calls)
    assert "Japanese (reply_lang ja)" in (llm.calls[0].system or "")
    assert result.tokens_in == sum(c[2] for c in saves.calls) > 0
    assert result.tokens_out == sum(c[3] for c in saves.calls) > 0


async def test_messages_are_shown_with_time_and_sender_in_the_settings_timezone() -> None:
    llm = FakeLLM([summary_reply("x")])
    ms = [msg(1, "user", "哈囉", sender="小明"), msg(2, "assistant", "hello")]
    await run_summary(llm, settings=Settings(timezone="Asia/Taipei"), previous=None,
                      messages=ms, save=Saves())
    user = llm.calls[0].messages[0]["content"]
    assert "Speakers: 小明 = user" in user
    assert "2024-05-01\n18:01 小明: 哈囉\n18:02 assistant: hello" in user


async def test_a_failing_chunk_stops_the_run_after_saving_earlier_chunks() -> None:
    llm = FakeLLM([summary_reply("one"), ProviderError("boom"), summary_reply("never")])
    saves = Saves()
    settings = Settings(summary_chunk_chars=20)
    with pytest.raises(SummaryFailed) as caught:
        await run_summary(llm, settings=settings, previous=None, messages=dialogue(6),
                          save=saves)
    assert saves.cursors == [2]
    assert len(llm.calls) == 2 and llm.remaining == 1
    assert isinstance(caught.value, ProviderError)
    assert isinstance(caught.value.__cause__, ProviderError)
    assert "chunk 2 of 3" in str(caught.value)
    assert caught.value.result.cursor == 2


async def test_an_unparsable_chunk_fails_the_run_and_its_tokens_are_reported() -> None:
    llm = FakeLLM(["I am not JSON"])
    saves = Saves()
    with pytest.raises(SummaryFailed) as caught:
        await run_summary(llm, settings=Settings(), previous=None, messages=dialogue(2),
                          save=saves)
    assert saves.calls == []
    assert isinstance(caught.value.__cause__, InvalidSummary)
    result = caught.value.result
    assert result.tokens_out > 0 and result.unsaved_tokens_out == result.tokens_out


async def test_the_next_run_resumes_from_the_saved_cursor() -> None:
    ms = dialogue(6)
    settings = Settings(summary_chunk_chars=20)
    saves = Saves()
    with pytest.raises(ProviderError):
        await run_summary(FakeLLM([summary_reply("one"), "garbage"]), settings=settings,
                          previous=None, messages=ms, save=saves)
    body, cursor, _, _ = saves.calls[-1]
    stored = Summary(session="s", kind="llm", body=body, cursor=cursor, created_at=0)
    llm = FakeLLM([summary_reply("two"), summary_reply("three")])
    result = await run_summary(llm, settings=settings, previous=stored,
                               messages=[m for m in ms if m.id > cursor], save=saves)
    assert saves.cursors == [2, 4, 6]
    assert "aaaaaaaaaa" not in llm.calls[0].messages[0]["content"]  # message 1 not resent
    assert '"Do: one"' in (llm.calls[0].system or "")
    assert result.cursor == 6


async def test_messages_at_or_before_the_cursor_are_not_merged_again() -> None:
    llm = FakeLLM([summary_reply("x")])
    previous = Summary(session="s", kind="llm", body={}, cursor=4, created_at=0)
    saves = Saves()
    await run_summary(llm, settings=Settings(), previous=previous, messages=dialogue(6),
                      save=saves)
    sent = llm.calls[0].messages[0]["content"]
    assert "dddddddddd" not in sent and "eeeeeeeeee" in sent
    assert saves.cursors == [6]


async def test_no_messages_means_no_call_and_no_save() -> None:
    saves = Saves()
    result = await run_summary(FakeLLM(), settings=Settings(), previous=None, messages=[],
                               save=saves)
    assert result == SummaryResult(body=None, cursor=None, saved=False, chunks=0, calls=0,
                                   tokens_in=0, tokens_out=0)
    assert saves.calls == []


async def test_a_summary_without_cursor_gets_the_newest_message_and_no_call() -> None:
    saves = Saves()
    previous = Summary(session="s", kind="llm", body={"key_decisions": ["Do: x"]},
                       cursor=None, created_at=0)
    llm = FakeLLM()
    await run_summary(llm, settings=Settings(), previous=previous, messages=dialogue(3),
                      save=saves)
    assert saves.cursors == [3] and llm.calls == []


async def test_a_previous_digest_is_given_as_the_previous_summary_text() -> None:
    llm = FakeLLM([summary_reply("x")])
    digest = Summary(session="s", kind="digest", body={"text": "[2024-01-01 09:00 · u] 舊的"},
                     cursor=0, created_at=0)
    saves = Saves()
    await run_summary(llm, settings=Settings(), previous=digest, messages=dialogue(2),
                      save=saves)
    assert "<digest>\n[2024-01-01 09:00 · u] 舊的\n</digest>" in (llm.calls[0].system or "")
    assert body_kind(saves.calls[0][0]) == "llm"


async def test_old_markers_in_the_previous_summary_are_rewritten_before_the_model_sees_them(
) -> None:
    llm = FakeLLM([summary_reply("x")])
    previous = Summary(session="s", kind="llm", created_at=0, cursor=0,
                       body={"key_decisions": ["不要\uff1a用簡體字"], "past_discussions": []})
    await run_summary(llm, settings=Settings(), previous=previous, messages=dialogue(2),
                      save=Saves())
    assert "Don't: 用簡體字" in (llm.calls[0].system or "")


# --- the decision model ----------------------------------------------------------------------

PREVIOUS = Summary(session="s", kind="llm", cursor=0, created_at=0, body={
    "key_decisions": ["Do: use MySQL", "Do: write in English"],
    "past_discussions": [{"topic": "db", "description": "MySQL chosen", "direction": "",
                          "last_discussed": "2024-04-01 10:00"}],
    "current_discussion": {}})


def chat() -> list[Message]:
    return [msg(1, "user", "hi there"), msg(2, "assistant", "hello!"),
            msg(3, "user", "let's switch to PostgreSQL"), msg(4, "assistant", "ok, PostgreSQL"),
            msg(5, "user", "thanks"), msg(6, "assistant", "you're welcome")]


async def test_noise_is_dropped_and_overturned_entries_removed() -> None:
    decision = FakeLLM([json.dumps({
        "conversations": [{"index": 1, "noise": True, "confidence": 0.9},
                          {"index": 2, "noise": False, "confidence": 0.95},
                          {"index": 3, "noise": True, "confidence": 0.5}],
        "overturned_key_decisions": [1], "overturned_past_discussions": ["1"]})])
    llm = FakeLLM([summary_reply("pg")])
    saves = Saves()
    result = await run_summary(llm, decision_llm=decision, settings=Settings(),
                               previous=PREVIOUS, messages=chat(), save=saves)
    sent = llm.calls[0].messages[0]["content"]
    assert "hi there" not in sent and "PostgreSQL" in sent and "thanks" in sent
    assert "use MySQL" not in (llm.calls[0].system or "")
    assert "write in English" in (llm.calls[0].system or "")
    assert "MySQL chosen" not in (llm.calls[0].system or "")
    assert saves.cursors == [6]
    assert result.noise_dropped == 2 and result.overturned == 2 and result.calls == 2
    assert "1. Do: use MySQL" in decision.calls[0].messages[0]["content"]
    assert result.tokens_in == saves.calls[0][2]  # decision tokens saved with the chunk


async def test_all_noise_saves_the_pruned_summary_without_a_summary_call() -> None:
    decision = FakeLLM([json.dumps({
        "conversations": [{"index": i, "noise": True, "confidence": 0.8} for i in (1, 2, 3)],
        "overturned_key_decisions": [2], "overturned_past_discussions": []})])
    llm = FakeLLM()
    saves = Saves()
    result = await run_summary(llm, decision_llm=decision, settings=Settings(),
                               previous=PREVIOUS, messages=chat(), save=saves)
    assert llm.calls == []
    [(body, cursor, t_in, _)] = saves.calls
    assert cursor == 6 and t_in > 0
    assert body["key_decisions"] == ["Do: use MySQL"]
    assert result.chunks == 0 and result.calls == 1


async def test_all_noise_after_a_digest_keeps_the_digest() -> None:
    decision = FakeLLM([json.dumps({"conversations": [{"index": 1, "noise": True,
                                                       "confidence": 1}]})])
    digest = Summary(session="s", kind="digest", body={"text": "old"}, cursor=0, created_at=0)
    saves = Saves()
    await run_summary(FakeLLM(), decision_llm=decision, settings=Settings(), previous=digest,
                      messages=chat()[:2], save=saves)
    assert saves.calls[0][0] == {"text": "old"} and body_kind(saves.calls[0][0]) == "digest"


@pytest.mark.parametrize("reply", [ProviderError("down"), "no idea", '{"noise": true}',
                                   '{"conversations": "all"}'])
async def test_a_failing_decision_keeps_everything(reply: str | ProviderError) -> None:
    llm = FakeLLM([summary_reply("kept")])
    saves = Saves()
    result = await run_summary(llm, decision_llm=FakeLLM([reply]), settings=Settings(),
                               previous=PREVIOUS, messages=chat(), save=saves)
    sent = llm.calls[0].messages[0]["content"]
    assert "hi there" in sent and "thanks" in sent
    assert "use MySQL" in (llm.calls[0].system or "")
    assert result.noise_dropped == 0 and result.overturned == 0 and saves.cursors == [6]


async def test_the_noise_threshold_comes_from_settings() -> None:
    verdict = json.dumps({"conversations": [{"index": 1, "noise": True, "confidence": 0.6}]})
    llm = FakeLLM([summary_reply("x")])
    await run_summary(llm, decision_llm=FakeLLM([verdict]),
                      settings=Settings(noise_confidence=0.5), previous=None,
                      messages=chat(), save=Saves())
    assert "hi there" not in llm.calls[0].messages[0]["content"]


async def test_noise_between_chunks_is_passed_over_by_the_cursor() -> None:
    ms = [msg(1, "user", "a" * 10), msg(2, "assistant", "b" * 10),
          msg(3, "user", "thanks"), msg(4, "assistant", "np"),
          msg(5, "user", "c" * 10), msg(6, "assistant", "d" * 10)]
    # With 20-character chunks each conversation is screened in a call of its own.
    keep = json.dumps({"conversations": []})
    verdict = json.dumps({"conversations": [{"index": 1, "noise": True, "confidence": 1}]})
    saves = Saves()
    await run_summary(FakeLLM([summary_reply("1"), summary_reply("2")]),
                      decision_llm=FakeLLM([keep, verdict, keep]),
                      settings=Settings(summary_chunk_chars=20), previous=None, messages=ms,
                      save=saves)
    assert saves.cursors == [4, 6]
