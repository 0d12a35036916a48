"""The ``memstrata`` command line, run for real on SQLite files in a temporary directory.

Most tests use typer's ``CliRunner`` (fast, in-process); a few start ``python -m memstrata`` as a
real subprocess, which is how users meet it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from memstrata import Memory, Settings
from memstrata.cli import DEMO_SESSION, app, demo_records

# Wide enough that rich tables never wrap a short message across lines.
ENV = {"COLUMNS": "200", "NO_COLOR": "1", "MEMSTRATA_EMBEDDER": "none"}


def cli(db: Path | None, *args: str, stdin: str | None = None,
        env: dict[str, str] | None = None) -> Result:
    """Run the CLI in-process against ``db`` (``None``: no ``--db`` option)."""
    argv = (["--db", str(db)] if db is not None else []) + list(args)
    return CliRunner().invoke(app, argv, input=stdin, env={**ENV, **(env or {})})


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def as_json(result: Result) -> Any:
    return json.loads(ok(result).stdout)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


def stored(db: Path, session: str) -> list[dict[str, Any]]:
    """What the database really holds, read back through the Python API.

    The tests are synchronous because the CLI runs its own event loop.
    """
    async def read() -> list[dict[str, Any]]:
        async with Memory.open(str(db), settings=Settings(embedder=None),
                               background=False) as mem:
            return [r async for r in mem.export(session)]

    return asyncio.run(read())


# -- writes and reads ----------------------------------------------------------------------


def test_add_then_search_finds_chinese_and_english(db: Path) -> None:
    ok(cli(db, "add", "trip", "user", "我們下週去花蓮看太魯閣", "--sender", "美玲"))
    ok(cli(db, "add", "trip", "assistant", "The train to Hualien takes two hours."))
    out = ok(cli(db, "search", "trip", "花蓮")).stdout
    assert "我們下週去花蓮看太魯閣" in out and "美玲" in out
    out = ok(cli(db, "search", "trip", "trains")).stdout  # stemmed
    assert "The train to Hualien" in out
    assert "no messages match" in ok(cli(db, "search", "trip", "scooter")).stdout
    records = stored(db, "trip")
    assert [r["sender"] for r in records] == ["美玲", None]


def test_search_all_sessions_and_operator_query(db: Path) -> None:
    ok(cli(db, "add", "a", "user", "book the hotel in Da'an"))
    ok(cli(db, "add", "b", "user", "the hotel AND the train (maybe)"))
    hits = as_json(cli(db, "--json", "search", "--all", "hotel"))
    assert {h["message"]["session"] for h in hits} == {"a", "b"}
    assert all(h["matched"] and h["rank"] >= 1 for h in hits)
    # Quotes, operators and brackets are ordinary characters, never a syntax error.
    for query in ['"NEAR" OR (', "NEAR(hotel", "hotel*", "'; DROP TABLE messages; --"]:
        ok(cli(db, "search", "--all", query))
    assert len(as_json(cli(db, "--json", "search", "--all", "hotel"))) == 2


def test_add_at_is_read_in_the_configured_timezone(db: Path, tmp_path: Path) -> None:
    config = tmp_path / "memstrata.toml"
    config.write_text('[memstrata]\ntimezone = "Asia/Taipei"\n', encoding="utf-8")
    m = as_json(cli(db, "--config", str(config), "--json", "add", "s", "user", "hi",
                    "--at", "2025-04-12T14:30"))
    assert m["at"] == 1744439400 * 10**9  # 06:30 UTC
    assert m["time"] == "2025-04-12 14:30"
    # The environment overrides the file, and the context header follows it.
    out = ok(cli(db, "--config", str(config), "context", "s",
                 env={"MEMSTRATA_TIMEZONE": "UTC"})).stdout
    assert "[2025-04-12 06:30 · user]" in out
    m = as_json(cli(db, "--json", "add", "s", "user", "x", "--at", "1700000000000000000"))
    assert m["at"] == 1700000000000000000


def test_context_formats(db: Path) -> None:
    ok(cli(db, "add", "s", "user", "hello there", "--sender", "Mei",
           "--at", "2025-01-02T03:04:00+00:00"))
    openai = as_json(cli(db, "context", "s", "--format", "openai"))
    assert openai == [{"role": "user", "content": "[2025-01-02 03:04 · Mei]\nhello there"}]
    anthropic = as_json(cli(db, "context", "s", "--format", "anthropic"))
    assert anthropic == {"system": "", "messages": openai}
    ctx = as_json(cli(db, "--json", "context", "s"))
    assert ctx["summary"] is None and ctx["messages"][0]["content"] == "hello there"
    assert "[2025-01-02 03:04 · Mei]" in ok(cli(db, "context", "s")).stdout


def test_summarize_reset_and_stats(db: Path) -> None:
    items = [{"type": "message", "role": "user" if i % 2 == 0 else "assistant",
              "content": f"message number {i}"} for i in range(20)]
    ok(cli(db, "import", "s", "-", stdin="\n".join(json.dumps(r) for r in items)))
    body = as_json(cli(db, "--json", "summarize", "s"))["summary"]
    assert "message number 3" in body["text"] and "message number 19" not in body["text"]
    st = as_json(cli(db, "--json", "stats", "s"))
    assert st["messages"] == 20 and st["summary_kind"] == "digest" and st["cursor"] == 4
    ok(cli(db, "reset", "s"))  # mode summary: messages go, the digest stays
    ctx = as_json(cli(db, "--json", "context", "s"))
    assert ctx["messages"] == [] and "message number 19" in ctx["summary"]["text"]
    ok(cli(db, "reset", "s", "--mode", "all"))
    assert as_json(cli(db, "--json", "context", "s"))["summary"] is None


def test_sessions_forget_remove_check(db: Path) -> None:
    first = as_json(cli(db, "--json", "add", "alpha", "user", "one"))
    ok(cli(db, "add", "beta", "user", "兩個中文字"))
    ok(cli(db, "add", "temp-x", "user", "scratch"))
    listed = as_json(cli(db, "--json", "sessions"))
    assert [s["id"] for s in listed] == ["beta", "alpha"]  # newest first, temp- hidden
    table = ok(cli(db, "sessions")).stdout
    assert "beta" in table and "alpha" in table
    assert as_json(cli(db, "--json", "forget", str(first["id"]))) == {"forgotten": first["id"]}
    again = cli(db, "forget", str(first["id"]))
    assert again.exit_code == 2 and "no message" in again.stderr
    ok(cli(db, "remove", "beta"))
    assert cli(db, "remove", "beta").exit_code == 2
    assert as_json(cli(db, "--json", "check")) == {"ok": True, "problems": []}
    assert ok(cli(db, "check")).stdout.strip() == "ok"


# -- import / export -----------------------------------------------------------------------


def test_export_import_round_trip(db: Path, tmp_path: Path) -> None:
    ok(cli(db, "import", "src", "-", stdin="\n".join(demo_records())))
    ok(cli(db, "summarize", "src"))
    dump = tmp_path / "src.jsonl"
    assert as_json(cli(db, "--json", "export", "src", "-o", str(dump)))["records"] == 51
    other = tmp_path / "other.db"
    assert as_json(cli(other, "--json", "import", "dst", str(dump)))["imported"] == 50
    before, after = stored(db, "src"), stored(other, "dst")

    def strip(r: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in r.items() if k not in ("id", "created_at", "cursor")}

    assert [strip(r) for r in after] == [strip(r) for r in before]
    assert after[-1]["type"] == "summary" and after[-1]["cursor"] == after[33]["id"]
    # Export to stdout is JSONL, one record a line, Chinese kept as text.
    lines = ok(cli(other, "export", "dst")).stdout.splitlines()
    assert len(lines) == 51 and "花蓮" in lines[2]


def test_import_seed_history_array(db: Path, tmp_path: Path) -> None:
    history = [
        {"role": "system", "content": "You are helpful.", "sendAt": 0, "sender": ""},
        {"role": "user", "content": "幫我訂花蓮的火車票", "sendAt": 1741003320000000000,
         "sender": "Mei"},
        {"role": "assistant", "content": "Booking opens on March 17.",
         "sendAt": 1741003500000000000, "sender": "Atlas"},
    ]
    path = tmp_path / "history.json"
    path.write_text("  \n" + json.dumps(history, ensure_ascii=False), encoding="utf-8")
    result = as_json(cli(db, "--json", "import", "seed", str(path)))
    assert result == {"session": "seed", "imported": 2, "format": "history array"}
    records = stored(db, "seed")
    assert [(r["role"], r["sender"], r["at"]) for r in records] == [
        ("user", "Mei", 1741003320000000000), ("assistant", "Atlas", 1741003500000000000)]
    assert "幫我訂花蓮的火車票" in ok(cli(db, "search", "seed", "火車")).stdout


def test_bad_import_names_the_line_and_imports_nothing(db: Path, tmp_path: Path) -> None:
    good = {"type": "message", "role": "user", "content": "fine"}
    bad = {"type": "message", "role": "user", "content": 42}
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (good, good, bad, good)), encoding="utf-8")
    result = cli(db, "import", "s", str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith("error: line 3: content")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert stored(db, "s") == []
    # Broken JSON, a bad history entry and undecodable bytes: same treatment.
    cases = [("line 2", '{"type": "message", "role": "user", "content": "a"}\n{oops'),
             ("history[1].role", '[{"role": "user", "content": "a"}, {"role": "x"}]')]
    for field, text in cases:
        result = cli(db, "import", "s", "-", stdin=text)
        assert result.exit_code == 2 and result.stderr.startswith(f"error: {field}"), field
    path.write_bytes(b'{"type": "message", "role": "user", "content": "a"}\n\xff\xfe\n')
    result = cli(db, "import", "s", str(path))
    assert result.exit_code == 2 and result.stderr.startswith("error: line 2")
    missing = cli(db, "import", "s", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 2 and "FILE" in missing.stderr
    assert stored(db, "s") == []


# -- bad input, options, environment -------------------------------------------------------


@pytest.mark.parametrize(("args", "field"), [
    (["add", "s", "robot", "hi"], "role"),
    (["add", "bad id", "user", "hi"], "session"),
    (["add", "s", "user", "hi", "--at", "yesterday"], "--at"),
    (["search", "s", "x", "--time-range", "2w"], "time_range"),
    (["search", "s", "x", "--match", "fuzzy"], "match"),
    (["search", "s", "x", "--limit", "99"], "limit"),
    (["search", "s", "   "], "query"),
    (["search", "--all", "s", "x"], "query"),
    (["search", "onlyone"], "query"),
    (["--tenant", "no spaces", "sessions"], "tenant"),
    (["stats", "nothing-here"], "no session"),
])
def test_bad_input_exits_2_with_one_red_line(db: Path, args: list[str], field: str) -> None:
    result = cli(db, *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and field in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_bad_settings_exit_2(db: Path, tmp_path: Path) -> None:
    result = cli(db, "sessions", env={"MEMSTRATA_WINDOW_MESSAGES": "lots"})
    assert result.exit_code == 2 and "MEMSTRATA_WINDOW_MESSAGES" in result.stderr
    config = tmp_path / "bad.toml"
    config.write_text("colour = 'blue'\n", encoding="utf-8")
    result = cli(db, "--config", str(config), "sessions")
    assert result.exit_code == 2 and "colour" in result.stderr


def test_memstrata_db_environment_variable(tmp_path: Path) -> None:
    db = tmp_path / "from-env.db"
    ok(cli(None, "add", "s", "user", "hello", env={"MEMSTRATA_DB": str(db)}))
    assert db.exists()
    assert as_json(cli(db, "--json", "sessions"))[0]["id"] == "s"
    # --db wins over the variable.
    other = tmp_path / "explicit.db"
    ok(cli(other, "add", "t", "user", "hi", env={"MEMSTRATA_DB": str(db)}))
    assert [s["id"] for s in as_json(cli(db, "--json", "sessions"))] == ["s"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG_DATA_HOME is Linux's")
def test_default_database_lives_in_the_user_data_directory(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "MEMSTRATA_DB": ""}
    ok(cli(None, "add", "s", "user", "hello", env=env))
    assert (tmp_path / "data" / "memstrata" / "memory.db").exists()


def test_tenants_are_separate(db: Path) -> None:
    ok(cli(db, "--tenant", "acme", "add", "s", "user", "secret plan"))
    assert as_json(cli(db, "--json", "search", "--all", "secret")) == []
    assert len(as_json(cli(db, "--tenant", "acme", "--json", "search", "--all", "secret"))) == 1


# -- the demo ------------------------------------------------------------------------------


def test_demo_data_is_a_bilingual_conversation() -> None:
    records = [json.loads(line) for line in demo_records()]
    assert 40 <= len(records) <= 60
    assert {r["role"] for r in records} == {"user", "assistant"}
    assert all(r["sender"] and r["at"] for r in records)
    days = {r["at"] // (86_400 * 10**9) for r in records}
    assert len(days) >= 3
    assert sum(any("\u4e00" <= c <= "\u9fff" for c in r["content"]) for r in records) >= 10


def test_demo_in_process_json(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    data = as_json(cli(db, "--json", "demo"))
    assert data["loaded"] == 50 and len(data["context"]["messages"]) == 16
    assert data["after_summarize"]["summary_kind"] == "digest"
    by_query = {s["query"]: s["hits"] for s in data["searches"]}
    assert set(by_query) == {"train", "night market", "花蓮", '"NEAR" OR ('}
    assert all("花蓮" in h["message"]["content"] for h in by_query["花蓮"])
    assert by_query["花蓮"] and by_query["train"] and by_query["night market"]
    # With --db the database is kept, and a second run replaces the session, not doubles it.
    ok(cli(db, "demo"))
    assert as_json(cli(db, "--json", "stats", DEMO_SESSION))["messages"] == 50


def run_module(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **ENV, "PYTHONIOENCODING": "utf-8"}
    env.pop("MEMSTRATA_DB", None)
    return subprocess.run([sys.executable, "-W", "error", "-m", "memstrata", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, encoding="utf-8",
                          timeout=120, check=False)


def test_demo_as_a_real_process(tmp_path: Path) -> None:
    result = run_module("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for heading in ("Context window", "Summarize", "Search", "Stats"):
        assert heading in out
    assert "search '花蓮'" in out and "我妹妹想去花蓮看太魯閣" in out
    assert "Prior summary (automatic digest" in out
    assert list(tmp_path.iterdir()) == []  # the temporary database is gone


def test_real_process_round_trip_and_error(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    assert run_module("--db", db, "add", "s", "user", "台北的夜市", cwd=tmp_path).returncode == 0
    found = run_module("--db", db, "--json", "search", "s", "夜市", cwd=tmp_path)
    assert json.loads(found.stdout)[0]["message"]["content"] == "台北的夜市"
    bad = run_module("--db", db, "add", "s", "system", "hi", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("error: role")
    assert "Traceback" not in bad.stderr


# -- the core, as the CLI's callers meet it ------------------------------------------------
# Import errors from the core name the line or the field as the user wrote it.


def test_core_import_of_undecodable_bytes_is_invalid_input() -> None:
    from memstrata.errors import InvalidInput

    async def go() -> None:
        async with Memory.open(":memory:", settings=Settings(embedder=None),
                               background=False) as mem:
            with pytest.raises(InvalidInput, match="line 1"):
                await mem.import_("s", [b"\xff"])

    asyncio.run(go())


def test_core_history_error_names_the_field_as_written() -> None:
    from memstrata.errors import InvalidInput

    async def go() -> None:
        async with Memory.open(":memory:", settings=Settings(embedder=None),
                               background=False) as mem:
            with pytest.raises(InvalidInput, match=r"history\[0\]\.sendAt"):
                await mem.import_history("s", [{"role": "user", "content": "x",
                                                "sendAt": "12"}])

    asyncio.run(go())


def test_the_demo_explains_what_it_shows(tmp_path: Path) -> None:
    shown = " ".join(ok(cli(tmp_path / "d.db", "demo",
                            env={"MEMSTRATA_EMBEDDER": "hash:64"})).stdout.split())
    assert "search '\"NEAR\" OR (' (keyword): 2 hits Search syntax is not interpreted" in shown
    header = re.search(r"search 'beef noodle soup for dinner' \(semantic\): (\d+) hits? and "
                       r"(\d+) messages? around (?:it|them) \(·\)", shown)
    assert header is not None, shown
    for legend in ("hot_messages, hot_bytes: the messages after the cutoff",
                   "cutoff: the id up to which", "cursor: the id of the newest message the "
                   "summary covers", "index_backlog: messages still waiting"):
        assert legend in shown
