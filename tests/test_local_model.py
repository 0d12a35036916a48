"""Summaries, the decision model and the relevance filter with a real model: SmolLM2-135M on
llama.cpp's own server (``tests/local_llm.py``), on 127.0.0.1, nothing downloaded.

The model is tiny, so these tests check the plumbing, not the quality: with the schema sent,
every reply parses and what is stored validates against the schema; a reply cut by
``max_tokens`` fails cleanly (cursor unmoved, failure recorded, tokens counted once). The
server is started once for the module, with one thread and a small context, and the sessions
are short, so the module runs in a few minutes on a loaded two-core machine.
"""

from __future__ import annotations

import platform
import re
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema  # type: ignore[import-untyped]
import pytest
from local_llm import MODEL_NAME, LocalModelServer

from memstrata import Memory, Settings
from memstrata.errors import ProviderError
from memstrata.providers import make_llm
from memstrata.summary._relevance import select_relevant
from memstrata.summary._run import conversations, decide
from memstrata.summary._schema import first_object
from memstrata.summary._shapes import decision_schema, relevance_schema, summary_schema
from memstrata.types import Message, Role

# Generous: a loaded two-core machine runs this model at a few tokens a second.
CALL_BOUND_S = 240.0
T0 = 1_780_000_000 * 10**9
TALK: list[tuple[Role, str]] = [
    ("user", "Let's pick the database for the notes app."),
    ("assistant", "PostgreSQL and SQLite both fit; which matters more, scale or simplicity?"),
    ("user", "Use PostgreSQL, we will run several servers."),
    ("assistant", "Agreed: PostgreSQL for the notes app."),
    ("user", "Please never use emojis in your replies."),
    ("assistant", "Understood, no emojis from now on."),
    ("user", "Next topic: hosting. A VPS or a PaaS?"),
    ("assistant", "A VPS is cheaper; a PaaS is simpler to run."),
    ("user", "We go with a VPS in Frankfurt."),
    ("assistant", "Noted: a VPS in Frankfurt."),
    ("user", "thanks!"),
    ("assistant", "You're welcome."),
]


@pytest.fixture(scope="module")
def model() -> Iterator[LocalModelServer]:
    if (platform.system(), platform.machine()) != ("Linux", "x86_64"):
        pytest.skip("the xllamacpp wheel (the `local-llm` extra) is built for Linux x86_64")
    server = LocalModelServer(n_ctx=3072, threads=1)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def settings(model: LocalModelServer, **changes: Any) -> Settings:
    base = Settings(embedder=None, summary_cron=None, window_messages=4,
                    summary_model=f"openai:{MODEL_NAME}",
                    decision_model=f"openai:{MODEL_NAME}", llm_base_url=model.openai_url,
                    max_key_decisions=3, max_past_discussions=2, llm_max_retries=0,
                    llm_timeout=CALL_BOUND_S)
    return base.replace(**changes)


@pytest.fixture
async def mem(model: LocalModelServer, tmp_path: Path) -> AsyncIterator[Memory]:
    async with Memory.open(str(tmp_path / "m.db"), settings=settings(model),
                           background=False) as opened:
        yield opened


async def add_talk(mem: Memory, session: str, talk: list[tuple[Role, str]]) -> None:
    for role, content in talk:
        await mem.add(session, role, content)


def predicted_tokens(model: LocalModelServer) -> int:
    """The tokens the server generated so far, from its Prometheus metrics."""
    text = httpx.get(model.openai_url.removesuffix("/v1") + "/metrics", timeout=10).text
    found = re.search(r"^llamacpp:tokens_predicted_total\s+([0-9.e+]+)$", text, re.MULTILINE)
    assert found, text[:500]
    return int(float(found.group(1)))


def valid_summary(body: dict[str, Any] | None, s: Settings) -> dict[str, Any]:
    assert body is not None
    schema = summary_schema(max_key_decisions=s.max_key_decisions,
                            max_past_discussions=s.max_past_discussions)
    jsonschema.validate(body, schema.schema)
    return body


async def test_summarize_then_reset_store_summaries_that_match_the_schema(
        mem: Memory, model: LocalModelServer) -> None:
    await add_talk(mem, "notes", TALK + TALK[:8])
    before = predicted_tokens(model)
    started = time.monotonic()
    body = await mem.summarize("notes")
    assert time.monotonic() - started < 2 * CALL_BOUND_S
    valid_summary(body, mem.settings)
    stats = await mem.stats("notes")
    assert stats.last_error is None and stats.cursor is not None
    assert stats.summary_kind == "llm"
    # Every token the server generated (decision call and summary call) is counted once.
    assert stats.summary_tokens_out == predicted_tokens(model) - before > 0

    await add_talk(mem, "notes", TALK[6:10])
    await mem.reset("notes", mode="summary")
    after = await mem.stats("notes")
    assert after.messages == 0 and after.last_error is None
    summary = await mem.summary("notes")
    assert summary is not None and summary.kind == "llm"
    valid_summary(summary.body, mem.settings)
    assert after.summary_tokens_out == predicted_tokens(model) - before


async def test_context_with_a_query_runs_the_relevance_filter(
        mem: Memory, model: LocalModelServer) -> None:
    await add_talk(mem, "ctx", TALK[:6])
    await mem.summarize("ctx")
    stored = await mem.summary("ctx")
    assert stored is not None
    spent = (await mem.stats("ctx")).summary_tokens_out
    ctx = await mem.context("ctx", query="Which database did we choose?")
    # The filter's call is counted, and what it keeps is a part of the stored summary.
    assert (await mem.stats("ctx")).summary_tokens_out > spent
    if ctx.summary is not None:
        for key in ("key_decisions", "past_discussions"):
            assert all(entry in stored.body[key] for entry in ctx.summary[key])


async def test_decision_and_relevance_replies_match_their_schemas(
        model: LocalModelServer) -> None:
    s = settings(model)
    llm = make_llm(s.decision_model or "", base_url=model.openai_url, max_retries=0)
    messages = [Message(id=i, session="d", role=role, content=content, at=T0 + i * 60 * 10**9)
                for i, (role, content) in enumerate(TALK, 1)]
    groups = conversations(messages)
    memory = {"key_decisions": ["Do: use SQLite", "Don't: use emojis"],
              "past_discussions": [], "current_discussion": {}}
    decision, reply = await decide(llm, memory, groups, s)
    assert reply is not None and not reply.truncated
    jsonschema.validate(first_object(reply.text),
                        decision_schema(conversations=len(groups), decisions=2, past=0).schema)
    assert all(0 <= i < len(groups) for i in decision.noise)

    relevance = await select_relevant(memory, "Which database?", llm)
    assert relevance.filtered and relevance.tokens_out > 0
    assert relevance.body is None or set(relevance.body) == set(memory)
    # The general rule about emojis is always kept when anything is.
    if relevance.body is not None:
        assert "Don't: use emojis" in relevance.body["key_decisions"]
    schema = relevance_schema(decisions=2, past=0)
    assert set(schema.schema["properties"]) == {"key_decisions", "past_discussions",
                                                "current_discussion"}


async def test_a_model_cut_by_max_tokens_fails_cleanly(model: LocalModelServer,
                                                       tmp_path: Path) -> None:
    path = str(tmp_path / "cut.db")
    # A digest first (no model), so the session has a summary and a cursor to keep.
    async with Memory.open(path, settings=settings(model, summary_model=None,
                                                   decision_model=None),
                           background=False) as mem:
        await add_talk(mem, "cut", TALK[:8])
        await mem.summarize("cut")
        digest = await mem.summary("cut")
        assert digest is not None and digest.kind == "digest"
    s = settings(model, summary_max_tokens=8, decision_model=None)
    async with Memory.open(path, settings=s, background=False) as mem:
        await add_talk(mem, "cut", TALK[8:])
        before = predicted_tokens(model)
        started = time.monotonic()
        with pytest.raises(ProviderError, match="cut at the max_tokens limit"):
            await mem.summarize("cut")
        assert time.monotonic() - started < CALL_BOUND_S
        stats = await mem.stats("cut")
        after = await mem.summary("cut")
        assert after is not None and stats.cursor == digest.cursor
        assert (after.kind, after.body, after.created_at) == (digest.kind, digest.body,
                                                              digest.created_at)
        assert stats.last_error is not None and "max_tokens" in stats.last_error
        assert stats.extra["summary_failures"] == 1
        assert stats.extra["summary_retry_at"] is not None
        # The failed call's tokens are recorded, once.
        assert stats.summary_tokens_out == predicted_tokens(model) - before == 8
