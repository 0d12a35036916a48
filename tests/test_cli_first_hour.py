"""What a new user meets in the first hour of the command line: ``--json`` wherever it is put and
errors as JSON in JSON mode, misspelled sessions named, confirmation before deleting on a
terminal, and where the default database went.

Real SQLite files and the real CLI (in-process through typer's runner, or as a real process on a
real pseudo-terminal where a terminal is the point).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Reply
from test_cli import ENV, as_json, cli, ok, stored

from memstrata import Memory, Settings


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


# -- 8. --json anywhere, errors as JSON ----------------------------------------------------


def test_json_works_after_the_command_too(db: Path) -> None:
    ok(cli(db, "add", "trip", "user", "the train to Hualien"))
    after = as_json(cli(db, "stats", "trip", "--json"))
    assert after == as_json(cli(db, "--json", "stats", "trip"))
    assert after["messages"] == 1
    assert as_json(cli(db, "errors", "list", "--json")) == []
    listed = as_json(cli(db, "sessions", "--json"))
    assert [s["id"] for s in listed] == ["trip"]
    # After "--" it is text, as for any option.
    added = ok(cli(db, "add", "trip", "user", "--", "--json"))
    assert added.stdout.startswith("added #2")
    assert stored(db, "trip")[-1]["content"] == "--json"


BAD_INPUT = [
    (["add", "s", "robot", "hi"], "InvalidInput", "role"),
    (["search", "s", "x", "--time-range", "2w"], "InvalidInput", "time_range"),
    (["stats", "nothing-here"], "NotFound", "session"),
    (["forget", "abc"], "UsageError", "ID"),
    (["reset", "s", "--mode", "sometimes"], "UsageError", "--mode"),
    (["stats"], "UsageError", "session"),
    (["sessions", "--colour"], "UsageError", "--colour"),
    (["nosuch"], "UsageError", None),
]


@pytest.mark.parametrize("where", ["before", "after"])
@pytest.mark.parametrize(("args", "kind", "field"), BAD_INPUT)
def test_bad_input_in_json_mode_is_one_json_error_and_exit_2(
        db: Path, args: list[str], kind: str, field: str | None, where: str) -> None:
    argv = ["--json", *args] if where == "before" else [*args, "--json"]
    result = cli(db, *argv)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    error = json.loads(lines[0])["error"]
    assert error["type"] == kind and error["field"] == field
    assert error["message"] and "Traceback" not in error["message"]


def test_failures_in_json_mode_exit_1_with_a_json_error(db: Path) -> None:
    ok(cli(db, "add", "trip", "user", "the train to Hualien"))
    with LLMServer(default_text="{}") as server:
        server.script(Reply(status=500))
        env = {"MEMSTRATA_SUMMARY_MODEL": "openai:summary-test",
               "MEMSTRATA_LLM_BASE_URL": server.openai_url, "MEMSTRATA_LLM_API_KEY": "k",
               "MEMSTRATA_LLM_MAX_RETRIES": "0", "MEMSTRATA_WINDOW_MESSAGES": "1"}
        ok(cli(db, "add", "trip", "assistant", "tickets open in March", env=env))
        result = cli(db, "summarize", "trip", "--json", env=env)
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    error = json.loads(result.stderr)["error"]
    assert error["field"] is None and "model failed" in error["message"]
    assert error["type"] in {"ProviderError", "SummaryFailed", "InvalidSummary"}


def test_text_mode_errors_are_unchanged(db: Path) -> None:
    result = cli(db, "add", "s", "robot", "hi")
    assert result.exit_code == 2 and result.stderr.startswith("error: role: must be one of")


# -- 9. a session that does not exist ------------------------------------------------------


def test_reads_of_a_misspelled_session_name_it_and_suggest(db: Path, tmp_path: Path) -> None:
    ok(cli(db, "add", "trip-2025", "user", "the train to Hualien"))
    ok(cli(db, "add", "work", "user", "the quarterly report"))

    shown = ok(cli(db, "context", "trip-2052"))
    assert "(no messages)" in shown.stdout
    assert "no session 'trip-2052'" in shown.stderr
    assert "did you mean 'trip-2025'" in shown.stderr and "work" not in shown.stderr

    found = ok(cli(db, "search", "trip-2052", "train"))
    assert "no session 'trip-2052'" in found.stderr and "'trip-2025'" in found.stderr

    dump = tmp_path / "trip.jsonl"
    exported = cli(db, "export", "trip-2052", "-o", str(dump))
    assert exported.exit_code == 2 and not dump.exists()
    assert exported.stderr.startswith("error: session: no session 'trip-2052'")
    assert "did you mean 'trip-2025'" in exported.stderr
    to_stdout = cli(db, "export", "nothing-like-it")
    assert to_stdout.exit_code == 2 and to_stdout.stdout == ""
    assert "did you mean" not in to_stdout.stderr


def test_misspelled_session_in_json_mode(db: Path) -> None:
    ok(cli(db, "add", "trip", "user", "the train to Hualien"))
    result = ok(cli(db, "context", "trpi", "--json"))
    assert json.loads(result.stdout)["messages"] == []  # the answer for a new session
    warning = json.loads(result.stderr)["warning"]
    assert warning["field"] == "session" and warning["suggestions"] == ["trip"]
    exported = cli(db, "export", "trpi", "--json")
    assert exported.exit_code == 2 and exported.stdout == ""
    error = json.loads(exported.stderr)["error"]
    assert error == {"type": "NotFound", "field": "session", "message": error["message"],
                     "session": "trpi", "suggestions": ["trip"]}


def test_existing_sessions_get_no_warning(db: Path) -> None:
    ok(cli(db, "add", "trip", "user", "the train to Hualien"))
    assert ok(cli(db, "context", "trip")).stderr == ""
    assert ok(cli(db, "search", "trip", "train")).stderr == ""
    assert ok(cli(db, "search", "trip", "scooter")).stderr == ""  # no hits is no typo
    ok(cli(db, "reset", "trip", "--mode", "all"))  # the session stays, empty
    assert ok(cli(db, "context", "trip")).stderr == ""


def test_the_library_still_reads_an_unknown_session_as_empty(db: Path) -> None:
    async def go() -> None:
        async with Memory.open(str(db), settings=Settings(embedder=None),
                               background=False) as mem:
            await mem.add("trip", "user", "the train to Hualien")
            ctx = await mem.context("first-turn")
            assert ctx.messages == [] and ctx.summary is None
            assert await mem.search("first-turn", "train") == []
            assert [r async for r in mem.export("first-turn")] == []

    asyncio.run(go())


# -- 15. confirmation on a terminal; where the default database went ----------------------


def on_terminal(db: Path, *args: str, answer: str) -> subprocess.CompletedProcess[str]:
    """``python -m memstrata --db DB ARGS`` with a real pseudo-terminal as stdin, typing
    ``answer`` (a terminal buffers the line until the program reads it)."""
    import pty

    leader, follower = pty.openpty()
    try:
        env = {**os.environ, **ENV, "PYTHONIOENCODING": "utf-8"}
        with subprocess.Popen([sys.executable, "-W", "error", "-m", "memstrata", "--db",
                               str(db), *args], stdin=follower, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, text=True,
                              encoding="utf-8") as proc:
            os.write(leader, answer.encode())
            out, err = proc.communicate(timeout=60)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    finally:
        os.close(follower)
        os.close(leader)


def contents(db: Path, session: str) -> list[str]:
    return [r["content"] for r in stored(db, session) if r["type"] == "message"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a pseudo-terminal")
def test_reset_and_remove_ask_on_a_terminal(db: Path) -> None:
    ok(cli(db, "add", "trip", "user", "the train to Hualien"))
    ok(cli(db, "add", "trip", "assistant", "tickets open in March"))

    declined = on_terminal(db, "reset", "trip", answer="n\n")
    assert declined.returncode == 1, declined.stderr
    assert "Reset session 'trip'" in declined.stderr and "2 messages" in declined.stderr
    assert "[y/N]" in declined.stderr and "aborted" in declined.stderr
    assert declined.stdout == ""
    assert len(contents(db, "trip")) == 2

    just_enter = on_terminal(db, "remove", "trip", answer="\n")  # the default is no
    assert just_enter.returncode == 1 and len(contents(db, "trip")) == 2

    agreed = on_terminal(db, "reset", "trip", "--mode", "all", answer="y\n")
    assert agreed.returncode == 0, agreed.stderr
    assert agreed.stdout.startswith("reset trip") and contents(db, "trip") == []

    ok(cli(db, "add", "trip", "user", "again"))
    removed = on_terminal(db, "--json", "remove", "trip", answer="yes\n")
    assert removed.returncode == 0 and json.loads(removed.stdout) == {"removed": "trip"}
    assert as_json(cli(db, "--json", "sessions")) == []

    ok(cli(db, "add", "other", "user", "hello"))
    skipped = on_terminal(db, "remove", "other", "--yes", answer="")
    assert skipped.returncode == 0 and "[y/N]" not in skipped.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a pseudo-terminal")
def test_a_terminal_asking_about_a_missing_session_says_so(db: Path) -> None:
    ok(cli(db, "add", "trip", "user", "the train to Hualien"))
    result = on_terminal(db, "remove", "trpi", answer="y\n")
    assert result.returncode == 2 and "[y/N]" not in result.stderr
    assert "no session 'trpi'" in result.stderr and "did you mean 'trip'" in result.stderr
    result = on_terminal(db, "reset", "trpi", answer="y\n")
    assert result.returncode == 2 and "[y/N]" not in result.stderr
    assert "session: no session 'trpi'" in result.stderr and "did you mean 'trip'" in \
        result.stderr
    assert len(contents(db, "trip")) == 1


@pytest.mark.parametrize("command", ["reset", "remove", "stats"])
def test_a_misspelled_session_is_an_error_in_scripts_too(db: Path, command: str) -> None:
    ok(cli(db, "add", "trip", "user", "the train to Hualien"))
    result = cli(db, command, "tirp", "--yes") if command != "stats" else \
        cli(db, command, "tirp")
    assert result.exit_code == 2 and result.stdout == ""
    assert "error: session: no session 'tirp' in tenant 'default' (did you mean 'trip'?)" \
        in " ".join(result.stderr.split())
    as_json_error = cli(db, "--json", command, "tirp")
    assert as_json_error.exit_code == 2 and as_json_error.stdout == ""
    error = json.loads(as_json_error.stderr.strip().splitlines()[-1])["error"]
    assert error["type"] == "NotFound" and error["field"] == "session"
    assert error["suggestions"] == ["trip"]
    assert len(contents(db, "trip")) == 1


def test_scripts_are_not_asked(db: Path) -> None:
    # typer's runner gives the command a stdin that is not a terminal, as a pipe would.
    ok(cli(db, "add", "a", "user", "one"))
    ok(cli(db, "add", "b", "user", "two"))
    done = ok(cli(db, "reset", "a", stdin="n\n"))  # the "n" is never read
    assert "[y/N]" not in done.stderr and contents(db, "a") == []
    assert ok(cli(db, "remove", "b", "-y")).stdout.strip() == "removed b"


@pytest.fixture
def data_home(tmp_path: Path) -> dict[str, str]:
    if not sys.platform.startswith("linux"):
        pytest.skip("XDG_DATA_HOME is Linux's")
    return {"XDG_DATA_HOME": str(tmp_path / "data"), "MEMSTRATA_DB": ""}


def test_the_first_write_to_the_default_database_says_where_once(
        tmp_path: Path, data_home: dict[str, str]) -> None:
    default = tmp_path / "data" / "memstrata" / "memory.db"
    first = ok(cli(None, "add", "s", "user", "hello", env=data_home))
    assert str(default) in first.stderr and "--db" in first.stderr
    assert first.stdout.startswith("added #1")
    second = ok(cli(None, "add", "s", "user", "again", env=data_home))
    assert second.stderr == ""
    # Named databases are never announced.
    named = ok(cli(tmp_path / "named.db", "add", "s", "user", "hello", env=data_home))
    from_env = ok(cli(None, "add", "s", "user", "hello",
                      env={**data_home, "MEMSTRATA_DB": str(tmp_path / "env.db")}))
    assert named.stderr == "" and from_env.stderr == ""


def test_the_default_database_note_is_json_in_json_mode(
        tmp_path: Path, data_home: dict[str, str]) -> None:
    result = ok(cli(None, "--json", "add", "s", "user", "hello", env=data_home))
    message: dict[str, Any] = json.loads(result.stdout)
    assert message["content"] == "hello"
    note = json.loads(result.stderr)["note"]
    assert note["db"] == str(tmp_path / "data" / "memstrata" / "memory.db")
